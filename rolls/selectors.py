"""Reads of the ledger: for the diary, the panel and the audit."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import models
from django.db.models import Count, Exists, OuterRef, Subquery
from django.db.models.functions import Coalesce, JSONObject

from characters.models import Character
from characters.sheet_rows import sheets_with_values
from diary.hooks import TurnActions
from diary.models import GameSession, NpcMode, ParticipationStatus, Post, SessionStatus
from diary.selectors import visible_posts_newest_first
from rolls import registry
from rolls.access import (
    may_roll_in_diary,
)
from rolls.ledger.fair_dice import NOT_READ, TurnSeedRead
from rolls.models import (
    ACTIONS_WITHOUT_ROLL,
    AskStatus,
    InitiativeEvent,
    Roll,
    RollAsk,
    TurnSeed,
)


def sheets_in_play(session, ids=None) -> dict[int, Character]:
    """The sheets a roll may read: the session's accepted characters and its NPCs'
    stand-ins (or those of them with these ids), by id, with the values on them."""
    from django.db.models import Q

    playing = Q(
        pk__in=Character.objects.filter(
            participations__session=session, participations__status=ParticipationStatus.ACCEPTED
        ).values("pk")
    )
    # Mode gm_character: the NPCs' stand-in sheets play in the panel too (the other
    # side of an opposed roll, initiative), though they are never participants.
    # Only while the session plays NPCs that way (the mode may change until the plan is accepted).
    stand_ins = Q(
        is_stand_in=True,
        npc_role__session=session,
        npc_role__session__npc_mode=NpcMode.GM_CHARACTER,
    )
    characters = Character.objects.filter(playing | stand_ins)
    if ids is not None:
        characters = characters.filter(pk__in=ids)
    # The values on them in the same statement (characters.sheet_rows), not five.
    return {c.pk: c for c in sheets_with_values(characters)}


def turn_action_counts(session, turn_number: int) -> tuple[dict[int, int], dict[int, int]]:
    """RULES 1.5, the diary's turn: action rolls and actions without a roll (potions, items,
    spells and abilities) per character (one query)."""
    without_roll = models.Q(test__in=ACTIONS_WITHOUT_ROLL)
    rows = (
        Roll.objects.filter(session=session, turn_number=turn_number)
        .filter(models.Q(is_action=True) | without_roll)
        .exclude(character_id=None)
        .values("character_id")
        .annotate(
            rolls=Count("id", filter=models.Q(is_action=True)),
            uses=Count("id", filter=without_roll),
        )
    )
    rolls, uses = {}, {}
    for row in rows:
        rolls[row["character_id"]] = row["rolls"]
        uses[row["character_id"]] = row["uses"]
    return rolls, uses


# A roll that offers a reroll once it failed keeps `reroll_offer` in its record; the reroll
# names the roll it repeats under `rerolls` (rolls/systems/ciernie/rerolls.py).
REROLL_OFFER_KEY = "reroll_offer"
REROLLS_KEY = "rerolls"


@dataclass(frozen=True)
class RerollOffer:
    """A failed roll the diary offers to reroll, and whose character it is."""

    post_id: int
    seq: int
    mode: str
    character_name: str
    owner: str  # the character's owner's username, as the record named them


def reroll_offers(rolls, turn_number) -> list[RerollOffer]:
    """The rolls among these of the current turn that offer a reroll, minus those rerolled
    (a reroll lands in its roll's post, so it is among them too)."""
    if turn_number is None:
        return []
    # A mangled record (not an object) offers nothing; the ledger's check reports it.
    rolls = [roll for roll in rolls if isinstance(roll.record, dict)]
    rerolled = {
        roll.record[REROLLS_KEY].get("seq")
        for roll in rolls
        if isinstance(roll.record.get(REROLLS_KEY), dict)
    }
    offers = []
    for roll in rolls:
        record = roll.record
        if (
            roll.turn_number != turn_number
            or not record.get(REROLL_OFFER_KEY)
            or roll.seq in rerolled
        ):
            continue
        acting = (record.get("characters") or {}).get("a") or {}
        offers.append(
            RerollOffer(
                roll.post_id,
                roll.seq,
                roll.test,
                acting.get("name", ""),
                acting.get("owner", ""),
            )
        )
    return offers


def reroll_offered(roll) -> bool:
    return bool((roll.record or {}).get(REROLL_OFFER_KEY))


def rerolled_by(first):
    """The roll that rerolled `first`, or None."""
    return (
        Roll.objects.filter(
            session_id=first.session_id, **{f"record__{REROLLS_KEY}__seq": first.seq}
        )
        .order_by("seq")
        .first()
    )


def reroll_offers_for(access, offers) -> dict[int, list[RerollOffer]]:
    """The offers this user may take, by post: the GM's for every character, a player's for
    their own character in a mode open to players (rolls.access.may_roll_for)."""
    if not offers or not may_roll_in_diary(access):
        return {}
    system = registry.system_for(access.session.system)
    gm_only = system.gm_only_modes if system else frozenset()
    username = access.user.get_username()
    by_post: dict[int, list[RerollOffer]] = {}
    for offer in offers:
        if access.is_gm or (offer.owner == username and offer.mode not in gm_only):
            by_post.setdefault(offer.post_id, []).append(offer)
    return by_post


def asks_waiting_for(user) -> list:
    """A GM's home: the players' requests for rolls waiting in the running sessions they run,
    oldest first, each with its one-click answer."""
    if not user.is_authenticated:
        return []
    asks = (
        RollAsk.objects.filter(
            status=AskStatus.OPEN,
            session__in=GameSession.objects.run_by(user),
            session__status=SessionStatus.RUNNING,
        )
        .select_related("session", "post")
        .order_by("id")
    )
    return [ask_view(ask, is_gm=True, user_id=user.pk) for ask in asks]


def open_roll_asks(session) -> list[RollAsk]:
    """The session's requests still waiting for the GM, oldest first."""
    return list(
        RollAsk.objects.filter(session=session, status=AskStatus.OPEN)
        .select_related("character", "post")
        .order_by("id")
    )


@dataclass(frozen=True)
class AskView:
    """A request as the diary shows it, with what this user may do with it."""

    ask: RollAsk
    answer_url: str  # the GM's one click: the panel, prefilled; "" for anyone else
    may_withdraw: bool


def ask_view(ask: RollAsk, *, is_gm: bool, user_id: int | None, running: bool = True) -> AskView:
    """`running`: whether the session runs; a finished session's open request is neither
    answered nor withdrawn (rolls.services refuses both)."""
    from django.urls import reverse

    is_open = ask.is_open and running
    answer_url = ""
    if is_open and is_gm:
        panel = reverse("rolls:panel", args=[ask.session_id])
        answer_url = f"{panel}?{ask_answer_query(ask).urlencode()}"
    mine = user_id is not None and ask.asked_by_id == user_id
    return AskView(ask=ask, answer_url=answer_url, may_withdraw=is_open and mine)


def ask_answer_query(ask: RollAsk):
    """The panel's fields for this request: its mode, what it names of the mode's form, and
    the request itself (a link may prefill these, never a modifier: Panel.link_fields)."""
    from django.http import QueryDict

    query = QueryDict(mutable=True)
    query["mode"] = ask.test
    for name, value in (ask.case_fields or {}).items():
        query.setlist(name, [str(v) for v in value] if isinstance(value, list) else [value])
    query["ask"] = str(ask.pk)
    return query


@dataclass(frozen=True)
class TurnActionRolls:
    """RULES 1.5: a character's action rolls this turn (defence and counter-rolls excluded)
    and its actions without a roll, as counts: true when there is an action roll."""

    count: int = 0
    first_seq: int | None = None  # the first action roll's number, as the refusal names it
    item_uses: int = 0  # potions and items, spells and abilities used without a roll

    def __bool__(self) -> bool:
        return self.count > 0


def action_rolls_in_turn(session, character_id: int, turn_number: int) -> TurnActionRolls:
    """One aggregate over the index on (character, turn): the turn's rolls are counted, never
    loaded (a turn with thousands of rolls costs what a turn with one does)."""
    action, use = models.Q(is_action=True), models.Q(test__in=ACTIONS_WITHOUT_ROLL)
    row = Roll.objects.filter(
        session=session, character_id=character_id, turn_number=turn_number
    ).aggregate(
        count=Count("id", filter=action),
        first_seq=models.Min("seq", filter=action),
        item_uses=Count("id", filter=use),
    )
    return TurnActionRolls(row["count"], row["first_seq"], row["item_uses"])


@dataclass(frozen=True)
class TurnActionState(TurnActionRolls):
    """TurnActionRolls with the rest of what the turn's action limit reads (RULES 1.5):
    whether a fight runs and the move actions the character's visible posts of the turn
    declare."""

    in_combat: bool = False
    moves: int = 0


def _action_state_parts(character_id: int, turn) -> dict:
    """TurnActionState's parts, as subqueries over a GameSession row (turn_action_state)."""
    action, use = models.Q(is_action=True), models.Q(test__in=ACTIONS_WITHOUT_ROLL)
    rolls = (
        Roll.objects.filter(
            session_id=OuterRef("pk"), character_id=character_id, turn_number=turn.number
        )
        .order_by()
        .values("session_id")
    )
    moves = (
        Post.objects.filter(turn_id=turn.pk, character_id=character_id, hidden_at__isnull=True)
        .order_by()
        .values("turn_id")
        .annotate(total=models.Sum("move_actions"))
        .values("total")[:1]
    )

    def over_rolls(aggregate):
        return Subquery(rolls.annotate(value=aggregate).values("value")[:1])

    number = models.IntegerField()
    return {
        "action_count": Coalesce(over_rolls(Count("id", filter=action)), 0, output_field=number),
        "action_first_seq": over_rolls(models.Min("seq", filter=action)),
        "action_item_uses": Coalesce(over_rolls(Count("id", filter=use)), 0, output_field=number),
        "action_in_combat": Exists(
            InitiativeEvent.objects.running().filter(session_id=OuterRef("pk"))
        ),
        "action_moves": Coalesce(Subquery(moves), 0, output_field=number),
    }


def _action_state(row: dict) -> TurnActionState:
    return TurnActionState(
        count=row["action_count"],
        first_seq=row["action_first_seq"],
        item_uses=row["action_item_uses"],
        in_combat=bool(row["action_in_combat"]),
        moves=row["action_moves"],
    )


def turn_action_state(session, character_id: int, turn) -> TurnActionState:
    """What the turn's action limit reads of a character, in one query: its action rolls
    and item uses this turn (counted over the index on (character, turn), never loaded),
    whether an initiative event runs (in_combat) and its posts' move actions
    (diary.selectors.move_actions_in_turn). Each part is a subquery of the one statement,
    so under the session's lock they are read together, after it."""
    parts = _action_state_parts(character_id, turn)
    return _action_state(_session_row(session, parts))


def _session_row(session, parts: dict) -> dict:
    """The parts, subqueries over the session's row, read in one statement."""
    return GameSession.objects.filter(pk=session.pk).annotate(**parts).values(*parts).get()


@dataclass(frozen=True)
class TokenUse:
    """The roll a one-time token already made, as the replay check reads it
    (rolls.services.replayed_roll): the full row is fetched only when it is answered."""

    roll_id: int
    rolled_by_id: int
    request_digest: str


@dataclass(frozen=True)
class LockedReads:
    """What a roll reads of its session under the session's lock (locked_reads). A part
    not asked for is None (`action`) or NOT_READ, and whoever needs it reads it itself."""

    token_use: TokenUse | None
    action: TurnActionState | None = None
    newest_post: Post | object | None = NOT_READ
    turn_seed: TurnSeedRead | object | None = NOT_READ


# What a roll reads of the newest visible post (rolls.services.planned_resolution_post and, for the
# post it lands in, chain_append, the owners' notification and the redirect's link). It is
# not hidden (the subquery's filter); any other field is loaded by Django when first read.
NEWEST_POST_FIELDS = ("id", "session_id", "turn_id", "author_id", "character_id", "changed_seq")


def locked_reads(
    session,
    *,
    token,
    action_of: int | None = None,
    turn=None,
    newest_post: bool = False,
    turn_seed: bool = False,
) -> LockedReads:
    """A roll's reads under the session's lock, in ONE statement: scalar subqueries over
    the locked session's row. Always the roll its one-time token already made (TokenUse);
    `action_of` (a character's id): its TurnActionState in `turn`; `newest_post`: the newest
    visible post (diary.selectors.newest_visible_post), as a Post with NEWEST_POST_FIELDS and
    `newest_in_session`; `turn_seed`: `turn`'s TurnSeedRead (rolls.ledger.fair_dice).

    Issued after the lock's own `SELECT ... FOR UPDATE`, never folded into it: in
    PostgreSQL's READ COMMITTED a statement that waited for the row lock re-reads only the
    locked row, while its subqueries keep the snapshot from before the wait. A double submit
    waiting on the first one's lock would miss its token (and roll twice); a roll waiting
    while a turn opens would miss the new turn's seed. A statement issued after the lock
    takes a new snapshot and sees everything committed before the lock was granted."""
    parts = {
        "token_use": _json_subquery(
            Roll,
            {"session_id": OuterRef("pk"), "token": token},
            {"roll_id": "id", "rolled_by_id": "rolled_by_id", "request_digest": "request_digest"},
        )
    }
    if action_of is not None:
        parts |= _action_state_parts(action_of, turn)
    if newest_post:
        parts["newest_post"] = newest_post_subquery()
    if turn_seed:
        parts["turn_seed"] = _json_subquery(
            TurnSeed,
            {"session_id": OuterRef("pk"), "turn_number": turn.number},
            {"seed": "seed", "secret_seed": "secret_seed", "commit_seq": "commit__seq"},
        )
    row = _session_row(session, parts)
    used = row["token_use"]
    return LockedReads(
        token_use=TokenUse(**used) if used is not None else None,
        action=_action_state(row) if action_of is not None else None,
        newest_post=newest_post_of(row["newest_post"], session) if newest_post else NOT_READ,
        turn_seed=_turn_seed(row["turn_seed"]) if turn_seed else NOT_READ,
    )


def _json_subquery(model, where: dict, fields: dict):
    """The first row of `model` matching `where`, its `fields` as one JSON object (one
    scalar subquery for several columns)."""
    rows = model.objects.filter(**where).order_by().annotate(json=JSONObject(**fields))
    return Subquery(rows.values("json")[:1], output_field=models.JSONField())


# The panel reads its session with the diary's newest visible post under this name
# (rolls.views.panel), for the post the line above the Roll button names (rolls.panel).
NEWEST_POST_ANNOTATION = "newest_post_read"


def newest_post_subquery():
    """The newest visible post (diary.selectors.newest_visible_post) of the session row it
    annotates, as one JSON scalar subquery with NEWEST_POST_FIELDS (newest_post_of)."""
    newest = visible_posts_newest_first(OuterRef("pk")).annotate(
        json=JSONObject(newest_in_session="newest_in_session", **{f: f for f in NEWEST_POST_FIELDS})
    )
    return Subquery(newest.values("json")[:1], output_field=models.JSONField())


def newest_post_of(values: dict | None, session) -> Post | None:
    """The Post newest_post_subquery read (None: the diary has no visible post)."""
    if values is None:
        return None
    values = dict(values)
    newest_in_session = bool(values.pop("newest_in_session"))
    values["hidden_at"] = None
    names = [f.attname for f in Post._meta.concrete_fields if f.attname in values]
    post = Post.from_db(session._state.db, names, [values[name] for name in names])
    post.newest_in_session = newest_in_session
    return post


def _turn_seed(values: dict | None) -> TurnSeedRead | None:
    return TurnSeedRead(**values) if values is not None else None


def in_combat(session) -> bool:
    """Whether an initiative event is running in the session (RULES 1.5: outside combat a
    second action roll in a turn is refused; in combat actions are counted, not refused).

    An initiative roll opens the event and the GM ends it (rolls.models.InitiativeEvent);
    every caller asks here and nowhere else."""
    return InitiativeEvent.objects.running().filter(session=session).exists()


def turn_actions(session, turn, character_id: int):
    """For the diary's movement check (RULES 1.5): the character's action rolls and item
    uses this turn, and whether a fight runs. Registered with diary.selectors in rolls/apps.py."""
    counted = action_rolls_in_turn(session, character_id, turn.number)
    return TurnActions(
        action_rolls=counted.count, in_combat=in_combat(session), item_uses=counted.item_uses
    )


def action_roll_counts(session, turn_number: int) -> dict[int, int]:
    """RULES 1.5: action rolls per acting character in this turn (one query)."""
    rows = (
        Roll.objects.filter(session=session, turn_number=turn_number, is_action=True)
        .exclude(character_id=None)
        .values("character_id")
        .annotate(count=Count("id"))
    )
    return {row["character_id"]: row["count"] for row in rows}


@dataclass(frozen=True)
class ChainHead:
    count: int
    hash: str | None


def chain_head(session) -> ChainHead:
    last = Roll.objects.filter(session=session).order_by("-seq").only("seq", "hash").first()
    return ChainHead(last.seq, last.hash) if last else ChainHead(0, None)


def chain_head_and_running_event(session) -> tuple[ChainHead, int | None]:
    """chain_head() and the running initiative event's id, in one query."""
    from django.db.models import OuterRef, Subquery

    running = InitiativeEvent.objects.running().filter(session=OuterRef("session")).values("pk")
    last = (
        Roll.objects.filter(session=session)
        .order_by("-seq")
        .only("seq", "hash")
        .annotate(running_event=Subquery(running[:1]))
        .first()
    )
    if last is None:
        return ChainHead(0, None), None
    return ChainHead(last.seq, last.hash), last.running_event


def session_rolls(session):
    return Roll.objects.filter(session=session).select_related("post", "rolled_by").order_by("seq")
