"""Background tasks (Django's tasks framework; the database backend's `db_worker` runs them)."""

from django.tasks import task

from diary import notifications


@task
def send_notification_emails(notification_ids: list[int]) -> int:
    """E-mail these notifications (queued by diary.notifications.notify on commit)."""
    return notifications.send_emails(notification_ids)
