"""The recruiting board's reads: the sessions looking for players (with the board's
filters) and the players looking for a game (their ads). Each list is one query."""

from dataclasses import dataclass

from django.db.models import Q, QuerySet

from diary.activity.selectors import with_activity
from diary.models import TAG_SEPARATOR, GameSession, PlayerAd

# The most ads the board's second tab shows (the newest first).
ADS_LISTED = 100


@dataclass(frozen=True)
class BoardFilters:
    system: str = ""
    places: int | None = None
    pace: str = ""
    language: str = ""
    tag: str = ""


def _has_tag(tag: str) -> Q:
    """Tags are stored joined by the separator: the tag alone, first, last or between."""
    sep = TAG_SEPARATOR
    return (
        Q(tags=tag)
        | Q(tags__startswith=f"{tag}{sep}")
        | Q(tags__endswith=f"{sep}{tag}")
        | Q(tags__contains=f"{sep}{tag}{sep}")
    )


def recruiting_board(filters: BoardFilters = BoardFilters()) -> list[GameSession]:
    """The sessions that take applications now, narrowed by each filter chosen, by rule
    system then title, each with its GM, free places, current turn (its deadline) and
    activity, in one query."""
    sessions = with_activity(GameSession.objects.recruiting_now()).select_related(
        "gm", "current_turn"
    )
    if filters.system:
        sessions = sessions.filter(system=filters.system)
    if filters.places:
        sessions = sessions.filter(open_places__gte=filters.places)
    if filters.pace:
        sessions = sessions.filter(posting_pace=filters.pace)
    if filters.language:
        sessions = sessions.filter(language=filters.language)
    if filters.tag:
        sessions = sessions.filter(_has_tag(filters.tag))
    return list(sessions.order_by("system", "title", "pk"))


def board_ads(*, system: str = "", pace: str = "") -> list[PlayerAd]:
    """The active ads, the newest first, with their authors; an ad for any system (or
    pace) matches every filter of it."""
    ads = PlayerAd.objects.filter(active=True).select_related("author")
    if system:
        ads = ads.filter(Q(system=system) | Q(system=""))
    if pace:
        ads = ads.filter(Q(pace=pace) | Q(pace=""))
    return list(ads.order_by("-created_at", "-pk")[:ADS_LISTED])


def own_ad(user) -> PlayerAd | None:
    """The user's active ad, if any."""
    return PlayerAd.objects.filter(author=user, active=True).first()


def sessions_to_invite_to(user) -> QuerySet:
    """The sessions the user runs (as GM or co-GM) an ad's player may be invited to: those
    taking applications now."""
    return GameSession.objects.recruiting_now().run_by(user).order_by("title", "pk")
