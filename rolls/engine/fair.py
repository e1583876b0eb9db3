"""Provably fair dice: every face derived from a turn's committed seed and the roller's seed.

The site draws a secret seed when a turn opens and chains only its commitment; the roller's
page draws its own seed for each roll. A die is then

    HMAC-SHA256(key = the turn seed's 32 bytes,
                msg = DIE_DOMAIN + canonical_json({"attempt", "client_seed", "die", "high",
                                                   "low", "seq", "session"}))

read as a 256-bit big-endian number `v`; with `n = high - low + 1` faces, `v` is accepted when
it is below the largest multiple of `n` not above 2**256 (rejection sampling: no modulo
bias) and the face is `low + v % n`; otherwise `attempt` goes up by one and the HMAC is taken
again. `die` counts the roll's draws from 0 in the order the engine asks for them (exploding
and extra dice continue the same sequence). Neither side alone steers a face: the seed was
fixed (committed in the chain) before the roller's seed was known, and the roller's seed is
chosen without the site's. docs/audit.md gives a worked example.

Pure Python, no Django: the engine's tests take any `DiceSource`, this is one.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re

SCHEME = "hmac-sha256-v1"
SEED_BYTES = 32
CLIENT_SEED_PATTERN = re.compile(r"^[0-9a-f]{32,128}$")
COMMIT_DOMAIN = b"codziennik/dice-seed/v1\n"
DIE_DOMAIN = b"codziennik/die/v1\n"
_SPACE = 2**256


def canonical_json(value) -> bytes:
    """Keys sorted, no insignificant whitespace, UTF-8, no ASCII escaping: the encoding the
    chain hashes (rolls/ledger/chain.py) and the seeds' commitments use."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def seed_commitment(*, session: int, turn: int, stream: str, seed: str) -> str:
    """What the chain holds of a turn's seed before it is revealed: SHA-256 over the domain
    and the seed bound to its session, turn and stream ("public" or "secret")."""
    payload = {"seed": seed, "session": session, "stream": stream, "turn": turn}
    return hashlib.sha256(COMMIT_DOMAIN + canonical_json(payload)).hexdigest()


def die_message(
    *, session: int, seq: int, client_seed: str, die: int, low: int, high: int, attempt: int
) -> bytes:
    payload = {
        "attempt": attempt,
        "client_seed": client_seed,
        "die": die,
        "high": high,
        "low": low,
        "seq": seq,
        "session": session,
    }
    return DIE_DOMAIN + canonical_json(payload)


def derive_face(
    *, seed: str, session: int, seq: int, client_seed: str, die: int, low: int, high: int
) -> int:
    """The face of draw number `die` (0-based) on a `low..high` die."""
    faces = high - low + 1
    if faces < 1:
        raise ValueError(f"a die needs at least one face, not {low}..{high}")
    key = bytes.fromhex(seed)
    limit = _SPACE - _SPACE % faces
    attempt = 0
    while True:
        message = die_message(
            session=session,
            seq=seq,
            client_seed=client_seed,
            die=die,
            low=low,
            high=high,
            attempt=attempt,
        )
        value = int.from_bytes(hmac.new(key, message, hashlib.sha256).digest(), "big")
        if value < limit:
            return low + value % faces
        attempt += 1


class SeededDice:
    """A roll's dice from the turn's seed and the roller's seed, with every draw kept so that
    the record can list them ([low, high, face] in order) for verifiers without the engine."""

    def __init__(self, *, seed: str, session: int, seq: int, client_seed: str) -> None:
        self._seed, self._session, self._seq = seed, session, seq
        self._client_seed = client_seed
        self.draws: list[list[int]] = []

    def roll(self, low: int, high: int) -> int:
        face = derive_face(
            seed=self._seed,
            session=self._session,
            seq=self._seq,
            client_seed=self._client_seed,
            die=len(self.draws),
            low=low,
            high=high,
        )
        self.draws.append([low, high, face])
        return face


def draws_match(*, seed: str, session: int, seq: int, client_seed: str, draws) -> int | None:
    """None when every listed draw is the face its seeds give, else the first wrong draw's
    index (a draw that is not [low, high, face] of whole numbers is wrong too)."""
    for index, draw in enumerate(draws):
        if (
            not isinstance(draw, list)
            or len(draw) != 3
            or not all(type(n) is int for n in draw)
            or draw[1] < draw[0]
        ):
            return index
        low, high, face = draw
        expected = derive_face(
            seed=seed,
            session=session,
            seq=seq,
            client_seed=client_seed,
            die=index,
            low=low,
            high=high,
        )
        if face != expected:
            return index
    return None
