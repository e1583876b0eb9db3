"""RULES 1.5 outside combat: one action roll per character per turn; a second one only
when the GM allows it with a reason, which the roll shows and the record keeps."""

import html
import re

import pytest
from django.urls import reverse

from diary.services import turn_open_next
from rolls import selectors
from rolls.initiative.services import initiative_event_end
from rolls.models import InitiativeEvent, Roll
from tests.conftest import polish
from tests.rolls.test_panel import attr, opposed, panel_url, single
from tests.rolls.test_panel_safety import players_own, preview_of

pytestmark = pytest.mark.django_db

REFUSAL = (
    "%(name)s already has an action roll in this turn (#%(seq)s). Outside combat one "
    "action per turn may have a roll: a second one only if the GM allows it, with a "
    "reason."
)


def refusal(name="Lirael", seq=1) -> str:
    return polish(REFUSAL, name=name, seq=seq)


def test_outside_combat_until_an_initiative_roll_opens_an_event_and_after_it_ends(
    table, client_for
):
    assert selectors.in_combat(table.session) is False
    gm = client_for(table.gm)
    initiative = {"token": single(table.lirael)["token"], "mode": "initiative"}
    assert gm.post(panel_url(table), initiative).status_code == 302
    assert selectors.in_combat(table.session) is True
    initiative_event_end(event=InitiativeEvent.objects.get(), by=table.gm)
    assert selectors.in_combat(table.session) is False


def test_a_player_never_makes_a_second_action_roll(table, client_for):
    players_own(table)
    alice = client_for(table.alice)
    assert alice.post(panel_url(table), single(table.lirael)).status_code == 302
    response = alice.post(panel_url(table), single(table.lirael))
    assert response.status_code == 400
    assert refusal() in html.unescape(response.content.decode())
    assert Roll.objects.count() == 1
    # A player has no field to allow it, and sending one anyway is refused outright.
    assert 'name="extra_action_reason"' not in response.content.decode()
    forced = alice.post(panel_url(table), single(table.lirael, extra_action_reason="bo tak"))
    assert forced.status_code == 403  # docs/decisions.md: "a player sending it gets 403"
    assert Roll.objects.count() == 1


def test_the_gm_without_a_reason_is_refused_next_to_the_field(table, client_for):
    gm = client_for(table.gm)
    gm.post(panel_url(table), single(table.lirael))
    response = gm.post(panel_url(table), single(table.lirael, extra_action_reason="   "))
    assert response.status_code == 400
    body = html.unescape(response.content.decode())
    assert re.search(r'id="id_extra_action_reason_error">' + re.escape(refusal()), body)
    assert Roll.objects.count() == 1


def test_the_preview_says_why_it_is_refused(table, client_for):
    gm = client_for(table.gm)
    gm.post(panel_url(table), single(table.lirael))
    preview = preview_of(gm.get(panel_url(table), single(table.lirael)).content.decode())
    assert refusal() in preview
    other = preview_of(gm.get(panel_url(table), single(table.borys)).content.decode())
    assert "already" not in other and refusal("Borys") not in other
    allowed = gm.get(
        panel_url(table), single(table.lirael, extra_action_reason="Lirael dostaje drugą szansę")
    ).content.decode()
    assert refusal() not in preview_of(allowed)
    assert 'data-testid="chance"' in allowed


def test_the_gm_allows_a_second_action_roll_with_a_reason_shown_and_stored(table, client_for):
    gm = client_for(table.gm)
    gm.post(panel_url(table), single(table.lirael))
    reason = "Lirael poświęca ruch na drugą próbę"
    response = gm.post(panel_url(table), single(table.lirael, extra_action_reason=reason))
    assert response.status_code == 302
    second = Roll.objects.get(seq=2)
    assert second.record["extra_action"] == {"reason": reason, "earlier_seq": 1, "number": 2}
    body = html.unescape(client_for(table.alice).get(response.url).content.decode())
    shown = polish("Second action roll this turn, allowed by the GM: %(reason)s", reason=reason)
    assert shown in body
    # The first roll of a turn stores no allowance, even when a reason was typed.
    gm.post(panel_url(table), single(table.borys, extra_action_reason="niepotrzebne"))
    assert "extra_action" not in Roll.objects.get(seq=3).record


def test_a_new_turn_gives_a_new_action_roll(table, client_for):
    gm = client_for(table.gm)
    gm.post(panel_url(table), single(table.lirael))
    turn_open_next(session=table.session, by=table.gm)
    assert gm.post(panel_url(table), single(table.lirael)).status_code == 302
    assert Roll.objects.count() == 2


def test_initiative_and_defence_do_not_count(table, client_for):
    gm = client_for(table.gm)
    initiative = {"token": single(table.lirael)["token"], "mode": "initiative"}
    assert gm.post(panel_url(table), initiative).status_code == 302
    assert gm.post(panel_url(table), single(table.lirael)).status_code == 302
    # Out of the fight again, where a second action roll is refused.
    initiative_event_end(event=InitiativeEvent.objects.get(), by=table.gm)
    # Borys defends against Lirael's earlier roll: side b is not his action...
    a = {"character": table.borys.pk, "test": "attribute", "attribute": attr("Siła")}
    b = {"character": table.lirael.pk, "test": "attribute", "attribute": attr("Siła")}
    assert gm.post(panel_url(table), opposed(a, b)).status_code == 302
    # ...but as the initiator it was his action: a second one is refused.
    assert gm.post(panel_url(table), single(table.borys)).status_code == 400
    assert selectors.action_roll_counts(table.session, 1) == {
        table.lirael.pk: 1,
        table.borys.pk: 1,
    }


def test_in_combat_a_second_action_roll_is_counted_not_refused(table, client_for):
    gm = client_for(table.gm)
    initiative = {"token": single(table.lirael)["token"], "mode": "initiative"}
    assert gm.post(panel_url(table), initiative).status_code == 302  # the fight begins
    assert gm.post(panel_url(table), single(table.lirael)).status_code == 302
    assert gm.post(panel_url(table), single(table.lirael)).status_code == 302
    assert selectors.action_roll_counts(table.session, 1) == {table.lirael.pk: 2}


def test_in_a_running_initiative_event_a_second_action_roll_is_not_refused(table, client_for):
    """In combat (an initiative event runs) actions are counted and shown, the
    second one with no reason from the GM, for a player too."""
    players_own(table)
    gm, alice = client_for(table.gm), client_for(table.alice)
    initiative = {"token": single(table.lirael)["token"], "mode": "initiative"}
    assert gm.post(panel_url(table), initiative).status_code == 302
    assert alice.post(panel_url(table), single(table.lirael)).status_code == 302
    response = alice.post(panel_url(table), single(table.lirael))
    assert response.status_code == 302
    second = Roll.objects.filter(test="attribute").order_by("seq").last()
    assert "extra_action" not in second.record
    assert selectors.action_roll_counts(table.session, 1) == {table.lirael.pk: 2}
    diary = client_for(table.gm).get(reverse("diary:session", args=[table.session.pk]))
    assert 'data-testid="fight-order"' in diary.content.decode()
