"""Notification e-mails leave through the tasks framework's database queue, sent
by its real worker (`db_worker`) over SMTP to a real server (aiosmtpd), and are read there."""

import pytest
from django.core.management import call_command
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from diary import services
from diary.models import DigestChoice, GameSession, NotificationKind, NotificationPreference
from diary.models import NotificationSettings as Delivery
from tests.conftest import polish
from tests.smtp import run_worker

# On commit the e-mail task is queued: a real commit, so a transactional test.
pytestmark = pytest.mark.django_db(transaction=True)


def wants(user, address, kind, digest=DigestChoice.IMMEDIATELY):
    user.email = address
    user.save()
    NotificationPreference.objects.create(user=user, kind=kind, email=True)
    Delivery.objects.create(user=user, digest=digest)


def test_a_new_turn_reaches_the_players_inbox_through_the_worker(table, smtp_server):
    wants(table.bob, "bartek@example.com", NotificationKind.TURN_OPENED)
    turn = services.turn_open_next(session=table.session, by=table.gm)
    # Nothing is sent in the request: the task waits in the database for the worker.
    (queued,) = DBTaskResult.objects.all()
    assert queued.task_path == "diary.notifications.tasks.send_notification_emails"
    assert smtp_server.messages == []

    run_worker()

    (message,) = smtp_server.wait_for(1)
    text = polish(
        "%(actor)s opened turn %(number)s in “%(session)s”.",
        actor="mg",
        number=turn.number,
        session=table.session.title,
    )
    assert message["To"] == "bartek@example.com"
    assert message["Subject"] == f"Codziennik: {text}"
    body = message.get_content()
    assert text in body
    assert f"http://codziennik.test/sessions/{table.session.pk}/" in body
    assert "/notifications/preferences/" in body
    queued.refresh_from_db()
    assert queued.status == "SUCCESSFUL"
    # Sent once: running the worker again sends nothing more.
    run_worker()
    assert len(smtp_server.messages) == 1
    # Alice did not opt in: hers is in the site only.
    assert not table.alice.notifications.filter(email_pending=True).exists()


def test_the_daily_digest_gathers_the_news_once(table, smtp_server):
    wants(table.alice, "alicja@example.com", NotificationKind.TURN_OPENED, DigestChoice.DAILY)
    services.turn_open_next(session=table.session, by=table.gm)
    services.turn_open_next(session=table.session, by=table.gm)
    run_worker()  # nothing at once for a digest reader
    assert smtp_server.messages == []

    call_command("notify_digest", verbosity=0)
    (digest,) = smtp_server.wait_for(1)
    assert digest["To"] == "alicja@example.com"
    assert digest["Subject"] == "Codziennik: 2 nowe powiadomienia"
    body = digest.get_content()
    assert polish("What happened since the last digest:") in body
    assert body.count(f"http://codziennik.test/sessions/{table.session.pk}/") == 2

    # Once a day: a second run (make serve runs it every five minutes) sends nothing.
    services.turn_open_next(session=table.session, by=table.gm)
    call_command("notify_digest", verbosity=0)
    assert len(smtp_server.messages) == 1


def test_a_title_stored_with_line_breaks_still_gets_its_mail_sent(table, smtp_server):
    """Older data: a title saved before titles were kept to one line. The subject is built
    from it, and a header with a line break in it cannot be sent at all."""
    wants(table.bob, "bartek@example.com", NotificationKind.TURN_OPENED)
    GameSession.objects.filter(pk=table.session.pk).update(
        title="Zamek\r\nw górach\u2028nocą\x85i\x1b dniem"
    )
    turn = services.turn_open_next(session=table.session, by=table.gm)

    run_worker()

    (message,) = smtp_server.wait_for(1)
    text = polish(
        "%(actor)s opened turn %(number)s in “%(session)s”.",
        actor="mg",
        number=turn.number,
        session="Zamek w górach nocą i dniem",
    )
    assert message["Subject"] == f"Codziennik: {text}"
    assert not table.bob.notifications.filter(email_pending=True).exists()
    (queued,) = DBTaskResult.objects.all()
    assert queued.status == "SUCCESSFUL"


def three_players_told_of_a_turn(make_user, make_character, make_session):
    gm = make_user("prowadzacy")
    players = [make_user(name) for name in ("pierwszy", "drugi", "trzeci")]
    characters = [make_character(player, f"Postać {player.username}") for player in players]
    session = make_session(gm, characters)
    for player in players:
        wants(player, f"{player.username}@example.com", NotificationKind.TURN_OPENED)
    return gm, players, session


def test_one_refused_message_does_not_hold_up_the_others(
    make_user, make_character, make_session, smtp_server
):
    gm, (_first, second, _third), session = three_players_told_of_a_turn(
        make_user, make_character, make_session
    )
    # The middle one, whichever way the batch is walked.
    smtp_server.refusals["drugi@example.com"] = "550 No such user here"
    services.turn_open_next(session=session, by=gm)

    run_worker()

    delivered = smtp_server.wait_for(2)
    assert sorted(m["To"] for m in delivered) == ["pierwszy@example.com", "trzeci@example.com"]
    # Refused for good: dropped, not tried again and again.
    refused = second.notifications.filter(kind=NotificationKind.TURN_OPENED).latest("pk")
    assert (refused.email_pending, refused.emailed_at) == (False, None)
    assert not DBTaskResult.objects.filter(status="READY").exists()
    run_worker()
    assert len(smtp_server.messages) == 2


def test_a_message_refused_for_now_is_tried_again_later(
    make_user, make_character, make_session, smtp_server
):
    gm, (_first, second, _third), session = three_players_told_of_a_turn(
        make_user, make_character, make_session
    )
    smtp_server.refusals["drugi@example.com"] = "451 Try again later"
    services.turn_open_next(session=session, by=gm)

    run_worker()

    delivered = smtp_server.wait_for(2)
    assert sorted(m["To"] for m in delivered) == ["pierwszy@example.com", "trzeci@example.com"]
    waiting = second.notifications.filter(kind=NotificationKind.TURN_OPENED).latest("pk")
    assert waiting.email_pending
    (again,) = DBTaskResult.objects.filter(status="READY")
    assert again.task_path == "diary.notifications.tasks.send_notification_emails"
    assert again.args_kwargs["args"][0] == [waiting.pk]
    assert again.run_after > timezone.now()

    # Later the server takes it: only that one is sent, once.
    del smtp_server.refusals["drugi@example.com"]
    DBTaskResult.objects.filter(pk=again.pk).update(run_after=timezone.now())
    run_worker()
    assert [m["To"] for m in smtp_server.wait_for(3)][2:] == ["drugi@example.com"]
    waiting.refresh_from_db()
    assert not waiting.email_pending


def test_one_refused_digest_does_not_hold_up_the_others(
    make_user, make_character, make_session, smtp_server
):
    gm = make_user("prowadzacy")
    players = [make_user(name) for name in ("pierwszy", "drugi", "trzeci")]
    session = make_session(gm, [make_character(p, f"Postać {p.username}") for p in players])
    for player in players:
        wants(
            player,
            f"{player.username}@example.com",
            NotificationKind.TURN_OPENED,
            DigestChoice.DAILY,
        )
    smtp_server.refusals["drugi@example.com"] = "550 No such user here"
    services.turn_open_next(session=session, by=gm)

    call_command("notify_digest", verbosity=0)

    delivered = smtp_server.wait_for(2)
    assert sorted(m["To"] for m in delivered) == ["pierwszy@example.com", "trzeci@example.com"]
    # Refused for good: tried again tomorrow, not every five minutes; the news stays pending.
    refused = Delivery.objects.get(user=players[1])
    assert refused.digest_sent_at is not None
    assert players[1].notifications.filter(email_pending=True).exists()
    call_command("notify_digest", verbosity=0)
    assert len(smtp_server.messages) == 2
