"""Making a roll: the only write to the ledger.

`roll_make` works in ONE transaction, in steps: lock the session row (appends
to a session's chain are serialised; other sessions never wait); check who may
roll (rolls.access); answer a repeated one-time token with the roll it already
made, for its own roller only; check the rules and build the engine test (every
refusal before any die) and find or create the post the roll lands in; then
roll, apply healing to the patient, and append the hash-chained row.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from characters.models import Character, HealingKind, NegativeEffect, SheetChangeKind, Skill
from characters.services import sheet_record_change
from diary.models import GameSession, Post
from diary.services import current_turn, post_create_for_rolls
from rolls.access import check_may_roll
from rolls.engine import forum1000 as f1000
from rolls.engine.dice import DiceSource, SystemDice
from rolls.ledger import GENESIS_HASH, chain_hash
from rolls.models import Roll
from rolls.requests import (
    SIDE_TESTS,
    NpcTarget,
    RequestError,
    RollRequest,
    build_test,
    npc_target,
)
from rolls.selectors import playing_characters


@dataclass(frozen=True)
class RollMade:
    roll: Roll
    created: bool  # False: the token had already made this roll; nothing was stored


class TokenReused(Exception):
    """The one-time token already made a different roll."""


# ---------------------------------------------------------------------------
# Checks (they read, never write)


def prepare(session: GameSession, request: RollRequest):
    """The engine test for a request, or RequestError/RuleError: the panel's preview."""
    characters = playing_characters(session, ids=request.character_ids)
    return build_test(request, characters, session.criticals_enabled, session)


# ---------------------------------------------------------------------------
# The write


def _target_post(session: GameSession, by, turn, post: Post | None) -> Post:
    """The chosen post, else the roller's latest post of this turn, else a new one."""
    if post is not None:
        if post.session_id != session.pk or post.author_id != by.pk or post.turn_id != turn.pk:
            raise ValidationError(
                {"post": _("Rolls land only in your own post of the current turn.")}
            )
        if post.is_hidden:
            raise ValidationError({"post": _("This post is hidden; choose another one.")})
        return post
    latest = (
        Post.objects.filter(session=session, author=by, turn=turn, hidden_at__isnull=True)
        .order_by("-id")
        .first()
    )
    if latest is not None:
        return latest
    # A post that holds only rolls; its author can add narration by editing it.
    return post_create_for_rolls(session=session, author=by, turn=turn)


def _participants_record(request: RollRequest, characters: dict) -> dict:
    def named(pk):
        character = characters[pk]
        return {"id": character.pk, "name": character.name, "owner": character.owner.username}

    record: dict = {}
    if request.a:
        record["a"] = named(request.a.character_id)
    if request.b:
        record["b"] = named(request.b.character_id)
    if request.patient_id:
        record["patient"] = named(request.patient_id)
    if request.initiative:
        record["initiative"] = [named(line.character_id) for line in request.initiative]
    return record


def _apply_healing(request: RollRequest, result, seq: int, by) -> dict:
    """RULES 1.6, in the roll's transaction: the patient's HP, and one freed effect, both
    written to the sheet's history too."""
    patient = Character.objects.select_for_update().get(pk=request.patient_id)
    hp_before = patient.hp_current
    freed = None
    if result.effect.frees_effect and request.effect_id:
        effect = NegativeEffect.objects.select_for_update().get(pk=request.effect_id)
        effect.freed_at = timezone.now()
        effect.freed_note = _("Healed by roll #%(seq)s") % {"seq": seq}
        effect.save(update_fields=["freed_at", "freed_note"])
        freed = {"id": effect.pk, "kind": effect.kind, "description": effect.description}
    patient.hp_current = result.effect.hp_after
    patient.save(update_fields=["hp_current", "updated_at"])
    sheet_record_change(
        character=patient,
        by=by,
        kind=SheetChangeKind.HEALING,
        note=_("Healing roll #%(seq)s: HP %(before)s → %(after)s")
        % {"seq": seq, "before": hp_before, "after": patient.hp_current},
    )
    return {"hp_before": hp_before, "hp_after": patient.hp_current, "freed_effect": freed}


def _check_healing_effect(request: RollRequest, skill_heals: str) -> None:
    if not request.effect_id:
        return
    effect = (
        NegativeEffect.objects.select_for_update()
        .filter(pk=request.effect_id, character_id=request.patient_id, freed_at__isnull=True)
        .first()
    )
    if effect is None:
        raise RequestError("effect", "not_on_sheet")
    if effect.kind != skill_heals:
        raise RequestError("effect", "wrong_effect_kind", kind=HealingKind(effect.kind).label)


def healing_skill_kind(request: RollRequest) -> str:
    skill = Skill.objects.filter(pk=request.a.skill_id).first() if request.a else None
    if skill is None or not skill.heals:
        raise RequestError("a-skill", "not_a_healing_skill")
    return skill.heals


def roll_make(
    *,
    session: GameSession,
    by,
    request: RollRequest,
    token: uuid.UUID,
    post: Post | None = None,
    dice: DiceSource | None = None,
) -> RollMade:
    with transaction.atomic():
        # Everything below reads and writes under the session's lock, so the
        # sheet values, the patient's HP and the chain head cannot move meanwhile.
        locked, characters = _lock(session, request)
        check_may_roll(by, locked, request, characters)
        replayed = _replay(locked, by, token, request)
        if replayed is not None:
            return replayed
        checked = _check(locked, by, request, characters, post)
        roll = _append(locked, by, request, token, checked, dice or SystemDice())
    return RollMade(roll, created=True)


@dataclass(frozen=True)
class _Checked:
    """A roll that may be made: its engine test, its turn and the post it lands in."""

    test: object
    turn: object
    post: Post
    characters: dict
    npc: NpcTarget | None = None


def _lock(session: GameSession, request: RollRequest):
    """The session row locked (one chain at a time), and the sheets the roll reads."""
    locked = GameSession.objects.select_for_update().get(pk=session.pk)
    if request.patient_id:
        # HP is tended outside sessions too (the sheet): hold the patient still.
        list(Character.objects.select_for_update().filter(pk=request.patient_id))
    return locked, playing_characters(locked, ids=request.character_ids)


def _replay(session: GameSession, by, token: uuid.UUID, request: RollRequest) -> RollMade | None:
    """A token already used answers with its roll, for the same user and inputs only."""
    existing = Roll.objects.filter(session=session, token=token).first()
    if existing is None:
        return None
    if existing.rolled_by_id != by.pk or existing.request_digest != request.digest():
        raise TokenReused
    return RollMade(existing, created=False)


def _check(session: GameSession, by, request: RollRequest, characters, post) -> _Checked:
    """Every refusal before any die (the rules, the healing effect, the turn, the post),
    then the post the roll lands in, created if the roller has none this turn."""
    if request.kind == "healing":
        _check_healing_effect(request, healing_skill_kind(request))
    test = build_test(request, characters, session.criticals_enabled, session)
    turn = current_turn(session)
    if turn is None:
        raise PermissionDenied
    npc = npc_target(request.a, session) if request.kind in SIDE_TESTS else None
    return _Checked(test, turn, _target_post(session, by, turn, post), characters, npc)


def _append(session, by, request, token, checked: _Checked, dice: DiceSource) -> Roll:
    """Roll, apply healing, and append the hash-chained row (the record says it all)."""
    last = Roll.objects.filter(session=session).order_by("-seq").only("seq", "hash").first()
    seq = last.seq + 1 if last else 1
    prev_hash = last.hash if last else GENESIS_HASH
    result = f1000.roll(checked.test, dice)
    healing = _apply_healing(request, result, seq, by) if request.kind == "healing" else None
    now = timezone.now()
    record = _record(session, by, request, checked, seq, result, healing, now)
    roll = Roll.objects.create(
        session=session,
        seq=seq,
        post=checked.post,
        rolled_by=by,
        character_id=request.acting_character_id,
        system=session.system,
        test=request.kind,
        turn_number=checked.turn.number,
        is_action=request.kind != "initiative",
        record=record,
        prev_hash=prev_hash,
        hash=chain_hash(prev_hash, record),
        token=token,
        request_digest=request.digest(),
        created_at=now,
    )
    session.touch()
    return roll


def _record(session, by, request, checked: _Checked, seq, result, healing, now) -> dict:
    return {
        "format": 1,
        "session": session.pk,
        "seq": seq,
        "turn": checked.turn.number,
        "post": checked.post.pk,
        "rolled_by": {"id": by.pk, "username": by.get_username()},
        "rolled_at": now.isoformat(),
        "kind": request.kind,
        "characters": _participants_record(request, checked.characters),
        "result": result.to_dict(),
        "healing": healing,
        # The NPC the roll targeted (issue 8), as it was at the roll; no key without one.
        **({"npc": checked.npc.to_record()} if checked.npc else {}),
    }
