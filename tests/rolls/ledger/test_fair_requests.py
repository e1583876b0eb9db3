"""The dice each test asks for (docs/audit.md, "The dice each test asks for"), as a verifier
without the engine reads them from a record: docs/verify_ledger.py agrees with the engine on
every conformance vector of every system and of free-form notation, with the vector's faces
and with random ones (explosions, doublings, rerolls); a die too many, one too few or one on
another range is named. The site's verifier asks the engine itself (rolls.ledger.recompute), so on a
ledger of all the vectors the three verifiers agree."""

import copy
import re

import pytest

from rolls.ledger.verify import verify_chain
from tests.rolls.audit.test_audit_script import run_script
from tests.rolls.ledger.fair_ledgers import (
    VECTOR_SESSION,
    cut_short,
    vector_rolls,
    vector_seq,
    vectors_ledger,
)
from tests.rolls.ledger.test_signing import load_script

SCRIPT = load_script()
SYSTEMS = {"forum1000", "q10", "ciernie", "arsmagica", "free"}


@pytest.fixture(scope="module")
def rolls():
    return list(vector_rolls(random_runs=25))


def test_the_vectors_cover_every_system_and_their_continuations(rolls):
    assert {result["system"] for _id, result, _asked in rolls} == SYSTEMS
    tests = {(result["system"], result["test"]) for _id, result, _asked in rolls}
    assert {("forum1000", t) for t in ("attribute", "opposed", "initiative", "healing")} <= tests
    assert {("ciernie", "reroll"), ("ciernie", "reroll_of"), ("arsmagica", "stress")} <= tests
    # Dice the first draws did not foretell: a Q10 ten, a doubling, an exploding free die, a
    # reroll, a Ciernie reroll's second die.
    assert any(r["system"] == "q10" and r["extra"] for _i, r, _a in rolls)
    assert any(r["system"] == "arsmagica" and r.get("doublings") for _i, r, _a in rolls)
    assert any(r["system"] == "arsmagica" and r.get("botch_faces") for _i, r, _a in rolls)
    assert any(r["system"] == "ciernie" and r.get("second") for _i, r, _a in rolls)
    free_dice = [
        die for _i, r, _a in rolls if r["system"] == "free" for die in _free_dice(r["terms"])
    ]
    assert any(die["extra"] for die in free_dice) and any(die.get("rerolled") for die in free_dice)
    triggered = [
        term for _i, r, _a in rolls if r["system"] == "free" for term in _free_terms(r["terms"])
    ]
    assert any("explode_on" in term and any(d["extra"] for d in term["dice"]) for term in triggered)


def _free_terms(terms):
    for term in terms:
        yield term
        for part in term.get("factors", []) + term.get("items", []):
            yield from _free_terms(part["terms"])


def _free_dice(terms):
    for term in _free_terms(terms):
        yield from term.get("dice", [])


def test_the_standalone_reads_the_same_dice_as_the_engine(rolls):
    for vector, result, asked in rolls:
        assert SCRIPT.dice_requests_problem(result, asked) is None, (vector, asked)


def test_a_die_too_many_too_few_or_on_another_range_is_named(rolls):
    named = 0
    for vector, result, asked in rolls:
        if not asked:
            # A test decided without a die (a Ciernie skill far above its factor): any draw
            # is one too many.
            problem = SCRIPT.dice_requests_problem(result, [[1, 20, 7]])
            assert problem == "1 die drawn beyond the dice its rules ask for", vector
            continue
        low, high, face = asked[-1]
        fewer = SCRIPT.dice_requests_problem(result, asked[:-1])
        assert re.fullmatch(
            rf"its rules ask for die {len(asked)} \({low}\.\.{high}\), "
            rf"but only {len(asked) - 1} were drawn",
            fewer or "",
        ), (vector, fewer)
        more = SCRIPT.dice_requests_problem(result, [*asked, [low, high, face]])
        # One more of the last die is either one too many or, where that face continues a
        # chain (an exploding die, a Q10 ten), the chain asking for yet another.
        assert more is not None, vector
        moved = copy.deepcopy(asked)
        moved[0][1] += 1
        other = SCRIPT.dice_requests_problem(result, moved)
        assert other == (
            f"die 1 was drawn on {asked[0][0]}..{asked[0][1] + 1}, "
            f"its rules ask for {asked[0][0]}..{asked[0][1]}"
        ), (vector, other)
        named += 1
    assert named > 200


def test_an_unknown_system_s_dice_cannot_be_checked():
    result = {"system": "d6", "test": "roll", "input": {}, "dice": [3]}
    problem = SCRIPT.dice_requests_problem(result, [[1, 6, 3]])
    assert problem == "docs/audit.md does not say which dice system 'd6' asks for"


@pytest.mark.django_db
def test_the_three_verifiers_agree_on_every_vectors_dice(tmp_path):
    """The site (the engine's own requests, with --recompute) and the standalone script on a
    ledger of every vector's roll: all hold; one cut short is named by both (verify.html's
    part: tests/browser/test_fair_dice_rules.py)."""
    honest = vectors_ledger()
    rows = [
        (r["seq"], r["prev_hash"], r["hash"], r["record"], r["key_id"], r["signature"])
        for r in honest["rolls"]
    ]
    report = verify_chain(rows, VECTOR_SESSION, recompute=True)
    assert report.ok, report.problem_label
    assert report.dice_awaiting == len(rows) - 1
    done = run_script(tmp_path, honest)
    assert done.returncode == 0, done.stdout
    assert f"awaiting their turn's reveal: {len(rows) - 1}" in done.stdout

    seq = vector_seq(honest, "q10", "pool", extra=True)
    forged = vectors_ledger(lambda records: cut_short(records, seq))
    rows = [
        (r["seq"], r["prev_hash"], r["hash"], r["record"], r["key_id"], r["signature"])
        for r in forged["rolls"]
    ]
    report = verify_chain(rows, VECTOR_SESSION, recompute=True)
    assert (report.broken_seq, report.problem) == (seq, "wrong_result"), report.problem_label
    done = run_script(tmp_path, forged)
    assert done.returncode == 1
    assert re.search(
        rf"BROKEN at #{seq}: bad fair part: its rules ask for die \d+ \(1\.\.10\), but only",
        done.stdout,
    ), done.stdout
