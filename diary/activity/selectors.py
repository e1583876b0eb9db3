"""When a session last moved: its newest post and its last turn change, read as columns of
the query that lists the sessions (no query of their own, whatever the list's length).

The newest post is one step down the posts' (session, id) index (`post_session_keyset`),
never a scan of the session's posts; the last turn change is the session's head
(`current_turn`, the newest turn: turns open one after another and the head moves with
each) joined to the row. `GameSession.activity_at` is not used: a roll or an edit moves it
too, and "is anyone still playing here?" asks about posts and turns. Here too: when the
session's GM or co-GMs last acted (what makes a session orphaned, diary/handover).
"""

from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Case, DateTimeField, F, Max, OuterRef, Q, QuerySet, Subquery, When
from django.db.models.functions import Coalesce, Greatest
from django.utils import timezone

from config.roles import is_moderator
from diary.models import (
    CoGameMaster,
    GameSession,
    Post,
    SessionHandover,
    SessionStatus,
    Turn,
    co_gm_list_annotation,
)

# Sessions a moderator may find orphaned: played (or ready to be), not finished.
ORPHANABLE_STATUSES = (SessionStatus.ACCEPTED, SessionStatus.RUNNING)


def gm_activity_annotations() -> dict:
    """When the GM or a co-GM of the session in the outer query last wrote a post, opened a
    turn (not one the site opened at the deadline: diary/deadlines keeps a game going
    without its GM), and the session last changed hands: subqueries read with the
    session's row (one query for one session or for a list)."""
    runners = Q(author_id=OuterRef("gm_id")) | Q(
        author_id__in=CoGameMaster.objects.filter(session=OuterRef(OuterRef("pk"))).values(
            "user_id"
        )
    )

    def newest(model, field: str, *where) -> Subquery:
        rows = model.objects.filter(*where, session=OuterRef("pk")).order_by().values("session")
        return Subquery(rows.annotate(at=Max(field)).values("at"))

    return {
        "gm_post_at": newest(Post, "created_at", runners),
        "gm_turn_at": newest(Turn, "opened_at", Q(opened_by_site="")),
        "gm_handover_at": newest(SessionHandover, "at"),
    }


def gm_active_at(session: GameSession) -> datetime:
    """The last GM activity of a session read with gm_activity_annotations (or, before
    any, its creation)."""
    moments = (session.gm_post_at, session.gm_turn_at, session.gm_handover_at)
    return max([session.created_at, *(moment for moment in moments if moment is not None)])


def is_orphaned(session: GameSession, now: datetime | None = None) -> bool:
    """orphaned_state's verdict for a session read with gm_activity_annotations (no query)."""
    due = gm_active_at(session) + timedelta(days=settings.ORPHANED_AFTER_DAYS)
    return session.status in ORPHANABLE_STATUSES and due <= (now or timezone.now())


# The most quiet sessions the moderators' home lists (the longest quiet first).
QUIET_LISTED = 50


def last_post_subquery() -> Subquery:
    """The newest post's time of the session in the outer query (hidden posts count: a
    hidden post was still someone playing)."""
    newest = Post.objects.filter(session=OuterRef("pk")).order_by("-id").values("created_at")
    return Subquery(newest[:1], output_field=DateTimeField())


def with_activity(sessions: QuerySet) -> QuerySet:
    """`sessions` with `last_post_at` and `last_turn_at` (None: no post, no turn yet), and
    their co-GMs: the quiet mark is for whoever runs the session (GameSession.runs), asked
    with no query of its own."""
    return sessions.annotate(
        last_post_at=last_post_subquery(),
        last_turn_at=F("current_turn__opened_at"),
        # A turn the site opened at the deadline (diary/deadlines) is no one playing.
        last_turn_by_site=F("current_turn__opened_by_site"),
        **co_gm_list_annotation(),
    )


def quiet_cutoff(now: datetime | None = None) -> datetime:
    """Sessions silent since before this moment are quiet (settings.INACTIVE_AFTER_DAYS)."""
    return (now or timezone.now()) - timedelta(days=settings.INACTIVE_AFTER_DAYS)


def quiet_sessions(now: datetime | None = None) -> list[GameSession]:
    """The moderators' home: running sessions with no post and no turn change (but one the
    site opened at the deadline) since the cutoff, the longest quiet first, each with its
    GM, both times and whether it is orphaned too (diary.handover: no GM activity for
    ORPHANED_AFTER_DAYS); one query."""
    cutoff = quiet_cutoff(now)
    sessions = with_activity(
        GameSession.objects.filter(status=SessionStatus.RUNNING, created_at__lt=cutoff)
    ).annotate(
        played_turn_at=Case(
            When(last_turn_by_site="", then=Coalesce("last_turn_at", "created_at")),
            default=F("created_at"),
        ),
        quiet_since=Greatest(Coalesce("last_post_at", "created_at"), "played_turn_at"),
    )
    quiet = sessions.filter(
        Q(last_post_at__isnull=True) | Q(last_post_at__lt=cutoff),
        played_turn_at__lt=cutoff,
    )
    listed = list(
        quiet.select_related("gm")
        .annotate(**gm_activity_annotations())
        .order_by("quiet_since", "pk")[:QUIET_LISTED]
    )
    for session in listed:  # the moderator may hand it over (diary.handover): say so
        session.orphaned = is_orphaned(session, now)
    return listed


def quiet_sessions_for(user) -> list[GameSession]:
    """The moderators' home lists the quiet sessions; nobody else's does."""
    if not user.is_authenticated or not is_moderator(user):
        return []
    return quiet_sessions()
