"""Reads for character pages: the sheet with its derived numbers."""

from dataclasses import dataclass

from characters.models import Character, Skill, Trait
from characters.systems import SPEED_ATTRIBUTE, RuleSystem


@dataclass(frozen=True)
class SkillRow:
    skill: Skill
    level: int
    attribute_value: int
    threshold: int | None  # forum1000: what a roll must not exceed, before modifiers


@dataclass(frozen=True)
class Sheet:
    character: Character
    attributes: list  # AttributeValue rows, in catalog order
    skills: list[SkillRow]
    abilities: list[Trait]
    flaws: list[Trait]
    movement_on_foot: int | None
    movement_mounted: int | None


def characters_of(user):
    return Character.objects.owned_by(user).order_by("name")


def character_with_sheet(pk: int) -> Character:
    return Character.objects.with_sheet().get(pk=pk)


def sheet_for(character: Character) -> Sheet:
    """The sheet as shown: every catalog skill (level 0 when undeveloped) and derived numbers."""
    from rolls.engine import forum1000  # the engine is pure; characters may use it

    values_by_attribute = {row.attribute_id: row.value for row in character.attribute_values.all()}
    skills = []
    for skill in Skill.objects.filter(system=character.system).select_related("attribute"):
        level = character.skill_level(skill.pk)
        value = values_by_attribute.get(skill.attribute_id, 0)
        threshold = (
            forum1000.skill_base_threshold(level, value)
            if character.system == RuleSystem.FORUM1000
            else None
        )
        skills.append(SkillRow(skill, level, value, threshold))
    traits = list(character.traits.all())
    speed = character.value_of(SPEED_ATTRIBUTE)
    on_foot = mounted = None
    if character.system == RuleSystem.FORUM1000 and speed is not None:
        on_foot, mounted = forum1000.movement_metres(speed)
    return Sheet(
        character=character,
        attributes=list(character.attribute_values.all()),
        skills=skills,
        abilities=[t for t in traits if t.kind == "ability"],
        flaws=[t for t in traits if t.kind == "flaw"],
        movement_on_foot=on_foot,
        movement_mounted=mounted,
    )


@dataclass(frozen=True)
class SheetChange:
    revision: object  # SheetRevision
    changes: list[tuple[str, object, object]]  # (what, before, after)


def sheet_history(character: Character) -> list[SheetChange]:
    """Each saved version of the sheet with what it changed against the one before."""
    revisions = list(character.revisions.select_related("edited_by").order_by("edited_at", "id"))
    history, previous = [], {}
    for revision in revisions:
        now = _flatten(revision.snapshot)
        keys = sorted(set(previous) | set(now)) if previous else []
        changes = [(k, previous.get(k), now.get(k)) for k in keys if previous.get(k) != now.get(k)]
        history.append(SheetChange(revision, changes))
        previous = now
    return list(reversed(history))


def _flatten(snapshot: dict) -> dict[str, object]:
    flat: dict[str, object] = {"name": snapshot["name"], "HP": "/".join(map(str, snapshot["hp"]))}
    for group in ("attributes", "skills", "items"):
        flat.update(snapshot[group])
    flat["traits"] = ", ".join(snapshot["traits"])
    return flat
