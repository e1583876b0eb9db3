"""Search in the diary (issue 13): posts of the sessions a user may read.

PostgreSQL gets full-text search (websearch syntax, the "simple" configuration: stock
builds ship no Polish one); SQLite a case-insensitive contains. Hidden posts are found
only by those who may see them (moderators), as on the diary page.
"""

from __future__ import annotations

import re

from django.contrib.postgres.search import SearchQuery, SearchRank, SearchVector
from django.db import connection
from django.db.models import Q
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from characters.roles import is_moderator
from diary.access import READING_STATUSES
from diary.models import GameSession, Post

SNIPPET_CHARS = 200


def sessions_readable_by(user):
    """Sessions whose diary the user may read: the same rule as SessionAccess.can_read."""
    if not user.is_authenticated:
        return GameSession.objects.none()
    if is_moderator(user):
        return GameSession.objects.all()
    return GameSession.objects.filter(
        Q(gm=user)
        | Q(
            participations__character__owner=user,
            participations__status__in=READING_STATUSES,
        )
    ).distinct()


def posts_matching(user, query: str, *, session: GameSession | None = None):
    """Posts the user may read whose narration matches `query`, best match first."""
    sessions = sessions_readable_by(user)
    if session is not None:
        sessions = sessions.filter(pk=session.pk)
    posts = Post.objects.filter(session__in=sessions.values("pk"))
    if not is_moderator(user):
        posts = posts.filter(hidden_at__isnull=True)
    posts = posts.select_related("session", "turn", "character", "author")
    if connection.vendor == "postgresql":
        search = SearchQuery(query, config="simple", search_type="websearch")
        vector = SearchVector("narration", config="simple")
        return (
            posts.annotate(rank=SearchRank(vector, search))
            .filter(rank__gt=0)
            .order_by("-rank", "-pk")
        )
    return posts.filter(narration__icontains=query).order_by("-pk")


def search_words(query: str) -> list[str]:
    return [w for w in re.findall(r"\w+", query) if w]


def snippet(text: str, query: str) -> SafeString:
    """Text around the first match, escaped first, then the matched words marked."""
    words = search_words(query)
    start = 0
    for word in words:
        found = text.lower().find(word.lower())
        if found >= 0:
            start = max(found - SNIPPET_CHARS // 2, 0)
            break
    part = text[start : start + SNIPPET_CHARS]
    html = escape(part)
    if words:
        pattern = re.compile("|".join(re.escape(escape(w)) for w in words), re.IGNORECASE)
        html = pattern.sub(lambda m: f"<mark>{m.group(0)}</mark>", html)
    prefix = "…" if start else ""
    suffix = "…" if start + SNIPPET_CHARS < len(text) else ""
    return mark_safe(prefix + html + suffix)  # escaped above
