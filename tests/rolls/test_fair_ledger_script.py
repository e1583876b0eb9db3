"""docs/verify_ledger.py recomputes the fair dice of an export: dice commits and seed reveals,
every roll's draws from the revealed seed (a revealed secret roll's too), the rest awaiting.

The session's rows are chained here through chain_append, shaped as the fair-dice spec says
(docs/audit.md, "Provably fair dice"); the site's own turn opening will write them itself."""

import hashlib
import re
import uuid

import pytest
from django.db import transaction

from diary.services import current_turn
from rolls.engine import notation
from rolls.engine.dice import ScriptedDice
from rolls.engine.fair import SCHEME, SeededDice, seed_commitment
from rolls.services import chain_append, lock_session, secret_roll_reveal, target_post
from tests.rolls.test_audit_script import export, run_script
from tests.rolls.test_secret_rolls import _rechain_and_resign

pytestmark = pytest.mark.django_db


class Chain:
    """Rows of one session chained as the fair-dice scheme has them."""

    def __init__(self, table):
        self.table = table
        self.seeds = {}  # turn -> {"public": seed, "secret": seed}
        self.commits = {}  # turn -> seq of its dice_commit

    def append(self, body, *, turn_offset=0, secret=False, test="notation"):
        table = self.table
        with transaction.atomic():
            locked = lock_session(table.session)
            turn = current_turn(locked)
            number = turn.number + turn_offset
            return chain_append(
                locked,
                table.gm,
                post=target_post(locked, table.gm, turn, None),
                turn_number=number,
                character_id=None,
                test=test,
                is_action=False,
                token=uuid.uuid4(),
                digest=test,
                body=lambda seq: body(seq, number),
                secret=secret,
            )

    def commit(self, turn_offset=0):
        def body(_seq, turn):
            # Fixed seeds: a tampered die must fail the same way on every run.
            self.seeds[turn] = {
                s: hashlib.sha256(f"{turn}/{s}".encode()).hexdigest() for s in ("public", "secret")
            }
            part = {
                stream: seed_commitment(
                    session=self.table.session.pk, turn=turn, stream=stream, seed=seed
                )
                for stream, seed in self.seeds[turn].items()
            }
            return {
                "kind": "dice_commit",
                "post": None,
                "dice_commit": {"scheme": SCHEME, "turn": turn, **part},
            }

        row = self.append(body, turn_offset=turn_offset, test="dice_commit")
        self.commits[row.record["turn"]] = row.seq
        return row

    def roll(
        self,
        expression="2d6+1",
        *,
        stream="public",
        turn_offset=0,
        wrong_die=None,
        client_seed_by="browser",
    ):
        def body(seq, turn):
            client_seed = hashlib.sha256(f"client/{seq}".encode()).hexdigest()[:32]
            dice = SeededDice(
                seed=self.seeds[turn][stream],
                session=self.table.session.pk,
                seq=seq,
                client_seed=client_seed,
            )
            result = notation.roll_notation(notation.parse_notation(expression), dice)
            draws = [list(d) for d in dice.draws]
            if wrong_die is not None:
                # Built so: the result rolled from the wrong faces, the draws list them.
                low, high, face = draws[wrong_die]
                draws[wrong_die] = [low, high, low + (face - low + 1) % (high - low + 1)]
                scripted = ScriptedDice([draw[2] for draw in draws])
                result = notation.roll_notation(notation.parse_notation(expression), scripted)
            return {
                "kind": notation.TEST,
                "characters": {},
                "label": "Test",
                "result": result.to_dict(),
                "fair": {
                    "scheme": SCHEME,
                    "commit": self.commits[turn],
                    "stream": stream,
                    "client_seed": client_seed,
                    "client_seed_by": client_seed_by,
                    "draws": draws,
                },
            }

        return self.append(body, turn_offset=turn_offset, secret=stream == "secret")

    def reveal_secret_roll(self, seq):
        return secret_roll_reveal(session=self.table.session, by=self.table.gm, seq=seq).roll

    def reveal_seeds(self, turn_offset=0, streams=("public", "secret"), seeds=None):
        def body(_seq, turn):
            given = {s: self.seeds[turn][s] for s in streams}
            return {
                "kind": "dice_reveal",
                "post": None,
                "dice_reveal": {
                    "turn": turn,
                    "commit": self.commits[turn],
                    "seeds": {**given, **(seeds or {})},
                },
            }

        return self.append(body, turn_offset=turn_offset, test="dice_reveal")


def full_session(table) -> Chain:
    """#1 commit, #2 public roll, #3 secret roll, #4 its reveal, #5 both seeds revealed,
    #6 the next turn's commit, #7 a roll of it (awaiting its reveal)."""
    chain = Chain(table)
    chain.commit()
    chain.roll("10d6+1")  # ten dice: another client seed changes at least one of them
    chain.roll("1d20", stream="secret")
    chain.reveal_secret_roll(3)
    chain.reveal_seeds()
    chain.commit(turn_offset=1)
    chain.roll("3d10", turn_offset=1, client_seed_by="server")
    return chain


def test_an_honest_export_verifies_with_its_dice_counts(table, client_for, tmp_path):
    full_session(table)
    done = run_script(tmp_path, export(table, client_for))
    assert done.returncode == 0, done.stdout + done.stderr
    first = done.stdout.splitlines()[0]
    assert first.startswith("OK: 7 rolls, head ")
    assert first.endswith(
        "; dice recomputed from the revealed seeds: 2 rolls, awaiting their turn's reveal: 1"
    )


def test_a_reveal_in_two_parts_and_rolls_before_it(table, client_for, tmp_path):
    chain = Chain(table)
    chain.commit()
    chain.roll("1d1000")
    chain.reveal_seeds(streams=("public",))
    chain.reveal_seeds(streams=("secret",))
    done = run_script(tmp_path, export(table, client_for))
    assert done.returncode == 0, done.stdout
    assert "recomputed from the revealed seeds: 1 rolls, awaiting their turn's reveal: 0" in (
        done.stdout
    )


def _another_face(record: dict, index: int) -> None:
    """A forger's die: the draw and the result's dice changed alike (else the result would
    not be the draws, found before any seed is needed)."""
    draw = record["fair"]["draws"][index]
    draw[2] = draw[2] % 6 + 1
    record["result"]["dice"][index] = draw[2]


def forged(table, client_for, change) -> dict:
    """The export, changed and then rechained and re-signed: chain and signatures pass, only
    the dice check can tell."""
    data = export(table, client_for)
    change({roll["seq"]: roll["record"] for roll in data["rolls"]})
    _rechain_and_resign(data)
    return data


def test_a_forged_but_untouched_export_passes(table, client_for, tmp_path):
    full_session(table)
    assert run_script(tmp_path, forged(table, client_for, lambda records: None)).returncode == 0


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda r: r[5]["dice_reveal"]["seeds"].update(public="ab" * 32),
            "BROKEN at #5: bad seed reveal: the public seed does not give #1's commitment",
        ),
        (
            lambda r: r[5]["dice_reveal"]["seeds"].update(secret="AB" * 32),
            "BROKEN at #5: bad seed reveal: the secret seed is not 64 hex digits",
        ),
        (
            lambda r: r[2]["fair"].update(client_seed="0" * 32),
            r"BROKEN at #2: die \d+ does not follow from the revealed seed",
        ),
        (
            lambda r: _another_face(r[2], 1),
            "BROKEN at #2: die 2 does not follow from the revealed seed",
        ),
        (
            lambda r: r[2]["result"]["dice"].__setitem__(1, r[2]["result"]["dice"][1] % 6 + 1),
            "BROKEN at #2: bad fair part: its result's dice are not its draws",
        ),
        (
            lambda r: r[2]["fair"].update(commit=6),
            "BROKEN at #2: bad fair part: #6 is not an earlier dice commit",
        ),
        (
            lambda r: r[7]["fair"].update(commit=1),
            "BROKEN at #7: bad fair part: #1 committed another turn than the roll's",
        ),
        (
            lambda r: r[2]["fair"].update(stream="secret"),
            "BROKEN at #2: bad fair part: stream 'secret', not 'public'",
        ),
        (
            lambda r: r[6]["dice_commit"].update(turn=r[1]["turn"]),
            "BROKEN at #6: bad dice commit: names another turn than its own",
        ),
        (
            lambda r: r[5]["dice_reveal"].update(commit=6),
            "BROKEN at #5: bad seed reveal: #6 is not an earlier dice commit",
        ),
        (
            lambda r: r[5].update(dice_reveal=["ab" * 32]),
            "BROKEN at #5: bad seed reveal: no dice_reveal part",
        ),
    ],
    ids=[
        "seed",
        "seed-not-hex",
        "client-seed",
        "face",
        "result-dice",
        "later-commit",
        "other-turn",
        "stream",
        "commit-turn",
        "reveal-names-later",
        "reveal-not-an-object",
    ],
)
def test_a_forged_dice_part_names_the_roll(table, client_for, tmp_path, change, expected):
    full_session(table)
    done = run_script(tmp_path, forged(table, client_for, change))
    assert done.returncode == 1
    assert re.search(expected, done.stdout), done.stdout


def test_a_second_commit_of_a_turn_and_a_second_reveal_are_refused(table, client_for, tmp_path):
    chain = Chain(table)
    chain.commit()
    chain.commit()  # the same turn again
    done = run_script(tmp_path, export(table, client_for))
    assert "BROKEN at #2: bad dice commit: turn" in done.stdout
    assert "was committed before" in done.stdout


def test_a_seed_revealed_twice_is_refused(table, client_for, tmp_path):
    chain = Chain(table)
    chain.commit()
    chain.reveal_seeds(streams=("public",))
    chain.reveal_seeds(streams=("public",))
    done = run_script(tmp_path, export(table, client_for))
    assert "BROKEN at #3: bad seed reveal: the public seed was revealed before" in done.stdout


def test_a_wrong_face_of_a_revealed_secret_roll_names_it(table, client_for, tmp_path):
    """Built wrong from the start: the secret roll's commitment and its reveal hold, but its
    dice do not follow from the secret seed once that is revealed."""
    chain = Chain(table)
    chain.commit()
    chain.roll("1d20", stream="secret", wrong_die=0)
    chain.reveal_secret_roll(2)
    data = export(table, client_for)
    awaiting = run_script(tmp_path, data)  # the secret seed is not out yet
    assert awaiting.returncode == 0, awaiting.stdout
    assert "0 rolls, awaiting their turn's reveal: 1" in awaiting.stdout
    chain.reveal_seeds()
    done = run_script(tmp_path, export(table, client_for))
    assert done.returncode == 1
    assert "BROKEN at #2: die 1 does not follow from the revealed seed" in done.stdout


def test_a_wrong_face_of_a_public_roll_built_so(table, client_for, tmp_path):
    chain = Chain(table)
    chain.commit()
    chain.roll("1d1000")
    chain.roll("4d6", wrong_die=3)
    chain.reveal_seeds()
    done = run_script(tmp_path, export(table, client_for))
    assert done.returncode == 1
    assert "BROKEN at #3: die 4 does not follow from the revealed seed" in done.stdout
