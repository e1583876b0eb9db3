"""A fifth system is one package: the test-only d6 (tests/rolls/d6/) registers, and the
panel, a player's request, the GM's answer, the diary and the ledger play it without a line
of the site knowing it."""

import html
import re
import uuid

import pytest
from django.test import Client
from django.urls import reverse

from characters.models import Character
from diary.models import GameSession
from diary.services import post_create
from rolls import registry
from rolls.ledger.verify import verify_session
from rolls.models import AskStatus, Roll, RollAsk
from rolls.selectors import ask_answer_query
from tests.rolls.d6 import D6
from tests.rolls.system_tables import session_with_players, sheet, start

pytestmark = pytest.mark.django_db


@pytest.fixture
def d6_table(make_user):
    """A running session of the d6 system, with two players' characters."""
    registry.register(D6)
    gm, alice, bob, moderator = make_user(), make_user(), make_user(), make_user(moderator=True)
    # The site's sessions and sheets are made of the systems it ships; the d6 takes one over.
    ola = sheet("q10", alice, "Ola", {})
    jan = sheet("q10", bob, "Jan", {})
    session = start(
        session_with_players("q10", gm, [ola, jan], title="Kostka", roll_policy="players_own"),
        gm,
        moderator,
    )
    GameSession.objects.filter(pk=session.pk).update(system=D6.name)
    Character.objects.filter(pk__in=[ola.pk, jan.pk]).update(system=D6.name)
    session.refresh_from_db()
    yield session, gm, alice, ola
    registry.unregister(D6.name)


def words(response) -> str:
    text = html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode()))
    return re.sub(r"\s+", " ", text)


def test_the_registered_system_rolls_through_the_panel_and_the_ledger(d6_table, client_for):
    session, gm, _alice, ola = d6_table
    panel = reverse("rolls:panel", args=[session.pk])
    client = client_for(gm)

    page = client.get(panel, {"mode": "d6"}, follow=True)  # a link opens a clean panel
    assert page.status_code == 200
    assert "Rzut k6" in words(page) and 'name="target"' in page.content.decode()

    fields = {"mode": "d6", "character": ola.pk, "target": 5, "token": str(uuid.uuid4())}
    preview = client.get(panel, fields, headers={"HX-Request": "true", "HX-Target": "preview"})
    assert preview.status_code == 200
    assert 'data-testid="chance">33,33%' in preview.content.decode()  # 5 or 6 of 6 faces

    response = client.post(panel, fields)
    assert response.status_code == 302
    roll = Roll.objects.get(session=session)
    assert (roll.system, roll.test, roll.character_id) == (D6.name, "d6", ola.pk)
    assert roll.record["result"]["input"] == {"target": 5}
    diary = client.get(response.url)
    face = roll.record["result"]["face"]
    assert f"Ola · k6 ≥ 5: {'Sukces' if face >= 5 else 'Porażka'}" in words(diary)

    report = verify_session(session.pk, recompute=True)
    assert report.ok and report.count == 1


def test_a_player_asks_and_the_gm_answers_in_the_registered_system(d6_table, client_for):
    session, gm, alice, ola = d6_table
    post = post_create(
        session=session, author=alice, character=ola, narration="Ola rzuca kością.", nc_note=""
    )
    ask_page = reverse("rolls:ask", args=[session.pk])
    player = Client()
    player.force_login(alice)
    form = player.get(ask_page).content.decode()
    # The target is the GM's to set: a request names only the character.
    assert 'name="character"' in form and 'name="target"' not in form
    sent = player.post(ask_page, {"mode": "d6", "character": ola.pk})
    assert sent.status_code == 302
    ask = RollAsk.objects.get(session=session)
    assert (ask.post, ask.test, ask.case_fields) == (post, "d6", {"character": str(ola.pk)})
    assert ask.summary == "Ola: k6 ≥ 4"

    # The GM's answer: the panel prefilled from the request, the GM's target added.
    query = {**ask_answer_query(ask).dict(), "target": 3, "token": str(uuid.uuid4())}
    answered = client_for(gm).post(reverse("rolls:panel", args=[session.pk]), query)
    assert answered.status_code == 302
    ask.refresh_from_db()
    assert ask.status == AskStatus.ANSWERED
    assert ask.answer.record["answers"]["ask"] == ask.pk
    assert verify_session(session.pk, recompute=True).ok


def test_unregistered_the_system_has_no_panel(d6_table, client_for):
    session, gm, _alice, _ola = d6_table
    registry.unregister(D6.name)
    page = client_for(gm).get(reverse("rolls:panel", args=[session.pk]), {"mode": "d6"})
    assert page.status_code == 403
