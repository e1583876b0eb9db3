"""Every write to characters: one transaction each, permission checked inside."""

from dataclasses import dataclass

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _

from characters import access, selectors
from characters.models import (
    NOTE_MAX,
    Attribute,
    AttributeValue,
    Character,
    GrammaticalGender,
    HealingPotion,
    Item,
    ItemHolding,
    NegativeEffect,
    ProposalStatus,
    SheetChangeKind,
    SheetProposal,
    SheetRevision,
    Skill,
    SkillLevel,
    Trait,
)
from characters.systems import (
    ATTRIBUTE_RANGE,
    KEEP_MODIFIER_RANGE,
    MODIFIER_RANGE,
    SKILL_LEVEL_RANGE,
    range_message,
)


def _locked(pk: int, by, flag: str) -> access.CharacterAccess:
    """The character's row, locked for this transaction, if `by` may do `flag` with it."""
    try:
        found = access.access_character(by, pk, lock=True)
    except Http404:
        raise PermissionDenied from None
    if not getattr(found, flag):
        raise PermissionDenied
    return found


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


def _record_revision(
    character: Character, by, *, kind: str, note: str = "", proposal=None
) -> SheetRevision:
    character = Character.objects.with_sheet().get(pk=character.pk)
    return SheetRevision.objects.create(
        character=character,
        edited_by=by,
        kind=kind,
        note=note[:NOTE_MAX],
        proposal=proposal,
        snapshot=selectors.sheet_snapshot(character),
    )


def sheet_record_change(
    *, character: Character, by, note: str, kind: str = SheetChangeKind.OTHER
) -> SheetRevision:
    """Record a change another app made to the sheet (e.g. a healing roll's HP and freed
    effect), in the caller's transaction, so the sheet's history has every change."""
    return _record_revision(character, by, kind=kind, note=note)


def check_ranges(system: str, values: dict) -> None:
    """Attribute values and skill levels within the system's ranges (characters.systems),
    each refusal named after its form field (`attr_<id>`, `skill_<id>`)."""
    low, high = ATTRIBUTE_RANGE[system]
    level_low, level_high = SKILL_LEVEL_RANGE[system]
    errors = {}
    for attribute, value in values["attributes"].items():
        if not low <= value <= high:
            errors[f"attr_{attribute.pk}"] = range_message(low, high)
    for skill, level in values["skills"].items():
        if not level_low <= level <= level_high:
            errors[f"skill_{skill.pk}"] = range_message(level_low, level_high)
    if errors:
        raise ValidationError(errors)


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
    check_ranges(system, values)
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
        grammatical_gender=values.get("grammatical_gender") or GrammaticalGender.MASCULINE,
        hp_max=values["hp_max"],
        hp_current=values["hp_current"],
    )
    _write_sheet(character, values)
    _record_revision(character, owner, kind=SheetChangeKind.CREATED)
    return character


@transaction.atomic
def character_update(*, character: Character, by, values: dict) -> Character:
    """The owner's direct edit, out of play only (in play it is a proposal)."""
    character = _locked(character.pk, by, "can_edit").character
    _check_catalog(character.system, values)
    _apply_sheet(character, values)
    # A proposal left from play (no GM decides it any more) gives way to the owner's edit.
    _supersede_pending(character)
    _record_revision(character, by, kind=SheetChangeKind.EDITED)
    return character


def check_stand_in_items(character: Character, items) -> None:
    """Mode gm_character: a stand-in sheet carries no items (seed line 182)."""
    held = sorted(item.name for item, quantity in items if quantity)
    if character.is_stand_in and held:
        raise ValidationError(
            _("An NPC's stand-in sheet carries no items (equipment): remove %(items)s.")
            % {"items": ", ".join(held)}
        )


def _apply_sheet(character: Character, values: dict) -> None:
    """The one sheet-writing path: direct edits and approved proposals both go through it."""
    check_stand_in_items(character, values["items"].items())
    character.name = values["name"]
    character.description = values["description"]
    character.grammatical_gender = values.get("grammatical_gender") or character.grammatical_gender
    character.hp_max = values["hp_max"]
    character.hp_current = values["hp_current"]
    character.save()
    _write_sheet(character, values)


# ---------------------------------------------------------------------------
# Proposals: the owner's edits while the character plays in a running session
# ---------------------------------------------------------------------------


def _proposal_values(values: dict) -> dict:
    """Form values (catalog rows) as JSON: catalog ids and numbers."""
    return {
        "name": values["name"],
        "description": values["description"],
        "grammatical_gender": values.get("grammatical_gender") or "",
        "hp_max": values["hp_max"],
        "attributes": {str(a.pk): v for a, v in values["attributes"].items()},
        "skills": {str(s.pk): v for s, v in values["skills"].items()},
        "traits": sorted(t.pk for t in values["traits"]),
        "items": {str(i.pk): q for i, q in values["items"].items()},
    }


def _supersede_pending(character: Character) -> None:
    SheetProposal.objects.filter(character=character, status=ProposalStatus.PENDING).update(
        status=ProposalStatus.SUPERSEDED, decided_at=timezone.now()
    )


def _check_hp_max(character: Character, hp_max: int) -> None:
    if hp_max < character.hp_current:
        raise ValidationError(
            {
                "hp_max": _("The maximum HP (%(max)s) would be below the current HP (%(current)s).")
                % {"max": hp_max, "current": character.hp_current}
            }
        )


@transaction.atomic
def sheet_proposal_create(*, character: Character, by, values: dict) -> SheetProposal:
    """The owner proposes a new sheet; it replaces their pending proposal, if any."""
    character = _locked(character.pk, by, "can_propose").character
    _check_hp_max(character, values["hp_max"])
    _check_catalog(character.system, {**values, "hp_current": character.hp_current})
    proposed = _proposal_values(values)
    current = Character.objects.with_values().get(pk=character.pk)
    if not selectors.proposal_changes(current, proposed):
        raise ValidationError(_("The proposal changes nothing on the sheet."))
    _supersede_pending(character)
    return SheetProposal.objects.create(character=character, proposed_by=by, values=proposed)


def _resolve_proposal(character: Character, proposed: dict) -> dict:
    """Back from ids to catalog rows, re-checked against today's catalog and ranges."""
    system = character.system
    stale = ValidationError(
        _("The catalog has changed since this proposal was made; ask the player to send it again.")
    )

    def rows(model, ids):
        found = model.objects.filter(system=system, pk__in=[int(i) for i in ids]).in_bulk()
        if len(found) != len(set(ids)):
            raise stale
        return found

    attributes = rows(Attribute, proposed["attributes"])
    skills = rows(Skill, proposed["skills"])
    items = rows(Item, proposed["items"])
    traits = rows(Trait, proposed["traits"])
    low, high = ATTRIBUTE_RANGE[system]
    level_low, level_high = SKILL_LEVEL_RANGE[system]
    values = {
        "name": proposed["name"],
        "description": proposed["description"],
        # A proposal from before sheets had a grammatical gender keeps the sheet's.
        "grammatical_gender": proposed.get("grammatical_gender") or character.grammatical_gender,
        "hp_max": proposed["hp_max"],
        "hp_current": character.hp_current,  # in play, current HP stays the GM's
        "attributes": {attributes[int(k)]: v for k, v in proposed["attributes"].items()},
        "skills": {skills[int(k)]: v for k, v in proposed["skills"].items()},
        "items": {items[int(k)]: q for k, q in proposed["items"].items()},
        "traits": list(traits.values()),
    }
    if any(not low <= v <= high for v in values["attributes"].values()) or any(
        not level_low <= v <= level_high for v in values["skills"].values()
    ):
        raise stale
    _check_hp_max(character, values["hp_max"])
    return values


@transaction.atomic
def sheet_proposal_decide(
    *, proposal: SheetProposal, by, approve: bool, comment: str = ""
) -> SheetProposal:
    """The GM of the running session approves (the sheet changes, a revision says who
    proposed and who approved) or rejects (nothing changes)."""
    character = _locked(proposal.character_id, by, "can_decide_proposal").character
    proposal = SheetProposal.objects.select_for_update().get(pk=proposal.pk)
    if proposal.status != ProposalStatus.PENDING:
        raise ValidationError(_("This proposal has already been decided or replaced."))
    if approve:
        _apply_sheet(character, _resolve_proposal(character, proposal.values))
    proposal.status = ProposalStatus.APPROVED if approve else ProposalStatus.REJECTED
    proposal.decided_by = by
    proposal.decided_at = timezone.now()
    proposal.comment = comment
    proposal.save(update_fields=["status", "decided_by", "decided_at", "comment"])
    if approve:
        _record_revision(
            character, by, kind=SheetChangeKind.PROPOSAL, note=comment, proposal=proposal
        )
    return proposal


# ---------------------------------------------------------------------------
# Tending: HP, negative effects, potions; each change lands in the history
# ---------------------------------------------------------------------------


def _locked_for_tending(character: Character, by, *, by_entry: bool = False) -> Character:
    """The sheet's own writes check `can_tend` (the owner, out of play); the writes behind a
    diary entry (rolls.entries.services, in the entry's transaction) check `can_tend_by_entry`: in
    play, HP and effects change only as entries of the session's chain."""
    flag = "can_tend_by_entry" if by_entry else "can_tend"
    return _locked(character.pk, by, flag).character


@transaction.atomic
def character_set_hp(*, character: Character, by, hp_current: int) -> Character:
    character = _locked_for_tending(character, by)
    if not 0 <= hp_current <= character.hp_max:
        raise ValidationError({"hp_current": _("HP must be between 0 and the maximum.")})
    character.hp_current = hp_current
    character.save(update_fields=["hp_current", "updated_at"])
    _record_revision(character, by, kind=SheetChangeKind.HP)
    return character


@transaction.atomic
def effect_add(
    *,
    character: Character,
    by,
    kind: str,
    description: str,
    began_in_session: int | None = None,
    began_turn: int | None = None,
    length_turns: int | None = None,
) -> NegativeEffect:
    """An effect on the sheet (no turn, lasts until freed) or, from a diary entry, one that
    began in a session's turn and may last `length_turns` turns."""
    character = _locked_for_tending(character, by, by_entry=began_in_session is not None)
    if length_turns is not None and (began_turn is None or began_in_session is None):
        raise ValidationError(
            {"length_turns": _("A length in turns needs the session turn the effect begins in.")}
        )
    effect = NegativeEffect.objects.create(
        character=character,
        kind=kind,
        description=description,
        began_in_session=began_in_session,
        began_turn=began_turn,
        length_turns=length_turns,
    )
    _record_revision(character, by, kind=SheetChangeKind.EFFECT_ADDED, note=description)
    return effect


def effects_end_by_turn(*, session_id: int, turn_number: int, by) -> list:
    """In the caller's transaction (the GM opening turn `turn_number`): every effect
    that began in this session and whose length ran out (began in t, length N,
    t+N <= turn_number) ends by itself, with a note and a line in its sheet's history."""
    effects = list(
        NegativeEffect.objects.select_for_update()
        .filter(
            began_in_session=session_id,
            freed_at__isnull=True,
            length_turns__isnull=False,
        )
        .order_by("character_id", "id")
    )
    ended = [e for e in effects if e.ends_at_turn <= turn_number]
    now = timezone.now()
    for effect in ended:
        effect.freed_at = now
        effect.ended_by_itself = True
        effect.freed_note = _("Ended by itself when turn %(number)s opened") % {
            "number": effect.ends_at_turn
        }
        effect.save(update_fields=["freed_at", "ended_by_itself", "freed_note"])
    for character_id in sorted({e.character_id for e in ended}):
        mine = [e.description for e in ended if e.character_id == character_id]
        _record_revision(
            Character(pk=character_id),
            by,
            kind=SheetChangeKind.EFFECT_ENDED,
            note=_("Turn %(number)s: %(effects)s")
            % {"number": turn_number, "effects": "; ".join(mine)},
        )
    return ended


@transaction.atomic
def character_change_hp(*, character: Character, by, delta: int, note: str) -> tuple[int, int]:
    """A diary entry: damage (delta < 0) or restored HP, kept within 0..max; the
    history says why. Returns (HP before, HP after)."""
    character = _locked_for_tending(character, by, by_entry=True)
    before = character.hp_current
    character.hp_current = min(character.hp_max, max(0, before + delta))
    character.save(update_fields=["hp_current", "updated_at"])
    _record_revision(character, by, kind=SheetChangeKind.DAMAGE, note=note)
    return before, character.hp_current


@transaction.atomic
def effect_free(*, effect: NegativeEffect, by, note: str, by_entry: bool = False) -> NegativeEffect:
    """Free an effect early, with a note: on the sheet (the owner, out of play) or behind the
    diary's entry (`by_entry`)."""
    character = _locked_for_tending(effect.character, by, by_entry=by_entry)
    effect = NegativeEffect.objects.select_for_update().get(pk=effect.pk)
    if effect.freed_at is not None:
        raise ValidationError(_("This effect is already gone."))
    effect.freed_at = timezone.now()
    effect.freed_note = note
    effect.save(update_fields=["freed_at", "freed_note"])
    _record_revision(
        character,
        by,
        kind=SheetChangeKind.EFFECT_FREED,
        note=f"{effect.description}: {note}" if note else effect.description,
    )
    return effect


@transaction.atomic
def potion_grant(
    *,
    character: Character,
    by,
    count: int,
    effect: str,
    restores_hp: int | None = None,
    frees_kind: str = "",
    by_entry: bool = False,
) -> HealingPotion:
    """Potions granted: in play only behind the diary's entry (`by_entry`, the GM's post)."""
    flag = "can_grant_potions" if by_entry else "can_grant_potions_on_sheet"
    character = _locked(character.pk, by, flag).character
    potion = HealingPotion.objects.create(
        character=character,
        count=count,
        effect=effect,
        restores_hp=restores_hp or None,
        frees_kind=frees_kind,
    )
    _record_revision(character, by, kind=SheetChangeKind.POTION_GRANTED, note=f"{count}× {effect}")
    return potion


@dataclass(frozen=True)
class PotionUsed:
    potion: HealingPotion
    hp_before: int
    hp_after: int
    freed: NegativeEffect | None


@transaction.atomic
def potion_use(*, potion: HealingPotion, by) -> PotionUsed:
    """One potion (or healing item) less; its structured effect applies at once, without a
    roll (seed 000 line 143): HP restored up to the maximum, and the oldest active effect of
    its kind freed. A free-text effect is the GM's to apply."""
    character = _locked(potion.character_id, by, "can_use_potions").character
    potion = HealingPotion.objects.select_for_update().get(pk=potion.pk)
    if potion.count < 1:
        raise ValidationError(_("No potions of this kind are left."))
    potion.count -= 1
    potion.save(update_fields=["count"])
    before = character.hp_current
    if potion.restores_hp:
        character.hp_current = min(character.hp_max, before + potion.restores_hp)
        character.save(update_fields=["hp_current", "updated_at"])
    freed = None
    if potion.frees_kind:
        freed = (
            NegativeEffect.objects.select_for_update()
            .filter(character=character, kind=potion.frees_kind, freed_at__isnull=True)
            .order_by("created_at", "id")
            .first()
        )
        if freed is not None:
            freed.freed_at = timezone.now()
            freed.freed_note = _("Freed by: %(effect)s") % {"effect": potion.effect}
            freed.save(update_fields=["freed_at", "freed_note"])
    _record_revision(character, by, kind=SheetChangeKind.POTION_USED, note=potion.effect)
    return PotionUsed(potion, before, character.hp_current, freed)


# ---------------------------------------------------------------------------
# Catalogs: moderators extend them in the site
# ---------------------------------------------------------------------------

# The fields a row in use keeps (as the admin's `rule_fields`): changing one would change
# every holder's sheet with no sheet revision.
CATALOG_RULE_FIELDS = {
    Attribute: ("system", "name", "position"),
    Skill: ("system", "name", "attribute_id", "heals"),
    Trait: ("system", "kind", "name", "attribute_id", "modifier", "keep_modifier", "rerolls"),
    Item: (
        "system",
        "name",
        "attribute_id",
        "modifier",
        "keep_modifier",
        "rerolls",
        "is_mount",
    ),
}


def _check_catalog_values(entry, values: dict) -> None:
    attribute = values.get("attribute")
    if attribute is not None and attribute.system != entry.system:
        raise ValidationError({"attribute": _("The attribute belongs to another rule system.")})
    for name, (low, high) in (
        ("modifier", MODIFIER_RANGE[entry.system]),
        ("keep_modifier", KEEP_MODIFIER_RANGE),
    ):
        value = getattr(entry, name, 0)
        if not low <= value <= high:
            raise ValidationError({name: range_message(low, high)})


@transaction.atomic
def catalog_entry_create(*, by, model, system: str, values: dict):
    """A new catalog row of `model` (Attribute, Skill, Trait, Item) in `system`."""
    if not access.catalog_access(by).can_edit:
        raise PermissionDenied
    if system not in ATTRIBUTE_RANGE:
        raise ValidationError(_("Unknown rule system."))
    entry = model(system=system, **values)
    _check_catalog_values(entry, values)
    if model.objects.filter(system=system, name__iexact=entry.name).exists():
        raise ValidationError(
            {"name": _("This rule system's catalog already has an entry of this name.")}
        )
    entry.full_clean()
    entry.save()
    return entry


@transaction.atomic
def catalog_entry_update(*, by, entry, values: dict):
    """Change a catalog row; a row in use on a sheet keeps its rule fields (the admin's
    rule), its description stays editable. Rows are never deleted."""
    if not access.catalog_access(by).can_edit:
        raise PermissionDenied
    model = type(entry)
    entry = model.objects.select_for_update().get(pk=entry.pk)
    before = {name: getattr(entry, name) for name in CATALOG_RULE_FIELDS[model]}
    for name, value in values.items():
        setattr(entry, name, value)
    _check_catalog_values(entry, values)
    changed = [n for n, v in before.items() if getattr(entry, n) != v]
    if changed and selectors.catalog_entry_in_use(model.objects.get(pk=entry.pk)):
        field = changed[0].removesuffix("_id")
        raise ValidationError(
            {field: _("This entry is in use on a character sheet: its rules cannot change.")}
        )
    taken = model.objects.filter(system=entry.system, name__iexact=entry.name).exclude(pk=entry.pk)
    if taken.exists():
        raise ValidationError(
            {"name": _("This rule system's catalog already has an entry of this name.")}
        )
    entry.full_clean()
    entry.save()
    return entry


# ---------------------------------------------------------------------------
# Portraits. The file is checked and re-encoded by the form
# (characters/portraits.py); these only store, replace and remove it.
# ---------------------------------------------------------------------------


def character_portrait_set(*, character_pk: int, by, portrait) -> Character:
    """Store a checked portrait; the file it replaces is deleted once the row is saved."""
    from characters.portraits import portrait_store

    with transaction.atomic():
        checked = access.access_character(by, character_pk, lock=True)
        if not checked.can_set_portrait:
            raise PermissionDenied
        character = checked.character
        portrait_store(character, portrait)
    return character


def character_portrait_remove(*, character_pk: int, by) -> Character:
    from characters.portraits import portrait_clear

    with transaction.atomic():
        checked = access.access_character(by, character_pk, lock=True)
        if not checked.can_remove_portrait:
            raise PermissionDenied
        character = checked.character
        portrait_clear(character)
    return character
