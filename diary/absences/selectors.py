"""Who is away, read once per page: an `AbsenceBook` for some sessions on one day.

"Today" is the site's local date (settings.TIME_ZONE): an absence is a span of calendar
days as people declare them, not of hours. Every "who is awaited" read asks this wing
(diary.selectors.awaited_characters takes the absent owners' ids it gives).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from django.db.models import Q
from django.utils import timezone

from diary.models import (
    Absence,
    GameSession,
    Participation,
    ParticipationStatus,
    SessionStatus,
    co_gm_sessions,
)


def today() -> date:
    """The site's local date: the day absences are counted in."""
    return timezone.localdate()


@dataclass(frozen=True)
class AbsenceBook:
    """The absences in force on `day` in some sessions: per session, user id → the absence
    that ends last (one declared for that session or for every session of the user's)."""

    day: date
    per_session: dict[int, dict[int, Absence]] = field(default_factory=dict)
    everywhere: dict[int, Absence] = field(default_factory=dict)
    # The reader's own absences not over yet (also_user), in force or to come.
    mine: tuple[Absence, ...] = ()

    def absence(self, session_id: int, user_id: int) -> Absence | None:
        found = [
            a
            for a in (
                self.per_session.get(session_id, {}).get(user_id),
                self.everywhere.get(user_id),
            )
            if a is not None
        ]
        return max(found, key=lambda a: a.ends_on) if found else None

    def until(self, session_id: int, user_id: int) -> date | None:
        """The last day of the user's absence from the session, or None when present."""
        absence = self.absence(session_id, user_id)
        return absence.ends_on if absence is not None else None

    def absent_ids(self, session_id: int) -> frozenset[int]:
        """Users away from the session on the day (account-wide absences of users who are
        not its members too: callers ask about its members only)."""
        return frozenset(self.per_session.get(session_id, {})) | frozenset(self.everywhere)


def _later(known: Absence | None, absence: Absence) -> Absence:
    return absence if known is None or absence.ends_on > known.ends_on else known


def absence_book(session_ids, day: date | None = None, *, also_user=None) -> AbsenceBook:
    """The absences in force on `day` (today by default) in these sessions, account-wide
    ones of their members (GM and players) included; with `also_user`, that user's own
    absences not over yet as well (`mine`). One query."""
    day = day or today()
    ids = list(session_ids)
    if not ids and also_user is None:
        return AbsenceBook(day=day)
    members = Q(
        user__in=Participation.objects.filter(
            session__in=ids, status=ParticipationStatus.ACCEPTED
        ).values("character__owner")
    ) | Q(user__in=GameSession.objects.filter(pk__in=ids).values("gm"))
    in_force = Q(starts_on__lte=day, ends_on__gte=day) & (
        Q(session__in=ids) | (Q(session__isnull=True) & members)
    )
    if also_user is not None and also_user.is_authenticated:
        in_force |= Q(user=also_user, ends_on__gte=day)
    per_session: dict[int, dict[int, Absence]] = {}
    everywhere: dict[int, Absence] = {}
    mine = []
    rows = Absence.objects.filter(in_force).select_related("session").order_by("starts_on", "pk")
    for absence in rows:
        if also_user is not None and absence.user_id == also_user.pk:
            mine.append(absence)
        if absence.starts_on > day:
            continue
        if absence.session_id is None:
            everywhere[absence.user_id] = _later(everywhere.get(absence.user_id), absence)
        elif absence.session_id in ids:
            people = per_session.setdefault(absence.session_id, {})
            people[absence.user_id] = _later(people.get(absence.user_id), absence)
    return AbsenceBook(day=day, per_session=per_session, everywhere=everywhere, mine=tuple(mine))


def absent_owner_ids(session_ids, day: date | None = None) -> dict[int, frozenset[int]]:
    """Session id → ids of the users away from it on `day` (today by default): what
    diary.selectors.awaited_characters takes as `absent`. One query."""
    ids = list(session_ids)
    book = absence_book(ids, day)
    return {session_id: book.absent_ids(session_id) for session_id in ids}


def my_absences(user, day: date | None = None) -> list[Absence]:
    """The user's absences not over yet (in force or to come), soonest first."""
    return list(
        Absence.objects.filter(user=user, ends_on__gte=day or today())
        .select_related("session")
        .order_by("starts_on", "pk")
    )


def absence_sessions(user) -> list[GameSession]:
    """The sessions an absence may be declared for: those the user runs (as GM or co-GM)
    or plays in (an accepted character), not finished."""
    return list(
        GameSession.objects.filter(
            Q(gm=user)
            | Q(pk__in=co_gm_sessions(user))
            | Q(
                participations__character__owner=user,
                participations__status=ParticipationStatus.ACCEPTED,
            )
        )
        .exclude(status=SessionStatus.FINISHED)
        .distinct()
        .order_by("title", "pk")
    )
