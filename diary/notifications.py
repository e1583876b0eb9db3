"""Notifications (issue 13): who hears of what, in the site and by e-mail.

`notify` writes one row per recipient in the caller's transaction (the event and its
notifications commit or roll back together) and, once it commits, queues the e-mail task
for the rows whose recipient wants this kind by e-mail at once (diary/tasks.py; the
tasks framework's database backend, run by `db_worker`). Users who chose the daily digest
get theirs from `notify_digest`. The actor never hears of their own act, and nobody hears
of a session they may not know (diary.access decides, as everywhere).

The words are made when shown, in the reader's language: `notification_text`.
"""

from __future__ import annotations

import email.policy
from collections.abc import Iterable
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import EmailMessage, mailers
from django.db import IntegrityError, transaction
from django.db.models import Count, IntegerField, Q, Subquery
from django.urls import reverse
from django.utils import formats, timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from config.roles import MODERATOR_GROUP
from diary.access import session_access
from diary.models import (
    DigestChoice,
    GameSession,
    Notification,
    NotificationKind,
    NotificationPreference,
    NotificationSettings,
    Participation,
    ParticipationStatus,
    Post,
    SessionStatus,
    Turn,
)

# Kinds a recipient hears of only while reading the session; the others need its card
# (a declined request is news to someone who no longer reads the diary).
CARD_KINDS = {NotificationKind.PARTICIPATION_DECIDED}


def _may_know(user, session: GameSession, kind: str) -> bool:
    if not user.is_active:
        return False
    access = session_access(user, session)
    return access.can_see_card if kind in CARD_KINDS else access.can_read


def _email_kinds(user_ids: Iterable[int], kind: str) -> set[int]:
    return set(
        NotificationPreference.objects.filter(user_id__in=user_ids, kind=kind, email=True)
        .exclude(user__email="")
        .values_list("user_id", flat=True)
    )


def notify(
    kind: str,
    recipients: Iterable,
    session: GameSession,
    *,
    actor=None,
    post: Post | None = None,
    turn: Turn | None = None,
    args: dict | None = None,
) -> list[Notification]:
    """One notification of `kind` for each recipient who may know of it (not the actor);
    the e-mails of those who want them at once are queued when the transaction commits."""
    unique = {}
    for user in recipients:
        if user is None or (actor is not None and user.pk == actor.pk):
            continue
        unique.setdefault(user.pk, user)
    allowed = [user for user in unique.values() if _may_know(user, session, kind)]
    if not allowed:
        return []
    emailed = _email_kinds([u.pk for u in allowed], kind)
    words = {"session": session.title, **(args or {})}
    if actor is not None:
        words.setdefault("actor", actor.get_username())
    rows = Notification.objects.bulk_create(
        Notification(
            recipient=user,
            kind=kind,
            session=session,
            post=post,
            turn=turn,
            actor=actor,
            args=words,
            email_pending=user.pk in emailed,
        )
        for user in allowed
    )
    if emailed:
        digesting = set(
            NotificationSettings.objects.filter(
                user_id__in=emailed, digest=DigestChoice.DAILY
            ).values_list("user_id", flat=True)
        )
        at_once = emailed - digesting
        now_ids = [row.pk for row in rows if row.recipient_id in at_once]
        if now_ids:
            transaction.on_commit(lambda: _enqueue_emails(now_ids))
    return rows


def _enqueue_emails(ids: list[int]) -> None:
    from diary.tasks import send_notification_emails

    send_notification_emails.enqueue(ids)


# ---------------------------------------------------------------------------
# The events: one function each, called by the service that wrote the event
# ---------------------------------------------------------------------------


def _players(session: GameSession) -> list:
    User = get_user_model()
    return list(
        User.objects.filter(
            characters__participations__session=session,
            characters__participations__status=ParticipationStatus.ACCEPTED,
        ).distinct()
    )


def notify_turn_opened(turn: Turn, *, by) -> None:
    """Every player of the session: a new turn is open."""
    notify(
        NotificationKind.TURN_OPENED,
        _players(turn.session),
        turn.session,
        actor=by,
        turn=turn,
        args={"number": turn.number},
    )


def notify_post_created(post: Post) -> None:
    """A reply: everyone who has written in the session hears of a new post there."""
    User = get_user_model()
    earlier = User.objects.filter(
        posts__session_id=post.session_id, posts__hidden_at__isnull=True
    ).distinct()
    notify(NotificationKind.REPLY, earlier, post.session, actor=post.author, post=post)


def notify_quoted(post: Post, *, before: str = "") -> None:
    """The authors of the posts of this session that `post` newly quotes (links to their
    permalinks): once per quoted post; a quote already in `before` (the text an edit
    replaces) is not news again."""
    from diary.quoting import quoted_post_pks

    pks = quoted_post_pks(post.narration) - quoted_post_pks(before) - {post.pk}
    if not pks:
        return
    quoted = Post.objects.filter(pk__in=pks, session_id=post.session_id).select_related("author")
    for each in quoted:
        notify(
            NotificationKind.QUOTE,
            [each.author],
            post.session,
            actor=post.author,
            post=post,
        )


def notify_invitation(participation: Participation, *, by) -> None:
    """The invited character's owner."""
    notify(
        NotificationKind.INVITATION,
        [participation.character.owner],
        participation.session,
        actor=by,
        args={"character": participation.character.name},
    )


def notify_join_request(participation: Participation, *, by) -> None:
    """The session's GM: a character asks to join."""
    notify(
        NotificationKind.JOIN_REQUEST,
        [participation.session.gm],
        participation.session,
        actor=by,
        args={"character": participation.character.name},
    )


def notify_participation_decided(participation: Participation, *, by) -> None:
    """An invitation answered (to the GM) or a request answered (to the owner)."""
    session = participation.session
    owner = participation.character.owner
    recipient = session.gm if by.pk == owner.pk else owner
    notify(
        NotificationKind.PARTICIPATION_DECIDED,
        [recipient],
        session,
        actor=by,
        args={
            "character": participation.character.name,
            "accepted": participation.status == ParticipationStatus.ACCEPTED,
        },
    )


def _moderators() -> list:
    User = get_user_model()
    return list(
        User.objects.filter(Q(groups__name=MODERATOR_GROUP) | Q(is_superuser=True)).distinct()
    )


def notify_plan_submitted(session: GameSession, *, by) -> None:
    """The moderators: a plan waits for review."""
    notify(NotificationKind.PLAN_SUBMITTED, _moderators(), session, actor=by)


def notify_plan_reviewed(session: GameSession, *, by, accepted: bool) -> None:
    """The GM: the plan was accepted or returned for changes."""
    notify(
        NotificationKind.PLAN_REVIEWED,
        [session.gm],
        session,
        actor=by,
        args={"accepted": accepted},
    )


def notify_ask_answered(ask, *, roll) -> None:
    """The requested character's owner: the GM rolled what they asked for."""
    notify(
        NotificationKind.ASK_ANSWERED,
        [ask.character.owner],
        ask.session,
        actor=roll.rolled_by,
        post=roll.post,
        args={"summary": ask.summary},
    )


def notify_deadlines(now: datetime | None = None) -> int:
    """Players who have not posted in a current turn whose deadline is within
    DEADLINE_NOTICE_HOURS hear of it, once per turn each (a unique constraint keeps it so
    however often this runs). Returns how many were told."""
    from diary import selectors

    now = now or timezone.now()
    soon = now + timedelta(hours=settings.DEADLINE_NOTICE_HOURS)
    told = 0
    turns = Turn.objects.filter(
        session__status=SessionStatus.RUNNING, deadline__gt=now, deadline__lte=soon
    ).select_related("session")
    for turn in turns:
        newest = turn.session.turns.order_by("-number").values_list("number", flat=True)
        if newest.first() != turn.number:
            continue
        playing = selectors.playing_characters(turn.session)
        posted = {(c, a) for _t, c, a in selectors.turn_posts([turn])}
        awaited = selectors.awaited_characters(playing, posted)
        owners = {c.owner for c in awaited}
        already = set(
            Notification.objects.filter(kind=NotificationKind.DEADLINE_NEAR, turn=turn).values_list(
                "recipient_id", flat=True
            )
        )
        for owner in owners:
            if owner.pk in already:
                continue
            try:
                with transaction.atomic():
                    told += len(
                        notify(
                            NotificationKind.DEADLINE_NEAR,
                            [owner],
                            turn.session,
                            turn=turn,
                            args={"number": turn.number, "deadline": turn.deadline.isoformat()},
                        )
                    )
            except IntegrityError:  # another run told them a moment ago
                continue
    return told


# ---------------------------------------------------------------------------
# Words and links
# ---------------------------------------------------------------------------


def _deadline_words(value: str) -> str:
    moment = timezone.localtime(datetime.fromisoformat(value))
    return formats.date_format(moment, "DATETIME_FORMAT")


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
        return _("%(actor)s answered your roll request (%(summary)s) in “%(session)s”.") % a
    if kind == NotificationKind.INVITATION:
        return _("%(actor)s invites %(character)s to “%(session)s”.") % a
    if kind == NotificationKind.JOIN_REQUEST:
        return _("%(actor)s asks for %(character)s to join “%(session)s”.") % a
    if kind == NotificationKind.PARTICIPATION_DECIDED:
        if a.get("accepted"):
            return _("%(actor)s accepted %(character)s in “%(session)s”.") % a
        return _("%(actor)s declined %(character)s in “%(session)s”.") % a
    if kind == NotificationKind.PLAN_SUBMITTED:
        return _("%(actor)s submitted the plan of “%(session)s” for review.") % a
    if kind == NotificationKind.PLAN_REVIEWED:
        if a.get("accepted"):
            return _("%(actor)s accepted the plan of “%(session)s”.") % a
        return _("%(actor)s returned the plan of “%(session)s” for changes.") % a
    if kind == NotificationKind.DEADLINE_NEAR:
        a["deadline"] = _deadline_words(a["deadline"])
        return (
            _(
                "Turn %(number)s of “%(session)s” ends on %(deadline)s and you have not posted "
                "in it yet."
            )
            % a
        )
    return str(notification.get_kind_display())


def notification_url(notification: Notification) -> str:
    """Where the notification leads: its post, the plan, the participants, or the diary."""
    session = notification.session_id
    kind = notification.kind
    if notification.post_id is not None:
        diary = reverse("diary:session", args=[session])
        return f"{diary}?after={notification.post_id - 1}#post-{notification.post_id}"
    if kind in (NotificationKind.PLAN_SUBMITTED, NotificationKind.PLAN_REVIEWED):
        return reverse("diary:session_plan", args=[session])
    if kind == NotificationKind.JOIN_REQUEST:
        return reverse("diary:participants", args=[session])
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


def unread_subquery(user):
    """The user's unread count as a subquery, to ride in another query."""
    unread = (
        Notification.objects.filter(recipient=user.pk, read_at__isnull=True)
        .order_by()
        .values("recipient")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Subquery(unread[:1], output_field=IntegerField())


@transaction.atomic
def notification_mark_read(*, notification: Notification) -> Notification:
    if notification.read_at is None:
        notification.read_at = timezone.now()
        notification.save(update_fields=["read_at"])
    return notification


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
# E-mail (run by the worker: diary/tasks.py, and by notify_digest)
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


def send_emails(ids: list[int]) -> int:
    """One e-mail per pending notification of these ids; each is sent once."""
    sent = 0
    rows = Notification.objects.filter(pk__in=ids, email_pending=True).select_related("recipient")
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
                with translation.override(_language_of(notification.recipient)):
                    text = notification_text(notification)
                    body = "\n\n".join(
                        [
                            text,
                            _absolute(notification_url(notification)),
                            _footer(),
                        ]
                    )
                    subject = _("Codziennik: %(text)s") % {"text": text}
                message = _Mail(subject=subject[:200], body=body, to=[notification.recipient.email])
                connection.send_messages([message])
                locked.email_pending = False
                locked.emailed_at = timezone.now()
                locked.save(update_fields=["email_pending", "emailed_at"])
                sent += 1
    return sent


def _footer() -> str:
    return _("Which notifications come by e-mail, and how often: %(url)s") % {
        "url": _absolute(reverse("notifications:preferences"))
    }


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
                with translation.override(_language_of(row.user)):
                    lines = [
                        f"- {notification_text(n)}\n  {_absolute(notification_url(n))}"
                        for n in pending
                    ]
                    subject = ngettext(
                        "Codziennik: %(count)s new notification",
                        "Codziennik: %(count)s new notifications",
                        len(pending),
                    ) % {"count": len(pending)}
                    body = "\n\n".join(
                        [_("What happened since the last digest:"), "\n".join(lines), _footer()]
                    )
                message = _Mail(subject=subject, body=body, to=[row.user.email])
                connection.send_messages([message])
                Notification.objects.filter(pk__in=[n.pk for n in pending]).update(
                    email_pending=False, emailed_at=now
                )
                settings_row.digest_sent_at = now
                settings_row.save(update_fields=["digest_sent_at"])
                sent += 1
    return sent
