"""Writes of initiative events (RULES 1.4). Every change is one transaction that
writes the change's history row too: the order is never edited silently.

An event opens with the initiative roll that fixes its scores (`roll_make` calls
`initiative_event_open` in the roll's transaction); the GM moves the marker, records order
modifiers and handovers, and ends it. Each service locks the session row (as a roll does),
checks rolls.access itself and never trusts a view. The GM's forms carry a one-time token
(rolls.access): a token already used answers with the change it made, nothing new stored.
"""

from __future__ import annotations

import uuid

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from characters.systems import SPEED_ATTRIBUTE
from diary.models import GameSession, Npc, NpcMode
from diary.services import current_turn
from rolls.access import access_fight
from rolls.engine import systems as engine_systems
from rolls.initiative import selectors
from rolls.models import (
    ChangeKind,
    InitiativeChange,
    InitiativeEvent,
    InitiativeParticipant,
    Roll,
    npc_key,
)
from rolls.selectors import sheets_in_play

MAX_TURNS = 20  # the longest order modifier the GM can record, in turns


def initiative_event_open(*, session: GameSession, roll: Roll, by, name: str) -> InitiativeEvent:
    """In the roll's transaction (the session row is locked): the event, its participants as
    the roll's record has them, and the first history row."""
    record = roll.record
    people = record["characters"]["initiative"]
    entries = record["result"]["entries"]
    order = record["result"]["order"]
    now = timezone.now()
    event = InitiativeEvent.objects.create(
        session=session,
        name=name.strip(),
        opened_by_roll=roll,
        opened_turn=roll.turn_number,
        opened_at=now,
    )
    InitiativeParticipant.objects.bulk_create(
        InitiativeParticipant(
            event=event,
            character_id=person["id"],
            name=person["name"],
            speed=entry["speed"],
            score=entry["score"],
            rolled_position=order.index(person["name"]) + 1,
        )
        for person, entry in zip(people, entries, strict=True)
    )
    _record(
        event, by, ChangeKind.OPENED, roll.turn_number, "", {"roll_seq": roll.seq, "order": order}
    )
    return event


def _record(event, by, kind, turn, reason, details, token=None) -> InitiativeChange:
    return InitiativeChange.objects.create(
        event=event,
        kind=kind,
        by=by,
        created_at=timezone.now(),
        turn_number=turn,
        reason=reason,
        details=details,
        token=token,
    )


def _made(by, token) -> InitiativeChange | None:
    """The change this user's one-time token already made, or None."""
    if token is None:
        return None
    return InitiativeChange.objects.filter(by=by, token=token).first()


def _locked_session(event: InitiativeEvent, by) -> GameSession:
    """The session row locked (as a roll locks it) and the GM's right checked."""
    session = GameSession.objects.select_for_update().get(pk=event.session_id)
    if not access_fight(by, session).can_manage:
        raise PermissionDenied
    return session


def _locked_running(event: InitiativeEvent, by, session: GameSession | None = None):
    """The session and the event locked, the GM's right checked, the event still running."""
    session = session or _locked_session(event, by)
    event = InitiativeEvent.objects.select_for_update().get(pk=event.pk)
    if not event.is_running:
        raise ValidationError(_("This event has ended; nothing was changed."))
    turn = current_turn(session)
    return session, event, turn.number if turn else event.opened_turn


def _change_once(event: InitiativeEvent, by, token, kind, build) -> InitiativeChange:
    """One change per one-time token, in the caller's transaction: under the session lock, a
    token already used answers with its change; else `build(event, turn)` checks the input
    and returns (reason, details), and the row is written. A concurrent duplicate that slips
    past the lock (the unique constraint) resolves to the row the first one wrote."""
    session = _locked_session(event, by)
    made = _made(by, token)
    if made is not None:
        return made
    _session, event, turn = _locked_running(event, by, session)
    reason, details = build(event, turn)
    try:
        with transaction.atomic():
            return _record(event, by, kind, turn, reason, details, token)
    except IntegrityError:
        made = _made(by, token)
        if made is None:
            raise
        return made


def _participant(event: InitiativeEvent, key, field: str) -> InitiativeParticipant:
    """The participant of this key (a character's id, an NPC's id negated), else refused."""
    participant = next((p for p in event.participants.all() if p.key == key), None)
    if participant is None:
        raise ValidationError({field: _("This character does not take part in the event.")})
    return participant


@transaction.atomic
def initiative_marker_move(
    *,
    event: InitiativeEvent,
    by,
    character_id: int | None = None,
    token: uuid.UUID | None = None,
) -> InitiativeChange:
    """The GM marks whom they resolve next: the one chosen, or (None) the next in the order."""

    def build(event, turn):
        chosen = character_id
        if chosen is None:
            chosen = selectors.fight_view(event, turn).next_id
        participant = _participant(event, chosen, "character")
        return "", {"character": participant.key, "name": participant.name}

    return _change_once(event, by, token, ChangeKind.MARKER, build)


@transaction.atomic
def initiative_modifier_add(
    *,
    event: InitiativeEvent,
    by,
    character_id: int,
    value: int,
    turns: int,
    reason: str,
    token: uuid.UUID | None = None,
) -> InitiativeChange:
    """A speed or initiative modifier (a spell, an item) from this turn for `turns` turns:
    it counts in turns t .. t+turns-1 and ends by itself (rolls.engine.initiative)."""
    # In the units of the session's system's typed modifiers (its engine's limit).
    limit = engine_systems.system_module(event.session.system).TYPED_MODIFIER_LIMIT

    def build(event, turn):
        participant = _participant(event, character_id, "character")
        text = (reason or "").strip()
        errors = {}
        if not text:
            errors["reason"] = _("A change of order needs a reason: everyone reads it.")
        if not value or abs(value) > limit:
            errors["value"] = _("A modifier lies between −%(limit)s and +%(limit)s, not 0.") % {
                "limit": limit
            }
        if not 1 <= turns <= MAX_TURNS:
            errors["turns"] = _("Between 1 and %(max)s turns.") % {"max": MAX_TURNS}
        if errors:
            raise ValidationError(errors)
        details = {
            "character": participant.key,
            "name": participant.name,
            "value": value,
            "turns": turns,
        }
        return text, details

    return _change_once(event, by, token, ChangeKind.MODIFIER, build)


@transaction.atomic
def initiative_handover_record(
    *,
    event: InitiativeEvent,
    by,
    character_id: int,
    other_id: int,
    position: int,
    reason: str,
    token: uuid.UUID | None = None,
) -> InitiativeChange:
    """`character_id` takes over initiative from `other_id` (who hands it over) and moves to
    the place the GM states; the rest keep their relative order."""

    def build(event, turn):
        taker = _participant(event, character_id, "character")
        giver = _participant(event, other_id, "other")
        text = (reason or "").strip()
        errors = {}
        if taker.pk == giver.pk:
            errors["other"] = _("Initiative passes between two different characters.")
        count = event.participants.count()
        if not 1 <= position <= count:
            errors["position"] = _("A place between 1 and %(count)s.") % {"count": count}
        if not text:
            errors["reason"] = _("A change of order needs a reason: everyone reads it.")
        if errors:
            raise ValidationError(errors)
        details = {
            "character": taker.key,
            "name": taker.name,
            "other": giver.key,
            "other_name": giver.name,
            "position": position,
        }
        return text, details

    return _change_once(event, by, token, ChangeKind.HANDOVER, build)


MAX_NPC_SCORE = 9999  # above any roll's distance; the GM's value for a sheet-less NPC
MAX_NPC_HP = 9999


@transaction.atomic
def initiative_npc_add(
    *,
    event: InitiativeEvent,
    by,
    npc_id: int,
    score: int,
    hp_max: int | None = None,
    token: uuid.UUID | None = None,
) -> InitiativeChange:
    """The GM adds one of the session's NPCs to the running order (RULES 1.7), with the
    initiative value they give it: in mode fixed_modifiers the NPC has no sheet to roll, so
    the GM states its value (and, if it is to take damage, its max HP, kept on the
    participant); in mode gm_character it needs its stand-in sheet, whose Szybkość breaks
    ties and whose HP and effects count as a character's. A hidden NPC joins hidden."""

    def build(event, turn):
        npc = Npc.objects.filter(pk=npc_id, session_id=event.session_id).first()
        errors = {}
        if npc is None:
            raise ValidationError({"npc": _("Pick one of this session's NPCs.")})
        stand_in = None
        if event.session.npc_mode == NpcMode.GM_CHARACTER:
            if npc.stand_in_id is None:
                errors["npc"] = _(
                    "In this session NPCs roll on their stand-in sheets: "
                    "give this NPC one on the NPC page first."
                )
            else:
                stand_in = sheets_in_play(event.session, ids=[npc.stand_in_id]).get(npc.stand_in_id)
            if hp_max is not None:
                errors["hp_max"] = _("This NPC's HP are on its stand-in sheet.")
        keys = {p.key for p in event.participants.all()}
        if npc_key(npc.pk) in keys or (npc.stand_in_id and npc.stand_in_id in keys):
            errors["npc"] = _("This NPC is already in the order.")
        if not -MAX_NPC_SCORE <= score <= MAX_NPC_SCORE:
            errors["score"] = _("An initiative value between −%(max)s and %(max)s.") % {
                "max": MAX_NPC_SCORE
            }
        if hp_max is not None and not 1 <= hp_max <= MAX_NPC_HP:
            errors["hp_max"] = _("Max HP between 1 and %(max)s, or none.") % {"max": MAX_NPC_HP}
        if errors:
            raise ValidationError(errors)
        speed = stand_in.value_of(SPEED_ATTRIBUTE) if stand_in is not None else None
        InitiativeParticipant.objects.create(
            event=event,
            npc=npc,
            name=npc.name,
            speed=speed or 0,
            score=score,
            rolled_position=len(keys) + 1,
            hp_max=hp_max,
            hp_current=hp_max,
        )
        details = {"character": npc_key(npc.pk), "name": npc.name, "score": score}
        if hp_max is not None:
            details["hp_max"] = hp_max
        return "", details

    return _change_once(event, by, token, ChangeKind.JOINED, build)


@transaction.atomic
def initiative_event_end(*, event: InitiativeEvent, by) -> InitiativeEvent:
    """The GM ends the event; a new initiative roll may open the next one. Needs no token:
    a repeated end finds the event ended (under the lock) and is refused, nothing stored."""
    _session, event, turn = _locked_running(event, by)
    event.ended_at = timezone.now()
    event.ended_by = by
    event.ended_turn = turn
    event.save(update_fields=["ended_at", "ended_by", "ended_turn"])
    _record(event, by, ChangeKind.ENDED, turn, "", {})
    return event
