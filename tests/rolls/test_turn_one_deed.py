"""Seed 000 VII.1 (RULES 1.5) outside combat: "1 akcja działania i 1 akcja ruchu lub 2 akcje
ruchu". A potion used without a roll is that one action as an action roll is: two potions,
or a potion and an action roll, in one turn are refused unless the GM allows it with a reason
(the same permission as a second roll). A third allowed action is not called "second"."""

import html

import pytest

from rolls.models import InitiativeEvent, Roll
from tests.conftest import polish
from tests.rolls.test_entries import granted, use, use_url
from tests.rolls.test_panel import panel_url, single
from tests.rolls.test_panel_safety import players_own, preview_of

pytestmark = pytest.mark.django_db

ITEM_USED = (
    "%(name)s has already used a potion or item in this turn, which is its action. Outside "
    "combat a turn is one action and one move, or two moves: another action only if the GM "
    "allows it, with a reason."
)
SECOND_ROLL = (
    "%(name)s already has an action roll in this turn (#%(seq)s). Outside combat one "
    "action per turn may have a roll: a second one only if the GM allows it, with a "
    "reason."
)


def body(response) -> str:
    return html.unescape(response.content.decode())


def test_a_second_potion_in_a_turn_is_refused_next_to_the_field(table, client_for):
    potion = granted(table, client_for, table.borys, count=3)
    bob = client_for(table.bob)
    assert bob.post(use_url(table), use(table.bob, table, potion)).status_code == 302
    response = bob.post(use_url(table), use(table.bob, table, potion))
    assert response.status_code == 400
    assert 'id="id_potion_error"' in response.content.decode()
    assert polish(ITEM_USED, name="Borys") in body(response)
    potion.refresh_from_db()
    assert potion.count == 2
    # A player cannot allow it; sending the GM's field anyway is refused outright.
    forced = bob.post(
        use_url(table), {**use(table.bob, table, potion), "extra_action_reason": "bo tak"}
    )
    assert forced.status_code == 403
    assert Roll.objects.filter(test="item_use").count() == 1


def test_a_potion_after_an_action_roll_is_refused_unless_the_gm_allows_it(table, client_for):
    potion = granted(table, client_for, table.borys, count=2)
    gm = client_for(table.gm)
    assert gm.post(panel_url(table), single(table.borys)).status_code == 302
    roll_seq = Roll.objects.get(is_action=True).seq
    refused = gm.post(use_url(table), use(table.gm, table, potion))
    assert refused.status_code == 400
    assert 'id="id_extra_action_reason_error"' in refused.content.decode()
    assert polish(SECOND_ROLL, name="Borys", seq=roll_seq) in body(refused)
    reason = "Borys pije w biegu"
    allowed = gm.post(
        use_url(table), {**use(table.gm, table, potion), "extra_action_reason": reason}
    )
    assert allowed.status_code == 302
    entry = Roll.objects.get(test="item_use")
    assert entry.record["entry"]["extra_action"]["reason"] == reason
    assert entry.record["entry"]["extra_action"]["number"] == 2
    assert reason in body(client_for(table.bob).get(allowed.url))


def test_an_action_roll_after_a_potion_is_refused_unless_the_gm_allows_it(table, client_for):
    players_own(table)
    potion = granted(table, client_for, table.lirael)
    alice = client_for(table.alice)
    assert alice.post(use_url(table), use(table.alice, table, potion)).status_code == 302
    refused = alice.post(panel_url(table), single(table.lirael))
    assert refused.status_code == 400
    assert polish(ITEM_USED, name="Lirael") in body(refused)
    assert not Roll.objects.filter(is_action=True).exists()
    gm = client_for(table.gm)
    reason = "Mikstura nie zabrała jej czasu"
    assert (
        gm.post(panel_url(table), single(table.lirael, extra_action_reason=reason)).status_code
        == 302
    )
    extra = Roll.objects.get(is_action=True).record["extra_action"]
    assert (extra["reason"], extra["number"], extra["item_uses"]) == (reason, 2, 1)


def test_a_third_allowed_roll_is_not_called_second(table, client_for):
    gm = client_for(table.gm)
    gm.post(panel_url(table), single(table.lirael))
    gm.post(panel_url(table), single(table.lirael, extra_action_reason="druga próba"))
    response = gm.post(panel_url(table), single(table.lirael, extra_action_reason="trzecia"))
    assert response.status_code == 302
    assert Roll.objects.get(seq=3).record["extra_action"]["number"] == 3
    page = body(client_for(table.alice).get(response.url))
    second = polish("Second action roll this turn, allowed by the GM: %(reason)s", reason="")
    assert second + "druga próba" in page
    assert second + "trzecia" not in page
    third = polish(
        "Extra action (%(number)s.) this turn, allowed by the GM: %(reason)s",
        number=3,
        reason="trzecia",
    )
    assert third in page


def test_the_one_action_warning_is_gone_after_the_gms_permission_and_in_combat(table, client_for):
    gm = client_for(table.gm)
    gm.post(panel_url(table), single(table.lirael))
    warning = polish(
        "%(name)s already has an action roll in this turn (#%(seq)s): one action per turn "
        "may have a roll.",
        name="Lirael",
        seq=1,
    )
    allowed = gm.get(panel_url(table), single(table.lirael, extra_action_reason="druga szansa"))
    assert 'data-testid="chance"' in allowed.content.decode()
    assert warning not in preview_of(allowed.content.decode())
    initiative = {"token": single(table.lirael)["token"], "mode": "initiative"}
    assert gm.post(panel_url(table), initiative).status_code == 302
    assert InitiativeEvent.objects.exists()
    in_combat = gm.get(panel_url(table), single(table.lirael)).content.decode()
    assert 'data-testid="chance"' in in_combat
    assert warning not in preview_of(in_combat)
