"""Notification e-mails leave through the tasks framework's database queue, sent
by its real worker (`db_worker`) over SMTP to a real server (aiosmtpd), and are read there."""

import pytest
from django.core.management import call_command
from django_tasks_db.models import DBTaskResult

from diary import services
from diary.models import DigestChoice, NotificationKind, NotificationPreference
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
    assert queued.task_path == "diary.tasks.send_notification_emails"
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
