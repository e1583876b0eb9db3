"""Reads of the GM handover: a session's co-GMs, when its GM last did something, whether it
is orphaned, and its history of handovers."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import OuterRef, Subquery
from django.utils import timezone

from diary.activity.selectors import (
    ORPHANABLE_STATUSES,
    gm_active_at,
    gm_activity_annotations,
)
from diary.models import (
    GONE_STATUSES,
    CoGameMaster,
    GameSession,
    Participation,
    SessionHandover,
)


def co_gms_of(session: GameSession) -> list[CoGameMaster]:
    """The session's co-GMs, who named them, first named first (one query)."""
    return list(CoGameMaster.objects.filter(session=session).select_related("user", "named_by"))


def session_history(session: GameSession) -> list[SessionHandover]:
    """Every handover of the session, oldest first (one query)."""
    return list(
        SessionHandover.objects.filter(session=session).select_related("from_gm", "to_gm", "by")
    )


def last_handover_annotations() -> dict:
    """The session's newest handover, read with the session's own row (the diary's side
    shows it without a query of its own)."""
    newest = SessionHandover.objects.filter(session=OuterRef("pk")).order_by("-at", "-pk")
    return {
        "handover_at": Subquery(newest.values("at")[:1]),
        "handover_from": Subquery(newest.values("from_gm__username")[:1]),
        "handover_to": Subquery(newest.values("to_gm__username")[:1]),
        "handover_reason": Subquery(newest.values("reason")[:1]),
    }


def last_gm_activity(session: GameSession) -> datetime:
    """The last time the session's GM or a co-GM wrote a post or opened a turn, or the
    session changed hands (or, before any of them, its creation). One query."""
    return gm_active_at(
        GameSession.objects.filter(pk=session.pk).annotate(**gm_activity_annotations()).get()
    )


@dataclass(frozen=True)
class Orphaned:
    """Whether a moderator may hand the session over now, and why (not)."""

    orphaned: bool
    last_activity: datetime
    days: int  # ORPHANED_AFTER_DAYS
    may_be_handed_over_at: datetime
    status_allows: bool


def orphaned_state(session: GameSession, now: datetime | None = None) -> Orphaned:
    """A session is orphaned when it is running (or accepted, waiting to start) and neither
    its GM nor a co-GM has posted or opened a turn for ORPHANED_AFTER_DAYS days."""
    now = now or timezone.now()
    days = settings.ORPHANED_AFTER_DAYS
    last = last_gm_activity(session)
    due = last + timedelta(days=days)
    status_allows = session.status in ORPHANABLE_STATUSES
    return Orphaned(
        orphaned=status_allows and due <= now,
        last_activity=last,
        days=days,
        may_be_handed_over_at=due,
        status_allows=status_allows,
    )


def plays_in(session: GameSession, user) -> bool:
    """The user has a character on the session's list (playing, invited or asking)."""
    return (
        Participation.objects.filter(session=session, character__owner_id=user.pk)
        .exclude(status__in=GONE_STATUSES)
        .exists()
    )
