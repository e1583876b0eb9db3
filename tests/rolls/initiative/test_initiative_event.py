"""The initiative event (RULES 1.4; seed 000 lines 107-121) and its tracker."""

import html
import re
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from diary.npcs import services as npc_services
from diary.services import post_create, turn_open_next
from rolls import access
from rolls.engine.dice import ScriptedDice
from rolls.initiative import selectors as initiative_selectors
from rolls.initiative import services as initiative_services
from rolls.models import (
    ChangeKind,
    InitiativeChange,
    InitiativeEvent,
    LedgerError,
    Roll,
)
from rolls.selectors import sheets_in_play
from tests.conftest import polish
from tests.diary_entries import effect_entry, free_entry
from tests.rolls.test_panel import panel_url
from tests.rolls.test_panel_safety import preview_of

pytestmark = pytest.mark.django_db

EVENT_RUNNING = (
    "An initiative event is running (%(name)s): its order holds until the GM ends "
    "it. End it first; then a new initiative roll opens the next one."
)


def initiative(**fields):
    return {"token": str(uuid.uuid4()), "mode": "initiative", **fields}


def fight_url(t, name="initiative"):
    return reverse(f"rolls:{name}", args=[t.session.pk])


def send(t, name, data, client=None, *, token=None):
    """The GM's initiative form as the page sends it: with a one-time token (a fresh one
    unless given; a plain UUID is signed for the client's user, tests/rolls/conftest.py)."""
    data = {"token": str(uuid.uuid4()) if token is None else token, **data}
    return (client or t.gm_client).post(fight_url(t, name), data)


def body(response) -> str:
    return html.unescape(response.content.decode())


@pytest.fixture
def fight(table, client_for, make_character, monkeypatch):
    """Lirael, Borys and a stand-in wolf; scripted dice so Lirael leads, then Borys, then
    the wolf. The session plays NPCs through stand-ins (mode gm_character)."""
    table.session.npc_mode = "gm_character"
    table.session.save()
    table.wolf = make_character(table.gm, "Wilk")
    npc = npc_services.npc_create(
        session=table.session, by=table.gm, name="Wilk", description="", visible_to_players=True
    )
    npc_services.npc_stand_in_set(npc=npc, by=table.gm, character=table.wolf)
    # Szybkość 640 for all: scores 540, 340, 140, the dice rolled in the panel's order.
    face = {"Lirael": 100, "Borys": 300, "Wilk": 500}
    faces = [face[c.name] for c in sheets_in_play(table.session).values()]
    monkeypatch.setattr("rolls.services.SystemDice", lambda: ScriptedDice(faces))
    gm = client_for(table.gm)
    response = gm.post(panel_url(table), initiative(event_name="Wilki u brodu"))
    assert response.status_code == 302, body(response)
    table.event = InitiativeEvent.objects.get()
    table.gm_client = gm
    return table


def order(t, turn=None):
    event = InitiativeEvent.objects.get(pk=t.event.pk)
    turn = turn or t.session.turns.order_by("-number").first().number
    view = initiative_selectors.fight_view(event, turn)
    return [r.name for r in view.rows], view


def test_the_roll_opens_a_named_event_with_everyone_taking_part_stand_in_included(fight):
    event = fight.event
    assert event.name == "Wilki u brodu" and event.is_running
    assert event.opened_by_roll == Roll.objects.get(test="initiative")
    rows = event.participants.order_by("rolled_position")
    assert list(rows.values_list("name", "score", "rolled_position")) == [
        ("Lirael", 540, 1),
        ("Borys", 340, 2),
        ("Wilk", 140, 3),
    ]
    names, view = order(fight)
    assert names == ["Lirael", "Borys", "Wilk"]
    assert view.marked_id == fight.lirael.pk
    opened = event.changes.get()
    assert opened.kind == ChangeKind.OPENED and opened.by == fight.gm
    assert opened.details["order"] == ["Lirael", "Borys", "Wilk"]


def test_the_gm_chooses_who_takes_part_and_stand_ins_are_offered(table, client_for):
    table.session.npc_mode = "gm_character"
    table.session.save()
    gm = client_for(table.gm)
    page = body(gm.get(panel_url(table), {"mode": "initiative", "token": str(uuid.uuid4())}))
    assert f'name="out_{table.borys.pk}"' in page
    response = gm.post(panel_url(table), initiative(**{f"out_{table.borys.pk}": "on"}))
    assert response.status_code == 302
    event = InitiativeEvent.objects.get()
    assert [p.name for p in event.participants.all()] == ["Lirael"]


def test_no_one_taking_part_is_refused_next_to_the_field(table, client_for):
    data = initiative(**{f"out_{c.pk}": "on" for c in (table.lirael, table.borys)})
    response = client_for(table.gm).post(panel_url(table), data)
    assert response.status_code == 400
    message = polish("Choose at least one character to take part.")
    assert re.search(r'id="id_event_name_error">' + re.escape(message), body(response))
    assert not Roll.objects.exists() and not InitiativeEvent.objects.exists()


def test_a_second_initiative_roll_during_the_event_is_refused_and_nothing_stored(fight):
    gm = fight.gm_client
    response = gm.post(panel_url(fight), initiative(event_name="Druga"))
    assert response.status_code == 400
    message = polish(EVENT_RUNNING, name="Wilki u brodu")
    assert re.search(r'id="id_event_name_error">' + re.escape(message), body(response))
    assert Roll.objects.count() == 1 and InitiativeEvent.objects.count() == 1
    # The preview says so before the roll.
    preview = gm.get(panel_url(fight), initiative()).content.decode()
    assert message in preview_of(preview)


def test_the_gm_ends_the_event_then_a_new_roll_opens_the_next(fight):
    gm = fight.gm_client
    assert gm.post(fight_url(fight, "initiative_end"), {}).status_code == 400  # unconfirmed
    assert InitiativeEvent.objects.running().count() == 1
    response = gm.post(fight_url(fight, "initiative_end"), {"confirm": "yes"})
    assert response.status_code == 302
    fight.event.refresh_from_db()
    assert not fight.event.is_running and fight.event.ended_by == fight.gm
    assert fight.event.changes.last().kind == ChangeKind.ENDED
    # No controls on an ended event: refused, nothing stored.
    count = InitiativeChange.objects.count()
    assert send(fight, "initiative_marker", {}).status_code == 400
    assert InitiativeChange.objects.count() == count
    assert gm.post(panel_url(fight), initiative(event_name="Rewanż")).status_code == 302
    assert InitiativeEvent.objects.running().get().name == "Rewanż"


def test_the_gm_moves_the_marker_to_the_next_and_picks_one(fight):
    assert send(fight, "initiative_marker", {"back": "diary"}).status_code == 302
    assert order(fight)[1].marked_id == fight.borys.pk
    data = {"character": fight.wolf.pk}
    assert send(fight, "initiative_marker", data).status_code == 302
    assert order(fight)[1].marked_id == fight.wolf.pk
    send(fight, "initiative_marker", {})
    assert order(fight)[1].marked_id == fight.lirael.pk  # from the top again
    moves = fight.event.changes.filter(kind=ChangeKind.MARKER)
    assert [c.details["name"] for c in moves] == ["Borys", "Wilk", "Lirael"]


def test_a_new_turn_puts_the_marker_back_on_the_top_of_the_order(fight):
    send(fight, "initiative_marker", {"character": fight.wolf.pk})
    assert order(fight)[1].marked_id == fight.wolf.pk
    turn_open_next(session=fight.session, by=fight.gm)
    names, view = order(fight)
    assert view.marked_id == fight.lirael.pk and view.marked_name == names[0]
    # "Next" in the new turn goes on from the top, not from where the last turn stopped.
    send(fight, "initiative_marker", {})
    assert order(fight)[1].marked_id == fight.borys.pk


def test_a_haste_spell_raises_a_character_for_two_turns_and_expires_on_the_third(fight):
    data = {"character": fight.wolf.pk, "value": "450", "turns": "2", "reason": "Przyspieszenie"}
    assert send(fight, "initiative_modifier", data).status_code == 302
    assert order(fight)[0] == ["Wilk", "Lirael", "Borys"]
    turn_open_next(session=fight.session, by=fight.gm)
    assert order(fight)[0] == ["Wilk", "Lirael", "Borys"]
    turn_open_next(session=fight.session, by=fight.gm)
    assert order(fight)[0] == ["Lirael", "Borys", "Wilk"]
    change = fight.event.changes.get(kind=ChangeKind.MODIFIER)
    assert (change.turn_number, change.reason, change.by) == (1, "Przyspieszenie", fight.gm)


def test_a_stunned_character_drops_to_the_end_and_returns_when_freed(fight):
    effect = effect_entry(fight.session, fight.gm, fight.lirael, "stun", "cios")
    names, view = order(fight)
    assert names == ["Borys", "Wilk", "Lirael"] and view.rows[-1].held
    free_entry(fight.session, fight.gm, effect, "ocknęła się")
    assert order(fight)[0] == ["Lirael", "Borys", "Wilk"]
    history = body(fight.gm_client.get(fight_url(fight)))
    assert polish("stun") in history and "ocknęła się" in history


def test_a_handover_moves_the_character_taking_over(fight):
    data = {
        "character": fight.borys.pk,
        "other": fight.lirael.pk,
        "position": "1",
        "reason": "Lirael czeka na Borysa",
    }
    assert send(fight, "initiative_handover", data).status_code == 302
    assert order(fight)[0] == ["Borys", "Lirael", "Wilk"]
    change = fight.event.changes.get(kind=ChangeKind.HANDOVER)
    assert change.details["other_name"] == "Lirael" and change.details["position"] == 1


@pytest.mark.parametrize(
    ("name", "data", "field"),
    [
        ("initiative_modifier", {"value": "100", "turns": "2", "reason": ""}, "reason"),
        ("initiative_modifier", {"value": "0", "turns": "2", "reason": "x"}, "value"),
        ("initiative_modifier", {"value": "600", "turns": "2", "reason": "x"}, "value"),
        ("initiative_modifier", {"value": "100", "turns": "0", "reason": "x"}, "turns"),
        ("initiative_modifier", {"value": "abc", "turns": "2", "reason": "x"}, "value"),
        ("initiative_handover", {"other": "same", "position": "1", "reason": "x"}, "other"),
        ("initiative_handover", {"other": "wolf", "position": "4", "reason": "x"}, "position"),
        ("initiative_handover", {"other": "wolf", "position": "1", "reason": " "}, "reason"),
        ("initiative_marker", {"character": "999999"}, "character"),
    ],
)
def test_bad_input_is_refused_next_to_the_field_and_nothing_stored(fight, name, data, field):
    data = {"character": fight.lirael.pk, **data}
    data["other"] = {"same": fight.lirael.pk, "wolf": fight.wolf.pk}.get(data.get("other"), "")
    count = InitiativeChange.objects.count()
    response = send(fight, name, data)
    assert response.status_code == 400
    form = name.removeprefix("initiative_")
    assert f'id="{form}_{field}_error"' in response.content.decode()
    assert InitiativeChange.objects.count() == count


def test_only_the_gm_changes_the_event_players_and_moderators_read_it(fight, client_for):
    count = InitiativeChange.objects.count()
    data = {"character": fight.lirael.pk, "value": "100", "turns": "1", "reason": "x"}
    for user in (fight.alice, fight.moderator):
        client = client_for(user)
        assert send(fight, "initiative_modifier", data, client).status_code == 403
        end = client.post(fight_url(fight, "initiative_end"), {"confirm": "yes"})
        assert end.status_code == 403
        page = client.get(fight_url(fight))
        assert page.status_code == 200
        assert 'data-testid="fight-history"' in page.content.decode()
        assert 'data-testid="modifier-form"' not in page.content.decode()
    assert client_for(fight.outsider).get(fight_url(fight)).status_code == 404
    assert InitiativeChange.objects.count() == count
    assert InitiativeEvent.objects.get().is_running


def test_the_diary_shows_the_order_with_the_marker_and_the_gm_gets_next(fight, client_for):
    url = reverse("diary:session", args=[fight.session.pk])
    player = body(client_for(fight.alice).get(url))
    assert 'data-testid="fight-order"' in player and "Wilki u brodu" in player
    marked = re.search(r'data-testid="fight-marked">(.*?)</li>', player, re.S).group(1)
    assert "Lirael" in marked
    assert 'data-testid="fight-next"' not in player
    assert 'data-testid="fight-next"' in body(fight.gm_client.get(url))
    panel = fight.gm_client.get(panel_url(fight), {"mode": "attribute", "token": str(uuid.uuid4())})
    assert 'data-testid="fight-order"' in panel.content.decode()


def test_after_a_stun_the_initiative_posts_order_is_the_trackers(fight, client_for):
    effect_entry(fight.session, fight.gm, fight.lirael, "stun", "cios")
    url = reverse("diary:session", args=[fight.session.pk])
    page = body(client_for(fight.alice).get(url))

    def names_in(testid):
        block = re.search(rf'data-testid="{testid}">(.*?)</ol>', page, re.S).group(1)
        return re.findall(r"<strong>(.*?)</strong>", block)

    assert names_in("fight-order") == ["Borys", "Wilk", "Lirael"]
    assert names_in("initiative-order-now") == names_in("fight-order")


def test_the_diary_query_count_stays_flat_during_a_fight(fight, client_for):
    client = client_for(fight.alice)
    url = reverse("diary:session", args=[fight.session.pk])
    client.get(url)  # warm up (content types, translations)
    # Both views right after a change, when the diary's cache (diary/live/page_cache.py) misses.
    post_create(session=fight.session, author=fight.bob, character=None, narration="-", nc_note="")
    with CaptureQueriesContext(connection) as small:
        client.get(url)
    for n in range(20):
        post_create(
            session=fight.session, author=fight.bob, character=None, narration=f"{n}", nc_note=""
        )
    effect_entry(fight.session, fight.gm, fight.borys, "stun", "cios")
    send(fight, "initiative_marker", {})
    with CaptureQueriesContext(connection) as large:
        client.get(url)
    assert len(large.captured_queries) == len(small.captured_queries)
    # The page without a fight (<= 13, tests/diary/test_access.py) plus the event, its
    # participants, its history and the held characters.
    assert len(small.captured_queries) <= 17


def test_the_history_is_append_only(fight):
    change = fight.event.changes.get()
    with pytest.raises(LedgerError):
        change.save()
    with pytest.raises(LedgerError):
        change.delete()
    with pytest.raises(LedgerError):
        InitiativeChange.objects.filter(pk=change.pk).update(reason="x")
    with pytest.raises(LedgerError):
        InitiativeChange.objects.all().delete()


# The one-time token: a double click or a Back-and-resend records the change once.

FOREIGN_FORM = "This form has expired or was not issued to you; send it again."


def page_token(page: str, testid: str) -> str:
    """The token of the form with this data-testid (or of the one holding this button)."""
    form = re.search(rf'<form[^>]*>(?:(?!</form>).)*data-testid="{testid}"', page, re.S)
    if form is None:
        form = re.search(rf'<form[^>]*data-testid="{testid}".*?</form>', page, re.S)
    return re.search(r'name="token" value="([^"]+)"', form.group(0)).group(1)


def test_the_next_button_sent_twice_moves_the_marker_once(fight):
    gm = fight.gm_client
    diary = body(gm.get(reverse("diary:session", args=[fight.session.pk])))
    token = page_token(diary, "fight-next")
    for _ in range(2):
        response = gm.post(fight_url(fight, "initiative_marker"), {"back": "diary", "token": token})
        assert response.status_code == 302
    assert fight.event.changes.filter(kind=ChangeKind.MARKER).count() == 1
    assert order(fight)[1].marked_id == fight.borys.pk  # not the wolf: nobody skipped


def test_the_marker_form_sent_twice_records_one_change(fight):
    token = page_token(body(fight.gm_client.get(fight_url(fight))), "marker-form")
    data = {"character": fight.wolf.pk}
    for _ in range(2):
        assert send(fight, "initiative_marker", data, token=token).status_code == 302
    assert fight.event.changes.filter(kind=ChangeKind.MARKER).count() == 1
    assert order(fight)[1].marked_id == fight.wolf.pk


def test_the_same_modifier_sent_twice_counts_once(fight):
    token = page_token(body(fight.gm_client.get(fight_url(fight))), "modifier-form")
    data = {"character": fight.wolf.pk, "value": "450", "turns": "2", "reason": "Przyspieszenie"}
    for _ in range(2):
        assert send(fight, "initiative_modifier", data, token=token).status_code == 302
    assert fight.event.changes.filter(kind=ChangeKind.MODIFIER).count() == 1
    names, view = order(fight)
    assert names == ["Wilk", "Lirael", "Borys"]
    assert view.rows[0].score == 140 + 450  # not +900
    # A new form (a new token) records a new change.
    assert send(fight, "initiative_modifier", data).status_code == 302
    assert fight.event.changes.filter(kind=ChangeKind.MODIFIER).count() == 2


def test_the_same_handover_sent_twice_records_one_change(fight):
    token = page_token(body(fight.gm_client.get(fight_url(fight))), "handover-form")
    data = {"character": fight.wolf.pk, "other": fight.lirael.pk, "position": "1", "reason": "x"}
    for _ in range(2):
        assert send(fight, "initiative_handover", data, token=token).status_code == 302
    assert fight.event.changes.filter(kind=ChangeKind.HANDOVER).count() == 1
    assert order(fight)[0] == ["Wilk", "Lirael", "Borys"]


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("initiative_marker", {}),
        ("initiative_modifier", {"value": "450", "turns": "2", "reason": "x"}),
        ("initiative_handover", {"other": "wolf", "position": "1", "reason": "x"}),
    ],
)
def test_a_token_issued_to_someone_else_is_refused_and_nothing_stored(fight, name, data):
    data = {"character": fight.lirael.pk, **data}
    if "other" in data:
        data["other"] = fight.wolf.pk
    count = InitiativeChange.objects.count()
    for token in (access.issue_token(fight.alice, fight.session), "", "not-a-token"):
        response = send(fight, name, data, token=token)
        assert response.status_code == 400
        assert polish(FOREIGN_FORM) in body(response)
        assert InitiativeChange.objects.count() == count
    # The refused form comes back with a token of the GM's own: sent again, it counts.
    form = name.removeprefix("initiative_")
    again = page_token(body(response), f"{form}-form")
    assert send(fight, name, data, token=again).status_code == 302
    assert InitiativeChange.objects.count() == count + 1


def test_a_concurrent_duplicate_resolves_to_the_change_already_made(fight, monkeypatch):
    token = uuid.uuid4()
    first = initiative_services.initiative_marker_move(event=fight.event, by=fight.gm, token=token)
    # The second request missed the first one's row (as if both passed the check at once):
    # the unique constraint stops it, and it answers with the first one's change.
    real = initiative_services._made
    calls = []

    def missed_once(by, token):
        calls.append(token)
        return None if len(calls) == 1 else real(by, token)

    monkeypatch.setattr(initiative_services, "_made", missed_once)
    second = initiative_services.initiative_marker_move(event=fight.event, by=fight.gm, token=token)
    assert second == first and len(calls) == 2
    assert fight.event.changes.filter(kind=ChangeKind.MARKER).count() == 1
