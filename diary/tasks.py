"""Background tasks (Django's tasks framework; the database backend's `db_worker` runs them).

The task's path (diary.tasks.send_notification_emails) is stored with every queued row, so
it stays here even though the sending itself is diary/notification_delivery.py.
"""

from django.tasks import task

from diary import notification_delivery


@task
def send_notification_emails(notification_ids: list[int]) -> int:
    """E-mail these notifications (queued by diary.notifications.notify on commit)."""
    return notification_delivery.send_emails(notification_ids)
