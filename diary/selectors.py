"""Reads for the session pages, each with a fixed number of queries."""

from collections.abc import Callable
from dataclasses import dataclass, field

from django.db.models import Q
from django.urls import reverse

from characters.models import Character
from diary.models import (
    GameSession,
    Participation,
    ParticipationStatus,
    Post,
    SessionStatus,
    Turn,
)

DIARY_PAGE_SIZE = 20


@dataclass(frozen=True)
class DiaryRolls:
    """What the diary page shows of rolls, computed by the rolls app: each post's roll views
    (for rolls/post_rolls.html) and the chain head (for rolls/chain_head.html)."""

    by_post: dict[int, list] = field(default_factory=dict)
    head: object | None = None
    may_roll: bool = False


# The rolls app registers the function that fills DiaryRolls (rolls/apps.py), so the
# diary shows rolls without importing the rolls app: (posts, SessionAccess) -> DiaryRolls.
_rolls_provider: list[Callable] = []


def register_diary_rolls(provider: Callable) -> None:
    _rolls_provider[:] = [provider]


def diary_rolls(posts: list[Post], access) -> DiaryRolls | None:
    if not _rolls_provider:
        return None
    return _rolls_provider[0](posts, access)


@dataclass(frozen=True)
class DiaryPage:
    posts: list[Post]
    older_cursor: int | None  # pass as ?before= to read earlier posts
    newer_cursor: int | None  # pass as ?after= to read later posts

    @property
    def turns(self) -> list[tuple[Turn, list[Post]]]:
        """The page's posts grouped by turn, in order."""
        groups: list[tuple[Turn, list[Post]]] = []
        for post in self.posts:
            if groups and groups[-1][0].pk == post.turn_id:
                groups[-1][1].append(post)
            else:
                groups.append((post.turn, [post]))
        return groups


def diary_page(
    session: GameSession,
    *,
    before: int | None = None,
    after: int | None = None,
    size: int = DIARY_PAGE_SIZE,
) -> DiaryPage:
    """A page of posts by keyset on the post id (posts only ever join the latest turn,
    so id order is turn order). Without a cursor: the newest page, where play is."""
    posts = Post.objects.filter(session=session).for_diary()
    if after is not None:
        rows = list(posts.filter(id__gt=after).order_by("id")[: size + 1])
        has_more_newer = len(rows) > size
        rows = rows[:size]
        # A permalink to the session's first post has nothing earlier to offer.
        has_more_older = bool(rows) and (
            Post.objects.filter(session=session, id__lt=rows[0].pk).exists()
        )
    else:
        if before is not None:
            posts = posts.filter(id__lt=before)
        rows = list(posts.order_by("-id")[: size + 1])
        has_more_older = len(rows) > size
        rows = list(reversed(rows[:size]))
        has_more_newer = before is not None
    if not rows:
        return DiaryPage(posts=[], older_cursor=None, newer_cursor=None)
    return DiaryPage(
        posts=rows,
        older_cursor=rows[0].pk if has_more_older else None,
        newer_cursor=rows[-1].pk if has_more_newer else None,
    )


def post_url(post: Post) -> str:
    """Where a post is read: the live newest page at the post when it is there (a new post
    always is), else the page that starts at it."""
    diary = reverse("diary:session", args=[post.session_id])
    newer = Post.objects.filter(session_id=post.session_id, id__gt=post.pk)[:DIARY_PAGE_SIZE]
    if newer.count() < DIARY_PAGE_SIZE:
        return f"{diary}#post-{post.pk}"
    return f"{diary}?after={post.pk - 1}#post-{post.pk}"


def session_participations(session: GameSession) -> list[Participation]:
    return list(
        session.participations.select_related("character__owner").order_by(
            "status", "character__name"
        )
    )


def playing_characters(session: GameSession) -> list[Character]:
    return list(
        Character.objects.filter(
            participations__session=session,
            participations__status=ParticipationStatus.ACCEPTED,
        )
        .select_related("owner")
        .order_by("name")
    )


def user_characters_in_session(session: GameSession, user) -> list[Character]:
    if not user.is_authenticated:
        return []
    return [c for c in playing_characters(session) if c.owner_id == user.pk]


def has_character_of_system(user, system: str) -> bool:
    return Character.objects.filter(owner=user, system=system).exists()


def sessions_listed_for(user):
    return (
        GameSession.objects.listed_for(user)
        .select_related("gm")
        .exclude(status=SessionStatus.FINISHED)
    )


def sessions_of_user(user) -> dict[str, list[GameSession]]:
    """The home page: what I run and what my characters play in."""
    if not user.is_authenticated:
        return {"running": [], "playing": []}
    running = list(GameSession.objects.filter(gm=user).select_related("gm"))
    playing = list(
        GameSession.objects.filter(
            participations__character__owner=user,
            participations__status__in=(
                ParticipationStatus.ACCEPTED,
                ParticipationStatus.INVITED,
                ParticipationStatus.REQUESTED,
            ),
        )
        .exclude(gm=user)
        .select_related("gm")
        .distinct()
    )
    return {"running": running, "playing": playing}


def character_sessions(character: Character) -> list[Participation]:
    return list(
        character.participations.select_related("session__gm")
        .filter(~Q(status=ParticipationStatus.DECLINED))
        .order_by("-created_at")
    )


def pending_invitations(user) -> list[Participation]:
    if not user.is_authenticated:
        return []
    return list(
        Participation.objects.filter(
            character__owner=user, status=ParticipationStatus.INVITED
        ).select_related("session__gm", "character")
    )


def npc_roster_for(npc_access) -> list:
    """The NPCs this user sees in the diary: all for the GM and moderators, the visible
    ones (names and descriptions) for everyone else who reads the session."""
    from diary.models import Npc

    npcs = Npc.objects.filter(session=npc_access.session)
    if not npc_access.sees_hidden:
        npcs = npcs.filter(visible_to_players=True)
    return list(npcs.only("pk", "name", "description", "visible_to_players", "session_id"))
