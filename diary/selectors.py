"""Reads for the session pages, each with a fixed number of queries."""

import itertools
from collections import Counter
from dataclasses import dataclass, field
from datetime import date

from django.db.models import Exists, F, Max, OuterRef, Q, Subquery
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from characters.models import Character
from config.roles import is_moderator
from diary import hooks
from diary.absences.selectors import absence_book, absent_owner_ids
from diary.activity.selectors import with_activity
from diary.hooks import DiaryRolls, TurnActions
from diary.live.page_cache import memo
from diary.models import (
    DIARY_PAGE_SIZE,
    GameSession,
    Npc,
    Participation,
    ParticipationStatus,
    PlanSubmission,
    Post,
    SessionPlan,
    SessionStatus,
    Turn,
    co_gm_list_annotation,
    co_gm_sessions,
)
from diary.pictures.selectors import with_pictures
from diary.posts.diffs import word_diff
from diary.reading import sessions_with_unread


def diary_rolls(
    posts: list[Post],
    access,
    turn: Turn | None = None,
    entry_character: str | None = None,
    roll: int | None = None,
) -> DiaryRolls | None:
    """What the page shows of rolls, from the rules app (diary.hooks.DiaryHooks.diary_rolls)."""
    return hooks.current().diary_rolls(
        posts, access, turn=turn, entry_character=entry_character, roll=roll
    )


def turn_actions(session: GameSession, turn: Turn, character_id: int) -> TurnActions:
    """The character's action rolls this turn, from the rules app (diary.hooks)."""
    return hooks.current().turn_actions(session, turn, character_id)


def move_actions_in_turn(turn: Turn, character_id: int, exclude_post: Post | None = None) -> int:
    """The move actions the character's visible posts of this turn declare (RULES 1.5)."""
    posts = Post.objects.filter(turn=turn, character_id=character_id, hidden_at__isnull=True)
    if exclude_post is not None:
        posts = posts.exclude(pk=exclude_post.pk)
    return sum(posts.values_list("move_actions", flat=True))


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
    scene: Q | None = None,
) -> DiaryPage:
    """A page of posts by keyset on the post id (posts only ever join the latest turn,
    so id order is turn order). Without a cursor: the newest page, where play is. `scene`:
    only one scene's posts (diary.scenes.selectors.in_scene; its own keyset index)."""
    everything = Post.objects.filter(session=session)
    if scene is not None:
        everything = everything.filter(scene)
    # Each post's pictures ride on its row (diary/pictures/selectors.py): no query more.
    posts = with_pictures(everything.for_diary())
    if after is not None:
        rows = list(posts.filter(id__gt=after).order_by("id")[: size + 1])
        has_more_newer = len(rows) > size
        rows = rows[:size]
        # A permalink to the session's first post has nothing earlier to offer.
        has_more_older = bool(rows) and (everything.filter(id__lt=rows[0].pk).exists())
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


def own_posts_in_turn(session: GameSession, user, turn, *, newest: int | None = None) -> list[Post]:
    """The user's visible posts of this turn, newest first (`newest`: only that many): where
    their rolls and requests land."""
    if turn is None or not user.is_authenticated:
        return []
    posts = Post.objects.filter(
        session=session, author=user, turn=turn, hidden_at__isnull=True
    ).order_by("-id")
    return list(posts[:newest] if newest else posts)


def newest_visible_post(session: GameSession) -> Post | None:
    """The session's newest post that is not hidden (one query on the keyset index), with
    `newest_in_session`: no post at all, hidden or not, follows it, so a link to it needs no
    count of the posts after it (Post.get_absolute_url)."""
    return visible_posts_newest_first(session.pk).first()


def visible_posts_newest_first(session_id):
    """The session's posts that are not hidden, newest first, each with `newest_in_session`
    (newest_visible_post). `session_id` may be an OuterRef: rolls.selectors.locked_reads
    reads the first of them as a subquery of its one statement."""
    later = Post.objects.filter(session_id=OuterRef("session_id"), id__gt=OuterRef("id"))
    return (
        Post.objects.filter(session_id=session_id, hidden_at__isnull=True)
        .annotate(newest_in_session=~Exists(later))
        .order_by("-id")
    )


def user_characters_in_session(session: GameSession, user) -> list[Character]:
    if not user.is_authenticated:
        return []
    return [c for c in playing_characters(session) if c.owner_id == user.pk]


def has_character_of_system(user, system: str) -> bool:
    return Character.objects.filter(owner=user, system=system).exists()


def sessions_listed_for(user):
    # With their free places: the list marks the sessions that recruit.
    # And when each last moved (diary.activity): columns of the same query.
    return with_activity(
        GameSession.objects.listed_for(user)
        .with_places()
        .select_related("gm")
        .exclude(status=SessionStatus.FINISHED)
    )


def sessions_of_user(user) -> dict[str, list[GameSession]]:
    """The home page: what I run and what my characters play in."""
    if not user.is_authenticated:
        return {"running": [], "playing": []}
    # Each row's unread count and first unread post ride in its list's query.
    # A co-GM's sessions are theirs to run too.
    running = GameSession.objects.run_by(user)
    running = list(with_activity(sessions_with_unread(running, user)).select_related("gm"))
    playing = GameSession.objects.filter(
        participations__character__owner=user,
        participations__status__in=(
            ParticipationStatus.ACCEPTED,
            ParticipationStatus.INVITED,
            ParticipationStatus.REQUESTED,
        ),
    ).exclude(pk__in=GameSession.objects.run_by(user).values("pk"))
    playing = list(
        with_activity(sessions_with_unread(playing, user)).select_related("gm").distinct()
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


# ---------------------------------------------------------------------------
# The session plan and its review
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PlanPage:
    plan: SessionPlan | None
    npcs: list[dict]  # the NPC designs now (npc_designs)
    # Newest first: every submission with its review.
    submissions: list[PlanSubmission]

    @property
    def last(self) -> PlanSubmission | None:
        return self.submissions[0] if self.submissions else None


def plan_page(session: GameSession) -> PlanPage:
    submissions = list(
        PlanSubmission.objects.filter(session=session)
        .select_related("submitted_by", "reviewed_by")
        .order_by("-number")
    )
    # A resubmission's scenario against the submission before it, word by word.
    for newer, older in itertools.pairwise(submissions):
        newer.scenario_diff = word_diff(older.scenario, newer.scenario)
    return PlanPage(
        plan=SessionPlan.objects.filter(session=session).first(),
        npcs=npc_designs(session),
        submissions=submissions,
    )


def plan_last_review(access) -> PlanSubmission | None:
    """The session page's plan notice: the latest submission, for those who see the plan,
    while the plan is not accepted yet."""
    if not access.can_see_plan or access.session.status not in (
        SessionStatus.DRAFT,
        SessionStatus.PLAN_SUBMITTED,
    ):
        return None
    return (
        PlanSubmission.objects.filter(session=access.session)
        .select_related("reviewed_by")
        .order_by("-number")
        .first()
    )


def plans_to_review(user) -> list[GameSession]:
    """A moderator's home: submitted plans, the longest waiting first."""
    if not user.is_authenticated or not is_moderator(user):
        return []
    return list(
        GameSession.objects.filter(status=SessionStatus.PLAN_SUBMITTED)
        .select_related("gm")
        .annotate(submitted_at=Max("plan_submissions__submitted_at"))
        .order_by(F("submitted_at").asc(nulls_first=True), "pk")
    )


def join_requests_waiting_for(user) -> list[Participation]:
    """A GM's home: characters asking to join the sessions they run, oldest first."""
    if not user.is_authenticated:
        return []
    return list(
        Participation.objects.filter(
            session__in=GameSession.objects.run_by(user), status=ParticipationStatus.REQUESTED
        )
        .exclude(session__status=SessionStatus.FINISHED)
        .select_related("session", "character__owner")
        .order_by("created_at", "pk")
    )


# The turn: whose move it is (RULES 1.5)


def turn_posts(turns) -> set[tuple[int, int | None, int]]:
    """(turn id, narrating character id or None, author id) of the visible posts of these
    turns, in one query. A hidden post is no move; a post holding only rolls is one."""
    return set(
        Post.objects.filter(turn__in=turns, hidden_at__isnull=True)
        .values_list("turn_id", "character_id", "author_id")
        .distinct()
    )


def awaited_characters(
    playing: list[Character], posted, absent: frozenset[int] | set[int] = frozenset()
) -> list[Character]:
    """The playing characters with no post in the turn. `posted` holds (character id or
    None, author id) pairs. A post counts for a character when it narrates as it, or when
    its owner wrote it as no one and plays only this one character in the session.

    The one rule of who is awaited: every read of it (the diary's turn, the home page, the
    deadline notices, the GM's nudges, whatever acts at a deadline) comes here. `absent`:
    ids of owners away from the session today (diary.absences.selectors.absent_owner_ids),
    whose characters nobody waits for."""
    per_owner = Counter(c.owner_id for c in playing)
    narrated = {character_id for character_id, _author in posted if character_id}
    plain_authors = {author for character_id, author in posted if character_id is None}
    return [
        c
        for c in playing
        if c.owner_id not in absent
        and c.pk not in narrated
        and not (per_owner[c.owner_id] == 1 and c.owner_id in plain_authors)
    ]


@dataclass(frozen=True)
class AwaitedNow:
    """A session's current turn as the rule reads it: who is awaited, who is away."""

    turn: Turn | None
    awaited: list[Character]
    absent: list[Character]  # playing characters whose owner is away today


def awaited_now(session: GameSession, *, day=None) -> AwaitedNow:
    """Who the session's current turn awaits today, for the writers that act on it (a
    nudge, a deadline's rule): three queries (the turn's posts, the characters, absences)."""
    turn = session.current_turn if session.current_turn_id else None
    if turn is None:
        return AwaitedNow(None, [], [])
    playing = playing_characters(session)
    posted = {(c, a) for _t, c, a in turn_posts([turn])}
    absent = absent_owner_ids([session.pk], day)[session.pk]
    return AwaitedNow(
        turn,
        awaited_characters(playing, posted, absent),
        [c for c in playing if c.owner_id in absent],
    )


def time_left_text(deadline, now=None) -> str:
    """ "2 days 3 h left" (Polish: "zostało 2 dni 3 godz."), or that the deadline passed."""
    seconds = int((deadline - (now or timezone.now())).total_seconds())
    if seconds <= 0:
        return gettext("deadline passed")
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = max(rest // 60, 1) if not days and not hours else rest // 60
    parts = []
    if days:
        parts.append(ngettext("%(count)s day", "%(count)s days", days) % {"count": days})
    if hours:
        parts.append(gettext("%(count)s h") % {"count": hours})
    if not days and minutes:
        parts.append(gettext("%(count)s min") % {"count": minutes})
    return gettext("%(left)s left") % {"left": " ".join(parts)}


@dataclass(frozen=True)
class CharacterTurn:
    character: Character
    awaited: bool
    action_rolls: int
    move_actions: int = 0
    metres: int = 0
    item_actions: int = 0  # potions and items used (actions without a roll)
    absent_until: date | None = None  # its owner is away until then: not awaited

    @property
    def actions(self) -> int:
        """Actions used this turn (RULES 1.5): every action roll, move action and item use."""
        return self.action_rolls + self.move_actions + self.item_actions


@dataclass(frozen=True)
class TurnStatus:
    """The current turn as the diary shows it: who is awaited, each character's action
    rolls (RULES 1.5), the deadline and the time left."""

    turn: Turn
    characters: list[CharacterTurn]
    action_limit: int | None  # action rolls a turn allows; None in combat (counted only)
    deadline_text: str = ""
    deadline_passed: bool = False

    @property
    def awaited(self) -> list[Character]:
        return [row.character for row in self.characters if row.awaited]

    @property
    def absent(self) -> list[CharacterTurn]:
        """The characters whose owner is away (listed apart, "Mira — nieobecna do 14.12")."""
        return [row for row in self.characters if row.absent_until is not None]


def _turn_post_rows(turn: Turn, session: GameSession) -> list[tuple]:
    """The turn's visible posts as turn_status counts them; a post, an edit or a hide moves
    the session's activity marker, so the rows are read once per marker."""

    def read():
        return list(
            Post.objects.filter(turn=turn, hidden_at__isnull=True).values_list(
                "character_id", "author_id", "move_metres", "move_actions"
            )
        )

    return memo(("turn-posts", session.pk, session.activity_marker, turn.pk), read)


def turn_status(
    turn: Turn | None,
    playing: list[Character],
    rolls=None,
    *,
    session: GameSession,
    absent: dict[int, date] | None = None,
) -> TurnStatus | None:
    """One query (the turn's posts; none while the session's activity marker stays);
    `rolls` is the page's DiaryRolls (action counts); `absent`: owner id → the last day of
    their absence (diary.absences), whose characters are not awaited."""
    if turn is None:
        return None
    rows = _turn_post_rows(turn, session)
    posted, moves, metres = set(), Counter(), Counter()
    for character_id, author_id, move_metres, move_actions in rows:
        posted.add((character_id, author_id))
        moves[character_id] += move_actions
        metres[character_id] += move_metres or 0
    absent = absent or {}
    awaited = {c.pk for c in awaited_characters(playing, posted, frozenset(absent))}
    counts = rolls.action_counts if rolls is not None else {}
    items = rolls.item_counts if rolls is not None else {}
    deadline_text = time_left_text(turn.deadline) if turn.deadline else ""
    return TurnStatus(
        turn=turn,
        characters=[
            CharacterTurn(
                c,
                c.pk in awaited,
                counts.get(c.pk, 0),
                moves[c.pk],
                metres[c.pk],
                items.get(c.pk, 0),
                absent.get(c.owner_id),
            )
            for c in playing
        ],
        action_limit=rolls.action_limit if rolls is not None else None,
        deadline_text=deadline_text,
        deadline_passed=bool(turn.deadline and turn.deadline <= timezone.now()),
    )


@dataclass(frozen=True)
class HomeTurns:
    my_move: list[tuple[GameSession, list[Character]]]  # my characters still awaited
    all_posted: list[GameSession]  # sessions I run where everyone present has posted
    # Sessions I run with players away today: (session, [(character, last day away)]).
    absent_in_mine: list[tuple[GameSession, list[tuple[Character, date]]]] = field(
        default_factory=list
    )
    my_absences: list = field(default_factory=list)  # mine not over yet (diary.absences)


def _running_sessions_of(user) -> list[GameSession]:
    return list(
        GameSession.objects.filter(status=SessionStatus.RUNNING)
        .filter(
            Q(gm=user)
            | Q(pk__in=co_gm_sessions(user))
            | Q(
                participations__character__owner=user,
                participations__status=ParticipationStatus.ACCEPTED,
            )
        )
        .select_related("gm")
        .annotate(**co_gm_list_annotation())
        .distinct()
        .order_by("title", "id")
    )


def home_turns(user) -> HomeTurns:
    """The home page: running sessions where my characters have not posted this turn,
    sessions I run where every playing character present has, who is away in the sessions
    I run, and my own absences. Five queries, however many sessions."""
    if not user.is_authenticated:
        return HomeTurns([], [])
    sessions = _running_sessions_of(user)
    book = absence_book([s.pk for s in sessions], also_user=user)
    if not sessions:
        return HomeTurns([], [], my_absences=list(book.mine))
    playing: dict[int, list[Character]] = {}
    for p in (
        Participation.objects.filter(session__in=sessions, status=ParticipationStatus.ACCEPTED)
        .select_related("character")
        .order_by("character__name")
    ):
        playing.setdefault(p.session_id, []).append(p.character)
    latest = Turn.objects.filter(session=OuterRef("session")).order_by("-number").values("number")
    turns = {
        t.session_id: t
        for t in Turn.objects.filter(session__in=sessions, number=Subquery(latest[:1]))
    }
    posted: dict[int, set] = {}
    for turn_id, character_id, author_id in turn_posts(list(turns.values())):
        posted.setdefault(turn_id, set()).add((character_id, author_id))
    result = HomeTurns([], [], my_absences=list(book.mine))
    for session in sessions:
        characters = playing.get(session.pk, [])
        away = [(c, book.until(session.pk, c.owner_id)) for c in characters]
        away = [(c, until) for c, until in away if until is not None]
        if session.gm_id == user.pk and away:
            result.absent_in_mine.append((session, away))
        turn = turns.get(session.pk)
        if turn is None or not characters:
            continue
        awaited = awaited_characters(
            characters, posted.get(turn.pk, set()), book.absent_ids(session.pk)
        )
        if session.runs(user):
            if not awaited:
                result.all_posted.append(session)
        elif mine := [c for c in awaited if c.owner_id == user.pk]:
            result.my_move.append((session, mine))
    return result


def npc_roster_for(npc_access) -> list:
    """The NPCs this user sees in the diary: all for the GM and moderators, the visible
    ones (names and descriptions) for everyone else who reads the session."""
    session = npc_access.session

    def read():
        npcs = Npc.objects.filter(session=session)
        if not npc_access.sees_hidden:
            npcs = npcs.filter(visible_to_players=True)
        return list(npcs.only("pk", "name", "description", "visible_to_players", "session_id"))

    # Every NPC change moves the session's activity marker (diary/npcs/services.py).
    key = ("npcs", session.pk, session.activity_marker, npc_access.sees_hidden)
    return memo(key, read)


def npc_designs(session: GameSession) -> list[dict]:
    """The session's NPCs as the plan presents them (seed 000 line 53: the plan includes the
    NPC designs), in a form kept unchanged inside each plan submission."""
    npcs = (
        Npc.objects.filter(session=session)
        .select_related("stand_in")
        .prefetch_related("modifiers")
        .order_by("name")
    )
    return [
        {
            "name": npc.name,
            "description": npc.description,
            "visible": npc.visible_to_players,
            "stand_in": npc.stand_in.name if npc.stand_in else None,
            "modifiers": [
                {"interaction": m.interaction, "value": m.value, "reason": m.reason}
                for m in sorted(npc.modifiers.all(), key=lambda m: m.interaction)
            ],
        }
        for npc in npcs
    ]


def session_places(session: GameSession) -> GameSession:
    """The session with how many characters play in it and how many places are free: what
    its public page tells an applicant (GameSessionQuerySet.with_places)."""
    placed = with_activity(GameSession.objects.with_places()).get(pk=session.pk)
    session.players_accepted, session.open_places = placed.players_accepted, placed.open_places
    # And how alive it is (diary.activity), read in the same query.
    session.last_post_at, session.last_turn_at = placed.last_post_at, placed.last_turn_at
    return session


def my_applications(user, session: GameSession) -> list[Participation]:
    """The user's characters on the session's list, with the GM's note: an applicant sees
    how the application went on the session's public page."""
    return list(
        Participation.objects.filter(session=session, character__owner=user)
        .select_related("character")
        .order_by("character__name")
    )


def sessions_applied_to(user) -> set[int]:
    """Ids of the sessions where one of the user's characters asks to join (the list marks
    them, one query however many sessions)."""
    return set(
        Participation.objects.filter(
            character__owner=user, status=ParticipationStatus.REQUESTED
        ).values_list("session_id", flat=True)
    )
