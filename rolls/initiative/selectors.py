"""Reads of initiative events: the running order with its marker, and the history.

The order is derived (rolls.engine.initiative.current_order) from the opening roll's scores
and the event's history rows; a held character (characters.selectors.held_character_ids)
drops to the end without any row of its own. A running event costs four queries: the
event, its participants, its history and the held characters.

A participant is keyed by `InitiativeParticipant.key` (a character's id, an NPC's id
negated). An NPC hidden from players (`Npc.visible_to_players` off, also when it rolled
through its stand-in sheet) is left out of what players read: the order, its modifiers and
the history; the GM and moderators see it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Exists, F, OuterRef, Prefetch, Q, prefetch_related_objects
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import pgettext

from characters.grammar import gendered
from characters.models import (
    HOLDING_EFFECT_KINDS,
    EffectKind,
    GrammaticalGender,
    NegativeEffect,
)
from characters.numbers import signed_number, with_minus
from characters.selectors import held_character_ids
from diary.models import Turn
from rolls.engine import initiative as engine
from rolls.models import (
    ChangeKind,
    InitiativeChange,
    InitiativeEvent,
    InitiativeParticipant,
    Roll,
)


def running_event(
    session, pk: int | None = None, *, turn_number: int | None = None
) -> InitiativeEvent | None:
    """The session's running event (this one, if `pk` is given) with its participants and
    history: two queries, the event read with its participants (three for an event with
    none). Given the turn the order is drawn for, the participants come with whether a
    stun or an immobilisation holds their sheet then, so the order needs no query more."""
    participants = (
        InitiativeParticipant.objects.filter(event__session=session, event__ended_at__isnull=True)
        .select_related("event__opened_by_roll", "npc", "character__npc_role")
        .order_by("rolled_position")
    )
    if pk is not None:
        participants = participants.filter(event_id=pk)
    if turn_number is not None:
        participants = participants.annotate(sheet_held=_sheet_held(turn_number))
    rows = list(participants)
    if not rows or len({p.event_id for p in rows}) != 1:
        # No participant to read it through (or, against the one-running-event rule, two
        # events): the event on its own.
        events = InitiativeEvent.objects.running().filter(session=session)
        if pk is not None:
            events = events.filter(pk=pk)
        return events.select_related("opened_by_roll").prefetch_related(*_prefetches()).first()
    event = rows[0].event
    for p in rows:
        p.event = event
    # As prefetch_related leaves it: a queryset holding the rows (count() and the rest work).
    read = event.participants.all()
    read._result_cache, read._prefetch_done = rows, True
    event._prefetched_objects_cache = {"participants": read}
    prefetch_related_objects([event], _prefetches()[1])
    if turn_number is not None:
        event.held_sheets = (
            turn_number,
            {p.key for p in rows if p.sheet_held and (p.character_id or p.npc.stand_in_id)},
        )
    return event


def _sheet_held(turn_number: int):
    """Whether a stun or an immobilisation holds the participant's sheet (a character's, or
    an NPC's stand-in) in this turn: characters.selectors.held_character_ids, per row."""
    effects = NegativeEffect.objects.filter(
        character_id=Coalesce(OuterRef("character_id"), OuterRef("npc__stand_in_id")),
        kind__in=HOLDING_EFFECT_KINDS,
        freed_at__isnull=True,
    ).exclude(length_turns__isnull=False, began_turn__lte=turn_number - F("length_turns"))
    return Exists(effects)


def session_events(session) -> list[InitiativeEvent]:
    """Every event of the session, newest first, with participants and history."""
    return list(
        InitiativeEvent.objects.filter(session=session)
        .select_related("opened_by_roll", "ended_by")
        .prefetch_related(*_prefetches())
    )


def _prefetches():
    return (
        # The character's row (joined, no query more) for its grammatical gender.
        Prefetch(
            "participants",
            queryset=InitiativeParticipant.objects.select_related(
                "npc", "character__npc_role"
            ).order_by("rolled_position"),
        ),
        Prefetch("changes", queryset=InitiativeChange.objects.select_related("by").order_by("id")),
    )


@dataclass(frozen=True)
class OrderRow:
    place: int
    character_id: int
    name: str
    score: int
    base_score: int
    modifier: int
    held: bool
    moved: bool
    marked: bool
    is_npc: bool = False
    hidden: bool = False  # an NPC hidden from players: only the GM and moderators see it
    hp: tuple[int, int] | None = None  # a sheet-less NPC's (current, max) HP, if it has any
    gender: str = GrammaticalGender.MASCULINE

    @property
    def modifier_text(self) -> str:
        return signed_number(self.modifier)

    @property
    def score_text(self) -> str:
        return with_minus(str(self.score))

    @property
    def base_score_text(self) -> str:
        return with_minus(str(self.base_score))

    @property
    def held_text(self) -> str:
        return gendered(
            self.gender,
            masculine=pgettext("masculine", "held: at the end while stunned or immobilised"),
            feminine=pgettext("feminine", "held: at the end while stunned or immobilised"),
            neuter=pgettext("neuter", "held: at the end while stunned or immobilised"),
        )

    @property
    def resolved_next_text(self) -> str:
        return gendered(
            self.gender,
            masculine=pgettext("masculine", "(resolved next)"),
            feminine=pgettext("feminine", "(resolved next)"),
            neuter=pgettext("neuter", "(resolved next)"),
        )


def genders_of(event: InitiativeEvent) -> dict[int, str]:
    """Each participant's grammatical gender, from the prefetched participants."""
    return {
        p.key: p.character.grammatical_gender
        if p.character_id is not None
        else GrammaticalGender.MASCULINE
        for p in event.participants.all()
    }


@dataclass
class FightView:
    """What the diary and the panel show of the running event."""

    event: InitiativeEvent
    turn: int
    rows: list[OrderRow] = field(default_factory=list)
    marked_id: int | None = None
    next_id: int | None = None
    # Modifiers still running in this turn: (name, value, last turn, reason).
    modifiers: list[tuple[str, int, int, str]] = field(default_factory=list)

    @property
    def marked_name(self) -> str:
        return next((r.name for r in self.rows if r.marked), "")


def entries_of(event: InitiativeEvent) -> list[engine.Entry]:
    return [engine.Entry(p.key, p.name, p.speed, p.score) for p in event.participants.all()]


def npc_of(participant: InitiativeParticipant):
    """The NPC a participant is: joined in the tracker, or rolled through its stand-in."""
    if participant.npc_id is not None:
        return participant.npc
    return getattr(participant.character, "npc_role", None)


def hidden_keys(event: InitiativeEvent) -> set[int]:
    """The participants players do not see: NPCs hidden from them."""
    hidden = set()
    for p in event.participants.all():
        npc = npc_of(p)
        if npc is not None and not npc.visible_to_players:
            hidden.add(p.key)
    return hidden


def npc_effects(session, npc_ids, turn_number: int) -> dict[int, dict[int, dict]]:
    """The active effects of sheet-less NPCs, read off the session's chain (one query): for
    each NPC, its effect entries (keyed by the entry's id) not freed by a later entry and
    not ended by their length (active in turns t..t+N-1, as a sheet's effect is)."""
    wanted = set(npc_ids)
    if not wanted:
        return {}
    rows = Roll.objects.filter(
        session=session, test__in=("effect", "effect_free"), character_id__isnull=True
    ).order_by("seq")
    active: dict[int, dict[int, dict]] = {}
    for pk, test, record in rows.values_list("pk", "test", "record"):
        npc = record["characters"]["a"].get("npc")
        if npc not in wanted:
            continue
        entry = record["entry"]
        if test == "effect":
            ends = entry.get("ends_at_turn")
            if ends is None or ends > turn_number:
                active.setdefault(npc, {})[pk] = {
                    **entry["effect"],
                    "began_turn": entry["began_turn"],
                }
        else:
            active.get(npc, {}).pop(entry["effect"].get("entry"), None)
    return active


def _current_turn_number(event: InitiativeEvent) -> int:
    return (
        Turn.objects.filter(session_id=event.session_id)
        .order_by("-number")
        .values_list("number", flat=True)
        .first()
        or 0
    )


def held_keys(event: InitiativeEvent, turn_number: int | None = None) -> set[int]:
    """The participants held by a stun or an immobilisation: on their sheet (a character's,
    or an NPC's stand-in sheet), in one query; a sheet-less NPC by its effect entries in the
    session's chain (two queries more, only when the order holds one)."""
    sheet_of, sheetless = {}, {}
    precomputed = getattr(event, "held_sheets", None)  # read with the event (running_event)
    for p in event.participants.all():
        if p.character_id is not None:
            sheet_of[p.character_id] = p.key
        elif p.npc.stand_in_id is not None:
            sheet_of[p.npc.stand_in_id] = p.key
        else:
            sheetless[p.npc_id] = p.key
    held = set()
    if sheet_of and precomputed is not None and precomputed[0] == turn_number:
        held = set(precomputed[1])
    elif sheet_of:
        held = {sheet_of[i] for i in held_character_ids(list(sheet_of), turn_number)}
    if sheetless:
        turn = turn_number if turn_number is not None else _current_turn_number(event)
        for npc, effects in npc_effects(event.session_id, list(sheetless), turn).items():
            if any(e["kind"] in HOLDING_EFFECT_KINDS for e in effects.values()):
                held.add(sheetless[npc])
    return held


def modifiers_of(event: InitiativeEvent) -> list[engine.OrderModifier]:
    return [
        engine.OrderModifier(
            c.details["character"], c.details["value"], c.turn_number, c.details["turns"]
        )
        for c in event.changes.all()
        if c.kind == ChangeKind.MODIFIER
    ]


def handovers_of(event: InitiativeEvent) -> list[engine.Handover]:
    return [
        engine.Handover(c.details["character"], c.details["position"])
        for c in event.changes.all()
        if c.kind == ChangeKind.HANDOVER
    ]


def marked_of(event: InitiativeEvent, turn: int) -> int | None:
    """The character the GM resolves next: the last marker move of this turn; before any
    (a new turn starts from the top), None, which the view reads as the first in order."""
    moves = [
        c for c in event.changes.all() if c.kind == ChangeKind.MARKER and c.turn_number == turn
    ]
    return moves[-1].details["character"] if moves else None


def order_of(event: InitiativeEvent, turn: int, held=None) -> tuple[engine.Place, ...]:
    entries = entries_of(event)
    if held is None:
        held = held_keys(event, turn)
    return engine.current_order(
        entries,
        turn=turn,
        modifiers=modifiers_of(event),
        handovers=handovers_of(event),
        held=frozenset(held),
    )


def fight_view(event: InitiativeEvent, turn: int, *, sees_hidden: bool = True) -> FightView:
    """The order in this turn, the marker, and the modifiers still running (one query more:
    the held characters). Without `sees_hidden` (a player) hidden NPCs are left out and the
    places counted without them; the GM's next (`next_id`) is always the full order's."""
    order = order_of(event, turn)
    marked = marked_of(event, turn)
    if marked not in {p.character_id for p in order}:
        marked = order[0].character_id if order else None
    participants = {p.key: p for p in event.participants.all()}
    names = {key: p.name for key, p in participants.items()}
    hidden = hidden_keys(event)
    genders = genders_of(event)
    view = FightView(event=event, turn=turn, marked_id=marked)
    shown = [p for p in order if sees_hidden or p.character_id not in hidden]
    view.rows = [
        OrderRow(
            place=i,
            character_id=p.character_id,
            name=p.name,
            score=p.score,
            base_score=p.base_score,
            modifier=p.modifier,
            held=p.held,
            moved=p.moved,
            marked=p.character_id == marked,
            is_npc=p.character_id < 0 or npc_of(participants[p.character_id]) is not None,
            hidden=p.character_id in hidden,
            hp=_hp_of(participants[p.character_id]) if sees_hidden else None,
            gender=genders.get(p.character_id, GrammaticalGender.MASCULINE),
        )
        for i, p in enumerate(shown, start=1)
    ]
    view.next_id = engine.next_after(order, marked)
    for change in event.changes.all():
        if change.kind != ChangeKind.MODIFIER:
            continue
        modifier = engine.OrderModifier(
            change.details["character"],
            change.details["value"],
            change.turn_number,
            change.details["turns"],
        )
        if modifier.active_in(turn):
            if not sees_hidden and modifier.character_id in hidden:
                continue
            name = names.get(modifier.character_id, "?")
            view.modifiers.append(
                (name, signed_number(modifier.value), modifier.last_turn, change.reason)
            )
    return view


def _hp_of(participant: InitiativeParticipant) -> tuple[int, int] | None:
    if participant.hp_max is None:
        return None
    return participant.hp_current, participant.hp_max


@dataclass(frozen=True)
class HistoryRow:
    """One line of an event's history: a recorded change, or a holding effect's start or end
    (read off the character's sheet, where it is recorded; the order follows it by itself)."""

    when: object
    turn: int | None
    kind: str
    who: str
    character: str
    text: str
    reason: str


def effect_rows(event: InitiativeEvent, *, sees_hidden: bool = True) -> list[HistoryRow]:
    """Stuns and immobilisations of the participants that began or ended during the event,
    each with its turn: the one it began in (an effect from this session's diary), the one
    whose opening ended it by itself, else the session's turn at that moment (the sheet)."""
    hidden = set() if sees_hidden else hidden_keys(event)
    names = _sheet_names(event, hidden)
    genders = genders_of(event)
    until = event.ended_at or timezone.now()
    effects = NegativeEffect.objects.filter(
        character_id__in=list(names), kind__in=HOLDING_EFFECT_KINDS
    ).filter(
        Q(created_at__gte=event.opened_at, created_at__lte=until)
        | Q(freed_at__gte=event.opened_at, freed_at__lte=until)
    )
    effects = list(effects)
    entries = _effect_entries(event) if effects else {}
    turn_at = _turn_at(event.session_id)
    rows = []
    for effect in effects:
        name = names[effect.character_id]
        kind = effect.get_kind_display()
        if event.opened_at <= effect.created_at <= until:
            from_this_session = effect.began_in_session == event.session_id
            who, reason = entries.get(("effect", effect.pk), ("", ""))
            rows.append(
                HistoryRow(
                    effect.created_at,
                    effect.began_turn if from_this_session else turn_at(effect.created_at),
                    "held",
                    who,
                    name,
                    _held_text(kind),
                    _joined(effect.description, reason),
                )
            )
        if effect.freed_at and event.opened_at <= effect.freed_at <= until:
            rows.append(
                HistoryRow(
                    effect.freed_at,
                    effect.ends_at_turn if effect.ended_by_itself else turn_at(effect.freed_at),
                    "freed",
                    entries.get(("effect_free", effect.pk), ("", ""))[0],
                    name,
                    _freed_text(genders.get(effect.character_id, ""), kind),
                    effect.freed_note,
                )
            )
    return rows


def _sheet_names(event: InitiativeEvent, hidden: set[int]) -> dict[int, str]:
    """Each participant's sheet (a character's, or an NPC's stand-in) → its name."""
    names = {}
    for p in event.participants.all():
        sheet = p.character_id if p.character_id is not None else p.npc.stand_in_id
        if sheet is not None and p.key not in hidden:
            names[sheet] = p.name
    return names


def _effect_entries(event: InitiativeEvent) -> dict[tuple[str, int], tuple[str, str]]:
    """(entry's test, effect's id) → (who, why) of the session's diary entries that applied
    or freed an effect (every change records who and why); an effect from the sheet has
    none: "the sheet"."""
    entries = {}
    for test, record, username in Roll.objects.filter(
        session_id=event.session_id, test__in=("effect", "effect_free")
    ).values_list("test", "record", "rolled_by__username"):
        effect_id = record.get("entry", {}).get("effect", {}).get("id")
        entries[(test, effect_id)] = (username, record["entry"].get("reason", ""))
    return entries


def _turn_at(session_id: int):
    """The session's turn at a moment (None before the first), its turns read once, if a
    row needs one."""
    turns = None

    def turn_at(moment) -> int | None:
        nonlocal turns
        if turns is None:
            turns = list(
                Turn.objects.filter(session_id=session_id)
                .order_by("number")
                .values_list("number", "opened_at")
            )
        return max((n for n, opened in turns if opened <= moment), default=None)

    return turn_at


def _held_text(kind: str) -> str:
    from django.utils.translation import gettext as _

    return _("%(kind)s: drops to the end of the order while it lasts") % {"kind": kind}


def _freed_text(gender: str, kind: str) -> str:
    return gendered(
        gender,
        masculine=pgettext("masculine", "freed of %(kind)s: back in the order"),
        feminine=pgettext("feminine", "freed of %(kind)s: back in the order"),
        neuter=pgettext("neuter", "freed of %(kind)s: back in the order"),
    ) % {"kind": kind}


def _joined(*parts: str) -> str:
    """The parts that say something, one dash between them."""
    return " — ".join(part for part in parts if part)


def npc_effect_rows(event: InitiativeEvent, *, sees_hidden: bool = True) -> list[HistoryRow]:
    """Stuns and immobilisations of the sheet-less NPCs in the order, from their effect
    entries during the event (as `effect_rows` reads a sheet): applied, freed early, or run
    out when the turn that ends them opened (its opening is the moment)."""
    hidden = set() if sees_hidden else hidden_keys(event)
    keys = {
        p.npc_id: p.key
        for p in event.participants.all()
        if p.character_id is None and p.npc.stand_in_id is None and p.key not in hidden
    }
    if not keys:
        return []
    genders = genders_of(event)
    until = event.ended_at or timezone.now()
    entries = Roll.objects.filter(
        session_id=event.session_id,
        test__in=("effect", "effect_free"),
        character_id__isnull=True,
        created_at__lte=until,
    ).order_by("seq")
    rows, run_out = [], {}  # run_out: the effects whose last turn ended by itself
    turns = dict(
        Turn.objects.filter(session_id=event.session_id).values_list("number", "opened_at")
    )
    for pk, test, record, when, who in entries.values_list(
        "pk", "test", "record", "created_at", "rolled_by__username"
    ):
        named, entry = record["characters"]["a"], record["entry"]
        if named.get("npc") not in keys or entry["effect"]["kind"] not in HOLDING_EFFECT_KINDS:
            continue
        kind = EffectKind(entry["effect"]["kind"]).label
        freed_text = _freed_text(genders.get(keys[named["npc"]], ""), kind)
        if test == "effect":
            ends = entry.get("ends_at_turn")
            opened = turns.get(ends) if ends else None
            if when >= event.opened_at:
                held = _held_text(kind)
                reason = _joined(entry["effect"]["description"], entry["reason"])
                rows.append(
                    HistoryRow(when, entry["began_turn"], "held", who, named["name"], held, reason)
                )
            if opened is not None and event.opened_at <= opened <= until:
                run_out[pk] = HistoryRow(opened, ends, "freed", "", named["name"], freed_text, "")
            continue
        run_out.pop(entry["effect"].get("entry"), None)  # freed early: it did not run out
        if when >= event.opened_at:
            freed_turn, name = entry["freed_turn"], named["name"]
            rows.append(
                HistoryRow(when, freed_turn, "freed", who, name, freed_text, entry["reason"])
            )
    return rows + list(run_out.values())


def change_text(change: InitiativeChange, gender: str = "") -> tuple[str, str]:
    """(character, what happened) for one recorded change, in the user's language; `gender`
    is the character's grammatical gender."""
    from django.utils.translation import gettext as _
    from django.utils.translation import ngettext

    d = change.details
    if change.kind == ChangeKind.OPENED:
        return "", _("Opened by initiative roll #%(seq)s; order: %(order)s") % {
            "seq": d.get("roll_seq", "?"),
            "order": ", ".join(d.get("order", [])),
        }
    if change.kind == ChangeKind.MARKER:
        return d["name"], gendered(
            gender,
            masculine=pgettext("masculine", "marked: the GM resolves this character next"),
            feminine=pgettext("feminine", "marked: the GM resolves this character next"),
            neuter=pgettext("neuter", "marked: the GM resolves this character next"),
        )
    if change.kind == ChangeKind.MODIFIER:
        last = change.turn_number + d["turns"] - 1
        return d["name"], ngettext(
            "%(value)s to initiative for %(turns)s turn: turn %(first)s",
            "%(value)s to initiative for %(turns)s turns: turns %(first)s–%(last)s",
            d["turns"],
        ) % {
            "value": signed_number(d["value"]),
            "turns": d["turns"],
            "first": change.turn_number,
            "last": last,
        }
    if change.kind == ChangeKind.HANDOVER:
        return d["name"], _("takes over initiative from %(other)s: place %(position)s") % {
            "other": d["other_name"],
            "position": d["position"],
        }
    if change.kind == ChangeKind.JOINED:
        text = _("joins the order with %(score)s") % {"score": d["score"]}
        if d.get("hp_max"):
            text += " · " + _("HP %(hp)s") % {"hp": d["hp_max"]}
        return d["name"], text
    return "", _("Event ended")


def history_rows(event: InitiativeEvent, *, sees_hidden: bool = True) -> list[HistoryRow]:
    """The event's history, oldest first: its recorded changes and its holding effects;
    without `sees_hidden`, nothing about a hidden NPC."""
    hidden = set() if sees_hidden else hidden_keys(event)
    rows = []
    genders = genders_of(event)
    for change in event.changes.all():
        keys = {change.details.get("character"), change.details.get("other")}
        if hidden & keys:
            continue
        character, text = change_text(change, genders.get(change.details.get("character"), ""))
        rows.append(
            HistoryRow(
                change.created_at,
                change.turn_number,
                change.kind,
                change.by.get_username(),
                character,
                text,
                change.reason,
            )
        )
    rows += effect_rows(event, sees_hidden=sees_hidden)
    rows += npc_effect_rows(event, sees_hidden=sees_hidden)
    return sorted(rows, key=lambda r: r.when)
