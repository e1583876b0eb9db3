"""rolls.free.services.roll_make_free: the GM's free-form dice in the chain."""

import uuid

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from rolls.engine.dice import ScriptedDice
from rolls.engine.errors import RuleError
from rolls.free import services as free_rolls
from rolls.ledger import verify as ledger
from rolls.models import Roll

pytestmark = pytest.mark.django_db


def make(t, expression="4k6kh3+1", *, by=None, token=None, label="Obrażenia", faces=(2, 5, 6, 1)):
    return free_rolls.roll_make_free(
        session=t.session,
        by=by or t.gm,
        free=free_rolls.FreeRoll(expression=expression, label=label),
        token=token or uuid.uuid4(),
        dice=ScriptedDice(faces),
    )


def test_a_free_roll_joins_the_chain_with_every_die(table):
    roll = make(table).roll
    assert (roll.test, roll.is_action, roll.seq) == ("notation", False, 1)
    result = roll.record["result"]
    assert result["dice"] == [2, 5, 6, 1]
    assert [d["kept"] for d in result["terms"][0]["dice"]] == [True, True, True, False]
    assert result["total"] == 14 and roll.record["label"] == "Obrażenia"
    assert ledger.verify_session(table.session.pk).ok


def test_a_replayed_token_makes_no_second_roll(table):
    token = uuid.uuid4()
    make(table, token=token)
    assert not make(table, token=token).created
    assert Roll.objects.filter(session=table.session).count() == 1


@pytest.mark.parametrize("expression", ["", "2d6x3", "101d6", "2d1", "1" * 101])
def test_bad_expressions_store_nothing(table, expression):
    with pytest.raises(RuleError):
        make(table, expression)
    assert not Roll.objects.exists()


def test_a_long_label_and_a_player_are_refused(table):
    with pytest.raises(ValidationError):
        make(table, label="x" * 81)
    with pytest.raises(PermissionDenied):
        make(table, by=table.alice)
    assert not Roll.objects.exists()


def test_a_free_roll_for_a_character_leaves_its_action_roll_untouched(table):
    """A free-form roll concerning Lirael is no action of hers: the GM's action
    roll for her afterwards is her first of the turn, with no extra-action reason asked."""
    from rolls import selectors
    from tests.rolls.conftest import PanelClient
    from tests.rolls.test_panel import panel_url, single

    made = free_rolls.roll_make_free(
        session=table.session,
        by=table.gm,
        free=free_rolls.FreeRoll("2k6+3", "Obrażenia", character_id=table.lirael.pk),
        token=uuid.uuid4(),
    ).roll
    assert made.character == table.lirael and not made.is_action
    assert selectors.action_roll_counts(table.session, 1) == {}
    response = PanelClient(table.gm).post(panel_url(table), single(table.lirael))
    assert response.status_code == 302
    action = Roll.objects.get(seq=2)
    assert action.is_action and "extra_action" not in action.record


def test_every_die_of_an_exploding_roll_is_in_the_record(table):
    roll = make(table, "2d6!+1d4", faces=(6, 6, 2, 3, 4)).roll
    dice = [d for term in roll.record["result"]["terms"] for d in term.get("dice", [])]
    assert [d["face"] for d in dice] == [6, 6, 2, 3, 4]
    assert [d["exploded"] for d in dice] == [True, True, False, False, False]
    assert [d["extra"] for d in dice] == [False, True, True, False, False]
    assert roll.record["result"]["total"] == 21


def test_verify_rolls_recompute_passes_with_free_rolls(table, capsys):
    from django.core.management import call_command

    make(table)
    make(table, "3k10dl1-2", faces=(1, 10, 5))
    call_command("verify_rolls", "--recompute")
    out = capsys.readouterr().out
    assert "BROKEN" not in out and "every result recomputed" in out


def test_a_tampered_free_roll_fails_the_recompute(table):
    """The recompute really checks a free roll: a changed total is caught."""
    from rolls.ledger.recompute import recompute_problem
    from rolls.models import is_entry_record

    roll = make(table).roll
    assert recompute_problem(roll.record, is_entry_record) is None
    record = dict(roll.record, result=dict(roll.record["result"], total=99))
    assert (
        recompute_problem(record, is_entry_record) == "the stored result differs from the engine's"
    )


def test_the_export_shows_every_die_and_the_standalone_script_verifies_it(
    table, client_for, tmp_path
):
    """The ledger's export carries the free roll's record whole, and
    docs/verify_ledger.py (no Django) verifies the chain with it."""
    from tests.rolls.audit.test_audit_script import export, run_script

    make(table)
    ledger_json = export(table, client_for)
    (row,) = ledger_json["rolls"]
    assert row["record"]["result"]["dice"] == [2, 5, 6, 1] and row["record"]["label"]
    done = run_script(tmp_path, ledger_json)
    assert done.returncode == 0, done.stdout + done.stderr
    tampered = {**ledger_json, "rolls": [{**row, "record": {**row["record"], "label": "x"}}]}
    assert run_script(tmp_path, tampered).returncode != 0
