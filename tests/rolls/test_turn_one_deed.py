"""Seed 000 VII.1 (RULES 1.5) outside combat: "1 akcja działania i 1 akcja ruchu lub 2 akcje
ruchu". A potion used without a roll is that one action as an action roll is: two potions,
or a potion and an action roll, in one turn are refused unless the GM allows it with a reason
(the same permission as a second roll). A third allowed action is not called "second"."""

import html
import uuid

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from rolls.entries import services as entries
from rolls.models import InitiativeEvent, Roll
from tests.conftest import polish
from tests.rolls.entries.test_entries import granted, token, use, use_url
from tests.rolls.test_panel import panel_url, single
from tests.rolls.test_panel_safety import players_own, preview_of

pytestmark = pytest.mark.django_db

ITEM_USED = (
    "%(name)s has already used a potion, an item, or a spell or ability without a roll in "
    "this turn, which is its action. Outside combat a turn is one action and one move, or "
    "two moves: another action only if the GM allows it, with a reason."
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


# --- A spell or ability used without a roll ----------------------------------------


def ability(table, character, by, reason="", name="Światło", does="Kula światła nad głową"):
    return entries.ability_use(
        session=table.session,
        by=by,
        character_id=character.pk,
        name=name,
        description=does,
        token=uuid.uuid4(),
        digest="ability",
        extra_action_reason=reason,
    )


def potion_used(table, potion, by, reason=""):
    return entries.item_use(
        session=table.session,
        by=by,
        potion_id=potion.pk,
        token=uuid.uuid4(),
        digest="potion",
        extra_action_reason=reason,
    )


def test_an_ability_without_a_roll_then_a_potion_is_refused(table, client_for):
    potion = granted(table, client_for, table.borys)
    made = ability(table, table.borys, table.bob)
    assert made.created and made.entry.test == "ability_use"
    assert made.entry.post.author == table.bob
    with pytest.raises(ValidationError) as refused:
        potion_used(table, potion, table.bob)
    assert refused.value.message_dict == {"extra_action_reason": [polish(ITEM_USED, name="Borys")]}
    with pytest.raises(ValidationError):
        ability(table, table.borys, table.bob, name="Drugi czar")
    potion.refresh_from_db()
    assert potion.count == 1
    assert Roll.objects.filter(test="ability_use").count() == 1
    assert not Roll.objects.filter(test="item_use").exists()


def test_a_potion_after_an_ability_is_allowed_with_the_gms_reason(table, client_for):
    potion = granted(table, client_for, table.borys)
    ability(table, table.borys, table.bob)
    made = potion_used(table, potion, table.gm, reason="Czar trwał chwilę")
    assert made.entry.record["entry"]["extra_action"] == {
        "reason": "Czar trwał chwilę",
        "earlier_seq": None,
        "number": 2,
        "item_uses": 1,
    }
    third = ability(table, table.borys, table.gm, reason="Szybki gest", name="Tarcza")
    assert third.entry.record["entry"]["extra_action"]["number"] == 3
    page = body(client_for(table.bob).get(third.entry.post.get_absolute_url()))
    assert (
        polish(
            "Extra action (%(number)s.) this turn, allowed by the GM: %(reason)s",
            number=3,
            reason="Szybki gest",
        )
        in page
    )


def test_abilities_and_potions_in_combat_are_counted_not_refused(table, client_for):
    potion = granted(table, client_for, table.borys)
    gm = client_for(table.gm)
    initiative = {"token": single(table.lirael)["token"], "mode": "initiative"}
    assert gm.post(panel_url(table), initiative).status_code == 302
    assert InitiativeEvent.objects.exists()
    first = ability(table, table.borys, table.bob)
    second = potion_used(table, potion, table.bob)
    third = ability(table, table.borys, table.bob, name="Tarcza")
    assert [e.entry.record["entry"]["action"] for e in (first, second, third)] == [
        {"number": n, "in_combat": True} for n in (1, 2, 3)
    ]


def test_an_ability_after_an_action_roll_is_refused_next_to_the_gms_field(table, client_for):
    gm = client_for(table.gm)
    assert gm.post(panel_url(table), single(table.borys)).status_code == 302
    seq = Roll.objects.get(is_action=True).seq
    url = reverse("rolls:ability_use", args=[table.session.pk])
    sent = {
        "token": token(table.gm, table.session),
        "character": str(table.borys.pk),
        "name": "Światło",
        "description": "Kula światła",
    }
    refused = gm.post(url, sent)
    assert refused.status_code == 400
    assert 'id="id_extra_action_reason_error"' in refused.content.decode()
    assert polish(SECOND_ROLL, name="Borys", seq=seq) in body(refused)
    assert not Roll.objects.filter(test="ability_use").exists()


def test_a_player_records_an_ability_only_for_their_own_character(table, client_for):
    url = reverse("rolls:ability_use", args=[table.session.pk])
    bob = client_for(table.bob)
    sent = {"token": token(table.bob, table.session), "name": "Światło", "description": "Blask"}
    foreign = bob.post(url, {**sent, "character": str(table.lirael.pk)})
    assert foreign.status_code == 400
    assert 'id="id_character_error"' in foreign.content.decode()
    forced = bob.post(
        url, {**sent, "character": str(table.borys.pk), "extra_action_reason": "bo tak"}
    )
    assert forced.status_code == 403
    blank = bob.post(url, {**sent, "character": str(table.borys.pk), "name": " "})
    assert blank.status_code == 400
    assert 'id="id_name_error"' in blank.content.decode()
    assert not Roll.objects.filter(test="ability_use").exists()
    made = bob.post(url, {**sent, "character": str(table.borys.pk)})
    assert made.status_code == 302
    assert polish(
        "Action without a roll: %(name)s — %(description)s", name="Światło", description="Blask"
    ) in body(bob.get(made.url))
