"""When each player of a session was last nudged, and what that allows now."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Max

from diary.live.page_cache import memo
from diary.models import GameSession, Nudge

# At most one nudge a day per player and session.
NUDGE_INTERVAL = timedelta(hours=24)


def last_nudges(session: GameSession) -> dict[int, datetime]:
    """Recipient id → when the session's GM last nudged them. One query."""
    return dict(
        Nudge.objects.filter(session=session)
        .values("recipient_id")
        .annotate(last=Max("created_at"))
        .values_list("recipient_id", "last")
    )


def last_nudges_cached(session: GameSession) -> dict[int, datetime]:
    """last_nudges for the diary page: a nudge moves the session's activity marker, so the
    read is made once per marker (the window is checked against the clock when shown)."""
    return memo(("nudges", session.pk, session.activity_marker), lambda: last_nudges(session))


def next_nudge_at(last: dict[int, datetime], recipient_id: int, now: datetime) -> datetime | None:
    """When the recipient may be nudged again, or None when they may be now."""
    at = last.get(recipient_id)
    if at is None or at + NUDGE_INTERVAL <= now:
        return None
    return at + NUDGE_INTERVAL


@dataclass(frozen=True)
class NudgeRow:
    """An awaited character in the GM's "Czekamy na:" and whether its player may be nudged."""

    character: object
    next_at: datetime | None  # nudged within the day: possible again then

    @property
    def nudged_today(self) -> bool:
        return self.next_at is not None


def nudge_rows(awaited, last: dict[int, datetime], now: datetime) -> list[NudgeRow]:
    return [NudgeRow(c, next_nudge_at(last, c.owner_id, now)) for c in awaited]
