"""The GM sets, tests and removes a session's webhook (diary/notifications/webhooks.py
announces)."""

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from diary.access import session_access
from diary.models import GameSession, SessionWebhook
from diary.notifications import webhooks
from diary.notifications.webhook_delivery import url_problem


def _check_gm(session: GameSession, by) -> None:
    if not session_access(by, session).can_manage:
        raise PermissionDenied


@transaction.atomic
def webhook_save(*, session: GameSession, by, url: str, **events: bool) -> SessionWebhook:
    """Set the session's webhook (one per session); a new URL forgets the old one's error."""
    _check_gm(session, by)
    problem = url_problem(url)
    if problem:
        raise ValidationError({"url": problem})
    webhook = SessionWebhook.objects.filter(session=session).first() or SessionWebhook(
        session=session
    )
    if webhook.url != url:
        webhook.last_error, webhook.last_attempt_at = "", None
    webhook.url = url
    for name, wanted in events.items():
        setattr(webhook, name, wanted)
    webhook.save()
    return webhook


@transaction.atomic
def webhook_remove(*, session: GameSession, by) -> None:
    _check_gm(session, by)
    SessionWebhook.objects.filter(session=session).delete()


@transaction.atomic
def webhook_test(*, session: GameSession, by) -> None:
    """A message now, whichever events the webhook hears of: the GM sees it arrive."""
    _check_gm(session, by)
    webhooks.announce_test(session)
