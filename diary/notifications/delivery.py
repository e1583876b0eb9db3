"""How notifications reach their recipients: the bell and its list in the site,
e-mail at once (the worker's task, diary/notifications/tasks.py) or in one daily digest
(`notify_digest`), and each user's choice between them. Who hears of what is
diary/notifications/notices.py.

The words are made when shown, in the reader's language: `notification_text`.
"""

from __future__ import annotations

import email.policy
import logging
import smtplib
from datetime import datetime, timedelta

from django.conf import settings
from django.core.mail import EmailMessage, mailers
from django.db import transaction
from django.db.models import Exists, IntegerField, Max, Min, OuterRef, Q, Subquery
from django.urls import reverse
from django.utils import formats, timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from config.text import single_line
from diary.models import (
    DeadlineRule,
    DigestChoice,
    Notification,
    NotificationKind,
    NotificationPreference,
    NotificationSettings,
    SessionMute,
)
from diary.recap.presenters import recap_text
from diary.recap.selectors import digest_recaps

logger = logging.getLogger(__name__)

# ---------------------------------------------------------------------------
# Words and links
# ---------------------------------------------------------------------------


def _deadline_words(value: str) -> str:
    moment = timezone.localtime(datetime.fromisoformat(value))
    return formats.date_format(moment, "DATETIME_FORMAT")


def _ask_answered_text(a: dict) -> str:
    if a.get("status") == "declined":
        return (
            _("%(actor)s declined your roll request (%(summary)s) in “%(session)s”: %(note)s") % a
        )
    if a.get("status") == "answered_differently":
        return (
            _(
                "%(actor)s answered your roll request (%(summary)s) in “%(session)s” with "
                "another roll: %(note)s"
            )
            % a
        )
    return _("%(actor)s answered your roll request (%(summary)s) in “%(session)s”.") % a


def _participation_decided_text(a: dict) -> str:
    if a.get("note"):
        if a.get("accepted"):
            return _("%(actor)s accepted %(character)s in “%(session)s”: %(note)s") % a
        return _("%(actor)s declined %(character)s in “%(session)s”: %(note)s") % a
    if a.get("accepted"):
        return _("%(actor)s accepted %(character)s in “%(session)s”.") % a
    return _("%(actor)s declined %(character)s in “%(session)s”.") % a


def _ad_invitation_text(a: dict) -> str:
    if a.get("note"):
        return _("%(actor)s invites you to “%(session)s” in answer to your ad: %(note)s") % a
    return _("%(actor)s invites you to “%(session)s” in answer to your ad.") % a


def _plan_reviewed_text(a: dict) -> str:
    if a.get("accepted"):
        return _("%(actor)s accepted the plan of “%(session)s”.") % a
    return _("%(actor)s returned the plan of “%(session)s” for changes.") % a


def _names(names) -> str:
    return ", ".join(names) if isinstance(names, list) else str(names)


def deadline_rule_words(rule: str) -> str:
    """What the turn does at its deadline, as the diary says it beside the deadline
    (templates/diary/deadlines/rule.html); nothing under "wait for everyone"."""
    if rule == DeadlineRule.PASS:
        return _("After the deadline: the turn passes on")
    if rule == DeadlineRule.GM_PLAYS:
        return _("After the deadline: the GM plays the characters who have not posted")
    return ""


def _deadline_near_text(a: dict) -> str:
    a["deadline"] = _deadline_words(a["deadline"])
    if "awaited" not in a:  # a notice made before it named what is awaited
        return (
            _(
                "Turn %(number)s of “%(session)s” ends on %(deadline)s and you have not posted "
                "in it yet."
            )
            % a
        )
    a["characters"], a["awaited"] = _names(a.get("characters", [])), _names(a["awaited"])
    text = (
        _(
            "Turn %(number)s of “%(session)s” ends on %(deadline)s and waits for your move: "
            "%(characters)s. Still awaited: %(awaited)s."
        )
        % a
    )
    rule = deadline_rule_words(a.get("rule", ""))
    return f"{text} {rule}." if rule else text


def _nudge_text(a: dict) -> str:
    a["characters"] = _names(a.get("characters", []))
    return _("%(actor)s nudges you: turn %(number)s of “%(session)s” waits for %(characters)s.") % a


def notification_text(notification: Notification) -> str:
    a = dict(notification.args)
    a.setdefault("actor", _("someone"))
    kind = notification.kind
    if kind == NotificationKind.TURN_OPENED:
        return _("%(actor)s opened turn %(number)s in “%(session)s”.") % a
    if kind == NotificationKind.REPLY:
        return _("%(actor)s wrote a new post in “%(session)s”.") % a
    if kind == NotificationKind.QUOTE:
        return _("%(actor)s quoted your post in “%(session)s”.") % a
    if kind == NotificationKind.ASK_ANSWERED:
        return _ask_answered_text(a)
    if kind == NotificationKind.CHARACTER_CHANGED:
        return (
            _("%(actor)s added a roll or an entry about your character to a post in “%(session)s”.")
            % a
        )
    if kind == NotificationKind.INVITATION:
        return _("%(actor)s invites %(character)s to “%(session)s”.") % a
    if kind == NotificationKind.AD_INVITATION:
        return _ad_invitation_text(a)
    if kind == NotificationKind.JOIN_REQUEST:
        return _("%(actor)s asks for %(character)s to join “%(session)s”.") % a
    if kind == NotificationKind.PARTICIPATION_DECIDED:
        return _participation_decided_text(a)
    if kind == NotificationKind.PLAN_SUBMITTED:
        return _("%(actor)s submitted the plan of “%(session)s” for review.") % a
    if kind == NotificationKind.PLAN_REVIEWED:
        return _plan_reviewed_text(a)
    if kind == NotificationKind.DEADLINE_NEAR:
        return _deadline_near_text(a)
    if kind == NotificationKind.TALK_OOC:
        return _("%(actor)s wrote out of character in “%(session)s”.") % a
    if kind == NotificationKind.WHISPER:
        return _("%(actor)s whispered to you in “%(session)s”.") % a
    if kind in HANDOVER_TEXTS:
        return HANDOVER_TEXTS[kind]() % a
    if kind == NotificationKind.NUDGE:
        return _nudge_text(a)
    if kind == NotificationKind.ANNOUNCEMENT:
        return _("GM's announcement in “%(session)s”: %(title)s") % a
    if kind == NotificationKind.POLL_OPENED:
        return _("%(actor)s asks in a poll in “%(session)s”: %(question)s") % a
    return str(notification.get_kind_display())


# The GM handover's and a leaving player's notices (diary/handover).
HANDOVER_TEXTS = {
    NotificationKind.CO_GM_NAMED: lambda: _(
        "%(actor)s named you a co-GM of “%(session)s”: you have the GM's powers there."
    ),
    NotificationKind.SESSION_HANDED_OVER: lambda: _(
        "“%(session)s” was handed over from %(from_gm)s to %(to_gm)s by %(actor)s: %(reason)s"
    ),
    NotificationKind.PLAYER_LEFT: lambda: _("%(actor)s took %(character)s out of “%(session)s”."),
    NotificationKind.CHARACTER_REMOVED: lambda: _(
        "The GM removed your character %(character)s from “%(session)s”: %(reason)s"
    ),
}


def notification_url(notification: Notification) -> str:
    """Where the notification leads: its post, the plan, the participants, or the diary."""
    session = notification.session_id
    kind = notification.kind
    if notification.talk_thread_id is not None:
        if kind == NotificationKind.WHISPER:
            return reverse("diary:whisper", args=[session, notification.talk_thread_id])
        return reverse("diary:ooc", args=[session])
    if notification.post_id is not None:
        diary = reverse("diary:session", args=[session])
        return f"{diary}?after={notification.post_id - 1}#post-{notification.post_id}"
    if kind == NotificationKind.ANNOUNCEMENT:
        board = reverse("diary:board", args=[session])
        return f"{board}#announcement-{int(notification.args.get('announcement', 0))}"
    if kind == NotificationKind.POLL_OPENED and notification.args.get("poll"):
        return reverse("diary:poll", args=[session, int(notification.args["poll"])])
    if kind in (NotificationKind.PLAN_SUBMITTED, NotificationKind.PLAN_REVIEWED):
        return reverse("diary:session_plan", args=[session])
    if kind == NotificationKind.JOIN_REQUEST:
        return reverse("diary:participants", args=[session])
    if kind in (NotificationKind.SESSION_HANDED_OVER, NotificationKind.CHARACTER_REMOVED):
        # Its history (the old GM, a removed player: the card and what they are told).
        return reverse("diary:session_history", args=[session])
    if kind == NotificationKind.PLAYER_LEFT:
        return reverse("diary:participants", args=[session])
    if kind == NotificationKind.AD_INVITATION:
        return reverse("diary:session_join", args=[session])
    if kind == NotificationKind.PARTICIPATION_DECIDED and not notification.args.get("accepted"):
        return reverse("diary:session_list")
    return reverse("diary:session", args=[session])


# ---------------------------------------------------------------------------
# Reading and marking (the bell and its list)
# ---------------------------------------------------------------------------


def unread_count(user) -> int:
    # A session's pages ask it in the session's own query (diary.access.access_session).
    counted = getattr(user, "_unread_notifications", None)
    if counted is not None:
        return counted
    return Notification.objects.filter(recipient=user, read_at__isnull=True).count()


@transaction.atomic
def notification_mark_read(*, notification: Notification) -> Notification:
    if notification.read_at is None:
        notification.read_at = timezone.now()
        notification.save(update_fields=["read_at"])
    return notification


def page_notices_annotations(user) -> dict:
    """What the diary page needs to clear the notifications it reads, as annotations of the
    query that loads the session (no query of its own): the lowest and highest post of this
    session the user has an unread notification about, whether a new turn is unread news,
    and whether the user muted the session."""
    unread_here = Notification.objects.filter(
        recipient=user.pk, read_at__isnull=True, session_id=OuterRef("pk")
    ).order_by()
    about_posts = unread_here.filter(post__isnull=False).values("session_id")
    return {
        "viewer_notice_first": Subquery(
            about_posts.annotate(n=Min("post_id")).values("n")[:1], output_field=IntegerField()
        ),
        "viewer_notice_last": Subquery(
            about_posts.annotate(n=Max("post_id")).values("n")[:1], output_field=IntegerField()
        ),
        "viewer_turn_notice": Exists(unread_here.filter(kind=NotificationKind.TURN_OPENED)),
        "viewer_muted": Exists(SessionMute.objects.filter(user=user.pk, session_id=OuterRef("pk"))),
    }


def notifications_read_on_page(*, user, session, post_ids: list[int], newest: bool) -> int:
    """The user's notifications this diary page has just shown them read: those about a post
    on the page, and, on the newest page, those of a new turn. One UPDATE, and only when the
    session's query (`page_notices_annotations`) found one of them unread; the bell's count
    of this request drops by as many. Returns how many were marked."""
    first = getattr(session, "viewer_notice_first", None)
    last = getattr(session, "viewer_notice_last", None)
    about_shown = (
        first is not None and bool(post_ids) and first <= post_ids[-1] and last >= post_ids[0]
    )
    turn = newest and bool(getattr(session, "viewer_turn_notice", False))
    if not (about_shown or turn):
        return 0
    which = Q()
    if about_shown:
        which |= Q(post_id__in=post_ids)
    if turn:
        which |= Q(kind=NotificationKind.TURN_OPENED)
    marked = Notification.objects.filter(
        which, recipient=user, session_id=session.pk, read_at__isnull=True
    ).update(read_at=timezone.now())
    counted = getattr(user, "_unread_notifications", None)
    if counted is not None:
        user._unread_notifications = max(counted - marked, 0)
    return marked


@transaction.atomic
def session_mute_set(*, user, session, muted: bool) -> None:
    """Mute (or unmute) a session's notifications for the user; the same twice is once."""
    if muted:
        SessionMute.objects.bulk_create(
            [SessionMute(user=user, session=session)], ignore_conflicts=True
        )
    else:
        SessionMute.objects.filter(user=user, session=session).delete()


@transaction.atomic
def notification_mark_all_read(*, user) -> int:
    return Notification.objects.filter(recipient=user, read_at__isnull=True).update(
        read_at=timezone.now()
    )


@transaction.atomic
def notification_preferences_save(*, user, email: str, kinds: set[str], digest: str) -> None:
    """The user's e-mail address, the kinds they want by e-mail, and how mails come."""
    if user.email != email:
        user.email = email
        user.save(update_fields=["email"])
    for kind in NotificationKind.values:
        NotificationPreference.objects.update_or_create(
            user=user, kind=kind, defaults={"email": kind in kinds}
        )
    NotificationSettings.objects.update_or_create(user=user, defaults={"digest": digest})


def preferences_of(user) -> tuple[set[str], str]:
    kinds = set(
        NotificationPreference.objects.filter(user=user, email=True).values_list("kind", flat=True)
    )
    row = NotificationSettings.objects.filter(user=user).first()
    return kinds, row.digest if row else DigestChoice.IMMEDIATELY


# ---------------------------------------------------------------------------
# E-mail (run by the worker: diary/notifications/tasks.py, and by notify_digest)
# ---------------------------------------------------------------------------


class _Mail(EmailMessage):
    """Headers unfolded: Python's folding of a long non-ASCII subject drops the space where
    it splits two encoded words ("Sesja 1" arrives as "Sesja1")."""

    def message(self, *, policy=email.policy.default):
        return super().message(policy=policy.clone(max_line_length=998))


def _absolute(path: str) -> str:
    return settings.SITE_URL + path


def _language_of(user) -> str:
    return settings.LANGUAGE_CODE


def send_emails(ids: list[int]) -> list[int]:
    """One e-mail per pending notification of these ids; each is sent once, on its own: one
    that cannot be sent never holds up the others. A message refused for good (a 5xx reply,
    a message that cannot be built) is logged and dropped; one that failed for now (the
    server down, a 4xx reply) stays pending. Returns the ids to try again later."""
    later: list[int] = []
    rows = (
        Notification.objects.filter(pk__in=ids, email_pending=True)
        .select_related("recipient")
        .order_by("pk")
    )
    with mailers.default as connection:
        for notification in rows:
            with transaction.atomic():
                locked = (
                    Notification.objects.select_for_update()
                    .filter(pk=notification.pk, email_pending=True)
                    .first()
                )
                if locked is None:
                    continue
                try:
                    connection.send_messages([_notification_mail(notification)])
                except Exception as error:
                    if _may_pass_later(error):
                        logger.warning(
                            "Notification %s: e-mail not sent, trying later: %r",
                            notification.pk,
                            error,
                        )
                        later.append(notification.pk)
                        continue
                    logger.exception("Notification %s: e-mail dropped", notification.pk)
                    locked.email_pending = False
                    locked.save(update_fields=["email_pending"])
                    continue
                locked.email_pending = False
                locked.emailed_at = timezone.now()
                locked.save(update_fields=["email_pending", "emailed_at"])
    return later


def _notification_mail(notification: Notification) -> EmailMessage:
    with translation.override(_language_of(notification.recipient)):
        text = notification_text(notification)
        body = "\n\n".join([text, _absolute(notification_url(notification)), _footer()])
        # Names and notes are stored as people typed them (older titles may hold a line
        # break); a header holds one line.
        subject = single_line(_("Codziennik: %(text)s") % {"text": text})
    return _Mail(subject=subject[:200], body=body, to=[notification.recipient.email])


def _may_pass_later(error: Exception) -> bool:
    """A failure that trying again may cure: the server unreachable or saying "not now"
    (4xx). A 5xx reply, or a message that cannot be built, fails the same way every time."""
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        return any(code < 500 for code, _reply in error.recipients.values())
    if isinstance(error, smtplib.SMTPResponseException):
        return error.smtp_code < 500
    return isinstance(error, (smtplib.SMTPException, OSError))


def _footer() -> str:
    return _("Which notifications come by e-mail, and how often: %(url)s") % {
        "url": _absolute(reverse("notifications:preferences"))
    }


def _digest_mail(user, pending: list[Notification]) -> EmailMessage:
    """The digest: the pending notifications, then "since you were last here" for each
    session the user plays with unread play (diary/recap/, as the diary shows it)."""
    with translation.override(_language_of(user)):
        lines = [f"- {notification_text(n)}\n  {_absolute(notification_url(n))}" for n in pending]
        subject = ngettext(
            "Codziennik: %(count)s new notification",
            "Codziennik: %(count)s new notifications",
            len(pending),
        ) % {"count": len(pending)}
        recaps = [recap_text(recap) for recap in digest_recaps(user)]
        body = "\n\n".join(
            [_("What happened since the last digest:"), "\n".join(lines), *recaps, _footer()]
        )
    return _Mail(subject=subject, body=body, to=[user.email])


def send_digests(now: datetime | None = None) -> int:
    """One e-mail per user who chose the daily digest, with their pending notifications,
    at most once a day (safe to run every few minutes). Returns how many were sent."""
    now = now or timezone.now()
    since = now - timedelta(hours=23)
    sent = 0
    due = NotificationSettings.objects.filter(digest=DigestChoice.DAILY).filter(
        Q(digest_sent_at__isnull=True) | Q(digest_sent_at__lte=since)
    )
    with mailers.default as connection:
        for row in due.select_related("user"):
            with transaction.atomic():
                settings_row = NotificationSettings.objects.select_for_update().get(pk=row.pk)
                if settings_row.digest_sent_at and settings_row.digest_sent_at > since:
                    continue
                pending = list(
                    Notification.objects.select_for_update()
                    .filter(recipient=row.user, email_pending=True)
                    .order_by("created_at", "id")
                )
                if not pending or not row.user.email:
                    continue
                message = _digest_mail(row.user, pending)
                try:
                    connection.send_messages([message])
                except Exception as error:
                    # One user's digest never holds up the others'. Failed for now: the next
                    # run tries again; refused for good: tomorrow, the news still pending.
                    if _may_pass_later(error):
                        logger.warning("Digest for user %s not sent: %r", row.user_id, error)
                    else:
                        logger.exception("Digest for user %s refused", row.user_id)
                        settings_row.digest_sent_at = now
                        settings_row.save(update_fields=["digest_sent_at"])
                    continue
                Notification.objects.filter(pk__in=[n.pk for n in pending]).update(
                    email_pending=False, emailed_at=now
                )
                settings_row.digest_sent_at = now
                settings_row.save(update_fields=["digest_sent_at"])
                sent += 1
    return sent
