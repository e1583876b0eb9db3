"""rolls.access: the one place that decides who may roll what."""

import pytest

from rolls.access import access_roll_panel, may_roll_at_all, system_modes

pytestmark = pytest.mark.django_db

OWN_MODES = ("attribute", "combined", "skill")
# Every mode of forum1000's panel, in its order.
PANEL_MODES = ("attribute", "combined", "opposed", "skill", "healing", "initiative")


def test_the_panel_modes_are_forum1000s():
    assert system_modes("forum1000") == PANEL_MODES


@pytest.mark.parametrize(
    ("who", "policy", "may_roll", "modes", "types_modifiers"),
    [
        ("gm", "gm_only", True, PANEL_MODES, True),
        ("alice", "gm_only", False, (), False),
        ("alice", "players_own", True, OWN_MODES, False),
        ("outsider", "players_own", False, (), False),
        ("moderator", "players_own", False, (), False),
    ],
)
def test_roll_access_by_role(table, who, policy, may_roll, modes, types_modifiers):
    table.session.roll_policy = policy
    table.session.save()
    access = access_roll_panel(getattr(table, who), table.session)
    assert (access.may_roll, access.may_roll_modes, access.may_type_modifiers) == (
        may_roll,
        modes,
        types_modifiers,
    )
    assert may_roll_at_all(getattr(table, who), table.session) is may_roll


def test_players_roll_for_their_own_characters_only(table):
    table.session.roll_policy = "players_own"
    table.session.save()
    alice = access_roll_panel(table.alice, table.session)
    gm = access_roll_panel(table.gm, table.session)
    assert (alice.may_roll_for(table.lirael), alice.may_roll_for(table.borys)) == (True, False)
    assert (gm.may_roll_for(table.lirael), gm.may_roll_for(table.borys)) == (True, True)


def test_nobody_rolls_outside_a_running_session(table):
    table.session.status = "finished"
    table.session.save()
    access = access_roll_panel(table.gm, table.session)
    assert (access.may_roll, access.may_roll_modes) == (False, ())
