"""A session's public page tells a prospective player what it is about; its diary,
to someone outside its table, says it is private instead of a bare refusal."""

import html
from urllib.parse import urlencode

import pytest
from django.urls import reverse

from diary.models import GameSession
from tests.conftest import polish

pytestmark = pytest.mark.django_db


def test_an_outsider_opening_the_diary_gets_a_polish_page_saying_it_is_private(table, client_for):
    response = client_for(table.outsider).get(reverse("diary:session", args=[table.session.pk]))
    assert response.status_code == 403
    text = response.content.decode()
    assert (
        polish(
            "This session's diary is private: only its GM and the players of its characters "
            "read it."
        )
        in text
    )
    assert reverse("diary:session_join", args=[table.session.pk]) in text


def test_the_public_page_shows_the_pitch_rendered_and_who_plays(table, client_for):
    GameSession.objects.filter(pk=table.session.pk).update(
        description="**Mgła** nad brodem.\n\n<script>alert(1)</script>"
    )
    response = client_for(table.outsider).get(
        reverse("diary:session_join", args=[table.session.pk])
    )
    assert response.status_code == 200
    text = response.content.decode()
    assert "<strong>Mgła</strong> nad brodem." in text
    assert "**Mgła**" not in text and "<script>alert(1)" not in text
    assert polish("Characters playing") in text
    assert 'data-testid="session-players">2<' in text
    assert table.gm.username in text


def test_an_application_carries_a_message_and_the_gms_answer_a_note(
    make_user, make_character, make_session, client_for
):
    from diary.models import Notification, Participation

    gm, player = make_user("mg_rekrutuje"), make_user("kandydatka")
    character = make_character(player, "Wanda")
    session = make_session(gm, status="running", title="Rekrutacja")
    join = reverse("diary:session_join", args=[session.pk])
    response = client_for(player).post(
        join, {"character": character.pk, "message": "Gram od lat, *lubię* mroczne klimaty."}
    )
    assert response.status_code == 302
    application = Participation.objects.get(session=session, character=character)
    assert application.message == "Gram od lat, *lubię* mroczne klimaty."
    # The GM reads the message beside the request and answers with a note.
    roster = client_for(gm).get(reverse("diary:participants", args=[session.pk]))
    assert "Gram od lat" in roster.content.decode()
    client_for(gm).post(
        reverse("diary:participation_accept", args=[application.pk]),
        {"note": "Witaj! Zaczynamy w karczmie."},
    )
    application.refresh_from_db()
    assert application.status == "accepted"
    assert application.gm_note == "Witaj! Zaczynamy w karczmie."
    told = Notification.objects.get(recipient=player, kind="participation_decided")
    assert told.args["note"] == "Witaj! Zaczynamy w karczmie."
    # The applicant sees the outcome and the note on the session's public page.
    page = client_for(player).get(join).content.decode()
    assert "Witaj! Zaczynamy w karczmie." in page


def test_an_overlong_application_message_is_refused_next_to_the_field(
    make_user, make_character, make_session, client_for
):
    from diary.models import Participation

    gm, player = make_user(), make_user()
    character = make_character(player)
    session = make_session(gm, status="running")
    response = client_for(player).post(
        reverse("diary:session_join", args=[session.pk]),
        {"character": character.pk, "message": "x" * 5001},
    )
    assert response.status_code == 400
    assert not Participation.objects.exists()


def test_the_list_marks_the_sessions_the_player_asked_to_join(
    make_user, make_character, make_session, client_for
):
    from diary import services

    gm, player = make_user(), make_user()
    character = make_character(player)
    asked = make_session(gm, title="Zapytana")
    other = make_session(gm, title="Inna")
    services.participation_request(session=asked, by=player, character=character)
    page = client_for(player).get(reverse("diary:session_list")).content.decode()
    assert f'data-testid="applied-{asked.pk}"' in page
    assert f'data-testid="applied-{other.pk}"' not in page
    assert polish("your request waits") in page


def test_the_join_page_builds_a_character_of_the_sessions_system_and_takes_it_back(
    make_user, make_character, make_session, client_for
):
    gm, player = make_user(), make_user()
    make_character(player, "Stara")
    session = make_session(gm, status="running")
    GameSession.objects.filter(pk=session.pk).update(system="q10")
    join = reverse("diary:session_join", args=[session.pk])

    page = client_for(player).get(join)
    new_character = reverse("characters:create") + "?" + urlencode({"system": "q10", "next": join})
    assert f'href="{html.escape(new_character)}"' in page.content.decode()


def test_the_join_page_chooses_only_a_character_that_may_ask(
    make_user, make_character, make_session, client_for
):
    gm, player = make_user(), make_user()
    make_character(player, "Anna")
    second = make_character(player, "Borys")
    someone_elses = make_character(make_user(), "Cudza")
    session = make_session(gm, status="running")
    join = reverse("diary:session_join", args=[session.pk])

    chosen = client_for(player).get(f"{join}?character={second.pk}").context["form"]
    assert chosen["character"].value() == second.pk
    for foreign in (someone_elses.pk, "x", "99999999999999999999"):
        form = client_for(player).get(f"{join}?character={foreign}").context["form"]
        assert form["character"].value() is None
