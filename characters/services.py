"""Every write to characters: one transaction each, permission checked inside."""

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from characters import access
from characters.models import (
    AttributeValue,
    Character,
    HealingPotion,
    ItemHolding,
    NegativeEffect,
    SheetRevision,
    SkillLevel,
)
from characters.systems import ATTRIBUTE_RANGE


def _write_sheet(character: Character, values: dict) -> None:
    for attribute, value in values["attributes"].items():
        AttributeValue.objects.update_or_create(
            character=character, attribute=attribute, defaults={"value": value}
        )
    for skill, level in values["skills"].items():
        if level:
            SkillLevel.objects.update_or_create(
                character=character, skill=skill, defaults={"level": level}
            )
        else:
            SkillLevel.objects.filter(character=character, skill=skill).delete()
    for item, quantity in values["items"].items():
        if quantity:
            ItemHolding.objects.update_or_create(
                character=character, item=item, defaults={"quantity": quantity}
            )
        else:
            ItemHolding.objects.filter(character=character, item=item).delete()
    character.traits.set(values["traits"])


def _record_revision(character: Character, by) -> None:
    character = Character.objects.with_values().get(pk=character.pk)
    SheetRevision.objects.create(
        character=character,
        edited_by=by,
        snapshot={
            "name": character.name,
            "hp": [character.hp_current, character.hp_max],
            "attributes": {r.attribute.name: r.value for r in character.attribute_values.all()},
            "skills": {r.skill.name: r.level for r in character.skill_levels.all()},
            "traits": sorted(t.name for t in character.traits.all()),
            "items": {h.item.name: h.quantity for h in character.item_holdings.all()},
        },
    )


def _check_catalog(system: str, values: dict) -> None:
    """Everything on the sheet must come from the character's own system."""
    catalog_rows = [
        *values["attributes"],
        *values["skills"],
        *values["items"],
        *values["traits"],
    ]
    if any(row.system != system for row in catalog_rows):
        raise ValidationError(_("The sheet mixes entries of different rule systems."))
    if values["hp_current"] > values["hp_max"]:
        raise ValidationError({"hp_current": _("Current HP cannot exceed the maximum.")})


@transaction.atomic
def character_create(*, owner, system: str, values: dict) -> Character:
    if not owner.is_authenticated:
        raise PermissionDenied
    if system not in ATTRIBUTE_RANGE:
        raise ValidationError({"system": _("Characters of this rule system cannot be built yet.")})
    _check_catalog(system, values)
    character = Character.objects.create(
        owner=owner,
        system=system,
        name=values["name"],
        description=values["description"],
        hp_max=values["hp_max"],
        hp_current=values["hp_current"],
    )
    _write_sheet(character, values)
    _record_revision(character, owner)
    return character


@transaction.atomic
def character_update(*, character: Character, by, values: dict) -> Character:
    character = Character.objects.select_for_update().get(pk=character.pk)
    if not access.can_edit_character(by, character):
        raise PermissionDenied
    _check_catalog(character.system, values)
    character.name = values["name"]
    character.description = values["description"]
    character.hp_max = values["hp_max"]
    character.hp_current = values["hp_current"]
    character.save()
    _write_sheet(character, values)
    _record_revision(character, by)
    return character


def _locked_for_tending(character: Character, by) -> Character:
    character = Character.objects.select_for_update().get(pk=character.pk)
    if not access.can_tend_character(by, character):
        raise PermissionDenied
    return character


@transaction.atomic
def character_set_hp(*, character: Character, by, hp_current: int) -> Character:
    character = _locked_for_tending(character, by)
    if not 0 <= hp_current <= character.hp_max:
        raise ValidationError({"hp_current": _("HP must be between 0 and the maximum.")})
    character.hp_current = hp_current
    character.save(update_fields=["hp_current", "updated_at"])
    return character


@transaction.atomic
def effect_add(*, character: Character, by, kind: str, description: str) -> NegativeEffect:
    character = _locked_for_tending(character, by)
    return NegativeEffect.objects.create(character=character, kind=kind, description=description)


@transaction.atomic
def effect_free(*, effect: NegativeEffect, by, note: str) -> NegativeEffect:
    _locked_for_tending(effect.character, by)
    effect = NegativeEffect.objects.select_for_update().get(pk=effect.pk)
    if effect.freed_at is not None:
        raise ValidationError(_("This effect is already gone."))
    effect.freed_at = timezone.now()
    effect.freed_note = note
    effect.save(update_fields=["freed_at", "freed_note"])
    return effect


@transaction.atomic
def potion_grant(*, character: Character, by, count: int, effect: str) -> HealingPotion:
    character = Character.objects.select_for_update().get(pk=character.pk)
    if not access.can_grant_potions(by, character):
        raise PermissionDenied
    return HealingPotion.objects.create(character=character, count=count, effect=effect)


@transaction.atomic
def potion_use(*, potion: HealingPotion, by) -> HealingPotion:
    character = Character.objects.select_for_update().get(pk=potion.character_id)
    if not access.can_use_potions(by, character):
        raise PermissionDenied
    potion = HealingPotion.objects.select_for_update().get(pk=potion.pk)
    if potion.count < 1:
        raise ValidationError(_("No potions of this kind are left."))
    potion.count -= 1
    potion.save(update_fields=["count"])
    return potion
