"""Rate limits for posting, signing up and changing a password, and the counters behind
them (the log-in throttle's known-device allowance counts here too). Shared plumbing: every
app limits what a user does, so this module imports no app (a contract in pyproject.toml).

A counter is a row of one small table (config.counters.RateCounter: key, window end, hits)
on the primary database, shared by every gunicorn worker and every server behind it. A hit
is one statement, INSERT … ON CONFLICT (key) DO UPDATE … RETURNING: it starts the row,
counts one more in the row's window, or starts a new window once the row's has ended, all
atomically (PostgreSQL, and SQLite from 3.35), and it hits every key of a request at once.
A window starts at its first hit and lasts the period. Now and then a hit that starts a
window also deletes the rows whose windows ended long ago (PRUNE_EVERY). The limits
themselves are settings (RATE_LIMITS).
"""

import ipaddress
import re
import time
from functools import wraps

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import F
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _

from config.counters.models import RateCounter

# What each limited action says when it is refused, and which keys it counts by (in this
# order: a request refused by one key is not counted against the later ones).
ACTIONS = {
    "post": (_("Too many posts in a short time. Wait a moment and try again."), ("user", "ip")),
    # A draft is saved a few seconds after typing stops: far more often than a post.
    "draft": (
        _("Too many draft saves in a short time. Your text is kept here; wait a moment."),
        ("user",),
    ),
    "signup": (_("Too many sign-ups from this address. Try again later."), ("ip",)),
    # Guessing the old password from a logged-in session (a stolen one) is throttled too.
    "password_change": (
        _("Too many password changes in a short time. Try again later."),
        ("user",),
    ),
}

PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
RATE = re.compile(r"^(\d+)/(\d*)([smhd])$")
# One hit in this many that start a window (in one process) also deletes the rows whose
# windows ended over a day ago: the table holds about a day's keys, never more.
PRUNE_EVERY = 500
PRUNE_AFTER = 86400
_windows_started = 0


def parse_rate(rate: str) -> tuple[int, int]:
    """'10/m' → (10, 60): the hits allowed and the window's length in seconds ('5/10m' too)."""
    match = RATE.match(rate.strip())
    if match is None:
        raise ValueError(f"A rate is count/period, the period s, m, h or d: {rate!r}")
    count, multiple, unit = match.groups()
    return int(count), int(multiple or 1) * PERIODS[unit]


def _counters():
    return RateCounter.objects.using(DEFAULT_DB_ALIAS)


def hit(windows: dict[str, int]) -> dict[str, int]:
    """One more hit on each key ({key: the window's length in seconds}), in one statement;
    returns each key's hits in its current window, this one included."""
    global _windows_started
    if not windows:
        return {}
    now = time.time()
    connection = connections[DEFAULT_DB_ALIAS]
    table = connection.ops.quote_name(RateCounter._meta.db_table)
    ended = f"{table}.window_end <= %s"
    sql = (
        f"INSERT INTO {table} (key, window_end, hits) "
        f"VALUES {', '.join(['(%s, %s, 1)'] * len(windows))} "
        f"ON CONFLICT (key) DO UPDATE SET "
        f"hits = CASE WHEN {ended} THEN 1 ELSE {table}.hits + 1 END, "
        f"window_end = CASE WHEN {ended} THEN excluded.window_end ELSE {table}.window_end END "
        f"RETURNING key, hits"
    )
    params = [value for key, seconds in windows.items() for value in (key, now + seconds)]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, now, now])
        counted = dict(cursor.fetchall())
    started = sum(1 for hits in counted.values() if hits == 1)
    if started:
        _windows_started += started
        if _windows_started >= PRUNE_EVERY:
            _windows_started = 0
            prune(now)
    return counted


def hits(key: str) -> int:
    """The key's hits in its current window (0 once it has ended)."""
    return (
        _counters()
        .filter(key=key, window_end__gt=time.time())
        .values_list("hits", flat=True)
        .first()
        or 0
    )


def unhit(key: str) -> None:
    """Take back a hit on the key (a request another key refused)."""
    _counters().filter(key=key, hits__gt=0).update(hits=F("hits") - 1)


def forget(key: str) -> None:
    """The key starts afresh."""
    _counters().filter(key=key).delete()


def prune(now: float | None = None) -> int:
    """Delete the rows whose windows ended over PRUNE_AFTER seconds ago."""
    now = time.time() if now is None else now
    deleted, _ = _counters().filter(window_end__lt=now - PRUNE_AFTER).delete()
    return deleted


def client_address(request) -> str:
    """The client's address as the limits count it: the META key RATELIMIT_IP_META_KEY names
    (set by a proxy, never by clients), else REMOTE_ADDR. An IPv6 client counts by its /64,
    which one subscriber usually holds whole."""
    raw = (request.META.get(settings.RATELIMIT_IP_META_KEY or "REMOTE_ADDR") or "").strip()
    try:
        address = ipaddress.ip_address(raw)
    except ValueError:
        return raw[:100]
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False).network_address)
    return str(address)


def _key(request, action: str, by: str) -> str:
    if by == "user" and request.user.is_authenticated:
        return f"{action}.user:{request.user.pk}"
    return f"{action}.ip:{client_address(request)}"


def is_limited(request, action: str) -> bool:
    """Count this request against the action's limits (one statement) and say whether any of
    them is spent. Keys count in order: one that refuses takes back the later keys' hits, so
    a player held back does not use up their address's allowance."""
    _message, kinds = ACTIONS[action]
    limits = {}
    for by in kinds:
        allowed, seconds = parse_rate(settings.RATE_LIMITS[f"{action}_{by}"])
        limits[_key(request, action, by)] = (allowed, seconds)
    counted = hit({key: seconds for key, (_allowed, seconds) in limits.items()})
    keys = list(limits)
    for place, key in enumerate(keys):
        if counted[key] > limits[key][0]:
            for later in keys[place + 1 :]:
                unhit(later)
            return True
    return False


def rate_limited(action: str):
    """Refuse a POST with 429 once RATE_LIMITS[f"{action}_{key}"] is spent for any key."""
    message, _kinds = ACTIONS[action]

    def decorator(view):
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            if request.method == "POST" and is_limited(request, action):
                return render(request, "rate_limited.html", {"message": message}, status=429)
            return view(request, *args, **kwargs)

        return wrapped

    return decorator
