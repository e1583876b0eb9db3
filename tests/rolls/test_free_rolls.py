"""rolls.free_rolls.roll_make_free (issue 13): the GM's free-form dice in the chain."""

import uuid

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from rolls import free_rolls, ledger
from rolls.engine.dice import ScriptedDice
from rolls.engine.errors import RuleError
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


@pytest.mark.parametrize("expression", ["", "2d6*3", "101d6", "2d1", "1" * 101])
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
