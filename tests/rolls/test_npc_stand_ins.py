"""Mode gm_character: an NPC played through the GM's stand-in sheet."""

import uuid

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from characters.models import Attribute, Character, Item, ItemHolding, Skill
from diary import services as diary_services
from diary.access import joinable_characters, session_access
from diary.models import Participation
from diary.npcs import services as npc_services
from rolls.models import Roll
from rolls.selectors import sheets_in_play
from rolls.systems.forum1000.requests import (
    InitiativeLine,
    RequestError,
    RollRequest,
    SideRequest,
)
from tests.characters.test_character_pages import sheet_post_data
from tests.conftest import polish
from tests.rolling import make_roll

pytestmark = pytest.mark.django_db


def attr(name):
    return Attribute.objects.get(system="forum1000", name=name).pk


@pytest.fixture
def wolves(make_user, make_character, make_session):
    gm, alice = make_user("mg_w"), make_user("alicja_w")
    lirael = make_character(alice, "Lirael")
    session = make_session(gm, [lirael], npc_mode="gm_character", roll_policy="players_own")
    sheet = make_character(gm, "Wilk")
    npc = npc_services.npc_create(
        session=session, by=session.gm, name="Wilk", description="Głodny.", visible_to_players=True
    )

    class W:
        pass

    w = W()
    w.gm, w.alice, w.lirael, w.session, w.sheet, w.npc = gm, alice, lirael, session, sheet, npc
    return w


def stand_in_url(w):
    return reverse("diary:npc_stand_in", args=[w.session.pk, w.npc.pk])


def test_gm_sets_a_stand_in_on_the_npc_page(wolves, client_for):
    client = client_for(wolves.gm)
    page = client.get(reverse("diary:npc_edit", args=[wolves.session.pk, wolves.npc.pk]))
    assert 'name="character"' in page.content.decode()
    response = client.post(stand_in_url(wolves), {"character": wolves.sheet.pk})
    assert response.status_code == 302
    wolves.sheet.refresh_from_db()
    wolves.npc.refresh_from_db()
    assert wolves.sheet.is_stand_in and wolves.npc.stand_in == wolves.sheet
    # A player may not; and a stand-in is never a participant.
    assert client_for(wolves.alice).post(stand_in_url(wolves), {"character": 1}).status_code == 403
    assert not Participation.objects.filter(character=wolves.sheet).exists()
    participants = client.get(reverse("diary:participants", args=[wolves.session.pk]))
    assert "Wilk" not in participants.content.decode()


def test_stand_in_refusals(wolves, make_character, make_session, make_user):
    # Someone else's sheet.
    with pytest.raises(ValidationError):
        npc_services.npc_stand_in_set(npc=wolves.npc, by=wolves.gm, character=wolves.lirael)
    # A sheet with items.
    armed = make_character(wolves.gm, "Uzbrojony wilk")
    sword = Item.objects.create(system="forum1000", name="Miecz")
    ItemHolding.objects.create(character=armed, item=sword, quantity=1)
    with pytest.raises(ValidationError) as error:
        npc_services.npc_stand_in_set(npc=wolves.npc, by=wolves.gm, character=armed)
    assert "character" in error.value.error_dict
    # A session that gives NPCs fixed modifiers.
    fixed = make_session(wolves.gm, [])
    other = npc_services.npc_create(
        session=fixed, by=fixed.gm, name="Kupiec", description="", visible_to_players=True
    )
    with pytest.raises(ValidationError):
        npc_services.npc_stand_in_set(npc=other, by=other.session.gm, character=wolves.sheet)
    assert not Character.objects.filter(is_stand_in=True).exists()


def test_a_sheet_holding_potions_is_no_stand_in(wolves):
    """Seed line 182: a stand-in carries no equipment, healing potions included."""
    from django.utils import translation

    from characters.models import HealingPotion

    HealingPotion.objects.create(character=wolves.sheet, count=1, effect="+30 PŻ")
    with pytest.raises(ValidationError) as error:
        npc_services.npc_stand_in_set(npc=wolves.npc, by=wolves.gm, character=wolves.sheet)
    with translation.override("pl"):
        assert error.value.message_dict["character"] == [
            polish("An NPC's stand-in sheet carries no potions or healing items.")
        ]
    wolves.sheet.refresh_from_db()
    wolves.npc.refresh_from_db()
    assert not wolves.sheet.is_stand_in and wolves.npc.stand_in is None
    # Potions all used up (count 0) are no equipment any more.
    HealingPotion.objects.filter(character=wolves.sheet).update(count=0)
    npc_services.npc_stand_in_set(npc=wolves.npc, by=wolves.gm, character=wolves.sheet)
    wolves.sheet.refresh_from_db()
    assert wolves.sheet.is_stand_in


def test_stand_in_sheet_refuses_items(wolves, client_for):
    npc_services.npc_stand_in_set(npc=wolves.npc, by=wolves.gm, character=wolves.sheet)
    sword = Item.objects.create(system="forum1000", name="Miecz")
    data = sheet_post_data(name="Wilk", **{f"item_{sword.pk}": "1"})
    response = client_for(wolves.gm).post(reverse("characters:edit", args=[wolves.sheet.pk]), data)
    assert response.status_code == 400
    expected = polish(
        "An NPC's stand-in sheet carries no items (equipment): remove %(items)s.", items="Miecz"
    )
    assert expected in response.content.decode()
    assert not ItemHolding.objects.filter(character=wolves.sheet).exists()


def test_stand_in_is_never_a_participant(wolves, make_session):
    npc_services.npc_stand_in_set(npc=wolves.npc, by=wolves.gm, character=wolves.sheet)
    wolves.sheet.refresh_from_db()
    other = make_session(wolves.alice, [])
    assert wolves.sheet not in joinable_characters(wolves.gm, other)
    with pytest.raises(ValidationError):
        diary_services.participation_request(session=other, by=wolves.gm, character=wolves.sheet)
    with pytest.raises(ValidationError):
        diary_services.participation_invite(
            session=wolves.session, by=wolves.gm, character=wolves.sheet
        )
    access = session_access(wolves.gm, wolves.session)
    assert not access.is_player and wolves.sheet not in access.my_characters


def test_stand_in_plays_in_the_panel_opposed_and_initiative(wolves):
    assert wolves.sheet.pk not in sheets_in_play(wolves.session)
    npc_services.npc_stand_in_set(npc=wolves.npc, by=wolves.gm, character=wolves.sheet)
    assert wolves.sheet.pk in sheets_in_play(wolves.session)
    opposed = RollRequest(
        kind="opposed",
        a=SideRequest(wolves.lirael.pk, "attribute", (attr("Siła"),)),
        b=SideRequest(wolves.sheet.pk, "attribute", (attr("Siła"),)),
    )
    roll = make_roll(wolves.session, wolves.gm, opposed)
    assert roll.roll.record["characters"]["b"]["name"] == "Wilk"
    initiative = RollRequest(
        kind="initiative",
        initiative=(InitiativeLine(wolves.lirael.pk), InitiativeLine(wolves.sheet.pk)),
    )
    roll = make_roll(wolves.session, wolves.gm, initiative)
    assert "Wilk" in roll.roll.record["result"]["order"]


def test_panel_lists_the_stand_in_as_an_npc_for_the_gm_only(wolves, client_for):
    npc_services.npc_stand_in_set(npc=wolves.npc, by=wolves.gm, character=wolves.sheet)
    url = reverse("rolls:panel", args=[wolves.session.pk])
    gm_panel = client_for(wolves.gm).get(url, {"mode": "opposed"}, follow=True)
    assert "Wilk (NPC)" in gm_panel.content.decode()
    player_panel = client_for(wolves.alice).get(url, {"mode": "attribute"}, follow=True)
    assert "Wilk" not in player_panel.content.decode().split('name="a-character"')[1][:500]
    request = RollRequest(
        kind="attribute", a=SideRequest(wolves.sheet.pk, "attribute", (attr("Siła"),))
    )
    with pytest.raises(PermissionDenied):
        make_roll(wolves.session, wolves.alice, request)


def test_panel_refuses_items_on_a_stand_in(wolves, client_for):
    npc_services.npc_stand_in_set(npc=wolves.npc, by=wolves.gm, character=wolves.sheet)
    sword = Item.objects.create(
        system="forum1000", name="Kieł", attribute_id=attr("Siła"), modifier=50
    )
    request = RollRequest(
        kind="attribute",
        a=SideRequest(wolves.sheet.pk, "attribute", (attr("Siła"),), item_ids=(sword.pk,)),
    )
    with pytest.raises(RequestError) as error:
        make_roll(wolves.session, wolves.gm, request)
    assert error.value.code == "stand_in_items"
    response = client_for(wolves.gm).post(
        reverse("rolls:panel", args=[wolves.session.pk]),
        {
            "token": str(uuid.uuid4()),
            "mode": "attribute",
            "a-character": wolves.sheet.pk,
            "a-attribute": attr("Siła"),
            "a-sources": f"item:{sword.pk}",
            "a-action_value": "0",
            "a-gm_difficulty": "0",
            "a-gm_bonus": "0",
        },
    )
    assert response.status_code == 400
    assert not Roll.objects.exists()
    assert Skill.objects.exists()


def test_stand_in_plays_only_while_the_session_is_in_gm_character_mode(wolves):
    from diary.models import GameSession

    npc_services.npc_stand_in_set(npc=wolves.npc, by=wolves.gm, character=wolves.sheet)
    GameSession.objects.filter(pk=wolves.session.pk).update(npc_mode="fixed_modifiers")
    wolves.session.refresh_from_db()
    assert wolves.sheet.pk not in sheets_in_play(wolves.session)


def test_roster_page_shows_the_stand_in(wolves, client_for):
    npc_services.npc_stand_in_set(npc=wolves.npc, by=wolves.gm, character=wolves.sheet)
    page = client_for(wolves.gm).get(reverse("diary:npcs", args=[wolves.session.pk]))
    assert page.status_code == 200
    assert polish("Stand-in sheet") in page.content.decode()


def test_gm_sets_the_stand_in_as_the_other_side_in_the_panel(wolves, client_for):
    npc_services.npc_stand_in_set(npc=wolves.npc, by=wolves.gm, character=wolves.sheet)
    data = {
        "token": str(uuid.uuid4()),
        "mode": "opposed",
        "a-character": wolves.lirael.pk,
        "a-test": "attribute",
        "a-attribute": attr("Siła"),
        "b-character": wolves.sheet.pk,
        "b-test": "attribute",
        "b-attribute": attr("Siła"),
    }
    for side in "ab":
        data.update({f"{side}-action_value": "0", f"{side}-gm_difficulty": "0"})
        data[f"{side}-gm_bonus"] = "0"
    response = client_for(wolves.gm).post(reverse("rolls:panel", args=[wolves.session.pk]), data)
    assert response.status_code == 302
    roll = Roll.objects.get(session=wolves.session)
    assert roll.record["characters"]["b"]["name"] == "Wilk"
    # Side a acts; the stand-in defends.
    assert roll.character_id == wolves.lirael.pk
