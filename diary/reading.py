"""Read marks: which posts of a session a user has not seen yet.

A mark holds the newest post id the user has been shown; it only moves forwards, and a
plain re-read writes nothing (the UPDATE carries the "only if bigger" condition)."""

from django.db.models import Count, IntegerField, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce

from diary.models import Post, ReadMark


def read_mark_advance(*, user, session_id: int, post_id: int, known: int | None = None) -> bool:
    """Move the user's mark in a session up to post_id; never backwards.

    `known` is the mark the caller already read (e.g. from the access query): when it is
    already at or past post_id nothing is written. Returns whether the mark moved."""
    if not user.is_authenticated or not post_id:
        return False
    if known is not None and known >= post_id:
        return False
    moved = ReadMark.objects.filter(
        user=user, session_id=session_id, last_seen_post_id__lt=post_id
    ).update(last_seen_post_id=post_id)
    if moved:
        return True
    _mark, created = ReadMark.objects.get_or_create(
        user=user, session_id=session_id, defaults={"last_seen_post_id": post_id}
    )
    return created


def read_mark_subquery(user, session_ref: str = "pk"):
    """The user's mark in the outer row's session (0 when none), for annotate()."""
    return Coalesce(
        Subquery(
            ReadMark.objects.filter(user=user, session_id=OuterRef(session_ref)).values(
                "last_seen_post_id"
            )[:1]
        ),
        Value(0),
        output_field=IntegerField(),
    )


def unread_posts(user, session_id: int, mark: int):
    """The posts of a session the user has not seen: after the mark, not their own."""
    return Post.objects.filter(session_id=session_id, pk__gt=mark).exclude(author=user)


def sessions_with_unread(sessions, user):
    """Annotate each session with `unread_count` in the same query (no query per row)."""
    if not user.is_authenticated:
        return sessions.annotate(unread_count=Value(0, output_field=IntegerField()))
    mark = Coalesce(
        Subquery(
            ReadMark.objects.filter(user=user, session_id=OuterRef(OuterRef("pk"))).values(
                "last_seen_post_id"
            )[:1]
        ),
        Value(0),
    )
    count = Subquery(
        Post.objects.filter(session_id=OuterRef("pk"), pk__gt=mark)
        .exclude(author=user)
        .order_by()
        .values("session_id")
        .annotate(n=Count("pk"))
        .values("n")[:1],
        output_field=IntegerField(),
    )
    return sessions.annotate(unread_count=Coalesce(count, Value(0)))
