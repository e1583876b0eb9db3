"""docs/verify_ledger.py recomputes the fair dice of an export: dice commits and seed reveals,
every roll's draws from the revealed seed (a revealed secret roll's too), the rest awaiting.

The session's rows are chained through chain_append, shaped as the fair-dice spec says
(docs/audit.md, "Provably fair dice"; tests/rolls/ledger/fair_ledgers.py). Each rule's forbidden
chain is refused by the site's verifier and the script alike, at the same number
(verify.html's part: tests/browser/test_fair_dice_rules.py)."""

import re

import pytest

from rolls.ledger.verify import verify_session
from tests.rolls.audit.test_audit_script import export, run_script
from tests.rolls.ledger.fair_ledgers import REFUSED, Chain, ended_session, full_session
from tests.rolls.ledger.test_secret_rolls import _rechain_and_resign

pytestmark = pytest.mark.django_db


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


@pytest.mark.parametrize("case", REFUSED, ids=lambda case: case.name)
def test_the_site_and_the_script_refuse_what_a_rule_forbids(table, client_for, tmp_path, case):
    seq = case.build(Chain(table))
    report = verify_session(table.session.pk, recompute=True)
    assert (report.broken_seq, report.problem) == (seq, case.site), report.problem_label
    done = run_script(tmp_path, export(table, client_for))
    assert done.returncode == 1, done.stdout
    assert re.search(rf"BROKEN at #{seq}: {case.script}", done.stdout), done.stdout


def test_an_ended_session_verifies_on_the_site_and_in_the_script(table, client_for, tmp_path):
    ended_session(table)
    report = verify_session(table.session.pk, recompute=True)
    assert report.ok, report.problem_label
    assert (report.dice_recomputed, report.dice_awaiting) == (3, 0)
    done = run_script(tmp_path, export(table, client_for))
    assert done.returncode == 0, done.stdout
    assert "OK: 10 rolls" in done.stdout
    assert "dice recomputed from the revealed seeds: 3 rolls, awaiting" in done.stdout
    assert "The session ended in #10: nothing stays sealed." in done.stdout
