"""Reads for the session pages, each with a fixed number of queries."""

from dataclasses import dataclass

from django.db.models import Prefetch, Q

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

# Other apps (rolls) add what they show under each post, e.g. its rolls, as a
# Prefetch; the diary stays ignorant of what those are.
_post_prefetches: list = []


def register_post_prefetch(prefetch: Prefetch | str) -> None:
    _post_prefetches.append(prefetch)


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
    if _post_prefetches:
        posts = posts.prefetch_related(*_post_prefetches)
    if after is not None:
        rows = list(posts.filter(id__gt=after).order_by("id")[: size + 1])
        has_more_newer = len(rows) > size
        rows = rows[:size]
        has_more_older = True
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
