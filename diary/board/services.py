"""The notice board's writes: an announcement written, edited, taken down and pinned again.
Each checks who acts (diary.access.access_board) inside its transaction, under the session's
row lock, and moves the session's activity marker: the diary page caches its pinned
announcements by that marker (diary/live/page_cache.py), and open diaries hear of it."""

from __future__ import annotations

import uuid

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from config.markdown import render_narration
from diary.access import BoardAccess, access_announcement, access_board
from diary.models import ANNOUNCEMENT_TEXT_MAX, ANNOUNCEMENT_TITLE_MAX, Announcement
from diary.notifications import notices as notifications


def _checked(title: str, text: str) -> tuple[str, str]:
    title, text = title.strip(), text.strip()
    errors = {}
    if not title:
        errors["title"] = _("Give the announcement a title.")
    elif len(title) > ANNOUNCEMENT_TITLE_MAX:
        errors["title"] = _("A title has at most %(max)s characters.") % {
            "max": ANNOUNCEMENT_TITLE_MAX
        }
    if len(text) > ANNOUNCEMENT_TEXT_MAX:
        errors["text"] = _("An announcement has at most %(max)s characters.") % {
            "max": ANNOUNCEMENT_TEXT_MAX
        }
    if errors:
        raise ValidationError(errors)
    return title, text


def _managed(board: BoardAccess) -> BoardAccess:
    if not board.can_manage:
        raise PermissionDenied
    return board


@transaction.atomic
def announcement_create(*, session, by, title: str, text: str, token: uuid.UUID) -> Announcement:
    """A new announcement, pinned; every member of the table is told. The same form sent twice
    writes one."""
    board = _managed(access_board(by, session.pk, lock=True))
    existing = Announcement.objects.filter(author=by, token=token).first()
    if existing is not None:
        return existing
    title, text = _checked(title, text)
    try:
        now = timezone.now()  # one moment: an announcement never edited shows no "edited"
        with transaction.atomic():
            announcement = Announcement.objects.create(
                created_at=now,
                updated_at=now,
                changed_at=now,
                session=board.session,
                author=by,
                title=title,
                text=text,
                text_html=render_narration(text) if text else "",
                token=token,
            )
    except IntegrityError:  # the same token at the same moment: the other one wrote it
        return Announcement.objects.get(author=by, token=token)
    board.session.touch()
    notifications.notify_announcement(announcement)
    return announcement


@transaction.atomic
def announcement_edit(*, session, announcement_pk: int, by, title: str, text: str) -> Announcement:
    """The GM corrects an announcement (its place on the board stays; nobody is told again)."""
    board, announcement = access_announcement(by, session.pk, announcement_pk, lock=True)
    _managed(board)
    title, text = _checked(title, text)
    announcement.title, announcement.text = title, text
    announcement.text_html = render_narration(text) if text else ""
    announcement.updated_at = announcement.changed_at = timezone.now()
    announcement.save(update_fields=["title", "text", "text_html", "updated_at", "changed_at"])
    board.session.touch()
    return announcement


@transaction.atomic
def announcement_pin(*, session, announcement_pk: int, by, pinned: bool) -> Announcement:
    """Take an announcement down from above the diary (`pinned=False`; it stays on the board's
    page) or pin it again. Setting the state it already has changes nothing."""
    board, announcement = access_announcement(by, session.pk, announcement_pk, lock=True)
    _managed(board)
    if announcement.is_pinned != pinned:
        announcement.changed_at = timezone.now()
        announcement.archived_at = None if pinned else announcement.changed_at
        announcement.save(update_fields=["archived_at", "changed_at"])
        board.session.touch()
    return announcement
