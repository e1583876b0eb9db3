"""The live poll's short path (diary.views.session_live): "anything new?" answered without
loading the login session, the user or the page, and on PostgreSQL without any query once
this process holds the session's marker (diary/live_listener.py: kept fresh by NOTIFY);
otherwise from one primary-key query.

A full check (access_session) grants the browser's login cookie the right to hear "nothing
new" about one session for ACCESS_TTL seconds, in this process's cache. Only that answer
(204, or 304 for a matching ETag) is ever given on the grant: anything with content goes
through the full check again. So a logout, a removed participant or a session closed to
readers stops hearing even "nothing new" within ACCESS_TTL seconds, and never gets content.
"""

import hashlib
import time

from django.conf import settings
from django.core.cache import caches
from django.db import DEFAULT_DB_ALIAS
from django.utils.translation import get_language

from diary.live_listener import markers
from diary.models import GameSession
from diary.page_cache import ALIAS, cache_key

ACCESS_TTL = 30  # seconds; docs/decisions.md, "Diary page and poll"


def _now() -> float:
    return time.monotonic()


def _grant_key(request, session_pk: int) -> str | None:
    cookie = request.COOKIES.get(settings.SESSION_COOKIE_NAME)
    if not cookie:
        return None
    # The cookie is a bearer secret: only its digest goes into the key.
    return cache_key("live", session_pk, hashlib.sha256(cookie.encode()).hexdigest())


def grant(request, access) -> None:
    """After a full check: this cookie's user may hear "nothing new" for ACCESS_TTL."""
    key = _grant_key(request, access.session.pk)
    if key is not None:
        caches[ALIAS].set(key, (access.user.pk, _now()), ACCESS_TTL)


def granted_user(request, session_pk: int) -> int | None:
    """The user id of a grant still fresh for this cookie and session, else None."""
    key = _grant_key(request, session_pk)
    found = caches[ALIAS].get(key) if key is not None else None
    if found is None or _now() - found[1] >= ACCESS_TTL:
        return None
    return found[0]


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
