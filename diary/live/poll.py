"""The live poll's short path (diary.views.session_live): "anything new?" answered without
loading the login session, the user or the page, and on PostgreSQL without any query once
this process holds the session's marker (diary/live/listener.py: kept fresh by NOTIFY);
otherwise from one primary-key query.

A full check (access_session) grants the browser the right to hear "nothing new" about one
session for ACCESS_TTL seconds: a cookie signed with the site's key (GRANT_COOKIE, scoped to
the poll's path) that names the session, the user, the login cookie's digest and when the
check was made. Any worker verifies it without the database or a shared cache. Only that
answer (204, or 304 for a matching ETag) is ever given on the grant: anything with content
goes through the full check again. So a logout, a removed participant or a session closed to
readers stops hearing even "nothing new" within ACCESS_TTL seconds, and never gets content.
"""

import hashlib
import hmac
import time

from django.conf import settings
from django.core import signing
from django.db import DEFAULT_DB_ALIAS
from django.utils.translation import get_language

from diary.live.listener import markers
from diary.models import GameSession

ACCESS_TTL = 30  # seconds; docs/performance.md, "The diary page and the live poll"


GRANT_COOKIE = "live_grant"
_GRANT_SALT = "diary.live.grant"
# A grant dated this far in the future (another server's clock) is still taken.
_CLOCK_SKEW = 5


def _now() -> float:
    # Wall-clock time: a grant made by one worker (or machine) is checked by another.
    return time.time()


def _login_digest(request) -> str | None:
    cookie = request.COOKIES.get(settings.SESSION_COOKIE_NAME)
    # The login cookie is a bearer secret: only its digest goes into the grant.
    return hashlib.sha256(cookie.encode()).hexdigest() if cookie else None


def grant(request, access, response) -> None:
    """After a full check: this login cookie's user may hear "nothing new" for ACCESS_TTL."""
    digest = _login_digest(request)
    if digest is None:
        return
    value = signing.dumps(
        {"s": access.session.pk, "u": access.user.pk, "c": digest, "t": _now()},
        salt=_GRANT_SALT,
    )
    response.set_cookie(
        GRANT_COOKIE,
        value,
        max_age=ACCESS_TTL,
        path=request.path,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )


def granted_user(request, session_pk: int) -> int | None:
    """The user id of a grant still fresh for this login cookie and session, else None."""
    raw, digest = request.COOKIES.get(GRANT_COOKIE), _login_digest(request)
    if not raw or digest is None:
        return None
    try:
        found = signing.loads(raw, salt=_GRANT_SALT)
    except signing.BadSignature:
        return None
    if not isinstance(found, dict) or found.get("s") != session_pk:
        return None
    user_id, made, bound = found.get("u"), found.get("t"), found.get("c")
    if not isinstance(user_id, int) or not isinstance(made, (int, float)):
        return None
    if not isinstance(bound, str) or not hmac.compare_digest(bound, digest):
        return None
    if not -_CLOCK_SKEW <= _now() - made < ACCESS_TTL:
        return None
    return user_id


def current_marker(session_pk: int) -> str | None:
    """The session's activity marker: this process's copy while the listener vouches for it
    (no query), else read alone (one query on the primary key) and kept when it may be."""
    cached = markers.get(session_pk)
    if cached is not None:
        return cached
    ticket = markers.ticket(session_pk)
    sessions = GameSession.objects.filter(pk=session_pk)
    if ticket is not None:
        # What is kept must be the primary's: a replica's may be older than the notice.
        sessions = sessions.using(DEFAULT_DB_ALIAS)
    at = sessions.values_list("activity_at", flat=True).first()
    if at is None:
        return None
    marker = GameSession(activity_at=at).activity_marker
    if ticket is not None:
        markers.store(ticket, marker)
    return marker


def etag(marker: str, user_id: int) -> str:
    """The live fragment's version for this viewer and language (a browser that shows
    another user's or language's fragment never matches)."""
    return f'"{marker}-{user_id}-{get_language()}"'


def nothing_new(request, session_pk: int) -> int | None:
    """204 or 304 when this cookie holds a fresh grant and the session has not moved since
    `seen` (or the ETag the browser holds); None when the full path must answer."""
    user_id = granted_user(request, session_pk)
    if user_id is None:
        return None
    seen = request.GET.get("seen")
    held = request.headers.get("If-None-Match")
    if not seen and not held:
        return None
    marker = current_marker(session_pk)
    if marker is None:
        return None
    if held and held == etag(marker, user_id):
        return 304
    if seen == marker:
        return 204
    return None
