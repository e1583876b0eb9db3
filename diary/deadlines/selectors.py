"""Reads for the deadline's rule: whom the current turn still awaits (as the diary counts
it), whether the site opens the next turn now, which characters the GM may play, and the
lines of the characters a turn passed over that a diary page shows."""

from dataclasses import dataclass

from django.db.models import Exists, F, IntegerField, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce

from characters.models import Character
from diary import selectors
from diary.absences.selectors import absent_owner_ids
from diary.live.page_cache import memo
from diary.models import (
    DeadlineRule,
    GameSession,
    Post,
    Turn,
    TurnOpenedBySite,
    TurnPass,
)


def not_acted_in_turn(session: GameSession, turn: Turn) -> list[Character]:
    """The playing characters with no post in the turn, by the diary's own count
    (diary.selectors.awaited_characters), away or not: a turn that passes on passes over an
    absent player's character too, and the GM may play it. Two queries."""
    playing = selectors.playing_characters(session)
    return _awaited(playing, turn, frozenset())


def _awaited(playing: list[Character], turn: Turn, absent: frozenset[int]) -> list[Character]:
    posted = {(character, author) for _turn, character, author in selectors.turn_posts([turn])}
    return selectors.awaited_characters(playing, posted, absent)


def deadline_passed(turn: Turn | None, now) -> bool:
    return bool(turn is not None and turn.deadline is not None and turn.deadline <= now)


def turn_due(session: GameSession, now) -> str:
    """Why the site opens the session's next turn now (a TurnOpenedBySite value), or "".

    Only a running session whose GM let the site open turns, under a rule other than
    waiting, and only a turn with a deadline (its length paces the next one). Every
    character present has acted: open (at least one is present, so a table where everyone
    is away does not spin through empty turns). The deadline passed: open when the turn
    passes on; when the GM plays the awaited characters, the turn waits for the GM's posts
    for them (the deadline is when the GM may start writing them)."""
    turn = session.current_turn
    if not (
        session.is_running
        and session.auto_next_turn
        and session.deadline_rule != DeadlineRule.WAIT
        and turn is not None
        and turn.deadline is not None
    ):
        return ""
    playing = selectors.playing_characters(session)
    # Those the turn would await had no one posted: the characters present (an absent
    # player's character is not waited for).
    absent = absent_owner_ids([session.pk])[session.pk]
    present = selectors.awaited_characters(playing, set(), absent)
    if present and not _awaited(playing, turn, absent):
        return TurnOpenedBySite.ALL_ACTED
    if session.deadline_rule == DeadlineRule.PASS and deadline_passed(turn, now):
        return TurnOpenedBySite.DEADLINE
    return ""


def sessions_that_may_be_due() -> list[int]:
    """Ids of the sessions `turn_due` may find due: the site opens their turns, and their
    turn has a deadline. One query; each is checked again under its lock."""
    return list(
        GameSession.objects.filter(
            status="running",
            auto_next_turn=True,
            current_turn__deadline__isnull=False,
        )
        .exclude(deadline_rule=DeadlineRule.WAIT)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def gm_playable_characters(access, turn: Turn | None, now) -> list[Character]:
    """The other players' characters the GM may write for now: under "the GM plays the
    character", after the current turn's deadline, those still awaited (two queries; none
    for anyone else)."""
    session = access.session
    if not (
        access.is_gm
        and session.is_running
        and session.deadline_rule == DeadlineRule.GM_PLAYS
        and deadline_passed(turn, now)
    ):
        return []
    own = {c.pk for c in access.my_characters}
    return [c for c in not_acted_in_turn(session, turn) if c.pk not in own]


def page_reads() -> dict:
    """What the diary page reads with the session's row (diary.views.diary_page_reads):
    whether any of its turns passed someone over. Without, the lines are never looked for."""
    return {"viewer_has_turn_passes": Exists(TurnPass.objects.filter(turn__session=OuterRef("pk")))}


@dataclass(frozen=True)
class PageTurn:
    """One turn's part of a diary page: its posts, then who it passed over."""

    turn: Turn
    posts: list[Post]
    passes: list[TurnPass]


def page_turns(session: GameSession, page) -> list[PageTurn]:
    """The page's turns (diary.selectors.DiaryPage.turns), each with the characters it
    passed over, shown at its end. A turn's lines go on the page that shows its end: from
    the turn of the post before the page up to the page's last turn (that one too on the
    newest page, where it may be closed with no later post yet); a closed turn with no post
    at all gets its own part. One query, none while the session's marker stays or when the
    session's row says no turn passed anyone over (page_reads)."""
    groups = page.turns
    if not groups:
        return []
    newest = page.newer_cursor is None
    first_post, last_turn = page.posts[0].pk, groups[-1][0]
    passes = (
        _passes_between(session, first_post, last_turn.number, newest=newest)
        if getattr(session, "viewer_has_turn_passes", True)
        else []
    )
    by_turn: dict[int, list[TurnPass]] = {}
    turns: dict[int, Turn] = {}
    for line in passes:
        by_turn.setdefault(line.turn.number, []).append(line)
        turns[line.turn.number] = line.turn
    for turn, _posts in groups:
        turns[turn.number] = turn
    posts = {turn.number: posts for turn, posts in groups}
    return [
        PageTurn(turns[number], posts.get(number, []), by_turn.get(number, []))
        for number in sorted(turns)
    ]


def _passes_between(session, first_post: int, last_number: int, *, newest: bool):
    before = (
        Post.objects.filter(session_id=session.pk, id__lt=first_post)
        .order_by("-id")
        .values("turn__number")[:1]
    )
    lower = Coalesce(Subquery(before, output_field=IntegerField()), Value(0))

    def read():
        rows = (
            TurnPass.objects.filter(turn__session_id=session.pk)
            .alias(lower=lower)
            .filter(turn__number__gte=F("lower"))
            .select_related("turn", "character")
            .order_by("turn__number", "character__name", "pk")
        )
        if not newest:
            rows = rows.filter(turn__number__lt=last_number)
        return list(rows)

    # Pass lines are written only as a turn opens, which moves the marker.
    key = ("turn-passes", session.pk, session.activity_marker, first_post, last_number, newest)
    return memo(key, read)
