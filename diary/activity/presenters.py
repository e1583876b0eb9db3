"""A session's activity in words: "ostatni wpis 3 dni temu", "tura zmieniona 5 dni temu",
and whether it is quiet ("uśpiona"), from the times diary.activity.selectors reads."""

from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from diary.activity.selectors import quiet_cutoff
from diary.models import GameSession, SessionStatus


def ago_words(moment: datetime, now: datetime | None = None) -> str:
    """How long ago, in the reader's language with its plural forms ("3 dni temu")."""
    seconds = max(int(((now or timezone.now()) - moment).total_seconds()), 0)
    if seconds < 60:
        return _("just now")
    minutes = seconds // 60
    if minutes < 60:
        return ngettext("%(count)s minute ago", "%(count)s minutes ago", minutes) % {
            "count": minutes
        }
    hours = minutes // 60
    if hours < 24:
        return ngettext("%(count)s hour ago", "%(count)s hours ago", hours) % {"count": hours}
    days = hours // 24
    return ngettext("%(count)s day ago", "%(count)s days ago", days) % {"count": days}


@dataclass(frozen=True)
class Activity:
    last_post_at: datetime | None
    last_post_words: str
    last_turn_at: datetime | None
    last_turn_words: str
    quiet: bool


def is_quiet(session: GameSession, now: datetime | None = None) -> bool:
    """A running session with neither a post nor a turn change (but one the site opened at
    the deadline: nobody played it) since the cutoff; needs the annotations of
    diary.activity.selectors.with_activity."""
    if session.status != SessionStatus.RUNNING:
        return False
    cutoff = quiet_cutoff(now)
    turn = session.last_turn_at if not getattr(session, "last_turn_by_site", "") else None
    times = [t for t in (session.last_post_at, turn) if t is not None]
    return max(times, default=session.created_at) < cutoff


def activity_of(session: GameSession, now: datetime | None = None) -> Activity:
    """What a list shows of a session's activity (with_activity's annotations)."""
    now = now or timezone.now()
    post, turn = session.last_post_at, session.last_turn_at
    return Activity(
        last_post_at=post,
        last_post_words=(
            _("last post %(when)s") % {"when": ago_words(post, now)} if post else _("no post yet")
        ),
        last_turn_at=turn,
        last_turn_words=(
            _("turn changed %(when)s") % {"when": ago_words(turn, now)}
            if turn
            else _("no turn opened yet")
        ),
        quiet=is_quiet(session, now),
    )
