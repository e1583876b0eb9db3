"""Notifications: who hears of what.

`notify` writes one row per recipient in the caller's transaction (the event and its
notifications commit or roll back together) and, once it commits, queues the e-mail task
for the rows whose recipient wants this kind by e-mail at once (diary/notifications/tasks.py; the
tasks framework's database backend, run by `db_worker`). Users who chose the daily digest
get theirs from `notify_digest`. The actor never hears of their own act, and nobody hears
of a session they may not know (diary.access decides, as everywhere); a session the user
muted brings them no news of its play (MUTED_KINDS).

How each one then reaches its recipient (the bell, its list, the e-mails) is
diary/notifications/delivery.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from config.roles import MODERATOR_GROUP
from diary import selectors
from diary.absences.selectors import absent_owner_ids
from diary.access import may_know_session
from diary.eyes.reading import NOBODY, visible_text
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
    SessionMute,
    SessionStatus,
    TalkMessage,
    TalkThread,
    Turn,
)
from diary.notifications import webhooks
from diary.notifications.tasks import send_notification_emails
from diary.posts.quoting import quoted_post_pks

# Kinds a recipient hears of only while reading the session; the others need its card
# (a declined request is news to someone who no longer reads the diary).
CARD_KINDS = {
    NotificationKind.PARTICIPATION_DECIDED,
    NotificationKind.AD_INVITATION,
    # The old GM, and a removed player, no longer read the diary, but hear why.
    NotificationKind.SESSION_HANDED_OVER,
    NotificationKind.CHARACTER_REMOVED,
}


# Kinds a muted session no longer brings (SessionMute): its play. What someone waits on or
# must answer (an invitation, a join request, its answer, a plan's review) still comes.
MUTED_KINDS = {
    NotificationKind.TURN_OPENED,
    NotificationKind.REPLY,
    NotificationKind.QUOTE,
    NotificationKind.ASK_ANSWERED,
    NotificationKind.DEADLINE_NEAR,
    NotificationKind.CHARACTER_CHANGED,
    NotificationKind.TALK_OOC,
    NotificationKind.WHISPER,
    NotificationKind.POLL_OPENED,
}


def _allowed(recipients: Iterable, session: GameSession, kind: str, actor) -> list:
    """The recipients who hear of it, each with `wants_email` (this kind, at once) and
    `wants_digest` (in the daily digest instead), in one query (the recipients' own, when
    they come as a query): active users who may know of the session (diary.access) and
    did not mute it, never the actor."""
    User = get_user_model()
    if (
        isinstance(recipients, QuerySet)
        and recipients.model is User
        and not recipients.query.is_sliced
    ):
        candidates = recipients
    else:
        ids = {user.pk for user in recipients if user is not None}
        if actor is not None:
            ids.discard(actor.pk)
        if not ids:
            return []
        candidates = User.objects.filter(pk__in=ids)
    if actor is not None:
        candidates = candidates.exclude(pk=actor.pk)
    candidates = candidates.filter(
        may_know_session(session, card=kind in CARD_KINDS), is_active=True
    )
    if kind in MUTED_KINDS:
        candidates = candidates.exclude(
            Exists(SessionMute.objects.filter(session=session, user=OuterRef("pk")))
        )
    preference = NotificationPreference.objects.filter(
        user=OuterRef("pk"), kind=kind, email=True
    ).exclude(user__email="")
    return list(
        candidates.annotate(
            wants_email=Exists(preference),
            wants_digest=Exists(
                NotificationSettings.objects.filter(user=OuterRef("pk"), digest=DigestChoice.DAILY)
            ),
        ).order_by("pk")
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
    talk_thread: TalkThread | None = None,
) -> list[Notification]:
    """One notification of `kind` for each recipient who may know of it (not the actor);
    the e-mails of those who want them at once are queued when the transaction commits."""
    allowed = _allowed(recipients, session, kind, actor)
    if not allowed:
        return []
    emailed = {user.pk for user in allowed if user.wants_email}
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
            talk_thread=talk_thread,
            actor=actor,
            args=words,
            email_pending=user.pk in emailed,
        )
        for user in allowed
    )
    if emailed:
        at_once = {user.pk for user in allowed if user.wants_email and not user.wants_digest}
        now_ids = [row.pk for row in rows if row.recipient_id in at_once]
        if now_ids:
            transaction.on_commit(lambda: _enqueue_emails(now_ids))
    return rows


def _enqueue_emails(ids: list[int]) -> None:
    send_notification_emails.enqueue(ids)


# ---------------------------------------------------------------------------
# The events: one function each, called by the service that wrote the event
# ---------------------------------------------------------------------------


def session_runners(session: GameSession) -> list:
    """The session's GM and its co-GMs: who hears what is meant for "the GM"."""
    User = get_user_model()
    return [
        session.gm,
        *User.objects.filter(pk__in=session.co_gm_ids).exclude(pk=session.gm_id).order_by("pk"),
    ]


def _players(session: GameSession) -> list:
    User = get_user_model()
    return list(
        User.objects.filter(
            characters__participations__session=session,
            characters__participations__status=ParticipationStatus.ACCEPTED,
        ).distinct()
    )


def notify_turn_opened(turn: Turn, *, by) -> None:
    """Every player of the session (and whoever else runs it), and its table chat: a new
    turn is open."""
    webhooks.announce_turn_opened(turn)
    notify(
        NotificationKind.TURN_OPENED,
        [*_players(turn.session), *session_runners(turn.session)],
        turn.session,
        actor=by,
        turn=turn,
        args={"number": turn.number},
    )


def notify_post_created(post: Post) -> None:
    """A reply: everyone who has written in the session hears of a new post there, and so
    does its table chat."""
    webhooks.announce_post_created(post)
    User = get_user_model()
    earlier = User.objects.filter(
        posts__session_id=post.session_id, posts__hidden_at__isnull=True
    ).distinct()
    notify(NotificationKind.REPLY, earlier, post.session, actor=post.author, post=post)


def notify_quoted(post: Post, *, before: str = "") -> None:
    """The authors of the posts of this session that `post` newly quotes (links to their
    permalinks): once per quoted post; a quote already in `before` (the text an edit
    replaces) is not news again. A quote inside a part for chosen eyes is not told: the
    quoted author may not be among them."""
    pks = quoted_post_pks(visible_text(post, NOBODY)) - quoted_post_pks(before) - {post.pk}
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


def notify_talk_message(message: TalkMessage) -> None:
    """A message of table talk: a whisper's members, or the GM and players of the session for
    its OOC thread. One unread notice per thread: who has not read the last one is not told
    again (the thread's unread count says how many came)."""
    thread = message.thread
    session = thread.session
    if thread.is_whisper:
        kind = NotificationKind.WHISPER
        recipients = list(thread.members.all())
    else:
        kind = NotificationKind.TALK_OOC
        recipients = [*session_runners(session), *_players(session)]
    waiting = set(
        Notification.objects.filter(talk_thread=thread, read_at__isnull=True).values_list(
            "recipient_id", flat=True
        )
    )
    notify(
        kind,
        [user for user in recipients if user.pk not in waiting],
        session,
        actor=message.author,
        talk_thread=thread,
        args={"subject": thread.subject},
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


def notify_ad_invitation(ad, session: GameSession, *, by, note: str = "") -> list[Notification]:
    """A player's ad answered: its author is asked to look at the GM's session (and apply
    from its page with a character of their choice)."""
    return notify(
        NotificationKind.AD_INVITATION, [ad.author], session, actor=by, args={"note": note}
    )


def notify_join_request(participation: Participation, *, by) -> None:
    """The session's GM and co-GMs: a character asks to join."""
    notify(
        NotificationKind.JOIN_REQUEST,
        session_runners(participation.session),
        participation.session,
        actor=by,
        args={"character": participation.character.name},
    )


def notify_participation_decided(participation: Participation, *, by) -> None:
    """An invitation answered (to the GM) or a request answered (to the owner)."""
    session = participation.session
    owner = participation.character.owner
    to_owner = by.pk != owner.pk
    notify(
        NotificationKind.PARTICIPATION_DECIDED,
        [owner] if to_owner else session_runners(session),
        session,
        actor=by,
        args={
            "character": participation.character.name,
            "accepted": participation.status == ParticipationStatus.ACCEPTED,
            "note": participation.gm_note if to_owner else "",
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
    """The GM and co-GMs: the plan was accepted or returned for changes."""
    notify(
        NotificationKind.PLAN_REVIEWED,
        session_runners(session),
        session,
        actor=by,
        args={"accepted": accepted},
    )


def notify_ask_closed(ask) -> None:
    """The requested character's owner hears the GM's answer to their request: rolled as
    asked, rolled differently (and why), or declined (and why). A withdrawal is their own."""
    if ask.status == "withdrawn":
        return
    roll = ask.answer
    notify(
        NotificationKind.ASK_ANSWERED,
        [ask.character.owner],
        ask.session,
        actor=roll.rolled_by if roll is not None else (ask.closed_by or ask.session.gm),
        post=roll.post if roll is not None else ask.post,
        args={"summary": ask.summary, "status": ask.status, "note": ask.note},
    )


def notify_character_changed(
    post: Post, *, session: GameSession, by, character_ids: Iterable[int]
) -> None:
    """The owners of the characters a roll or an entry concerns, when it lands in a post
    that was already there: the change is news in a post they may have read already."""
    ids = set(character_ids)
    if not ids:
        return
    User = get_user_model()
    owners = User.objects.filter(characters__pk__in=ids).distinct()
    notify(NotificationKind.CHARACTER_CHANGED, owners, session, actor=by, post=post)


def notify_deadlines(now: datetime | None = None) -> int:
    """Players who have not posted in a current turn whose deadline is within
    DEADLINE_NOTICE_HOURS hear of it, once per turn each (a unique constraint keeps it so
    however often this runs); a player away today (diary.absences) is not awaited and is
    not told. The notice names the turn, their characters awaited and everyone awaited.
    Returns how many were told."""
    now = now or timezone.now()
    soon = now + timedelta(hours=settings.DEADLINE_NOTICE_HOURS)
    told = 0
    turns = list(
        Turn.objects.filter(
            session__status=SessionStatus.RUNNING, deadline__gt=now, deadline__lte=soon
        ).select_related("session")
    )
    absent = absent_owner_ids({t.session_id for t in turns}, timezone.localdate(now))
    for turn in turns:
        newest = turn.session.turns.order_by("-number").values_list("number", flat=True)
        if newest.first() != turn.number:
            continue
        playing = selectors.playing_characters(turn.session)
        posted = {(c, a) for _t, c, a in selectors.turn_posts([turn])}
        awaited = selectors.awaited_characters(playing, posted, absent[turn.session_id])
        told += _tell_deadline(turn, awaited)
    return told


# ---------------------------------------------------------------------------
# GM handover and players leaving (diary/handover, diary.services.participation_withdraw)
# ---------------------------------------------------------------------------


def notify_co_gm_named(session: GameSession, *, user, by) -> None:
    """The new co-GM: they now run the session with its GM."""
    notify(NotificationKind.CO_GM_NAMED, [user], session, actor=by)


def notify_session_handed_over(handover, *, old_gm) -> None:
    """Every player, the old GM, the new GM and the co-GMs: who runs the session now, and
    why it changed hands."""
    session = handover.session
    notify(
        NotificationKind.SESSION_HANDED_OVER,
        [old_gm, *session_runners(session), *_players(session)],
        session,
        actor=handover.by,
        args={
            "from_gm": old_gm.get_username(),
            "to_gm": handover.to_gm.get_username(),
            "reason": handover.reason,
        },
    )


def notify_player_left(participation: Participation, *, by) -> None:
    """The GM and co-GMs: a player took their character out of the session."""
    session = participation.session
    notify(
        NotificationKind.PLAYER_LEFT,
        session_runners(session),
        session,
        actor=by,
        args={"character": participation.character.name},
    )


def notify_character_removed(participation: Participation, *, by) -> None:
    """The character's owner: the GM removed it, and why."""
    notify(
        NotificationKind.CHARACTER_REMOVED,
        [participation.character.owner],
        participation.session,
        actor=by,
        args={
            "character": participation.character.name,
            "reason": participation.removal_reason,
        },
    )


def _tell_deadline(turn: Turn, awaited: list) -> int:
    """The deadline notice to each owner of an awaited character not told yet of this
    turn, and the table chat's once."""
    owners = {c.owner for c in awaited}
    already = set(
        Notification.objects.filter(kind=NotificationKind.DEADLINE_NEAR, turn=turn).values_list(
            "recipient_id", flat=True
        )
    )
    names = [c.name for c in awaited]
    if owners and not already:
        webhooks.announce_deadline_near(turn, names)  # the chat hears once a turn, as players do
    told = 0
    for owner in sorted(owners, key=lambda user: user.pk):
        if owner.pk in already:
            continue
        args = {
            "number": turn.number,
            "deadline": turn.deadline.isoformat(),
            "awaited": names,
            "characters": [c.name for c in awaited if c.owner_id == owner.pk],
            # What happens then (diary/deadlines): said in the reader's language when shown.
            "rule": turn.session.deadline_rule,
        }
        try:
            with transaction.atomic():
                told += len(
                    notify(
                        NotificationKind.DEADLINE_NEAR, [owner], turn.session, turn=turn, args=args
                    )
                )
        except IntegrityError:  # another run told them a moment ago
            continue
    return told


def notify_nudge(turn: Turn, recipient, *, by, characters: list[str]) -> list[Notification]:
    """The GM's nudge: one player hears that the turn waits for their characters."""
    return notify(
        NotificationKind.NUDGE,
        [recipient],
        turn.session,
        actor=by,
        turn=turn,
        args={"number": turn.number, "characters": characters},
    )


def notify_announcement(announcement) -> None:
    """A new announcement of the GM's notice board: the GM and every player of the session.
    Rare and meant for everyone, so a muted session still brings it (not in MUTED_KINDS)."""
    session = announcement.session
    notify(
        NotificationKind.ANNOUNCEMENT,
        [*session_runners(session), *_players(session)],
        session,
        actor=announcement.author,
        args={"title": announcement.title, "announcement": announcement.pk},
    )


def notify_poll_opened(poll) -> None:
    """A new poll in the OOC thread: the GM and the players (its author aside). Table talk,
    so a muted session brings none (MUTED_KINDS)."""
    session = poll.session
    notify(
        NotificationKind.POLL_OPENED,
        [*session_runners(session), *_players(session)],
        session,
        actor=poll.author,
        args={"question": poll.question, "poll": poll.pk},
    )
