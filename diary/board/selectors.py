"""Reads of the notice board: the pinned announcements above the diary and the OOC thread,
and the board's page.

The pinned ones are cached per process (diary/live/page_cache.py) under the board's own
stamp, the newest `changed_at` of the session's announcements, which every write of the board
moves: the diary page reads it as a subquery of the session's own query
(`board_annotations`), so a post or a roll (which move the session's activity marker) costs
the board no query, a session without announcements none at all, and a change of the board
one. A page that did not read the stamp keys by the session's activity marker, which every
write of the board moves too."""

from __future__ import annotations

from django.db.models import DateTimeField, Max, OuterRef, Subquery

from diary.live.page_cache import memo
from diary.models import Announcement, GameSession

_FIELDS = ("pk", "session_id", "title", "text_html", "created_at", "updated_at", "archived_at")


def board_annotations() -> dict:
    """The board's stamp (None: no announcement ever), for the session's own query."""
    newest = (
        Announcement.objects.filter(session=OuterRef("pk"))
        .order_by()
        .values("session")
        .annotate(newest=Max("changed_at"))
        .values("newest")
    )
    return {"board_changed_at": Subquery(newest[:1], output_field=DateTimeField())}


def pinned_announcements(session: GameSession) -> list[Announcement]:
    """The pinned announcements, newest first: one query when the board changed, none
    otherwise (see the module's docstring)."""

    def read():
        return list(
            Announcement.objects.filter(session=session, archived_at__isnull=True)
            .only(*_FIELDS)
            .order_by("-created_at", "-id")
        )

    if hasattr(session, "board_changed_at"):
        if session.board_changed_at is None:
            return []
        return memo(("board", session.pk, session.board_changed_at.isoformat()), read)
    return memo(("board", session.pk, "activity", session.activity_marker), read)


def board_announcements(session: GameSession) -> tuple[list[Announcement], list[Announcement]]:
    """The board's page: (pinned, taken down), newest first, with their authors (one query)."""
    rows = list(
        Announcement.objects.filter(session=session)
        .select_related("author")
        .order_by("-created_at", "-id")
    )
    return [a for a in rows if a.is_pinned], [a for a in rows if not a.is_pinned]
