"""Who is notified of what (diary/notifications/notices.py), and the bell's pages
(diary/notifications/delivery.py)."""

import html
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from diary import services
from diary.models import (
    DigestChoice,
    Notification,
    NotificationKind,
    NotificationPreference,
    NotificationSettings,
    Participation,
    SessionStatus,
)
from diary.notifications.delivery import notification_text
from diary.notifications.notices import notify, notify_deadlines
from tests.conftest import polish

pytestmark = pytest.mark.django_db

K = NotificationKind


def kinds_of(user) -> list[str]:
    return list(Notification.objects.filter(recipient=user).values_list("kind", flat=True))


def fresh(user, kind) -> list[Notification]:
    return list(Notification.objects.filter(recipient=user, kind=kind))


def post(table, author, character=None, text="Idę dalej."):
    return services.post_create(
        session=table.session, author=author, character=character, narration=text, nc_note=""
    )


# --- who gets what ---------------------------------------------------------------------


def test_a_new_turn_tells_every_player_but_not_the_gm_who_opened_it(table):
    Notification.objects.all().delete()
    turn = services.turn_open_next(session=table.session, by=table.gm)
    for player in (table.alice, table.bob):
        (row,) = fresh(player, K.TURN_OPENED)
        assert (row.session, row.turn, row.actor) == (table.session, turn, table.gm)
        assert notification_text(row) == polish(
            "%(actor)s opened turn %(number)s in “%(session)s”.",
            actor="mg",
            number=turn.number,
            session=table.session.title,
        )
    assert kinds_of(table.gm) == []
    assert kinds_of(table.outsider) == [] and kinds_of(table.moderator) == []


def test_the_first_turn_of_a_session_that_starts_is_news_too(
    make_user, make_character, make_session
):
    gm, player = make_user(), make_user()
    session = make_session(gm, [make_character(player)])
    (row,) = fresh(player, K.TURN_OPENED)
    assert row.session == session and row.turn.number == 1


def test_a_new_post_tells_those_who_wrote_there_not_its_author(table):
    post(table, table.alice, table.lirael)
    Notification.objects.all().delete()
    reply = post(table, table.bob, table.borys)
    (row,) = fresh(table.alice, K.REPLY)
    assert row.post == reply and row.actor == table.bob
    assert kinds_of(table.bob) == []  # the author
    assert kinds_of(table.gm) == []  # has not written in the session


def test_an_invitation_and_a_join_request(table, make_character, make_user):
    carol = make_user("karolina")
    guest = make_character(carol, "Gość")
    invitation = services.participation_invite(session=table.session, by=table.gm, character=guest)
    (row,) = fresh(carol, K.INVITATION)
    assert row.args["character"] == "Gość"
    assert html.unescape(notification_text(row)) == polish(
        "%(actor)s invites %(character)s to “%(session)s”.",
        actor="mg",
        character="Gość",
        session=table.session.title,
    )
    services.participation_decide(participation=invitation, by=carol, accept=True)
    (decided,) = [n for n in fresh(table.gm, K.PARTICIPATION_DECIDED) if n.actor == carol]
    assert decided.args["accepted"] is True and decided.actor == carol

    other = make_character(table.outsider, "Wędrowiec")
    request = services.participation_request(
        session=table.session, by=table.outsider, character=other
    )
    (asked,) = fresh(table.gm, K.JOIN_REQUEST)
    assert asked.actor == table.outsider
    services.participation_decide(participation=request, by=table.gm, accept=False)
    (answer,) = fresh(table.outsider, K.PARTICIPATION_DECIDED)
    # Declined: no longer reading the diary, but told (the session's card is public).
    assert answer.args["accepted"] is False
    assert notification_text(answer) == polish(
        "%(actor)s declined %(character)s in “%(session)s”.",
        actor="mg",
        character="Wędrowiec",
        session=table.session.title,
    )


def test_a_plan_submitted_tells_the_moderators_and_reviewed_tells_the_gm(make_user, make_session):
    gm = make_user()
    moderator = make_user(moderator=True)
    session = make_session(gm, status=SessionStatus.DRAFT)
    services.session_transition(session=session, by=gm, to=SessionStatus.PLAN_SUBMITTED)
    (row,) = fresh(moderator, K.PLAN_SUBMITTED)
    assert row.actor == gm
    services.session_plan_review(session=session, by=moderator, accept=False, comment="Więcej NPC.")
    (returned,) = fresh(gm, K.PLAN_REVIEWED)
    assert returned.args["accepted"] is False
    services.session_transition(session=session, by=gm, to=SessionStatus.PLAN_SUBMITTED)
    services.session_plan_review(session=session, by=moderator, accept=True, comment="")
    assert [n.args["accepted"] for n in fresh(gm, K.PLAN_REVIEWED)] == [True, False]


def test_a_roll_request_answered_tells_its_player(table):
    from rolls.systems.forum1000.requests import RollRequest, SideRequest
    from tests.rolling import ask_roll, make_roll

    narration = post(table, table.bob, table.borys)
    attribute_id = table.borys.attribute_values.first().attribute_id
    side = SideRequest(table.borys.pk, "attribute", attribute_ids=(attribute_id,))
    ask = ask_roll(table.session, table.bob, side, post=narration)
    Notification.objects.all().delete()
    made = make_roll(table.session, table.gm, RollRequest(kind="attribute", a=side), answers=ask)
    (row,) = fresh(table.bob, K.ASK_ANSWERED)
    assert row.post == made.roll.post and row.actor == table.gm
    assert row.args["summary"] == ask.summary
    assert row.args["status"] == "answered"


def test_a_request_answered_differently_or_declined_tells_its_player_why(table):
    """The GM answers by judgment: another roll than asked, or none, each with the reason
    the player reads in the notice."""
    from rolls.services import roll_ask_decline, roll_ask_withdraw
    from rolls.systems.forum1000.requests import RollRequest, SideRequest
    from tests.rolling import ask_roll, make_roll

    narration = post(table, table.bob, table.borys)
    first, second = [row.attribute_id for row in table.borys.attribute_values.all()[:2]]
    side = SideRequest(table.borys.pk, "attribute", attribute_ids=(first,))
    ask = ask_roll(table.session, table.bob, side, post=narration)
    Notification.objects.all().delete()
    other = SideRequest(table.borys.pk, "attribute", attribute_ids=(second,))
    made = make_roll(
        table.session,
        table.gm,
        RollRequest(kind="attribute", a=other),
        answers=ask,
        answer_note="Tu liczy się co innego",
    )
    (row,) = fresh(table.bob, K.ASK_ANSWERED)
    assert row.post == made.roll.post
    assert (row.args["status"], row.args["note"]) == (
        "answered_differently",
        "Tu liczy się co innego",
    )
    assert "Tu liczy się co innego" in notification_text(row)

    again = ask_roll(table.session, table.bob, side, post=narration)
    Notification.objects.all().delete()
    roll_ask_decline(ask=again, by=table.gm, reason="Nie w tej scenie")
    (row,) = fresh(table.bob, K.ASK_ANSWERED)
    assert row.post == narration and row.actor == table.gm
    assert (row.args["status"], row.args["note"]) == ("declined", "Nie w tej scenie")
    assert "Nie w tej scenie" in notification_text(row)

    # A withdrawal is the player's own doing: nobody is told.
    third = ask_roll(table.session, table.bob, side, post=narration)
    Notification.objects.all().delete()
    roll_ask_withdraw(ask=third, by=table.bob)
    assert Notification.objects.count() == 0


def test_nobody_hears_of_a_session_they_may_not_read(table):
    before = Notification.objects.count()
    rows = notify(K.TURN_OPENED, [table.outsider, table.gm], table.session, actor=table.gm)
    assert rows == [] and Notification.objects.count() == before
    # A player who left hears no more of the session.
    Participation.objects.filter(character=table.borys).update(status="withdrawn")
    Notification.objects.all().delete()
    services.turn_open_next(session=table.session, by=table.gm)
    assert kinds_of(table.bob) == [] and kinds_of(table.alice) == [K.TURN_OPENED]


def test_the_deadline_notice_comes_once_per_turn_and_only_to_who_has_not_posted(table):
    turn = services.turn_set_deadline(
        session=table.session, by=table.gm, deadline=timezone.now() + timedelta(hours=5)
    )
    post(table, table.alice, table.lirael)
    assert notify_deadlines() == 1
    assert notify_deadlines() == 0  # idempotent
    (row,) = fresh(table.bob, K.DEADLINE_NEAR)
    assert row.turn == turn and fresh(table.alice, K.DEADLINE_NEAR) == []
    assert polish("Turn %(number)s of “%(session)s” ends on %(deadline)s and you have not "
                  "posted in it yet.", number=1, session=table.session.title, deadline="X"
                  ).split("X")[0] in notification_text(row)  # fmt: skip


def test_a_far_deadline_is_not_near(table):
    services.turn_set_deadline(
        session=table.session, by=table.gm, deadline=timezone.now() + timedelta(days=3)
    )
    assert notify_deadlines() == 0


def test_e_mail_is_wanted_per_kind_and_waits_for_the_digest_when_chosen(table, settings):
    table.bob.email = "bartek@example.com"
    table.bob.save()
    NotificationPreference.objects.create(user=table.bob, kind=K.TURN_OPENED, email=True)
    NotificationSettings.objects.create(user=table.bob, digest=DigestChoice.DAILY)
    services.turn_open_next(session=table.session, by=table.gm)
    assert fresh(table.bob, K.TURN_OPENED)[0].email_pending
    assert not fresh(table.alice, K.TURN_OPENED)[0].email_pending  # did not opt in


# --- the pages -------------------------------------------------------------------------


def test_the_bell_counts_the_unread_and_the_list_links_to_the_post(table, client_for):
    post(table, table.alice, table.lirael)
    Notification.objects.all().delete()
    reply = post(table, table.bob, table.borys)
    services.turn_open_next(session=table.session, by=table.gm)
    client = client_for(table.alice)
    page = client.get(reverse("notifications:list")).content.decode()
    assert 'data-testid="unread-count">2<' in page
    row = fresh(table.alice, K.REPLY)[0]
    assert notification_text(row) in html.unescape(page)
    # Opening it (its link) marks it read and leads to the post.
    response = client.get(reverse("notifications:open", args=[row.pk]))
    assert response.status_code == 302
    assert response["Location"].endswith(f"#post-{reply.pk}")
    row.refresh_from_db()
    assert row.is_read
    home = client.get(reverse("home")).content.decode()
    assert 'data-testid="unread-count">1<' in home
    client.post(reverse("notifications:read_all"))
    home = client.get(reverse("home")).content.decode()
    assert "unread-count" not in home
    assert Notification.objects.filter(recipient=table.alice, read_at__isnull=True).count() == 0


def test_the_bell_costs_one_query_and_nothing_for_visitors(
    table, client, client_for, django_assert_num_queries
):
    assert 'data-testid="bell"' not in client.get(reverse("login")).content.decode()
    alice = client_for(table.alice)
    alice.get(reverse("home"))  # warm the session
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        alice.get(reverse("home"))
    counting = [q for q in queries.captured_queries if "diary_notification" in q["sql"]]
    assert len(counting) == 1


def test_another_users_notification_cannot_be_marked(table, client_for):
    row = Notification.objects.filter(recipient=table.alice).first()
    assert row is not None
    response = client_for(table.bob).post(reverse("notifications:read", args=[row.pk]))
    assert response.status_code == 404
    row.refresh_from_db()
    assert not row.is_read
    assert (
        client_for(table.bob).get(reverse("notifications:read", args=[row.pk])).status_code == 405
    )


def test_the_list_is_paginated_newest_first(table, client_for):
    Notification.objects.all().delete()
    for _ in range(25):
        services.turn_open_next(session=table.session, by=table.gm)
    client = client_for(table.alice)
    first = client.get(reverse("notifications:list")).content.decode()
    assert first.count('class="card notification unread"') == 20
    newest = polish(
        "%(actor)s opened turn %(number)s in “%(session)s”.",
        actor="mg",
        number=26,
        session=table.session.title,
    )
    assert newest in html.unescape(first)
    second = client.get(reverse("notifications:list") + "?page=2").content.decode()
    assert second.count('class="card notification unread"') == 5


def test_preferences_are_saved(table, client_for):
    client = client_for(table.bob)
    assert client.get(reverse("notifications:preferences")).status_code == 200
    response = client.post(
        reverse("notifications:preferences"),
        {"email": "bartek@example.com", "digest": "daily", "email_turn_opened": "on"},
    )
    assert response.status_code == 302
    table.bob.refresh_from_db()
    assert table.bob.email == "bartek@example.com"
    assert set(
        NotificationPreference.objects.filter(user=table.bob, email=True).values_list(
            "kind", flat=True
        )
    ) == {K.TURN_OPENED}
    assert NotificationSettings.objects.get(user=table.bob).digest == "daily"
    form = client.get(reverse("notifications:preferences")).context["form"]
    assert form["email_turn_opened"].value() is True and not form["email_reply"].value()
    assert form["digest"].value() == "daily" and form["email"].value() == "bartek@example.com"


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        (
            {"email": "", "digest": "immediately", "email_turn_opened": "on"},
            "email",
            "Give the e-mail address the notifications should be sent to.",
        ),
        ({"email": "nie-adres", "digest": "immediately"}, "email", "Enter a valid email address."),
        ({"email": "a@example.com"}, "digest", "This field is required."),
    ],
)
def test_preferences_refuse_bad_input_in_polish_next_to_the_field(
    table, client_for, data, field, message
):
    client = client_for(table.bob)
    response = client.post(reverse("notifications:preferences"), data)
    assert response.status_code == 200
    page = html.unescape(response.content.decode())
    error = response.context["form"].errors[field][0]
    assert f'id="id_{field}_error">{error}<' in page
    assert error == polish(message)
    assert not NotificationPreference.objects.filter(user=table.bob).exists()
    assert not NotificationSettings.objects.filter(user=table.bob).exists()
    table.bob.refresh_from_db()
    assert table.bob.email == ""


def test_an_unknown_digest_choice_is_refused(table, client_for):
    response = client_for(table.bob).post(
        reverse("notifications:preferences"), {"email": "a@example.com", "digest": "hourly"}
    )
    error = response.context["form"].errors["digest"][0]
    assert error == polish(
        "Select a valid choice. %(value)s is not one of the available choices.", value="hourly"
    )
    assert not NotificationSettings.objects.filter(user=table.bob).exists()


def test_the_demo_leaves_the_demo_player_unread_notifications():
    import io

    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    call_command("seed_demo", stdout=io.StringIO())
    player = get_user_model().objects.get(username="gracz")
    unread = Notification.objects.filter(recipient=player, read_at__isnull=True)
    assert {K.TURN_OPENED, K.REPLY} <= set(unread.values_list("kind", flat=True))


@pytest.mark.parametrize(
    "target", ["notifications:list", "https://evil.example/", "//evil.example/"]
)
def test_marking_read_goes_back_only_to_a_local_page(table, client_for, target):
    row = Notification.objects.filter(recipient=table.alice).first()
    response = client_for(table.alice).post(
        reverse("notifications:read", args=[row.pk]), {"next": target}
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("notifications:list")
