"""Table talk's writes: a message in the session's OOC thread, a whisper started, a message
in a whisper, and a reader's mark moved. Each checks who acts (diary.access) inside its
transaction; messages are Markdown rendered and sanitised like a post's narration."""

from __future__ import annotations

import uuid

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from config.markdown import render_narration
from diary.access import access_ooc, access_whisper, access_whispers
from diary.eyes.parsing import has_markup
from diary.models import (
    TALK_MESSAGE_MAX,
    TALK_SUBJECT_MAX,
    GameSession,
    Notification,
    TalkKind,
    TalkMessage,
    TalkReadMark,
    TalkThread,
)
from diary.notifications import notices as notifications
from diary.talk.selectors import whisper_recipients


def _check_text(text: str) -> str:
    text = text.strip()
    if not text:
        raise ValidationError({"text": _("Write a message.")})
    if len(text) > TALK_MESSAGE_MAX:
        raise ValidationError(
            {"text": _("A message has at most %(max)s characters.") % {"max": TALK_MESSAGE_MAX}}
        )
    if has_markup(text):
        # Shown as typed, it would show everyone the words meant for a few.
        raise ValidationError(
            {
                "text": _(
                    "Text for chosen eyes ([dla: …]) works in the diary's posts only; out "
                    "of character, a whisper reaches only the people you choose."
                )
            }
        )
    return text


def _lock(session: GameSession) -> GameSession:
    # One writer at a time per session: the OOC thread is made once, and a thread's
    # message ids follow their order.
    return GameSession.objects.select_for_update().get(pk=session.pk)


def _sent_before(author, token: uuid.UUID) -> TalkMessage | None:
    return TalkMessage.objects.filter(author=author, token=token).select_related("thread").first()


def _write(thread: TalkThread, author, text: str, token: uuid.UUID) -> TalkMessage:
    try:
        # A savepoint: the same token sent twice at once meets the unique constraint.
        with transaction.atomic():
            message = TalkMessage.objects.create(
                thread=thread,
                author=author,
                text=text,
                text_html=render_narration(text),
                token=token,
            )
    except IntegrityError:
        existing = _sent_before(author, token)
        if existing is None:
            raise
        return existing
    TalkThread.objects.filter(pk=thread.pk).update(last_message_at=message.created_at)
    notifications.notify_talk_message(message)
    # The author's mark stays: their own messages are never unread, and a message someone
    # else wrote meanwhile stays "new" until the thread's page (where the form leads) shows it.
    return message


@transaction.atomic
def ooc_message_create(*, session: GameSession, author, text: str, token: uuid.UUID):
    """A message in the session's OOC thread (made with its first message); the same form
    sent twice writes one message."""
    _lock(session)
    existing = _sent_before(author, token)
    if existing is not None:
        return existing
    talk = access_ooc(author, session.pk)
    if not talk.can_write:
        raise PermissionDenied
    text = _check_text(text)
    thread = talk.thread or TalkThread.objects.create(
        session=session, kind=TalkKind.OOC, started_by=author
    )
    return _write(thread, author, text, token)


@transaction.atomic
def whisper_message_create(*, thread: TalkThread, author, text: str, token: uuid.UUID):
    """A message in a whisper, by one of its members."""
    _lock(thread.session)
    existing = _sent_before(author, token)
    if existing is not None:
        return existing
    talk = access_whisper(author, thread.session_id, thread.pk)
    if not talk.can_write:
        raise PermissionDenied
    return _write(talk.thread, author, _check_text(text), token)


@transaction.atomic
def whisper_create(
    *, session: GameSession, by, players: list, subject: str, text: str, token: uuid.UUID
) -> TalkThread:
    """A whisper with its first message: the GM's to the chosen players (one or more), a
    player's to the GM (`players` is ignored). Its members are fixed once it starts."""
    _lock(session)
    existing = _sent_before(by, token)
    if existing is not None:
        return existing.thread
    whispers = access_whispers(by, session.pk)
    if not whispers.can_start:
        raise PermissionDenied
    subject = subject.strip()
    if len(subject) > TALK_SUBJECT_MAX:
        raise ValidationError(
            {"subject": _("A subject has at most %(max)s characters.") % {"max": TALK_SUBJECT_MAX}}
        )
    if whispers.session_access.is_gm:
        allowed = {user.pk for user in whisper_recipients(session)}
        chosen = {user.pk: user for user in players}
        if not chosen:
            raise ValidationError({"players": _("Choose at least one player.")})
        if set(chosen) - allowed:
            raise ValidationError({"players": _("Whisper only to players of this session.")})
        members = [by, *chosen.values(), *notifications.session_runners(session)]
    else:
        # "To the GM": the GM and the co-GMs, who share the GM's place at the table.
        members = [by, *notifications.session_runners(session)]
    text = _check_text(text)
    thread = TalkThread.objects.create(
        session=session, kind=TalkKind.WHISPER, subject=subject, started_by=by
    )
    thread.members.set({user.pk: user for user in members}.values())
    _write(thread, by, text, token)
    return thread


def _mark(user, thread: TalkThread, message_id: int) -> None:
    marked = TalkReadMark.objects.filter(
        user=user, thread=thread, last_seen_message_id__lt=message_id
    ).update(last_seen_message_id=message_id)
    if not marked:
        TalkReadMark.objects.bulk_create(
            [TalkReadMark(user=user, thread=thread, last_seen_message_id=message_id)],
            ignore_conflicts=True,
        )


@transaction.atomic
def talk_thread_read(*, user, thread: TalkThread, newest_id: int) -> None:
    """The member has seen the thread up to `newest_id`: the mark moves there (never back)
    and the notifications about the thread are read."""
    _mark(user, thread, newest_id)
    marked = Notification.objects.filter(
        recipient=user, talk_thread=thread, read_at__isnull=True
    ).update(read_at=timezone.now())
    # The bell of this very page was counted with the session (diary.access.access_session).
    counted = getattr(user, "_unread_notifications", None)
    if counted is not None:
        user._unread_notifications = max(counted - marked, 0)
