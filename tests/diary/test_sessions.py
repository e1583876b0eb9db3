"""Sessions: creation, the status path and its guards, participants, turns."""

import pytest
from django.urls import reverse

from diary import services
from diary.models import GameSession, Participation, SessionStatus, Turn
from tests.conftest import polish

pytestmark = pytest.mark.django_db


def test_anyone_logged_in_creates_a_session_and_is_its_gm(make_user, client_for):
    user = make_user()
    response = client_for(user).post(
        reverse("diary:session_create"),
        {
            "title": "Wieża",
            "description": "",
            "system": "forum1000",
            "criticals_enabled": "",
            "npc_mode": "fixed_modifiers",
            "roll_policy": "players_own",
        },
    )
    session = GameSession.objects.get()
    assert response.status_code == 302
    assert session.gm == user
    assert session.status == SessionStatus.DRAFT
    assert session.criticals_enabled is False


def test_session_form_errors_are_polish_and_store_nothing(make_user, client_for):
    response = client_for(make_user()).post(
        reverse("diary:session_create"),
        {"title": "", "system": "nope", "npc_mode": "x", "roll_policy": "y"},
    )
    assert response.status_code == 200
    form = response.context["form"]
    assert set(form.errors) >= {"title", "system", "npc_mode", "roll_policy"}
    assert polish("This field is required.") in response.content.decode()
    assert not GameSession.objects.exists()


def test_status_path_and_who_may_take_each_step(make_user, make_session, client_for):
    gm, moderator = make_user(), make_user(moderator=True)
    session = make_session(gm, status=SessionStatus.DRAFT)
    url = reverse("diary:session_status", args=[session.pk])
    services.session_plan_update(session=session, by=gm, scenario="Przeprawa przez bród.")

    def step(user, status):
        client_for(user).post(url, {"status": status, "confirm": "yes"})
        session.refresh_from_db()
        return session.status

    assert step(gm, "running") == "draft"  # cannot skip the plan
    assert step(gm, "plan_submitted") == "plan_submitted"
    assert step(gm, "accepted") == "plan_submitted"  # only a moderator accepts
    assert step(moderator, "accepted") == "accepted"
    assert not session.turns.exists()
    assert step(moderator, "running") == "accepted"  # only the GM starts
    assert step(gm, "running") == "running"
    assert list(session.turns.values_list("number", flat=True)) == [1]
    assert step(gm, "finished") == "finished"
    assert step(gm, "running") == "finished"


def test_invalid_transition_shows_a_polish_message(make_user, make_session, client_for):
    gm = make_user()
    session = make_session(gm, status=SessionStatus.DRAFT)
    response = client_for(gm).post(
        reverse("diary:session_status", args=[session.pk]), {"status": "finished"}, follow=True
    )
    messages = [str(m) for m in response.context["messages"]]
    assert messages == [
        polish(
            "A session cannot go from “%(source)s” to “%(target)s”.",
            source=polish("draft"),
            target=polish("finished"),
        )
    ]
    session.refresh_from_db()
    assert session.status == "draft"


def test_rules_settings_lock_once_the_plan_is_accepted(make_user, make_session, client_for):
    gm = make_user()
    session = make_session(gm, status=SessionStatus.ACCEPTED)
    response = client_for(gm).post(
        reverse("diary:session_edit", args=[session.pk]),
        {
            "title": "Nowy tytuł",
            "description": "",
            "system": "forum1000",
            "criticals_enabled": "",  # try to switch criticals off
            "npc_mode": "gm_character",
            "roll_policy": "players_own",
        },
    )
    assert response.status_code == 302
    session.refresh_from_db()
    assert session.title == "Nowy tytuł"
    assert session.roll_policy == "players_own"
    assert session.criticals_enabled is True  # disabled field: the posted value is ignored
    assert session.npc_mode == "fixed_modifiers"


@pytest.mark.parametrize("who", ["alice", "moderator", "outsider"])
def test_only_the_gm_changes_settings(table, client_for, who):
    url = reverse("diary:session_edit", args=[table.session.pk])
    response = client_for(getattr(table, who)).post(url, {"title": "Przejęta"})
    assert response.status_code == 403  # a running session's card is public
    table.session.refresh_from_db()
    assert table.session.title != "Przejęta"


def test_invitation_accepted_by_owner(make_user, make_character, make_session, client_for):
    gm, player = make_user(), make_user()
    character = make_character(player)
    session = make_session(gm, status=SessionStatus.DRAFT)
    response = client_for(gm).post(
        reverse("diary:participants", args=[session.pk]),
        {"username": player.username, "name": character.name},
    )
    assert response.status_code == 302
    participation = Participation.objects.get()
    assert participation.status == "invited"
    # The GM cannot answer on the player's behalf.
    client_for(gm).post(reverse("diary:participation_accept", args=[participation.pk]))
    participation.refresh_from_db()
    assert participation.status == "invited"
    client_for(player).post(reverse("diary:participation_accept", args=[participation.pk]))
    participation.refresh_from_db()
    assert participation.status == "accepted"


def test_request_to_join_is_answered_by_the_gm(make_user, make_character, make_session, client_for):
    gm, player = make_user(), make_user()
    character = make_character(player)
    session = make_session(gm, status=SessionStatus.RUNNING)
    client_for(player).post(
        reverse("diary:session_join", args=[session.pk]), {"character": character.pk}
    )
    participation = Participation.objects.get()
    assert participation.status == "requested"
    client_for(player).post(reverse("diary:participation_accept", args=[participation.pk]))
    participation.refresh_from_db()
    assert participation.status == "requested"
    client_for(gm).post(reverse("diary:participation_decline", args=[participation.pk]))
    participation.refresh_from_db()
    assert participation.status == "declined"


def test_nobody_joins_with_someone_elses_character(table, client_for):
    stranger_character = table.lirael
    other_session_gm = table.outsider
    from diary import services

    session = services.session_create(
        gm=other_session_gm,
        title="Inna",
        description="",
        system="forum1000",
        criticals_enabled=True,
        npc_mode="fixed_modifiers",
        roll_policy="gm_only",
    )
    services.session_transition(session=session, by=other_session_gm, to="plan_submitted")
    response = client_for(table.bob).post(
        reverse("diary:session_join", args=[session.pk]), {"character": stranger_character.pk}
    )
    assert response.status_code == 400
    assert not Participation.objects.filter(session=session).exists()


def test_a_character_is_listed_once(table, client_for):
    response = client_for(table.gm).post(
        reverse("diary:participants", args=[table.session.pk]),
        {"username": table.bob.username, "name": table.borys.name},
    )
    assert response.status_code == 400
    assert Participation.objects.filter(session=table.session, character=table.borys).count() == 1


def test_gm_removes_a_character_and_the_row_stays(table, client_for):
    participation = Participation.objects.get(session=table.session, character=table.borys)
    client_for(table.gm).post(
        reverse("diary:participation_withdraw", args=[participation.pk]),
        {"confirm": "yes", "reason": "Gracz zniknął."},
    )
    participation.refresh_from_db()
    assert participation.status == "withdrawn"
    # Without an accepted character the player can no longer post.
    response = client_for(table.bob).post(
        reverse("diary:post_create", args=[table.session.pk]), {"narration": "Hej"}
    )
    assert response.status_code == 403


def test_gm_opens_turns_in_sequence(table, client_for):
    url = reverse("diary:turn_open", args=[table.session.pk])
    client_for(table.gm).post(url, {"confirm": "yes"})
    client_for(table.gm).post(url, {"confirm": "yes"})
    assert list(Turn.objects.filter(session=table.session).values_list("number", flat=True)) == [
        1,
        2,
        3,
    ]


@pytest.mark.parametrize("who", ["alice", "moderator", "outsider"])
def test_only_the_gm_opens_turns(table, client_for, who):
    response = client_for(getattr(table, who)).post(
        reverse("diary:turn_open", args=[table.session.pk])
    )
    assert response.status_code == 403
    assert table.session.turns.count() == 1


def test_drafts_are_invisible_to_others(make_user, make_session, client_for):
    gm = make_user()
    session = make_session(gm, status=SessionStatus.DRAFT)
    stranger = client_for(make_user())
    assert stranger.get(reverse("diary:session", args=[session.pk])).status_code == 404
    assert session.title not in stranger.get(reverse("diary:session_list")).content.decode()


def test_asking_to_join_does_not_open_the_diary_but_opens_the_sheet_to_the_gm(
    make_user, make_character, make_session, client_for
):
    gm, player = make_user(), make_user()
    character = make_character(player)
    session = make_session(gm, status=SessionStatus.RUNNING)
    client = client_for(player)
    client.post(reverse("diary:session_join", args=[session.pk]), {"character": character.pk})
    assert Participation.objects.get().status == "requested"
    assert client.get(reverse("diary:session", args=[session.pk])).status_code == 403
    # The GM decides with the sheet in view.
    sheet = reverse("characters:detail", args=[character.pk])
    assert client_for(gm).get(sheet).status_code == 200


def test_a_declined_character_comes_back_only_by_invitation(
    make_user, make_character, make_session, client_for
):
    gm, player = make_user(), make_user()
    character = make_character(player)
    session = make_session(gm, status=SessionStatus.RUNNING)
    join = reverse("diary:session_join", args=[session.pk])
    client_for(player).post(join, {"character": character.pk})
    participation = Participation.objects.get()
    client_for(gm).post(reverse("diary:participation_decline", args=[participation.pk]))
    response = client_for(player).post(join, {"character": character.pk})
    assert response.status_code == 400
    participation.refresh_from_db()
    assert participation.status == "declined"
    client_for(gm).post(
        reverse("diary:participants", args=[session.pk]),
        {"username": player.username, "name": character.name},
    )
    participation.refresh_from_db()
    assert participation.status == "invited"
