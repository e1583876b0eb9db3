"""Writes to absences: declaring one, ending it early ("I'm back"), withdrawing one to come.

Each write moves the activity marker of the sessions it concerns, so an open diary shows
it at its next poll and the diary's cached reads (keyed by the marker) are read again.
"""

from __future__ import annotations

from datetime import date, timedelta

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from diary.absences.selectors import absence_sessions, today
from diary.models import ABSENCE_MAX_DAYS, Absence, GameSession


def check_absence_dates(starts_on: date, ends_on: date, day: date) -> None:
    """An absence ends on or after its first day, not before `day` (today: one wholly in
    the past tells no one anything), begins within a year and lasts at most a year."""
    errors = {}
    if ends_on < starts_on:
        errors["ends_on"] = _("The last day cannot come before the first.")
    elif ends_on < day:
        errors["ends_on"] = _("This absence is already over: its last day has passed.")
    elif (ends_on - starts_on).days + 1 > ABSENCE_MAX_DAYS:
        errors["ends_on"] = _("An absence lasts at most a year; declare a new one later.")
    if (starts_on - day).days >= ABSENCE_MAX_DAYS:
        errors["starts_on"] = _("An absence may begin at most a year from today.")
    if errors:
        raise ValidationError(errors)


def _touch(user, session: GameSession | None) -> None:
    """Open diaries of the sessions the absence concerns read it again."""
    ids = [session.pk] if session is not None else [s.pk for s in absence_sessions(user)]
    if ids:
        GameSession.objects.filter(pk__in=ids).update(activity_at=timezone.now())


@transaction.atomic
def absence_create(
    *, user, session: GameSession | None, starts_on: date, ends_on: date, note: str = ""
) -> Absence:
    """The user declares an absence: from `starts_on` to `ends_on` (both days included),
    in one session they run or play in, or (None) in all of theirs."""
    if not user.is_authenticated:
        raise PermissionDenied
    check_absence_dates(starts_on, ends_on, today())
    if session is not None and session.pk not in {s.pk for s in absence_sessions(user)}:
        raise ValidationError({"session": _("Choose a session you run or play in.")})
    absence = Absence.objects.create(
        user=user, session=session, starts_on=starts_on, ends_on=ends_on, note=note.strip()
    )
    _touch(user, session)
    return absence


def _own(absence: Absence, by) -> Absence:
    """The absence, locked, if it is `by`'s (nobody ends another's absence)."""
    absence = (
        Absence.objects.select_for_update(of=("self",)).select_related("session").get(pk=absence.pk)
    )
    if absence.user_id != by.pk:
        raise PermissionDenied
    return absence


@transaction.atomic
def absence_end(*, absence: Absence, by) -> Absence | None:
    """The user is back: an absence in force ends yesterday (one that began today is
    withdrawn: nothing of it remains). Returns the shortened absence, or None."""
    absence = _own(absence, by)
    day = today()
    if not absence.starts_on <= day <= absence.ends_on:
        raise ValidationError(_("Only an absence that lasts today can be ended early."))
    session = absence.session
    if absence.starts_on == day:
        absence.delete()
        absence = None
    else:
        absence.ends_on = day - timedelta(days=1)
        absence.save(update_fields=["ends_on"])
    _touch(by, session)
    return absence


@transaction.atomic
def absence_delete(*, absence: Absence, by) -> None:
    """The user withdraws an absence that has not begun yet."""
    absence = _own(absence, by)
    if absence.starts_on <= today():
        raise ValidationError(
            _("An absence that has begun cannot be withdrawn; end it early instead.")
        )
    session = absence.session
    absence.delete()
    _touch(by, session)
