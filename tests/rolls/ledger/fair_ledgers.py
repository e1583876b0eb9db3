"""Crafted chains of the fair-dice scheme, shared by the three verifiers' tests: the site's
(rolls.ledger.verify and rolls.ledger.fair_check), docs/verify_ledger.py and the archive's
verify.html.

`Chain` appends rows shaped as docs/audit.md ("Provably fair dice") says, through the one
writer (chain_append), so that a test can build what the site would never write. `REFUSED`
names chains each rule must refuse, with the number every verifier must name and the words
each says; `ended_session` is a chain every verifier must accept."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from django.db import transaction

from diary import services as diary_services
from diary.services import current_turn
from rolls.engine import notation
from rolls.engine.dice import ScriptedDice, SystemDice
from rolls.engine.fair import SCHEME, SeededDice, seed_commitment
from rolls.ledger import fair_dice
from rolls.services import chain_append, lock_session, secret_roll_reveal, target_post

POSTLESS = ("dice_commit", "dice_reveal", "session_end")


class _NarrowDice(SeededDice):
    """A forger's dice: every die drawn one face short of the one the rules ask for."""

    def roll(self, low: int, high: int) -> int:
        return super().roll(low, high - 1)


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
            post = None if test in POSTLESS else target_post(locked, table.gm, turn, None)
            return chain_append(
                locked,
                table.gm,
                post=post,
                turn_number=number,
                character_id=None,
                test=test,
                is_action=False,
                token=uuid.uuid4(),
                digest=test,
                body=lambda seq: {**body(seq, number), "post": post.pk if post else None},
                announce=None,
                secret=secret,
            )

    def open_turn(self):
        """The session's next turn, opened with no entry of the site's own (a test's chain
        says itself what the turn's dice entries are)."""
        with fair_dice.turns_open_unseeded():
            diary_services.turn_open_next(session=self.table.session, by=self.table.gm)
        self.table.session.refresh_from_db()

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
            return {"kind": "dice_commit", "dice_commit": {"scheme": SCHEME, "turn": turn, **part}}

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
        fair=True,
        extra_die=False,
        narrow=False,
    ):
        """A free-form roll. `wrong_die`: that die's face changed (the result rolled from the
        wrong faces); `extra_die`: one honest die drawn beyond what the rules ask for;
        `narrow`: every die drawn on a range one face short; `fair=False`: the server's dice,
        no fair part."""

        def body(seq, turn):
            parsed = notation.parse_notation(expression)
            if not fair:
                result = notation.roll_notation(parsed, SystemDice())
                return {
                    "kind": notation.TEST,
                    "characters": {},
                    "label": "Test",
                    "result": result.to_dict(),
                }
            client_seed = hashlib.sha256(f"client/{seq}".encode()).hexdigest()[:32]
            dice = (_NarrowDice if narrow else SeededDice)(
                seed=self.seeds[turn][stream],
                session=self.table.session.pk,
                seq=seq,
                client_seed=client_seed,
            )
            result = notation.roll_notation(parsed, dice).to_dict()
            if extra_die:
                dice.roll(1, 6)
                result["dice"].append(dice.draws[-1][2])
            draws = [list(d) for d in dice.draws]
            if wrong_die is not None:
                # Built so: the result rolled from the wrong faces, the draws list them.
                low, high, face = draws[wrong_die]
                draws[wrong_die] = [low, high, low + (face - low + 1) % (high - low + 1)]
                scripted = ScriptedDice([draw[2] for draw in draws])
                result = notation.roll_notation(parsed, scripted).to_dict()
            return {
                "kind": notation.TEST,
                "characters": {},
                "label": "Test",
                "result": result,
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

    def reveal_seeds(self, turn_offset=0, streams=("public", "secret"), seeds=None, of_turn=None):
        """The seeds of the entry's own turn, or of turn `of_turn` (a reveal placed in
        another turn than the one it reveals)."""

        def body(_seq, turn):
            revealed = turn if of_turn is None else of_turn
            given = {s: self.seeds[revealed][s] for s in streams}
            return {
                "kind": "dice_reveal",
                "dice_reveal": {
                    "turn": revealed,
                    "commit": self.commits[revealed],
                    "seeds": {**given, **(seeds or {})},
                },
            }

        return self.append(body, turn_offset=turn_offset, test="dice_reveal")

    def end(self):
        """The session's end entry, as the site appends it after the end's reveals."""
        return self.append(
            lambda _seq, _turn: {"kind": "session_end", "session_end": {"status": "finished"}},
            test="session_end",
        )


def full_session(table) -> Chain:
    """#1 commit, #2 public roll, #3 secret roll, #4 its reveal, #5 both seeds revealed,
    #6 the next turn's commit, #7 a roll of it (awaiting its reveal)."""
    chain = Chain(table)
    chain.commit()
    chain.roll("10d6+1")  # ten dice: another client seed changes at least one of them
    chain.roll("1d20", stream="secret")
    chain.reveal_secret_roll(3)
    chain.reveal_seeds()
    chain.open_turn()
    chain.commit()
    chain.roll("3d10", client_seed_by="server")
    return chain


def ended_session(table) -> Chain:
    """An honest session to its end: two turns, a secret roll revealed at the end, every seed
    out, then the end entry (#9)."""
    chain = Chain(table)
    chain.commit()  # 1
    chain.roll("2d6!")  # 2
    chain.roll("1d20", stream="secret")  # 3
    chain.reveal_seeds(streams=("public",))  # 4: the secret roll is still sealed
    chain.open_turn()
    chain.commit()  # 5
    chain.roll("4d6kh3")  # 6
    chain.reveal_secret_roll(3)  # 7
    chain.reveal_seeds(of_turn=1, streams=("secret",), turn_offset=-1)  # 8
    chain.reveal_seeds()  # 9
    chain.end()  # 10
    return chain


@dataclass(frozen=True)
class Refused:
    """A chain one rule refuses: `build` makes it and returns the number every verifier
    names; `site` is rolls.ledger.verify's problem code, `script` a regular expression of what
    docs/verify_ledger.py prints after "BROKEN at #N: ", `page` words verify.html shows (in
    Polish)."""

    name: str
    build: Callable[[Chain], int]
    site: str
    script: str
    page: str


def _roll_after_its_seeds_reveal(chain: Chain) -> int:
    chain.commit()
    chain.reveal_seeds(streams=("public",))
    return chain.roll().seq


def _secret_roll_after_its_seeds_reveal(chain: Chain) -> int:
    chain.commit()
    chain.reveal_seeds(streams=("secret",))
    seq = chain.roll("1d20", stream="secret").seq
    chain.reveal_secret_roll(seq)
    return seq


def _roll_of_an_uncommitted_turn(chain: Chain) -> int:
    chain.commit()
    chain.roll()
    chain.reveal_seeds()
    chain.open_turn()  # and no commitment for it
    return chain.roll(fair=False).seq


def _turn_skipped_by_the_commitments(chain: Chain) -> int:
    chain.commit()
    chain.reveal_seeds()
    chain.open_turn()  # turn 2: never committed
    chain.open_turn()
    return chain.commit().seq


def _reveal_in_another_turn(chain: Chain) -> int:
    chain.commit()
    chain.roll()
    chain.open_turn()
    return chain.reveal_seeds(of_turn=1).seq  # an entry of turn 2 revealing turn 1


def _a_die_more_than_the_rules_ask(chain: Chain) -> int:
    chain.commit()
    return chain.roll("2d6", extra_die=True).seq


def _dice_on_another_range(chain: Chain) -> int:
    chain.commit()
    return chain.roll("1d20", narrow=True).seq


def _secret_roll_sealed_at_the_end(chain: Chain) -> int:
    chain.commit()
    chain.roll("1d20", stream="secret")
    chain.reveal_seeds(streams=("public",))
    return chain.end().seq


def _seed_held_at_the_end(chain: Chain) -> int:
    chain.commit()
    chain.roll()
    chain.reveal_seeds(streams=("public",))
    return chain.end().seq


def _entry_after_the_end(chain: Chain) -> int:
    chain.commit()
    chain.roll()
    chain.reveal_seeds()
    chain.end()
    return chain.roll(fair=False).seq


REFUSED = [
    Refused(
        "roll-after-its-seeds-reveal",
        _roll_after_its_seeds_reveal,
        "unfair_die",
        r"bad fair part: drawn after its seed was revealed \(#2\)",
        "wykonany po odsłonięciu jego ziarna",
    ),
    Refused(
        "secret-roll-after-its-seeds-reveal",
        _secret_roll_after_its_seeds_reveal,
        "unfair_die",
        r"bad fair part: drawn after its seed was revealed \(#2\)",
        "wykonany po odsłonięciu jego ziarna",
    ),
    Refused(
        "roll-of-an-uncommitted-turn",
        _roll_of_an_uncommitted_turn,
        "unfair_die",
        r"bad fair part: a roll of turn 2, which has no dice commitment",
        "tury bez zobowiązania",
    ),
    Refused(
        "turn-skipped-by-the-commitments",
        _turn_skipped_by_the_commitments,
        "bad_dice_commit",
        r"bad dice commit: turn 2 was never committed",
        "tura 2 nie ma zobowiązania",
    ),
    Refused(
        "reveal-in-another-turn",
        _reveal_in_another_turn,
        "bad_seed_reveal",
        r"bad seed reveal: an entry of turn 2 reveals turn 1",
        "nie jest wpisem tury, której ziarna odsłania",
    ),
    Refused(
        "a-die-more-than-the-rules-ask",
        _a_die_more_than_the_rules_ask,
        "wrong_result",
        r"bad fair part: 1 die drawn beyond the dice its rules ask for",
        "kości niezgodne z tym, o co proszą reguły",
    ),
    Refused(
        "dice-on-another-range",
        _dice_on_another_range,
        "wrong_result",
        r"bad fair part: die 1 was drawn on 1\.\.19, its rules ask for 1\.\.20",
        "kości niezgodne z tym, o co proszą reguły",
    ),
    Refused(
        "secret-roll-sealed-at-the-end",
        _secret_roll_sealed_at_the_end,
        "sealed_at_end",
        r"bad session end: secret roll #2 is still sealed",
        "po zakończeniu sesji coś pozostało zapieczętowane",
    ),
    Refused(
        "seed-held-at-the-end",
        _seed_held_at_the_end,
        "sealed_at_end",
        r"bad session end: turn 1's secret seed is still held",
        "po zakończeniu sesji coś pozostało zapieczętowane",
    ),
    Refused(
        "entry-after-the-end",
        _entry_after_the_end,
        "after_end",
        r"an entry after the session's end \(#4\)",
        "wpis po zakończeniu sesji",
    ),
]


# -- every conformance vector's dice, as a ledger ------------------------------------------------

VECTOR_SESSION = 4242
VECTOR_CLIENT_SEED = "5eed" * 8


class AskedDice:
    """Faces from `source`, noting each die the rules ask for as [low, high, face]."""

    def __init__(self, source) -> None:
        self.source = source
        self.asked: list[list[int]] = []

    def roll(self, low: int, high: int) -> int:
        face = self.source.roll(low, high)
        self.asked.append([low, high, face])
        return face


def vector_rolls(random_runs: int = 0):
    """(vector id, result as stored, the dice its rules asked for) for every conformance
    vector the engine rolls: with the vector's own faces, then with `random_runs` runs of
    random faces each (explosions, doublings and rerolls come up at their own rates)."""
    import json
    import random

    from rolls.engine import systems
    from rolls.engine.dice import DiceError, RandomDice
    from rolls.engine.errors import RuleError
    from tests.rolls.engine.vector_folders import OWN_VECTORS, SHARED_VECTORS

    files = sorted(SHARED_VECTORS.glob("*.jsonl")) + sorted(OWN_VECTORS.glob("*.jsonl"))
    rng = random.Random(20261205)
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line) if line.strip() else {}
            if not case or "error" in case.get("expect", {}):
                continue
            try:
                parsed = systems.parse_test(case["system"], case["test"], case["input"])
            except RuleError:
                continue
            sources = [ScriptedDice(case.get("dice", []))]
            sources += [RandomDice(rng.randrange(2**32)) for _ in range(random_runs)]
            for source in sources:
                dice = AskedDice(source)
                try:
                    result = systems.roll(case["system"], parsed, dice)
                except (RuleError, DiceError):
                    continue
                yield case["id"], json.loads(json.dumps(result.to_dict())), dice.asked


def vectors_ledger(change=None) -> dict:
    """An export whose turn is committed (#1) and whose every roll (#2…) is a conformance
    vector's, its draws exactly the dice its rules asked for; no seed is revealed, so only
    the draws' shape is checked. `change(records)` edits the records (by number) before they
    are chained and signed."""
    from rolls.ledger import signing
    from rolls.ledger.chain import GENESIS_HASH, chain_hash

    def envelope(seq):
        return {
            "format": 1,
            "session": VECTOR_SESSION,
            "seq": seq,
            "turn": 1,
            "post": None,
            "rolled_by": {"id": 1, "username": "mg"},
            "rolled_at": "2026-12-05T12:00:00+00:00",
        }

    commitment = {
        stream: seed_commitment(session=VECTOR_SESSION, turn=1, stream=stream, seed="00" * 32)
        for stream in ("public", "secret")
    }
    records = {
        1: {
            **envelope(1),
            "kind": "dice_commit",
            "dice_commit": {"scheme": SCHEME, "turn": 1, **commitment},
        }
    }
    for seq, (vector, result, asked) in enumerate(vector_rolls(), start=2):
        records[seq] = {
            **envelope(seq),
            "kind": result["test"],
            "characters": {},
            "vector": vector,
            "result": result,
            "fair": {
                "scheme": SCHEME,
                "commit": 1,
                "stream": "public",
                "client_seed": VECTOR_CLIENT_SEED,
                "client_seed_by": "browser",
                "draws": asked,
            },
        }
    if change is not None:
        change(records)
    rows, prev = [], GENESIS_HASH
    for seq in sorted(records):
        digest = chain_hash(prev, records[seq])
        key_id, signature = signing.sign(digest)
        rows.append(
            {
                "seq": seq,
                "prev_hash": prev,
                "hash": digest,
                "record": records[seq],
                "key_id": key_id,
                "signature": signature,
            }
        )
        prev = digest
    return {
        "session": VECTOR_SESSION,
        "title": "Wektory",
        "genesis_hash": GENESIS_HASH,
        "public_keys": signing.trusted_public_keys(),
        "rolls": rows,
    }


def vector_seq(ledger: dict, system: str, test: str, *, extra: bool = False) -> int:
    """The first roll of `system`'s `test` in a vectors ledger (with `extra`: one whose rules
    asked for more dice than its first, an explosion or a doubling)."""
    for row in ledger["rolls"]:
        result = row["record"].get("result") or {}
        draws = row["record"].get("fair", {}).get("draws", [])
        if (result.get("system"), result.get("test")) == (system, test) and (
            not extra or len(draws) > 1
        ):
            return row["seq"]
    raise AssertionError(f"no {system} {test} vector")


def cut_short(records: dict, seq: int) -> None:
    """A forger's roll: its last die left out, from the draws and the result alike."""
    record = records[seq]
    record["fair"]["draws"].pop()
    record["result"]["dice"].pop()
