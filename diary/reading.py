"""Read marks: which posts of a session a user has not seen yet, and turn pages.

A mark holds the newest post id the user has been shown in a session; it only moves
forwards, and a plain re-read writes nothing: the caller passes the mark it already read
with the session (access_session(..., reading=True)), and the UPDATE carries the "only if
bigger" condition as well, so two tabs racing never move it back.

Unread means: visible (not hidden), not the user's own post, and either after the mark or
changed since it: a roll or an entry landed in it (Post.changed_seq, the chain number of
that row) after the chain head the mark saw (ReadMark.last_seen_seq). A page that reads on
moves both: the newest post it shows, and the session's chain head as the page's query read
it (a roll landing while the page renders is newer, so it stays unread).
"""

from django import forms
from django.db.models import (
    BooleanField,
    Case,
    Count,
    DateTimeField,
    Exists,
    F,
    Func,
    IntegerField,
    Max,
    Min,
    OuterRef,
    Q,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Coalesce, Greatest, Least, Now
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from config.roles import is_moderator
from diary.models import (
    READING_STATUSES,
    Notification,
    Participation,
    Post,
    ReadMark,
    co_gm_sessions,
)

# ---------------------------------------------------------------------------
# Writes


UNKNOWN = object()  # read_mark_advance's `known` when the caller has not read the mark


def page_continues_reading(posts, *, mark: int | None, first_unread: int | None) -> bool:
    """Whether showing these posts reads on from the mark: the page starts at or before the
    first unread post, so no unread post is skipped. A jump ahead (`?after=`, `?turn=`, a
    permalink) leaves the mark where it was, and the "first unread" link still leads to
    the first unread post. A first visit (no mark yet) marks what it shows: what came before the
    player joined is the story so far, not a backlog."""
    if not posts:
        return False
    return mark is None or first_unread is None or posts[0].pk <= first_unread


def read_mark_advance(
    *,
    user,
    session_id: int,
    post_id: int | None,
    seq: int | None = None,
    known=UNKNOWN,
    known_seq: int = 0,
) -> bool:
    """Move the user's mark in a session up to post_id and chain head `seq`, never backwards.

    `known` and `known_seq` are the mark read with the session (`known` None: the user has
    no mark yet). Nothing is written when it is already at or past both; else one UPDATE,
    or one INSERT for a first mark. Without `known`: the UPDATE, then the INSERT if there
    was no mark. Without `seq`: the newest change among the posts up to post_id (one query),
    so those posts read as they are now. Returns whether the mark moved (or was made)."""
    if not user.is_authenticated or not post_id:
        return False
    if seq is None:
        seq = (
            Post.objects.filter(session_id=session_id, pk__lte=post_id).aggregate(
                n=Max("changed_seq")
            )["n"]
            or 0
        )
    mine = ReadMark.objects.filter(user=user, session_id=session_id)
    behind = Q(last_seen_post_id__lt=post_id) | Q(last_seen_seq__lt=seq)
    forwards = {
        "last_seen_post_id": Greatest("last_seen_post_id", Value(post_id)),
        "last_seen_seq": Greatest("last_seen_seq", Value(seq)),
        "moved_at": Now(),
    }
    if known is UNKNOWN:
        moved = mine.filter(behind).update(**forwards)
        if moved or mine.exists():
            return bool(moved)
        known = None
    if known is not None and known >= post_id and known_seq >= seq:
        return False
    if known is None:
        # One INSERT that gives way to a mark another tab made meanwhile (that one stays; the
        # next view moves it): never backwards, and no savepoint round trips.
        ReadMark.objects.bulk_create(
            [
                ReadMark(
                    user=user,
                    session_id=session_id,
                    last_seen_post_id=post_id,
                    last_seen_seq=seq,
                    moved_at=timezone.now(),
                )
            ],
            ignore_conflicts=True,
        )
        return True
    return bool(mine.filter(behind).update(**forwards))


# ---------------------------------------------------------------------------
# Reads, as subqueries that ride in the query that loads the session(s)


def read_mark_subquery(user, session_ref="pk"):
    """The user's mark in the outer row's session, None when there is none. `session_ref`: the
    outer row's field that holds the session, or an OuterRef to a row further out."""
    return Subquery(
        ReadMark.objects.filter(user=user.pk, session_id=OuterRef(session_ref)).values(
            "last_seen_post_id"
        )[:1],
        output_field=IntegerField(),
    )


def read_seq_subquery(user, session_ref="pk"):
    """The chain head the user's mark in the outer row's session saw, None without a mark."""
    return Subquery(
        ReadMark.objects.filter(user=user.pk, session_id=OuterRef(session_ref)).values(
            "last_seen_seq"
        )[:1],
        output_field=IntegerField(),
    )


def read_moved_subquery(user, session_ref="pk"):
    """When the user's mark in the outer row's session last moved (None: no mark, or not
    moved since the site began keeping it); the recap's "after a while" (diary/recap/)."""
    return Subquery(
        ReadMark.objects.filter(user=user.pk, session_id=OuterRef(session_ref)).values("moved_at")[
            :1
        ],
        output_field=DateTimeField(),
    )


def _mark_and_seen_of_outer_session(user):
    """The user's mark (0 without one) and the chain head it saw, for a subquery on the posts of
    the outer session. They name the session row, not each post: PostgreSQL reads the mark
    once per session and can compare the posts' index with it (a range, not a filter)."""
    session = OuterRef("pk")
    return (
        Coalesce(read_mark_subquery(user, session), Value(0)),
        Coalesce(read_seq_subquery(user, session), Value(0)),
    )


def _visible_posts_of_outer_session(user):
    """The outer session's posts the user may find unread: not hidden, not their own."""
    return (
        Post.objects.filter(session_id=OuterRef("pk"), hidden_at__isnull=True)
        .exclude(author=user.pk)
        .order_by()
    )


def _unread_posts_of_outer_session(user):
    """The outer session's posts unread by the user (for a subquery on GameSession): after
    the mark, or changed since it (a roll or an entry landed in it)."""
    mark, seen = _mark_and_seen_of_outer_session(user)
    return _visible_posts_of_outer_session(user).filter(Q(pk__gt=mark) | Q(changed_seq__gt=seen))


class _LeastPresent(Least):
    """The smallest of the values that are not NULL (NULL when none is): PostgreSQL's LEAST;
    SQLite's MIN() is NULL as soon as one value is."""

    def as_sqlite(self, compiler, connection, **extra_context):
        first, second = self.get_source_expressions()
        both = Least(Coalesce(first, second), Coalesce(second, first))
        return both.as_sqlite(compiler, connection, **extra_context)


class _RowAfter(Func):
    """`(a, b) > (c, d)`, compared as rows: true when a > c, or a = c and b > d."""

    output_field = BooleanField()
    arity = 4

    def as_sql(self, compiler, connection, **extra_context):
        parts, params = [], []
        for expression in self.get_source_expressions():
            sql, more = compiler.compile(expression)
            parts.append(sql)
            params.extend(more)
        return "({}, {}) > ({}, {})".format(*parts), params


def first_unread_subquery(user):
    """The id of the outer session's first post unread by the user, None when none is.

    Two index ranges, each a few rows however long the session: the first post after the
    mark, and the first of the posts changed since the chain head the mark saw. (As one
    filter, "after the mark OR changed since", the planner walks the session's posts in id
    order testing each: a reader who has read everything cost a scan of the whole session.)
    """
    mark, seen = _mark_and_seen_of_outer_session(user)
    unread_by_user = Q(hidden_at__isnull=True) & ~Q(author=user.pk)
    # The session's posts after the mark, as the one range of `post_session_keyset` that holds
    # them: "(session, id) > (this session, mark)" up to the session's end. Written as
    # "session = this one AND id > mark", the planner may take the primary key's range of
    # ids instead, reading every later post of every session until one of this session's.
    after_mark = (
        Post.objects.filter(
            _RowAfter(F("session_id"), F("pk"), OuterRef("pk"), mark),
            unread_by_user,
            session_id__lte=OuterRef("pk"),
        )
        .order_by("session_id", "pk")
        .values("pk")[:1]
    )
    # The posts changed since the mark, from the partial index of changed posts
    # (`post_session_changed`, changed_seq > 0, said here so the planner may use it): few
    # rows, where an index of every post would send the planner through the whole session.
    # MIN over a group, not ORDER BY id LIMIT 1: a LIMIT invites the planner to walk the ids
    # and test each post, betting on finding a changed one soon.
    changed = (
        Post.objects.filter(
            unread_by_user,
            session_id=OuterRef("pk"),
            changed_seq__gt=0,
        )
        .filter(changed_seq__gt=seen)
        .order_by()
        .values("session_id")
        .annotate(first=Min("pk"))
        .values("first")
    )
    return _LeastPresent(
        Subquery(after_mark, output_field=IntegerField()),
        Subquery(changed, output_field=IntegerField()),
        output_field=IntegerField(),
    )


# Counted up to here, then "100+": a list view must not count a long session's every post
# for a reader far behind (or one with no mark yet, or a moderator).
UNREAD_COUNT_CAP = 100


def unread_count_subquery(user):
    """How many of the outer session's posts the user has not read, at most UNREAD_COUNT_CAP:
    when the CAP-th unread post exists (one index probe) nothing is counted."""
    unread = _unread_posts_of_outer_session(user)
    count = unread.values("session_id").annotate(n=Count("pk")).values("n")[:1]
    capped = Exists(unread.order_by("pk").values("pk")[UNREAD_COUNT_CAP - 1 : UNREAD_COUNT_CAP])
    return Case(
        When(capped, then=Value(UNREAD_COUNT_CAP)),
        default=Coalesce(Subquery(count, output_field=IntegerField()), Value(0)),
        output_field=IntegerField(),
    )


def _reads_outer_session(user):
    """Whether the user reads the outer session's diary (diary.access.SessionAccess.can_read
    as SQL): no count may tell anyone else how much is written in it."""
    if is_moderator(user):
        return Q(pk__isnull=False)
    return (
        Q(gm=user.pk)
        | Q(pk__in=co_gm_sessions(user))
        | Exists(
            Participation.objects.filter(
                session_id=OuterRef("pk"), character__owner=user.pk, status__in=READING_STATUSES
            )
        )
    )


def sessions_with_unread(sessions, user):
    """Each session with `unread_count` and `first_unread_id`, in the same query (no query
    per row); 0 and None where the user does not read the diary."""
    if not user.is_authenticated:
        return sessions.annotate(
            unread_count=Value(0, output_field=IntegerField()),
            first_unread_id=Value(None, output_field=IntegerField()),
        )
    reads = _reads_outer_session(user)
    return sessions.annotate(
        unread_count=Case(
            When(reads, then=unread_count_subquery(user)),
            default=Value(0),
            output_field=IntegerField(),
        ),
        first_unread_id=Case(
            When(reads, then=first_unread_subquery(user)),
            default=Value(None),
            output_field=IntegerField(),
        ),
    )


def first_unread_url(session_id: int, first_unread_id: int | None, shown_ids=()) -> str:
    """Where the first unread post is read: here when this page shows it, else the page
    that starts at it (the diary's own cursor, no redirect)."""
    if first_unread_id is None:
        return ""
    if first_unread_id in shown_ids:
        return f"#post-{first_unread_id}"
    diary = reverse("diary:session", args=[session_id])
    return f"{diary}?after={first_unread_id - 1}#post-{first_unread_id}"


# ---------------------------------------------------------------------------
# Pages by turn: ?turn=N opens the page that starts at turn N's first post.


class TurnJumpForm(forms.Form):
    """The diary's "go to turn" field (a GET form); kept here, with the rest of reading,
    as the only code that reads ?turn=."""

    turn = forms.IntegerField(
        label=_("Go to turn"),
        min_value=1,
        error_messages={
            "invalid": _("Enter a turn number (a whole number)."),
            "min_value": _("Turns are numbered from 1."),
            "required": _("Enter a turn number."),
        },
    )

    def __init__(self, *args, session, **kwargs):
        kwargs.setdefault("auto_id", "jump_%s")  # the post form below has fields too
        super().__init__(*args, **kwargs)
        self.session = session
        self.first_post_id: int | None = None
        last = session.current_turn.number if session.current_turn_id else 0
        self.fields["turn"].widget.attrs.update({"min": 1, "max": max(last, 1)})
        self.last_turn = last

    def clean_turn(self) -> int:
        number = self.cleaned_data["turn"]
        if not self.last_turn:
            raise forms.ValidationError(_("This session has no turns yet."))
        if number > self.last_turn:
            raise forms.ValidationError(
                _("This session has no turn %(number)s (the last one is %(last)s).")
                % {"number": number, "last": self.last_turn}
            )
        first = (
            Post.objects.filter(session=self.session, turn__number=number)
            .order_by("pk")
            .values_list("pk", flat=True)
            .first()
        )
        if first is None:
            raise forms.ValidationError(_("Turn %(number)s has no posts yet.") % {"number": number})
        self.first_post_id = first
        return number


def unread_notifications_subquery(user):
    """The user's unread notifications (the bell's count) as a subquery, to ride in another
    query."""
    unread = (
        Notification.objects.filter(recipient=user.pk, read_at__isnull=True)
        .order_by()
        .values("recipient")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Subquery(unread[:1], output_field=IntegerField())


def reader_annotations(user) -> dict:
    """What the diary reads of the user's reading with the session's row: the read mark,
    its chain head and when it last moved, and the first unread post."""
    return {
        "viewer_read_mark": read_mark_subquery(user),
        "viewer_read_seq": read_seq_subquery(user),
        "viewer_read_moved_at": read_moved_subquery(user),
        "viewer_first_unread": first_unread_subquery(user),
    }
