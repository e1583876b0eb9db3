"""Reads of table talk (the OOC thread and whispers beside the diary) for its pages and
for the session page's unread badges."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import Count, F, IntegerField, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce

from diary.models import ParticipationStatus, TalkKind, TalkMessage, TalkReadMark, TalkThread


def _seen(user_pk, thread_ref: str = "thread_id"):
    """The user's read mark of the thread `thread_ref` names, 0 without one."""
    mark = TalkReadMark.objects.filter(user=user_pk, thread_id=OuterRef(thread_ref)).values(
        "last_seen_message_id"
    )[:1]
    return Coalesce(Subquery(mark, output_field=IntegerField()), Value(0))


def _unread(user_pk):
    """Messages not the user's own past the user's read mark of their thread."""
    return (
        TalkMessage.objects.exclude(author=user_pk)
        .annotate(seen=_seen(user_pk))
        .filter(id__gt=F("seen"))
        .order_by()
    )


def talk_unread_annotations(user) -> dict:
    """The session's unread OOC messages and the user's unread whisper messages, as
    annotations of the query that loads the session (no query of its own)."""
    unread = _unread(user.pk).filter(thread__session_id=OuterRef("pk"))
    ooc = unread.filter(thread__kind=TalkKind.OOC)
    whispers = unread.filter(thread__kind=TalkKind.WHISPER, thread__members=user.pk)

    def counted(messages):
        rows = messages.values("thread__session_id").annotate(n=Count("pk")).values("n")
        return Coalesce(Subquery(rows[:1], output_field=IntegerField()), Value(0))

    return {"viewer_ooc_unread": counted(ooc), "viewer_whisper_unread": counted(whispers)}


def thread_messages(thread: TalkThread | None) -> list[TalkMessage]:
    if thread is None:
        return []
    return list(thread.messages.select_related("author").order_by("id"))


def read_mark(user, thread: TalkThread | None) -> int:
    if thread is None:
        return 0
    mark = TalkReadMark.objects.filter(user=user, thread=thread).values_list(
        "last_seen_message_id", flat=True
    )
    return mark.first() or 0


def whisper_threads(user, session, *, every: bool) -> list[TalkThread]:
    """The session's whispers the user is a member of (every one, for a moderator's audit),
    newest talk first, each with its members and the user's unread count."""
    threads = TalkThread.objects.filter(session=session, kind=TalkKind.WHISPER)
    if not every:
        threads = threads.filter(members=user.pk)
    unread = (
        _unread(user.pk)
        .filter(thread_id=OuterRef("pk"))
        .values("thread_id")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return list(
        threads.annotate(
            unread=Coalesce(Subquery(unread[:1], output_field=IntegerField()), Value(0)),
            message_count=Count("messages", distinct=True),
        )
        .prefetch_related("members")
        .order_by("-last_message_at", "-id")
    )


def whisper_recipients(session) -> list:
    """Whom the GM may whisper to: the owners of the session's playing characters, by name."""
    return list(
        get_user_model()
        .objects.filter(
            characters__participations__session=session,
            characters__participations__status=ParticipationStatus.ACCEPTED,
        )
        .exclude(pk=session.gm_id)
        .exclude(pk__in=session.co_gm_ids)
        .distinct()
        .order_by("username")
    )
