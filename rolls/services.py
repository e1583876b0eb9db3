"""Making a roll: the only write to the ledger.

`roll_make` checks who may roll, builds the engine test (refusals happen here,
before any die), then in ONE transaction: locks the session row (appends to a
session's chain are serialised; other sessions never wait), answers a repeated
one-time token with the roll it already made, finds or creates the post the
roll lands in, rolls, applies healing to the patient, and appends the
hash-chained row.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from characters.models import Character, HealingKind, NegativeEffect, Skill
from diary import permissions as diary_permissions
from diary.models import GameSession, Post, RollPolicy
from diary.services import current_turn, post_create_for_rolls
from rolls.engine import forum1000 as f1000
from rolls.engine.dice import DiceSource, SystemDice
from rolls.ledger import GENESIS_HASH, chain_hash
from rolls.models import Roll
from rolls.requests import RequestError, RollRequest, build_test
from rolls.selectors import playing_characters

# Tests that only the GM rolls: they involve other players' characters, or (healing)
# the GM's choice of which effect goes (RULES 1.6).
GM_ONLY_KINDS = {"opposed", "initiative", "healing"}
# Systems the panel rolls for today; the others get their panels with their own issues.
PANEL_SYSTEMS = {"forum1000"}


@dataclass(frozen=True)
class RollMade:
    roll: Roll
    created: bool  # False: the token had already made this roll; nothing was stored


class TokenReused(Exception):
    """The one-time token already made a different roll."""


# ---------------------------------------------------------------------------
# Checks (they read, never write)


def check_may_roll(user, session: GameSession, request: RollRequest, characters: dict) -> None:
    """RULES 1.x and the session's policy: GM for anyone; players for their own, if allowed."""
    if not may_roll_at_all(user, session):
        raise PermissionDenied
    if diary_permissions.is_gm(user, session):
        return
    if request.kind in GM_ONLY_KINDS:
        raise PermissionDenied
    # Modifiers are the GM's to give (RULES 1.2); a player's roll carries only the sheet's.
    if request.uses_gm_modifiers or request.uses_action_modifiers:
        raise PermissionDenied
    acting = characters.get(request.acting_character_id)
    if acting is None or acting.owner_id != user.pk:
        raise PermissionDenied


def may_roll_at_all(user, session: GameSession) -> bool:
    """Whether the panel is offered to this user."""
    if not session.is_running or not user.is_authenticated or session.system not in PANEL_SYSTEMS:
        return False
    if diary_permissions.is_gm(user, session):
        return True
    return session.roll_policy == RollPolicy.PLAYERS_OWN and diary_permissions.is_player(
        user, session
    )


def prepare(session: GameSession, request: RollRequest):
    """The engine test for a request, or RequestError/RuleError: the panel's preview."""
    characters = playing_characters(session, ids=request.character_ids)
    return build_test(request, characters, session.criticals_enabled)


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


def _apply_healing(request: RollRequest, result, seq: int) -> dict:
    """RULES 1.6, in the roll's transaction: the patient's HP, and one freed effect."""
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
        locked = GameSession.objects.select_for_update().get(pk=session.pk)
        if request.patient_id:
            # HP is tended outside sessions too (the sheet): hold the patient still.
            list(Character.objects.select_for_update().filter(pk=request.patient_id))
        characters = playing_characters(locked, ids=request.character_ids)
        check_may_roll(by, locked, request, characters)
        digest = request.digest()
        existing = Roll.objects.filter(session=locked, token=token).first()
        if existing is not None:
            if existing.request_digest != digest:
                raise TokenReused
            return RollMade(existing, created=False)
        if request.kind == "healing":
            _check_healing_effect(request, healing_skill_kind(request))
        test = build_test(request, characters, locked.criticals_enabled)  # refusals: no die
        turn = current_turn(locked)
        if turn is None:
            raise PermissionDenied
        target = _target_post(locked, by, turn, post)
        last = Roll.objects.filter(session=locked).order_by("-seq").only("seq", "hash").first()
        seq = last.seq + 1 if last else 1
        prev_hash = last.hash if last else GENESIS_HASH
        result = f1000.roll(test, dice or SystemDice())
        healing = _apply_healing(request, result, seq) if request.kind == "healing" else None
        now = timezone.now()
        record = {
            "format": 1,
            "session": locked.pk,
            "seq": seq,
            "turn": turn.number,
            "post": target.pk,
            "rolled_by": {"id": by.pk, "username": by.get_username()},
            "rolled_at": now.isoformat(),
            "kind": request.kind,
            "characters": _participants_record(request, characters),
            "result": result.to_dict(),
            "healing": healing,
        }
        roll = Roll.objects.create(
            session=locked,
            seq=seq,
            post=target,
            rolled_by=by,
            character_id=request.acting_character_id,
            system=locked.system,
            test=request.kind,
            turn_number=turn.number,
            is_action=request.kind != "initiative",
            record=record,
            prev_hash=prev_hash,
            hash=chain_hash(prev_hash, record),
            token=token,
            request_digest=digest,
            created_at=now,
        )
        locked.touch()
    return RollMade(roll, created=True)
