"""The GM's diary entries called as services, for tests that need a character in
play damaged, affected or given potions: in play the sheet no longer writes these, so the
tests go through the same entries the diary's forms make (rolls.entries.services)."""

import uuid

from characters.models import HealingPotion, NegativeEffect
from rolls.entries import services as entries


def _once() -> dict:
    return {"token": uuid.uuid4(), "digest": "test"}


def hp_entry(session, gm, character, delta: int, reason: str = "Cios"):
    return entries.damage_deal(
        session=session, by=gm, character_id=character.pk, delta=delta, reason=reason, **_once()
    ).entry


def effect_entry(
    session, gm, character, kind: str, description: str, *, length=None, reason="Cios"
) -> NegativeEffect:
    made = entries.effect_apply(
        session=session,
        by=gm,
        character_id=character.pk,
        kind=kind,
        description=description,
        length_turns=length,
        reason=reason,
        **_once(),
    )
    return NegativeEffect.objects.get(pk=made.entry.record["entry"]["effect"]["id"])


def free_entry(session, gm, effect, reason: str = "Ocknął się"):
    return entries.effect_free(
        session=session,
        by=gm,
        character_id=effect.character_id,
        effect_id=effect.pk,
        reason=reason,
        **_once(),
    ).entry


def grant_entry(
    session, gm, character, count: int = 1, effect: str = "+30 PŻ", *, restores_hp=None
) -> HealingPotion:
    made = entries.item_grant(
        session=session,
        by=gm,
        character_id=character.pk,
        count=count,
        effect=effect,
        restores_hp=restores_hp,
        frees_kind="",
        **_once(),
    )
    return HealingPotion.objects.get(pk=made.entry.record["entry"]["potion"]["id"])
