"""The turn: who is awaited, each character's action rolls, the GM's deadline,
and the home page's lists of whose move it is."""

import html
import re
from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from characters.models import Attribute
from diary.models import Turn
from diary.selectors import time_left_text
from diary.services import post_create, post_hide, turn_open_next
from rolls.systems.forum1000.requests import RollRequest, SideRequest
from tests.conftest import polish
from tests.rolling import make_roll

pytestmark = pytest.mark.django_db
WARSAW = ZoneInfo("Europe/Warsaw")


def page(client, table, live=False) -> str:
    name = "diary:session_live" if live else "diary:session"
    return html.unescape(client.get(reverse(name, args=[table.session.pk])).content.decode())


def awaited(body: str) -> str:
    match = re.search(r'data-testid="awaited">(.*?)</p>', body, re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", match.group(1)).split()) if match else ""


def write(table, who, character, text="Idę dalej."):
    return post_create(
        session=table.session, author=who, character=character, narration=text, nc_note=""
    )


def test_the_awaited_list_empties_as_characters_post(table, client_for):
    client = client_for(table.gm)
    waiting = polish("Waiting for:")
    assert awaited(page(client, table)) == f"{waiting} Borys, Lirael"
    write(table, table.alice, table.lirael)
    body = page(client, table)
    assert awaited(body) == f"{waiting} Borys"
    # The turn's heading says it too.
    assert f"{waiting} Borys" in re.search(r'data-testid="awaited-short">(.*?)</p>', body)[1]
    # A post without a character counts for an owner who plays only one character.
    write(table, table.bob, None)
    everyone = polish("Everyone has posted in this turn.")
    assert awaited(page(client, table)) == everyone
    # The live poll's fragment carries the list (it refreshes with the diary).
    assert awaited(page(client, table, live=True)) == everyone
    # A new turn awaits everyone again.
    turn_open_next(session=table.session, by=table.gm)
    assert awaited(page(client, table)) == f"{waiting} Borys, Lirael"


def test_a_plain_post_does_not_count_for_an_owner_of_two_characters(
    table, make_character, client_for
):
    from diary.services import participation_decide, participation_invite

    second = make_character(table.alice, "Aeris")
    participation_decide(
        participation=participation_invite(session=table.session, by=table.gm, character=second),
        by=table.alice,
        accept=True,
    )
    write(table, table.alice, None)
    assert awaited(page(client_for(table.gm), table)) == (
        f"{polish('Waiting for:')} Aeris, Borys, Lirael"
    )
    write(table, table.alice, second)
    assert awaited(page(client_for(table.gm), table)) == f"{polish('Waiting for:')} Borys, Lirael"


def test_a_hidden_post_and_the_gms_post_are_no_ones_move(table, client_for):
    post = write(table, table.alice, table.lirael)
    post_hide(post=post, by=table.moderator, reason="spam")
    write(table, table.gm, None)
    assert "Lirael" in awaited(page(client_for(table.gm), table))


def test_each_characters_action_rolls_are_shown(table, client_for):
    percepcja = Attribute.objects.get(system="forum1000", name="Percepcja")
    client = client_for(table.alice)
    rows = re.findall(r'data-testid="turn-usage">(.*?)</li>', page(client, table), re.S)
    none = polish("%(count)s/%(limit)s action roll", count=0, limit=1)
    assert [re.sub(r"<[^>]+>", "", r).split(" · ")[0] for r in rows] == [
        f"Borys: {none}",
        f"Lirael: {none}",
    ]
    make_roll(
        table.session,
        table.gm,
        RollRequest(kind="attribute", a=SideRequest(table.lirael.pk, "attribute", (percepcja.pk,))),
    )
    body = page(client, table)
    assert f"Lirael: {polish('%(count)s/%(limit)s action roll', count=1, limit=1)}" in body


# -- the deadline ------------------------------------------------------------------


def deadline_url(table):
    return reverse("diary:turn_deadline", args=[table.session.pk])


def local(moment) -> str:
    return moment.astimezone(WARSAW).strftime("%Y-%m-%dT%H:%M")


def test_the_gm_sets_a_deadline_shown_with_the_time_left(table, client_for):
    moment = (timezone.now() + timedelta(days=2, hours=3, minutes=30)).replace(
        second=0, microsecond=0
    )
    response = client_for(table.gm).post(deadline_url(table), {"deadline": local(moment)})
    assert response.status_code == 302
    turn = Turn.objects.get(session=table.session)
    assert turn.deadline == moment  # read as Polish time
    body = page(client_for(table.alice), table)
    shown = re.search(r'data-testid="deadline">(.*?)</p>', body, re.S)[1]
    assert "zostało 2 dni 3 godz." in shown
    # The player sees it but has no form to change it.
    assert 'name="deadline"' not in body
    assert 'name="deadline"' in page(client_for(table.gm), table)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("past", "The deadline must be in the future."),
        ("jutro wieczorem", "Enter a date and time, e.g. 2026-12-24 18:00."),
    ],
)
def test_a_bad_deadline_is_refused_next_to_the_field(table, client_for, value, message):
    if value == "past":
        value = local(timezone.now() - timedelta(hours=1))
    response = client_for(table.gm).post(deadline_url(table), {"deadline": value})
    assert response.status_code == 400
    body = html.unescape(response.content.decode())
    assert re.search(r'id="id_deadline_error">' + re.escape(polish(message)), body)
    assert Turn.objects.get(session=table.session).deadline is None


def test_only_the_gm_sets_the_deadline(table, client_for):
    future = local(timezone.now() + timedelta(days=1))
    for who in (table.alice, table.moderator):
        response = client_for(who).post(deadline_url(table), {"deadline": future})
        assert response.status_code == 403
    assert client_for(table.gm).get(deadline_url(table)).status_code == 405
    assert Turn.objects.get(session=table.session).deadline is None


def test_the_gm_clears_the_deadline_and_a_past_one_says_so(table, client_for):
    turn = Turn.objects.get(session=table.session)
    Turn.objects.filter(pk=turn.pk).update(deadline=timezone.now() - timedelta(minutes=5))
    body = page(client_for(table.alice), table)
    assert "termin minął" in re.search(r'data-testid="deadline">(.*?)</p>', body, re.S)[1]
    assert client_for(table.gm).post(deadline_url(table), {"deadline": ""}).status_code == 302
    assert Turn.objects.get(pk=turn.pk).deadline is None
    assert 'data-testid="deadline"' not in page(client_for(table.alice), table)


def test_time_left_in_polish():
    now = timezone.now()
    assert (
        time_left_text(now + timedelta(days=2, hours=3, minutes=5), now) == "zostało 2 dni 3 godz."
    )
    assert time_left_text(now + timedelta(days=1), now) == "zostało 1 dzień"
    assert time_left_text(now + timedelta(hours=5, minutes=20), now) == "zostało 5 godz. 20 min"
    assert time_left_text(now + timedelta(seconds=20), now) == "zostało 1 min"
    assert time_left_text(now - timedelta(seconds=1), now) == "termin minął"


# -- the home page -------------------------------------------------------------------


def home(client) -> str:
    return html.unescape(client.get(reverse("home")).content.decode())


def section(body: str, testid: str) -> str:
    match = re.search(rf'data-testid="{testid}">(.*?)</section>', body, re.S)
    return match.group(1) if match else ""


def test_home_lists_whose_move_it_is(table, client_for):
    alice, bob, gm = client_for(table.alice), client_for(table.bob), client_for(table.gm)
    title = table.session.title
    assert "Lirael" in section(home(alice), "home-my-move") and title in section(
        home(alice), "home-my-move"
    )
    assert title not in section(home(gm), "home-all-posted")
    write(table, table.alice, table.lirael)
    assert title not in section(home(alice), "home-my-move")
    assert title in section(home(bob), "home-my-move")
    assert title not in section(home(gm), "home-all-posted")
    write(table, table.bob, table.borys)
    assert title not in section(home(bob), "home-my-move")
    assert title in section(home(gm), "home-all-posted")
    # The GM's own list is not the players' one, and outsiders see neither.
    assert title not in section(home(gm), "home-my-move")
    assert title not in home(client_for(table.outsider))


def test_home_turns_take_constant_queries(table, make_session, make_character, client_for):
    client = client_for(table.gm)
    client.get(reverse("home"))
    with CaptureQueriesContext(connection) as few:
        client.get(reverse("home"))
    for n in range(3):
        character = make_character(table.alice, f"Bohater {n}")
        make_session(table.gm, [character])
    with CaptureQueriesContext(connection) as many:
        client.get(reverse("home"))
    assert len(many.captured_queries) == len(few.captured_queries)
