"""A character plays in one running session at a time: its HP, effects and potions belong
to one story, and its sheet names the GM its owner's edits wait for."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from diary import services
from diary.models import Participation, ParticipationStatus, SessionStatus
from tests.conftest import polish

pytestmark = pytest.mark.django_db


def _refusal(title: str) -> str:
    return polish(
        "This character already plays in the running session “%(session)s”; it plays in "
        "one running session at a time.",
        session=title,
    )


def test_asking_to_join_with_a_character_playing_elsewhere_is_refused(
    table, make_user, make_session, client_for
):
    other = make_session(make_user("inny_mg"), status=SessionStatus.RUNNING, title="Druga")
    response = client_for(table.alice).post(
        reverse("diary:session_join", args=[other.pk]), {"character": table.lirael.pk}
    )
    assert response.status_code == 400
    assert _refusal(table.session.title) in response.content.decode()
    assert not Participation.objects.filter(session=other, character=table.lirael).exists()


def test_accepting_an_invitation_while_playing_elsewhere_is_refused(
    make_user, make_character, make_session, client_for
):
    player, gm_a, gm_b = make_user(), make_user(), make_user()
    character = make_character(player)
    other = make_session(gm_b, status=SessionStatus.RUNNING, title="Druga")
    invitation = services.participation_invite(session=other, by=gm_b, character=character)
    make_session(gm_a, [character], status=SessionStatus.RUNNING, title="Pierwsza")
    response = client_for(player).post(
        reverse("diary:participation_accept", args=[invitation.pk]), follow=True
    )
    assert _refusal("Pierwsza") in response.content.decode()
    invitation.refresh_from_db()
    assert invitation.status == ParticipationStatus.INVITED


def test_inviting_a_character_playing_elsewhere_is_refused(
    table, make_user, make_session, client_for
):
    gm = make_user("inny_mg")
    other = make_session(gm, status=SessionStatus.RUNNING, title="Druga")
    response = client_for(gm).post(
        reverse("diary:participants", args=[other.pk]),
        {"username": table.alice.username, "name": table.lirael.name},
    )
    assert response.status_code == 400
    assert _refusal(table.session.title) in response.content.decode()
    assert not Participation.objects.filter(session=other, character=table.lirael).exists()


def test_the_gm_accepting_a_request_of_a_character_now_playing_elsewhere_is_refused(
    make_user, make_character, make_session
):
    player, gm_a, gm_b = make_user(), make_user(), make_user()
    character = make_character(player)
    first = make_session(gm_a, status=SessionStatus.RUNNING, title="Pierwsza")
    second = make_session(gm_b, status=SessionStatus.RUNNING, title="Druga")
    asked_first = services.participation_request(session=first, by=player, character=character)
    asked_second = services.participation_request(session=second, by=player, character=character)
    services.participation_decide(participation=asked_first, by=gm_a, accept=True)
    with pytest.raises(ValidationError) as refused:
        services.participation_decide(participation=asked_second, by=gm_b, accept=True)
    assert _refusal("Pierwsza") in " ".join(refused.value.messages)
    asked_second.refresh_from_db()
    assert asked_second.status == ParticipationStatus.REQUESTED
    # Declining stays possible.
    services.participation_decide(participation=asked_second, by=gm_b, accept=False)


def test_a_session_does_not_start_with_a_character_playing_elsewhere(
    make_user, make_character, make_session
):
    player, gm_w, gm_r = make_user(), make_user(), make_user()
    character = make_character(player, "Borys")
    # Accepted in a session not yet running, then in one that runs: starting the first
    # would put Borys in two running sessions.
    waiting = make_session(gm_w, [character], status=SessionStatus.ACCEPTED, title="Czeka")
    make_session(gm_r, [character], status=SessionStatus.RUNNING, title="Trwa")
    with pytest.raises(ValidationError) as refused:
        services.session_transition(session=waiting, by=gm_w, to=SessionStatus.RUNNING)
    assert "Borys" in " ".join(refused.value.messages)
    assert "Trwa" in " ".join(refused.value.messages)
    waiting.refresh_from_db()
    assert waiting.status == SessionStatus.ACCEPTED


def test_a_character_free_again_may_join_another_running_session(table, make_user, make_session):
    services.session_transition(session=table.session, by=table.gm, to=SessionStatus.FINISHED)
    other = make_session(make_user("inny_mg"), status=SessionStatus.RUNNING, title="Druga")
    asked = services.participation_request(session=other, by=table.alice, character=table.lirael)
    assert asked.status == ParticipationStatus.REQUESTED


def test_the_sheet_in_play_names_the_gm_and_the_session(table, client_for):
    page = client_for(table.alice).get(reverse("characters:detail", args=[table.lirael.pk]))
    text = page.content.decode()
    assert (
        polish(
            "While it plays in “%(session)s”, your changes to the sheet wait for the approval "
            "of its GM, %(gm)s.",
            session=table.session.title,
            gm=table.gm.username,
        )
        in text
    )
