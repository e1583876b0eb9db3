"""Diary entries: HP changes, effects, effects freed early, items granted and used, spells
and abilities used without a roll.

Each entry is a row of the session's roll chain (rolls.models.Roll with `test` one of
ENTRY_KINDS and no die), written in ONE transaction with what it does to the sheet: the
session row locked (one chain at a time), who may do it checked (rolls.access), a repeated
one-time token answered with the entry it already made, every refusal before any write,
then the sheet changed (characters.services, which checks its own permission and writes
the sheet's history) and the hash-chained row appended to the post it lands in.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from characters import services as character_services
from characters.models import Character, HealingPotion, NegativeEffect
from diary.models import GameSession, Post
from diary.selectors import move_actions_in_turn
from diary.services import current_turn
from rolls import access as rolls_access
from rolls import registry
from rolls.entries import forms as entry_forms
from rolls.initiative.selectors import npc_effects
from rolls.ledger.chain_writer import chain_append, lock_session
from rolls.messages import refusal_message
from rolls.models import InitiativeParticipant, Roll
from rolls.plugins import RequestError
from rolls.presenters import roll_announcement
from rolls.selectors import sheets_in_play, turn_actions
from rolls.services import TokenReused, check_turn_action, target_post

__all__ = ["TokenReused"]

# RULES 1.5 outside combat: at most two actions a turn (one of them with a roll).
ACTIONS_PER_TURN = 2


@dataclass(frozen=True)
class EntryMade:
    entry: Roll
    created: bool  # False: the token had already made this entry; nothing was stored


def _named(character) -> dict:
    if isinstance(character, InitiativeParticipant):  # a sheet-less NPC: no id, no owner
        return {"id": None, "npc": character.npc_id, "name": character.name}
    return {"id": character.pk, "name": character.name, "owner": character.owner.username}


# The entries a sheet-less NPC of the running fight takes, as a character would.
NPC_ENTRY_KINDS = ("hp", "effect", "effect_free")


def _npc_target(session: GameSession, key: int, *, needs_hp: bool) -> InitiativeParticipant:
    """A sheet-less NPC of the running fight, visible to players, with HP for an HP entry
    (the targets `rolls.entries.selectors.npc_entry_targets` offers), locked (its HP change is this
    entry's), else refused next to the field."""
    participant = (
        InitiativeParticipant.objects.select_for_update()
        .filter(
            event__session=session,
            event__ended_at__isnull=True,
            npc_id=-key,
            npc__visible_to_players=True,
        )
        .first()
    )
    if participant is None:
        raise ValidationError(
            {"character": _("This NPC is not in the running fight, or players do not see it.")}
        )
    if needs_hp and participant.hp_max is None:
        raise ValidationError({"character": _("This NPC has no HP in the running fight.")})
    return participant


def _chosen_post(session: GameSession, post_id: int | None) -> Post | None:
    """The post chosen for an entry, if any (target_post checks it is the GM's own, of this
    turn); an unknown one is refused next to the field."""
    if post_id is None:
        return None
    post = Post.objects.filter(pk=post_id, session=session).first()
    if post is None:
        raise ValidationError({"post": _("Rolls land only in your own post of the current turn.")})
    return post


def _lock(session: GameSession, by, token: uuid.UUID, digest: str):
    """The session row locked, and the entry this token already made (or None)."""
    locked = lock_session(session)
    existing = Roll.objects.filter(session=locked, token=token).first()
    if existing is not None and (
        existing.rolled_by_id != by.pk or existing.request_digest != digest
    ):
        raise TokenReused
    return locked, existing


def _target(session: GameSession, character_id: int) -> Character:
    """A character playing in the session (accepted, or an NPC's stand-in), else refused."""
    character = sheets_in_play(session, ids=[character_id]).get(character_id)
    if character is None:
        raise ValidationError({"character": _("This character does not play in this session.")})
    return character


def _append(session, by, *, kind, character, turn, post, token, digest, body) -> Roll:
    return chain_append(
        session,
        by,
        post=post,
        turn_number=turn.number,
        character_id=None if isinstance(character, InitiativeParticipant) else character.pk,
        test=kind,
        is_action=False,  # no die: never an action roll (an item use counts as an action)
        token=token,
        digest=digest,
        body=lambda _seq: {"kind": kind, "characters": {"a": _named(character)}, "entry": body},
        announce=roll_announcement,
    )


def _checked(form_class, **values) -> dict:
    """The values as the entry's form cleans them (services never trust a view): a blank
    reason or description, a zero HP change, a count below one… refused with the form's own
    messages, keyed by its field names so a view shows them next to the field."""
    cleaned, errors = {}, {}
    for name, value in values.items():
        try:
            cleaned[name] = form_class.base_fields[name].clean(value)
        except ValidationError as error:
            errors[name] = error.error_list
    if errors:
        raise ValidationError(errors)
    return cleaned


def _gm_entry(
    session, by, token, digest, character_id, kind, check, apply, post_id=None
) -> EntryMade:
    """The GM's entries: checks (`check()` cleans the input, or refuses it), the sheet change
    `apply(locked, character, turn, cleaned)` (returns the record's body) and the row, in one
    transaction; every refusal before any write. Like the GM's roll, the entry lands at the
    bottom of the diary, or in the GM's own post of this turn `post_id` (target_post)."""
    with transaction.atomic():
        locked, existing = _lock(session, by, token, digest)
        if not rolls_access.may_write_entries(by, locked):
            raise PermissionDenied
        if existing is not None:
            return EntryMade(existing, created=False)
        cleaned = check()
        character = (
            _npc_target(locked, character_id, needs_hp=kind == "hp")
            if character_id < 0 and kind in NPC_ENTRY_KINDS
            else _target(locked, character_id)
        )
        turn = current_turn(locked)
        if turn is None:
            raise PermissionDenied
        post = target_post(locked, by, turn, _chosen_post(locked, post_id))
        body = apply(locked, character, turn, cleaned)
        entry = _append(
            locked,
            by,
            kind=kind,
            character=character,
            turn=turn,
            post=post,
            token=token,
            digest=digest,
            body=body,
        )
    return EntryMade(entry, created=True)


def damage_deal(
    *,
    session: GameSession,
    by,
    character_id: int,
    delta: int,
    reason: str,
    token,
    digest: str,
    post_id: int | None = None,
) -> EntryMade:
    """The GM's HP change (damage when delta < 0), kept within 0..max. At 0 HP the record
    says so (`down`); what happens then is the GM's call."""

    def check():
        # The form asks for an amount (at least 1) and a direction; a zero change is refused.
        return _checked(entry_forms.HpEntryForm, amount=abs(delta), reason=reason)

    def apply(locked, character, turn, cleaned):
        reason = cleaned["reason"]
        if isinstance(character, InitiativeParticipant):
            # A sheet-less NPC (RULES 1.7): its HP live on its place in the fight.
            before = character.hp_current
            after = max(0, min(character.hp_max, before + delta))
            character.hp_current = after
            character.save(update_fields=["hp_current"])
        else:
            before, after = character_services.character_change_hp(
                character=character, by=by, delta=delta, note=reason
            )
        return {
            "delta": delta,
            "reason": reason,
            "hp_before": before,
            "hp_after": after,
            "hp_max": character.hp_max,
            "down": after == 0,
        }

    return _gm_entry(session, by, token, digest, character_id, "hp", check, apply, post_id)


def effect_apply(
    *,
    session: GameSession,
    by,
    character_id: int,
    kind: str,
    description: str,
    length_turns: int | None,
    reason: str,
    token,
    digest: str,
    post_id: int | None = None,
) -> EntryMade:
    """The GM applies an effect beginning in the current turn, for `length_turns` turns
    (active in turns t..t+N-1, gone when turn t+N opens) or until freed."""

    def check():
        return _checked(
            entry_forms.EffectEntryForm,
            kind=kind,
            description=description,
            length_turns=length_turns,
            reason=reason,
        )

    def apply(locked, character, turn, cleaned):
        kind, description = cleaned["kind"], cleaned["description"]
        length_turns, reason = cleaned["length_turns"], cleaned["reason"]
        if isinstance(character, InitiativeParticipant):
            # A sheet-less NPC: the entry itself is the effect (its id is the entry's, read
            # by rolls.initiative.selectors.npc_effects), as the chain is its only record.
            return {
                "effect": {"id": None, "kind": kind, "description": description},
                "began_turn": turn.number,
                "length_turns": length_turns,
                "ends_at_turn": turn.number + length_turns if length_turns else None,
                "reason": reason,
            }
        effect = character_services.effect_add(
            character=character,
            by=by,
            kind=kind,
            description=description,
            began_in_session=locked.pk,
            began_turn=turn.number,
            length_turns=length_turns,
        )
        return {
            "effect": {"id": effect.pk, "kind": kind, "description": description},
            "began_turn": turn.number,
            "length_turns": length_turns,
            "ends_at_turn": effect.ends_at_turn,
            "reason": reason,
        }

    return _gm_entry(session, by, token, digest, character_id, "effect", check, apply, post_id)


def effect_free(
    *,
    session: GameSession,
    by,
    character_id: int,
    effect_id: int,
    reason: str,
    token,
    digest: str,
    post_id: int | None = None,
) -> EntryMade:
    """The GM frees an active effect of the character early, with a reason (in play the sheet
    no longer frees effects: the sheet is the sum of the chain's entries)."""

    def check():
        return _checked(entry_forms.EffectFreeForm, reason=reason)

    def apply(locked, character, turn, cleaned):
        reason = cleaned["reason"]
        if isinstance(character, InitiativeParticipant):
            return _npc_effect_free(locked, character, turn, effect_id, reason)
        effect = (
            NegativeEffect.objects.select_for_update()
            .filter(pk=effect_id, character=character, freed_at__isnull=True)
            .first()
        )
        if effect is None:
            raise ValidationError({"effect": _("This effect is not active on this character.")})
        character_services.effect_free(effect=effect, by=by, note=reason, by_entry=True)
        return {
            "effect": {"id": effect.pk, "kind": effect.kind, "description": effect.description},
            "began_turn": effect.began_turn,
            "freed_turn": turn.number,
            "reason": reason,
        }

    return _gm_entry(session, by, token, digest, character_id, "effect_free", check, apply, post_id)


def _npc_effect_free(session, participant, turn, entry_id: int, reason: str) -> dict:
    """A sheet-less NPC's effect is its effect entry; freeing it early is an entry naming
    that one (`effect.entry`). Refused next to the field when it is not active."""
    active = npc_effects(session, [participant.npc_id], turn.number).get(participant.npc_id, {})
    effect = active.get(entry_id)
    if effect is None:
        raise ValidationError({"effect": _("This effect is not active on this character.")})
    return {
        "effect": {
            "id": None,
            "entry": entry_id,
            "kind": effect["kind"],
            "description": effect["description"],
        },
        "began_turn": effect["began_turn"],
        "freed_turn": turn.number,
        "reason": reason,
    }


def item_grant(
    *,
    session: GameSession,
    by,
    character_id: int,
    count: int,
    effect: str,
    restores_hp: int | None,
    frees_kind: str,
    token,
    digest: str,
    post_id: int | None = None,
) -> EntryMade:
    """The GM grants potions or healing items, described in the same post (seed line 153)."""

    def check():
        return _checked(
            entry_forms.ItemGrantForm,
            count=count,
            effect=effect,
            restores_hp=restores_hp,
            frees_kind=frees_kind,
        )

    def apply(locked, character, turn, cleaned):
        count, effect = cleaned["count"], cleaned["effect"]
        restores_hp, frees_kind = cleaned["restores_hp"], cleaned["frees_kind"]
        if character.is_stand_in:  # seed line 182: a stand-in carries no equipment
            raise ValidationError(
                {"character": _("An NPC's stand-in sheet carries no items (equipment).")}
            )
        potion = character_services.potion_grant(
            character=character,
            by=by,
            count=count,
            effect=effect,
            restores_hp=restores_hp,
            frees_kind=frees_kind,
            by_entry=True,
        )
        return {
            "potion": {
                "id": potion.pk,
                "count": count,
                "effect": effect,
                "restores_hp": potion.restores_hp,
                "frees_kind": frees_kind,
            }
        }

    return _gm_entry(session, by, token, digest, character_id, "item_grant", check, apply, post_id)


def _action_without_roll(locked, turn, character, extra_action_reason: str, *, field: str):
    """A potion, an item, a spell or an ability used without a roll is the turn's action
    (seed 000 VII.1). In a system that refuses a further action (forum1000) it goes through
    rolls.services.check_turn_action as an action roll does (another one, or one after a
    roll, only with the GM's reason); elsewhere it is refused once the turn's two actions
    are used. In combat it is counted. Returns the record's `action` and the GM's allowance
    (or None)."""
    known = turn_actions(locked, turn, character.pk)
    moves = move_actions_in_turn(turn, character.pk)
    used = min(known.action_rolls, 1) + moves + known.item_uses
    allowed = None
    if registry.system_for(locked.system).refuses_extra_action_rolls:
        try:
            allowed = check_turn_action(
                locked, turn, character.pk, character.name, extra_action_reason
            )
        except RequestError as error:
            raise ValidationError({error.field: refusal_message(None, error)[1]}) from None
    elif not known.in_combat and used >= ACTIONS_PER_TURN:
        raise ValidationError(
            {
                field: _(
                    "%(name)s has no action left in this turn (at most %(limit)s outside "
                    "combat; a potion, an item, a spell or an ability used is one)."
                )
                % {"name": character.name, "limit": ACTIONS_PER_TURN}
            }
        )
    return {"number": used + 1, "in_combat": known.in_combat}, allowed


def _item_use_record(potion: HealingPotion, applied, action, allowed) -> dict:
    """The entry's record: the item as it was, the HP it restored, the effect it freed, how
    many are left, whether the GM applies it (free text), and the action it took."""
    freed = applied.freed
    body = {
        "potion": {
            "id": potion.pk,
            "effect": potion.effect,
            "restores_hp": potion.restores_hp,
            "frees_kind": potion.frees_kind,
        },
        "hp_before": applied.hp_before,
        "hp_after": applied.hp_after,
        "freed_effect": (
            {"id": freed.pk, "kind": freed.kind, "description": freed.description}
            if freed
            else None
        ),
        "left": applied.potion.count,
        "for_gm": not potion.is_structured,
        "action": action,
    }
    if allowed:
        body["extra_action"] = allowed
    return body


def item_use(
    *, session: GameSession, by, potion_id: int, token, digest: str, extra_action_reason=""
) -> EntryMade:
    """A character uses a potion or healing item: an action without a roll (seed line 142),
    counted and refused as `_action_without_roll` says. The structured effect applies at
    once; a free-text one is marked for the GM."""
    with transaction.atomic():
        locked, existing = _lock(session, by, token, digest)
        potion = HealingPotion.objects.select_related("character__owner").filter(pk=potion_id)
        potion = potion.first()
        if potion is None:
            raise ValidationError({"potion": _("This character does not have this item.")})
        character = potion.character
        if not rolls_access.may_use_item(by, locked, character):
            raise PermissionDenied
        if extra_action_reason.strip() and not rolls_access.may_allow_extra_item_use(by, locked):
            raise PermissionDenied
        if existing is not None:
            return EntryMade(existing, created=False)
        character = _target(locked, character.pk)
        turn = current_turn(locked)
        if turn is None:
            raise PermissionDenied
        if potion.count < 1:
            raise ValidationError({"potion": _("No potions of this kind are left.")})
        action, allowed = _action_without_roll(
            locked, turn, character, extra_action_reason, field="potion"
        )
        post = target_post(locked, by, turn, None)
        applied = character_services.potion_use(potion=potion, by=by)
        body = _item_use_record(potion, applied, action, allowed)
        entry = _append(
            locked,
            by,
            kind="item_use",
            character=character,
            turn=turn,
            post=post,
            token=token,
            digest=digest,
            body=body,
        )
    return EntryMade(entry, created=True)


def ability_use(
    *,
    session: GameSession,
    by,
    character_id: int,
    name: str,
    description: str,
    token,
    digest: str,
    extra_action_reason="",
) -> EntryMade:
    """A character uses a spell or ability without a roll (seed 000 VII.1: it is the turn's
    action, counted and refused as `_action_without_roll` says): its owner in their post, or
    the GM for any character. Named and described in words; what it does is the GM's to
    judge, the sheet is not changed."""
    with transaction.atomic():
        locked, existing = _lock(session, by, token, digest)
        if extra_action_reason.strip() and not rolls_access.may_allow_extra_item_use(by, locked):
            raise PermissionDenied
        if existing is not None:
            return EntryMade(existing, created=False)
        cleaned = _checked(entry_forms.AbilityUseForm, name=name, description=description)
        character = _target(locked, character_id)
        if not rolls_access.may_use_item(by, locked, character):
            raise ValidationError(
                {"character": _("You may record actions only for your own character.")}
            )
        turn = current_turn(locked)
        if turn is None:
            raise PermissionDenied
        action, allowed = _action_without_roll(
            locked, turn, character, extra_action_reason, field="character"
        )
        post = target_post(locked, by, turn, None)
        body = {"name": cleaned["name"], "description": cleaned["description"], "action": action}
        if allowed:
            body["extra_action"] = allowed
        entry = _append(
            locked,
            by,
            kind="ability_use",
            character=character,
            turn=turn,
            post=post,
            token=token,
            digest=digest,
            body=body,
        )
    return EntryMade(entry, created=True)
