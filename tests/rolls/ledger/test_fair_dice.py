"""The fair dice's derivation (rolls/engine/fair.py) against a reimplementation from the
spec, its uniformity, its rejection sampling, and the engine's rules through it. No DB."""

import hashlib
import hmac
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from rolls.engine import systems
from rolls.engine.dice import ScriptedDice
from rolls.engine.fair import SeededDice, derive_face, draws_match, seed_commitment
from tests.rolls.engine.vector_folders import OWN_VECTORS, SHARED_VECTORS

REPO = Path(__file__).resolve().parents[3]
SEED = "0123456789abcdef" * 4
CLIENT_SEED = "a5" * 16


# -- the scheme as the spec words it, written apart from the engine ---------------------------


def _encode(value) -> bytes:
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def reference_commitment(session, turn, stream, seed) -> str:
    body = {"seed": seed, "session": session, "stream": stream, "turn": turn}
    return hashlib.sha256(b"codziennik/dice-seed/v1\n" + _encode(body)).hexdigest()


def reference_digest(seed, session, seq, client_seed, die, low, high, attempt) -> bytes:
    body = {
        "attempt": attempt,
        "client_seed": client_seed,
        "die": die,
        "high": high,
        "low": low,
        "seq": seq,
        "session": session,
    }
    message = b"codziennik/die/v1\n" + _encode(body)
    return hmac.new(bytes.fromhex(seed), message, hashlib.sha256).digest()


def reference_face(seed, session, seq, client_seed, die, low, high) -> tuple[int, int]:
    """(face, the attempt that gave it)."""
    n = high - low + 1
    limit = 2**256 - (2**256 % n)
    attempt = 0
    while True:
        v = int.from_bytes(
            reference_digest(seed, session, seq, client_seed, die, low, high, attempt)
        )
        if v < limit:
            return low + v % n, attempt
        attempt += 1


# -- known answers -------------------------------------------------------------------------------

# Computed once from the spec; kept literal so that the engine and the reference above cannot
# drift together.
COMMITMENTS = [
    (
        (7, 3, "public", "00" * 32),
        "c3d3e2879e57d77a488fdf64cbf280e79ad71ae5797ef7cdfd791ef09d4b19f1",
    ),
    (
        (7, 3, "secret", "ff" * 32),
        "d07f2e12cb5398cd7681fcdbb8cfd95e175c8650a8d2b1725ba99d555be7f9f3",
    ),
]
FACES = [
    ((1, 10), [9, 3, 7, 2]),
    ((1, 1000), [660, 905, 530, 854]),
    ((0, 9), [5, 9, 9, 1]),
]


@pytest.mark.parametrize(("args", "expected"), COMMITMENTS)
def test_seed_commitment_known_answers(args, expected):
    session, turn, stream, seed = args
    assert reference_commitment(session, turn, stream, seed) == expected
    assert seed_commitment(session=session, turn=turn, stream=stream, seed=seed) == expected


def test_the_commitment_binds_session_turn_stream_and_seed():
    base = {"session": 7, "turn": 3, "stream": "public", "seed": "00" * 32}
    variants = [
        {**base, "session": 8},
        {**base, "turn": 4},
        {**base, "stream": "secret"},
        {**base, "seed": "00" * 31 + "01"},
    ]
    assert len({seed_commitment(**v) for v in [base, *variants]}) == 5
    for v in variants:
        assert seed_commitment(**v) == reference_commitment(
            v["session"], v["turn"], v["stream"], v["seed"]
        )


@pytest.mark.parametrize(("die_range", "expected"), FACES)
def test_derive_face_known_answers(die_range, expected):
    low, high = die_range
    for die, face in enumerate(expected):
        assert reference_face(SEED, 7, 12, CLIENT_SEED, die, low, high) == (face, 0)
        kwargs = {"seed": SEED, "session": 7, "seq": 12, "client_seed": CLIENT_SEED}
        assert derive_face(**kwargs, die=die, low=low, high=high) == face


def test_every_input_of_a_die_changes_its_digest():
    base = (SEED, 7, 12, CLIENT_SEED, 0, 1, 1000, 0)
    digests = {reference_digest(*base)}
    for index, other in enumerate(["ff" * 32, 8, 13, "b6" * 16, 1, 0, 999, 1]):
        changed = list(base)
        changed[index] = other
        digests.add(reference_digest(*changed))
    assert len(digests) == 9


def test_seeded_dice_lists_its_draws_and_they_verify():
    dice = SeededDice(seed=SEED, session=7, seq=12, client_seed=CLIENT_SEED)
    faces = [dice.roll(1, 10), dice.roll(1, 1000), dice.roll(0, 9)]
    assert faces == [9, 905, 9]  # die numbers run on across die sizes
    assert dice.draws == [[1, 10, 9], [1, 1000, 905], [0, 9, 9]]
    ok = {"seed": SEED, "session": 7, "seq": 12, "client_seed": CLIENT_SEED}
    assert draws_match(**ok, draws=dice.draws) is None
    assert draws_match(**ok, draws=[[1, 10, 9], [1, 1000, 904]]) == 1
    assert draws_match(**{**ok, "seq": 13}, draws=dice.draws) is not None
    assert draws_match(**ok, draws=[[1, 10, True]]) == 0


# -- uniformity ----------------------------------------------------------------------------------

Z_999 = 3.090232306167813  # the standard normal's 0.999 quantile


def chi_square_bounds(df: int) -> tuple[float, float]:
    """χ²'s 0.001 and 0.999 quantiles by Wilson–Hilferty."""
    a = 2 / (9 * df)
    return tuple(df * (1 - a + z * math.sqrt(a)) ** 3 for z in (-Z_999, Z_999))


def chi_square(counts: list[int], total: int) -> float:
    expected = total / len(counts)
    return sum((c - expected) ** 2 / expected for c in counts)


def test_chi_square_bounds_are_the_tables():
    low, high = chi_square_bounds(9)
    assert abs(high - 27.877) < 0.3 and abs(low - 1.152) < 0.15  # W–H is close, not exact
    low, high = chi_square_bounds(999)
    assert abs(high - 1143.9) < 2 and abs(low - 867.5) < 2


def test_a_million_d10_and_a_million_d1000_faces_are_uniform():
    """Two million HMACs (about 20 s on one core): one test, so that it runs as one."""
    total = 10**6
    for high, client_seed in ((10, "c0" * 16), (1000, "d1" * 16)):
        counts = [0] * high
        for i in range(total):
            seq, die = divmod(i, 1000)
            face = derive_face(
                seed=SEED,
                session=3,
                seq=seq + 1,
                client_seed=client_seed,
                die=die,
                low=1,
                high=high,
            )
            counts[face - 1] += 1
        low_bound, high_bound = chi_square_bounds(high - 1)
        statistic = chi_square(counts, total)
        assert low_bound < statistic < high_bound, (high, statistic)


# -- rejection sampling --------------------------------------------------------------------------


def test_rejection_sampling_redraws_above_the_limit():
    """n = 2**255 + 1 faces: the largest multiple of n not above 2**256 is n itself, so about
    half of all first digests are refused and the die is drawn again with attempt + 1."""
    low, high = 0, 2**255
    draws = 2000
    kwargs = {"seed": SEED, "session": 9, "seq": 4, "client_seed": CLIENT_SEED}
    faces, attempts = [], []
    for die in range(draws):
        face = derive_face(**kwargs, die=die, low=low, high=high)
        expected, attempt = reference_face(SEED, 9, 4, CLIENT_SEED, die, low, high)
        assert face == expected
        assert low <= face <= high
        if attempt:
            # The refused digests were at or above the limit, the accepted one is the face.
            for refused in range(attempt):
                digest = reference_digest(SEED, 9, 4, CLIENT_SEED, die, low, high, refused)
                assert int.from_bytes(digest) > 2**255
        faces.append(face)
        attempts.append(attempt)
    redrawn = sum(a > 0 for a in attempts)
    assert 0.4 * draws < redrawn < 0.6 * draws
    assert max(attempts) >= 3
    # Uniform-ish over 8 equal slices of the range.
    counts = [0] * 8
    for face in faces:
        counts[face * 8 // (high + 1)] += 1
    assert chi_square(counts, draws) < chi_square_bounds(7)[1]


def test_a_die_without_faces_is_refused():
    with pytest.raises(ValueError, match="at least one face"):
        derive_face(seed=SEED, session=1, seq=1, client_seed=CLIENT_SEED, die=0, low=5, high=4)


# -- the engine's rules are untouched ------------------------------------------------------------


def test_the_conformance_vectors_still_pass():
    files = sorted(SHARED_VECTORS.glob("*.jsonl")) + sorted(OWN_VECTORS.glob("*.jsonl"))
    assert len(files) >= 8
    done = subprocess.run(
        [sys.executable, "-m", "rolls.conformance", *map(str, files)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1].endswith(" 0 failed")


def first_case(system: str, test: str) -> dict:
    for line in (SHARED_VECTORS / f"{system}.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line) if line.strip() else {}
        if case.get("test") == test and "error" not in case.get("expect", {}):
            return case
    raise AssertionError(f"no {system} {test} case")


@pytest.mark.parametrize(
    ("system", "test", "dice_of"),
    [
        ("forum1000", "attribute", lambda r: [r["roll"]]),
        ("q10", "pool", lambda r: [*r["faces"], *r["extra"]]),
        ("ciernie", "attribute", lambda r: [r["roll"]]),
        ("arsmagica", "simple", lambda r: [r["die"] % 10]),  # a 0 counts as 10
    ],
)
def test_seeded_dice_drive_each_system(system, test, dice_of):
    case = first_case(system, test)
    parsed = systems.parse_test(system, case["test"], case["input"])
    for seq in range(1, 21):
        dice = SeededDice(seed=SEED, session=5, seq=seq, client_seed=CLIENT_SEED)
        result = systems.roll(system, parsed, dice).to_dict()
        faces = [face for _, _, face in dice.draws]
        assert dice_of(result) == faces
        for die, (low, high, face) in enumerate(dice.draws):
            assert reference_face(SEED, 5, seq, CLIENT_SEED, die, low, high)[0] == face
        # The same faces scripted give the same result: the rules see only the faces.
        scripted = ScriptedDice(faces)
        assert systems.roll(system, parsed, scripted).to_dict() == result
        assert scripted.all_consumed


# -- pinned encodings and refusals (each found by mutation testing: a change every test let
# through) --------------------------------------------------------------------------------------


def test_a_draw_with_its_high_below_its_low_is_named_wrong():
    ok = {"seed": SEED, "session": 7, "seq": 12, "client_seed": CLIENT_SEED}
    assert draws_match(**ok, draws=[[6, 1, 3]]) == 0
    assert draws_match(**ok, draws=[[5, 4, 5]]) == 0
    assert draws_match(**ok, draws=[[1, 10, 9], [10, 1, 5]]) == 1
    # One face is a die too (low equal to high): its one face follows from any seed.
    assert draws_match(**ok, draws=[[3, 3, 3]]) is None


# A record with its keys out of order, nested, and a Polish label: canonical JSON sorts the
# keys at every depth, writes no spaces and keeps UTF-8 as it is. The hashes below were
# computed once from these literal bytes (hashlib over them, not through canonical_json).
UNSORTED_RECORD = {
    "result": {"total": 8, "input": {"version": 2, "expression": "2k6+1"}, "dice": [3, 4]},
    "label": "Łup z pieczary",
    "kind": "notation",
}
CANONICAL_BYTES = (
    '{"kind":"notation","label":"Łup z pieczary","result":{"dice":[3,4],'
    '"input":{"expression":"2k6+1","version":2},"total":8}}'
).encode()


def test_canonical_json_sorts_keys_at_every_depth():
    from rolls.ledger.chain import canonical_json

    assert canonical_json(UNSORTED_RECORD) == CANONICAL_BYTES


def test_a_chain_hash_and_a_secret_commitment_known_answers():
    from rolls.ledger.chain import GENESIS_HASH, chain_hash
    from rolls.ledger.secret import commitment_for

    assert chain_hash(GENESIS_HASH, UNSORTED_RECORD) == (
        "962b0d9023b50e4eb511b616819650b0dcf6ba3801c254c82077977392170ab2"
    )
    assert commitment_for(UNSORTED_RECORD, "ab" * 16) == (
        "32b6ea9bb1903bb4869be7d948d003eeb7715d9d8f3de541253c781bfe50f87e"
    )
