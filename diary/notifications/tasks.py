"""Background tasks (Django's tasks framework; the database backend's `db_worker` runs them).

The task's path (diary.notifications.tasks.send_notification_emails) is stored with every queued
row, so it stays here even though the sending itself is diary/notifications/delivery.py.
"""

from datetime import timedelta

from django.conf import settings
from django.tasks import task
from django.utils import timezone

from diary.notifications import delivery as notification_delivery
from diary.notifications import webhook_delivery


@task
def send_notification_emails(notification_ids: list[int], attempt: int = 1) -> str:
    """E-mail these notifications (queued by diary.notifications.notices.notify on commit); those
    that failed for now are queued again after EMAIL_RETRY_DELAYS, then left pending."""
    later = notification_delivery.send_emails(notification_ids)
    delays = settings.EMAIL_RETRY_DELAYS
    if not later:
        return "done"
    if attempt > len(delays):
        return "gave up"
    run_after = timezone.now() + timedelta(seconds=delays[attempt - 1])
    send_notification_emails.using(run_after=run_after).enqueue(later, attempt + 1)
    return "again"


@task
def deliver_webhook(webhook_id: int, body: dict, attempt: int) -> str:
    """Send one message to a session's webhook (queued by diary.notifications.webhooks on
    commit)."""
    wait = webhook_delivery.deliver(webhook_id, body, attempt)
    if wait is None:
        return "done"
    later = timezone.now() + timedelta(seconds=wait)
    deliver_webhook.using(run_after=later).enqueue(webhook_id, body, attempt + 1)
    return "again"
