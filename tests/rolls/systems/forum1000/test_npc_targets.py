"""Mode fixed_modifiers: the GM targets an NPC's fixed modifier in the roll panel."""

import re
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from diary.models import GameSession
from diary.npcs import services as npc_services
from rolls import access
from rolls.models import Roll
from tests.conftest import polish
from tests.rolls.test_panel import attr, single, skill_roll

pytestmark = pytest.mark.django_db


@pytest.fixture
def merchant(table):
    npc = npc_services.npc_create(
        session=table.session,
        by=table.gm,
        name="Stary kupiec",
        description="",
        visible_to_players=True,
    )
    return npc_services.npc_modifier_create(
        npc=npc, by=npc.session.gm, interaction="perswazja", value=100, reason="łatwowierny"
    )


def panel_url(session):
    return reverse("rolls:panel", args=[session.pk])


def test_gm_rolls_against_an_npc_and_the_roll_shows_it(table, merchant, client_for):
    client = client_for(table.gm)
    response = client.post(
        panel_url(table.session), single(table.lirael, **{"a-npc_modifier": merchant.pk})
    )
    assert response.status_code == 302
    roll = Roll.objects.get(session=table.session)
    assert roll.record["npc"] == {
        "id": merchant.npc_id,
        "name": "Stary kupiec",
        "interaction": "perswazja",
        "value": 100,
        "reason": "łatwowierny",
    }
    terms = roll.record["result"]["breakdown"]
    npc_term = [t for t in terms if t.get("scope") == "gm_difficulty"]
    assert npc_term[0]["value"] == 100
    assert npc_term[0]["reason"] == "NPC Stary kupiec, perswazja: łatwowierny"
    # Percepcja 600 + 100
    assert roll.record["result"]["threshold"] == 700
    page = client.get(response.url).content.decode()
    assert "NPC Stary kupiec, perswazja: +100 (łatwowierny)" in page


def test_npc_modifier_in_a_skill_roll_and_the_preview(table, merchant, client_for):
    client = client_for(table.gm)
    data = skill_roll(table.lirael, "Uwodzenie", **{"a-npc_modifier": merchant.pk})
    response = client.get(panel_url(table.session), data)
    text = response.content.decode()
    assert "Stary kupiec — perswazja +100 (łatwowierny)" in text  # the panel's choice
    assert "NPC Stary kupiec, perswazja: łatwowierny" in text  # the preview's breakdown
    assert client.post(panel_url(table.session), data).status_code == 302
    assert Roll.objects.get(session=table.session).record["npc"]["name"] == "Stary kupiec"


def test_npc_and_gm_difficulty_sum_stays_in_range(table, merchant, client_for):
    """RULES 1.2: the sum of gm_difficulty modifiers lies in −500..+500."""
    client = client_for(table.gm)
    data = single(
        table.lirael,
        **{
            "a-npc_modifier": merchant.pk,
            "a-gm_difficulty": "500",
            "a-gm_difficulty_reason": "burza",
        },
    )
    response = client.post(panel_url(table.session), data)
    assert response.status_code == 400
    assert (
        polish(
            "A GM modifier is a multiple of %(step)s between −%(limit)s and +%(limit)s.",
            step=50,
            limit=500,
        )
        in response.content.decode()
    )
    assert not Roll.objects.exists()
    # +400 and +100 together are still within the range.
    data.update({"a-gm_difficulty": "400", "token": str(uuid.uuid4())})
    assert client.post(panel_url(table.session), data).status_code == 302


def test_player_cannot_target_an_npc(make_user, make_session, make_character, client_for):
    gm, alice = make_user(), make_user()
    lirael = make_character(alice, "Lirael")
    session = make_session(gm, [lirael], roll_policy="players_own")
    npc = npc_services.npc_create(
        session=session, by=session.gm, name="Kupiec", description="", visible_to_players=True
    )
    modifier = npc_services.npc_modifier_create(
        npc=npc, by=npc.session.gm, interaction="handel", value=-200, reason="mistrz targu"
    )
    client = client_for(alice)
    panel = client.get(panel_url(session), {"mode": "attribute"}, follow=True)
    assert 'name="a-npc_modifier"' not in panel.content.decode()
    data = single(lirael, **{"a-npc_modifier": modifier.pk})
    for key in ("a-action_value", "a-gm_difficulty", "a-gm_bonus"):
        data.pop(key)
    client.post(panel_url(session), data)
    # The form has no such field for a player: the roll is made without the NPC...
    assert "npc" not in Roll.objects.get(session=session).record
    # ...and the service refuses an NPC target from a player on its own too.
    from django.core.exceptions import PermissionDenied

    from rolls.systems.forum1000.requests import RollRequest, SideRequest
    from tests.rolling import make_roll

    request = RollRequest(
        kind="attribute",
        a=SideRequest(lirael.pk, "attribute", (attr("Percepcja"),), npc_modifier_id=modifier.pk),
    )
    with pytest.raises(PermissionDenied):
        make_roll(session, alice, request)


def test_no_npc_target_in_a_gm_character_session(table, merchant, client_for):
    GameSession.objects.filter(pk=table.session.pk).update(npc_mode="gm_character")
    client = client_for(table.gm)
    panel = client.get(panel_url(table.session), {"mode": "attribute"}, follow=True)
    assert 'name="a-npc_modifier"' not in panel.content.decode()
    from rolls.systems.forum1000.requests import RequestError, RollRequest, SideRequest
    from tests.rolling import make_roll

    request = RollRequest(
        kind="attribute",
        a=SideRequest(
            table.lirael.pk, "attribute", (attr("Percepcja"),), npc_modifier_id=merchant.pk
        ),
    )
    # The case is built from the session as it is (its NPC mode is fixed once it runs).
    table.session.refresh_from_db()
    with pytest.raises(RequestError) as error:
        make_roll(table.session, table.gm, request)
    assert error.value.code == "npc_mode"
    assert not Roll.objects.exists()


def foreign_modifier(table, make_session):
    """An NPC modifier of another session of the same GM."""
    other = make_session(table.gm, [])
    npc = npc_services.npc_create(
        session=other, by=other.gm, name="Obcy", description="", visible_to_players=True
    )
    return npc_services.npc_modifier_create(
        npc=npc, by=npc.session.gm, interaction="groźba", value=50, reason="tchórz"
    )


def refused_next_to_the_field(response, modifier) -> None:
    page = response.content.decode()
    assert response.status_code == 400
    assert 'id="id_a-npc_modifier_error"' in page
    assert (
        polish(
            "Select a valid choice. %(value)s is not one of the available choices.",
            value=modifier.pk,
        )
        in page
    )
    assert not Roll.objects.exists()


def test_npc_of_another_session_is_refused(table, merchant, make_session, client_for):
    foreign = foreign_modifier(table, make_session)
    client = client_for(table.gm)
    response = client.post(
        panel_url(table.session), single(table.lirael, **{"a-npc_modifier": foreign.pk})
    )
    refused_next_to_the_field(response, foreign)


def test_without_npc_modifiers_the_gm_sees_no_npc_field_and_a_forged_one_is_refused(
    table, make_session, client_for
):
    """The field is drawn only when the session has modifiers; a modifier sent anyway is
    checked against the session's (none) and refused next to the field, drawn for it."""
    foreign = foreign_modifier(table, make_session)
    client = client_for(table.gm)
    panel = client.get(panel_url(table.session), {"mode": "attribute"}, follow=True)
    assert panel.status_code == 200 and 'name="a-npc_modifier"' not in panel.content.decode()
    response = client.post(
        panel_url(table.session), single(table.lirael, **{"a-npc_modifier": foreign.pk})
    )
    refused_next_to_the_field(response, foreign)


def npc_modifier_reads(queries) -> list[str]:
    return [q["sql"] for q in queries.captured_queries if "diary_npcmodifier" in q["sql"]]


def test_a_roll_that_targets_no_npc_never_reads_the_npc_modifiers(table, merchant, client_for):
    """The field's choices are read when it is drawn or a modifier is chosen: the GM's panel
    offers the session's modifiers, while a preview or a roll choosing none reads none."""
    session = table.session
    client = client_for(table.gm)
    panel = client.get(panel_url(session), {"mode": "attribute"}, follow=True).content.decode()
    assert 'name="a-npc_modifier"' in panel
    assert "Stary kupiec — perswazja +100 (łatwowierny)" in panel
    with CaptureQueriesContext(connection) as preview:
        shown = client.get(
            panel_url(session),
            {**single(table.lirael), "token": access.issue_token(table.gm, session)},
            HTTP_HX_REQUEST="true",
            HTTP_HX_TARGET="preview",
        )
    assert 'data-testid="chance"' in shown.content.decode()
    assert npc_modifier_reads(preview) == []
    with CaptureQueriesContext(connection) as plain:
        response = client.post(panel_url(session), single(table.lirael))
    assert response.status_code == 302, response.content.decode()[-2000:]
    assert "npc" not in Roll.objects.get(session=session).record
    assert npc_modifier_reads(plain) == []
    # A roll that chooses one still rolls with it.
    with CaptureQueriesContext(connection) as chosen:
        response = client.post(
            panel_url(session), single(table.borys, **{"a-npc_modifier": merchant.pk})
        )
    assert response.status_code == 302, response.content.decode()[-2000:]
    roll = Roll.objects.filter(session=session).latest("seq")
    assert roll.character == table.borys and roll.record["npc"]["name"] == "Stary kupiec"
    assert npc_modifier_reads(chosen)


def test_no_npc_target_in_an_opposed_roll(table, merchant):
    from rolls.systems.forum1000.requests import RequestError, RollRequest, SideRequest
    from tests.rolling import make_roll

    request = RollRequest(
        kind="opposed",
        a=SideRequest(table.lirael.pk, "attribute", (attr("Siła"),), npc_modifier_id=merchant.pk),
        b=SideRequest(table.borys.pk, "attribute", (attr("Siła"),)),
    )
    with pytest.raises(RequestError) as error:
        make_roll(table.session, table.gm, request)
    assert error.value.code == "npc_kind"
    assert not Roll.objects.exists()


def opposed_against_npc(table, merchant, **extra):
    """The opposed tab with an NPC opponent, the defence's side left as the panel had it."""
    return single(
        table.lirael,
        mode="opposed",
        **{
            "a-test": "attribute",
            "a-npc_modifier": merchant.pk,
            "b-character": table.borys.pk,
            "b-test": "attribute",
            "b-attribute": attr("Siła"),
            **extra,
        },
    )


def test_the_opposed_tab_offers_an_npc_opponent_that_rolls_no_defence(table, merchant, client_for):
    """Mode fixed_modifiers (seed 000 line 180): against an NPC, the character's test with
    the NPC's fixed modifier, shown in the odds before the roll; the NPC rolls nothing."""
    client = client_for(table.gm)
    data = opposed_against_npc(table, merchant)
    panel = client.get(panel_url(table.session), data).content.decode()
    assert polish("Opponent: an NPC") in panel
    assert "NPC Stary kupiec, perswazja: łatwowierny" in panel  # the odds' breakdown
    # No defence side: its fields ride along hidden, for a character opponent again.
    assert 'id="id_b-character"' not in panel
    assert re.search(r'<input type="hidden" name="b-character" value="\d+">', panel)
    response = client.post(panel_url(table.session), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    roll = Roll.objects.get(session=table.session)
    assert roll.test == "attribute"
    assert roll.record["npc"]["name"] == "Stary kupiec"
    assert roll.record["result"]["threshold"] == 700  # Percepcja 600 + the NPC's 100
    assert "b" not in roll.record["characters"]


def test_an_npc_opponent_takes_no_half_attribute_test(table, merchant, client_for):
    data = opposed_against_npc(table, merchant, **{"a-test": "half_attribute"})
    response = client_for(table.gm).post(panel_url(table.session), data)
    assert response.status_code == 400
    assert 'id="id_a-test_error"' in response.content.decode()
    assert not Roll.objects.exists()


def test_in_the_rolled_mode_the_npc_defends_with_its_stand_in_sheets_roll(
    table, client_for, make_character
):
    """Mode gm_character: no NPC opponent field; the NPC's stand-in is the defence's side
    and rolls as a character would."""
    table.session.npc_mode = "gm_character"
    table.session.save()
    sheet = make_character(table.gm, "Wilk")
    npc = npc_services.npc_create(
        session=table.session, by=table.gm, name="Wilk", description="", visible_to_players=True
    )
    npc_services.npc_stand_in_set(npc=npc, by=table.gm, character=sheet)
    data = single(
        table.lirael,
        mode="opposed",
        **{
            "a-test": "attribute",
            "b-character": sheet.pk,
            "b-test": "attribute",
            "b-attribute": attr("Siła"),
            "b-action_value": "0",
            "b-gm_difficulty": "0",
            "b-gm_bonus": "0",
        },
    )
    client = client_for(table.gm)
    panel = client.get(panel_url(table.session), data).content.decode()
    assert 'name="a-npc_modifier"' not in panel
    assert client.post(panel_url(table.session), data).status_code == 302
    roll = Roll.objects.get(session=table.session)
    assert roll.test == "opposed" and roll.record["characters"]["b"]["name"] == "Wilk"
