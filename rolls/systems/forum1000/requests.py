"""What forum1000's forms ask for (a request: ids and typed modifiers), and how it becomes
an engine test.

A request names things by id (characters, attributes, skills, abilities, items)
plus the typed-in modifiers. Building the engine test reads the character's
sheet as it is now; the engine then refuses anything the rules refuse
(RuleError) before any die is rolled. The request's canonical form is what the
one-time token is bound to: the same token with another request is refused.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field

from characters.models import Character, Skill
from characters.selectors import system_catalog
from diary.models import NpcMode, NpcModifier
from rolls.engine import forum1000 as f1000
from rolls.engine.errors import RuleError
from rolls.ledger.chain import canonical_json
from rolls.plugins import RequestError

SIDE_TESTS = ("attribute", "combined", "skill")  # the kinds a one-sided request may be


@dataclass(frozen=True)
class GmModifier:
    value: int = 0
    reason: str = ""


@dataclass(frozen=True)
class SideRequest:
    """One character's test: an attribute, two attributes, or a skill, with its modifiers."""

    character_id: int
    test: str  # attribute | combined | skill
    attribute_ids: tuple[int, ...] = ()
    skill_id: int | None = None
    trait_ids: tuple[int, ...] = ()
    item_ids: tuple[int, ...] = ()
    action_value: int = 0
    action_reason: str = ""
    gm_difficulty: GmModifier = field(default_factory=GmModifier)
    gm_bonus: GmModifier = field(default_factory=GmModifier)
    # Mode fixed_modifiers: the targeted NPC's modifier for one interaction.
    npc_modifier_id: int | None = None

    @property
    def uses_gm_modifiers(self) -> bool:
        # An NPC's fixed modifier is a GM difficulty modifier too: the GM's to apply.
        return bool(self.gm_difficulty.value or self.gm_bonus.value or self.npc_modifier_id)


@dataclass(frozen=True)
class InitiativeLine:
    character_id: int
    modifier: int = 0
    reason: str = ""


@dataclass(frozen=True)
class RollRequest:
    """Exactly one of the shapes below, named by `kind`."""

    kind: str  # attribute | combined | skill | opposed | healing | initiative
    a: SideRequest | None = None
    b: SideRequest | None = None
    patient_id: int | None = None
    effect_id: int | None = None
    initiative: tuple[InitiativeLine, ...] = ()

    def digest(self) -> str:
        return hashlib.sha256(canonical_json(asdict(self))).hexdigest()

    @property
    def acting_character_id(self) -> int | None:
        return self.a.character_id if self.a else None

    @property
    def character_ids(self) -> list[int]:
        ids = [side.character_id for side in (self.a, self.b) if side]
        ids += [line.character_id for line in self.initiative]
        if self.patient_id:
            ids.append(self.patient_id)
        return ids

    @property
    def uses_gm_modifiers(self) -> bool:
        return any(side.uses_gm_modifiers for side in (self.a, self.b) if side)

    @property
    def uses_action_modifiers(self) -> bool:
        sides = any(side.action_value for side in (self.a, self.b) if side)
        return sides or any(line.modifier for line in self.initiative)


# ---------------------------------------------------------------------------
# Request → engine test


def _attribute_values(character: Character) -> dict[int, tuple[str, int]]:
    return {
        row.attribute_id: (row.attribute.name, row.value)
        for row in character.attribute_values.all()
    }


def _engine_attribute(character: Character, attribute_id: int, prefix: str) -> f1000.Attribute:
    values = _attribute_values(character)
    if attribute_id not in values:
        raise RequestError(f"{prefix}attribute", "unknown_attribute")
    name, value = values[attribute_id]
    return f1000.Attribute(name, value)


def _source_modifiers(character: Character, side: SideRequest, prefix: str) -> list[f1000.Modifier]:
    """Abilities, flaws and items the player ticked: each must be on this character's sheet."""
    own_traits = {t.pk: t for t in character.traits.all()}
    own_items = {h.item_id: h.item for h in character.item_holdings.all()}
    modifiers = []
    for trait_id in side.trait_ids:
        trait = own_traits.get(trait_id)
        if trait is None:
            raise RequestError(f"{prefix}sources", "not_on_sheet")
        modifiers.append(
            f1000.Modifier(
                value=trait.modifier,
                scope="attribute",
                attribute=trait.attribute.name,
                label=trait.name,
                source=trait.kind,
            )
        )
    if side.item_ids and character.is_stand_in:
        raise RequestError(f"{prefix}sources", "stand_in_items")
    for item_id in side.item_ids:
        item = own_items.get(item_id)
        if item is None or item.attribute is None:
            raise RequestError(f"{prefix}sources", "not_on_sheet")
        modifiers.append(
            f1000.Modifier(
                value=item.modifier,
                scope="attribute",
                attribute=item.attribute.name,
                label=item.name,
                source="item",
            )
        )
    return modifiers


def typed_modifier(value: int, reason: str, fields: tuple[str, str]) -> f1000.Modifier:
    """A modifier a person typed (RULES 1.2): within the site's range, with a reason.

    `fields` name the panel's value and reason fields, where a refusal is shown."""
    if not -f1000.TYPED_MODIFIER_LIMIT <= value <= f1000.TYPED_MODIFIER_LIMIT:
        raise RequestError(fields[0], "typed_modifier_range", limit=f1000.TYPED_MODIFIER_LIMIT)
    if not reason.strip():
        raise RequestError(fields[1], "typed_modifier_reason")
    return f1000.Modifier(value, "action", reason=reason.strip())


def _typed_modifiers(side: SideRequest, prefix: str) -> list[f1000.Modifier]:
    modifiers = []
    if side.action_value:
        modifiers.append(
            typed_modifier(
                side.action_value,
                side.action_reason,
                (f"{prefix}action_value", f"{prefix}action_reason"),
            )
        )
    for scope in ("gm_difficulty", "gm_bonus"):
        gm = getattr(side, scope)
        if not gm.value:
            continue
        # The form asks for it too; this holds for any other caller of roll_make (RULES 1.2).
        if not gm.reason.strip():
            raise RequestError(f"{prefix}{scope}_reason", "gm_modifier_reason")
        modifiers.append(f1000.Modifier(gm.value, scope, reason=gm.reason.strip()))
    return modifiers


@dataclass(frozen=True)
class NpcTarget:
    """The NPC a roll targets and its fixed modifier, as the roll record keeps them."""

    id: int
    name: str
    interaction: str
    value: int
    reason: str

    def modifier(self) -> f1000.Modifier:
        # A GM difficulty modifier, so RULES 1.2's range holds for its sum with the GM's own.
        return f1000.Modifier(
            self.value,
            f1000.Scope.GM_DIFFICULTY,
            reason=f"NPC {self.name}, {self.interaction}: {self.reason}",
        )

    def to_record(self) -> dict:
        return asdict(self)


def npc_target(side: SideRequest | None, session, prefix: str = "a-") -> NpcTarget | None:
    """The side's NPC target in this session (mode fixed_modifiers only), or a refusal."""
    if side is None or not side.npc_modifier_id:
        return None
    field_name = f"{prefix}npc_modifier"
    if session is None or session.npc_mode != NpcMode.FIXED_MODIFIERS:
        raise RequestError(field_name, "npc_mode")
    modifier = (
        NpcModifier.objects.select_related("npc")
        .filter(pk=side.npc_modifier_id, npc__session_id=session.pk)
        .first()
    )
    if modifier is None:
        raise RequestError(field_name, "npc_unknown")
    return NpcTarget(
        id=modifier.npc_id,
        name=modifier.npc.name,
        interaction=modifier.interaction,
        value=modifier.value,
        reason=modifier.reason,
    )


def build_side(
    side: SideRequest,
    characters: dict[int, Character],
    criticals: bool,
    prefix: str = "",
    session=None,
):
    """The engine's single test for one side of the panel; a refusal names its side."""
    try:
        return _build_side(side, characters, criticals, prefix, session)
    except RuleError as error:
        error.field_prefix = prefix  # so the panel puts it next to that side's field
        raise


def _build_side(
    side: SideRequest, characters: dict[int, Character], criticals: bool, prefix: str, session
):
    character = characters.get(side.character_id)
    if character is None:
        raise RequestError(f"{prefix}character", "not_in_session")
    modifiers = tuple(_source_modifiers(character, side, prefix) + _typed_modifiers(side, prefix))
    target = npc_target(side, session, prefix)
    if target is not None:
        modifiers += (target.modifier(),)
    if side.test == "attribute":
        if len(side.attribute_ids) != 1:
            raise RequestError(f"{prefix}attribute", "required")
        attribute = _engine_attribute(character, side.attribute_ids[0], prefix)
        return f1000.AttributeTest(attribute, modifiers, criticals)
    if side.test == "combined":
        if len(side.attribute_ids) != 2 or None in side.attribute_ids:
            raise RequestError(f"{prefix}attribute_2", "required")
        first = _engine_attribute(character, side.attribute_ids[0], prefix)
        second = _engine_attribute(character, side.attribute_ids[1], prefix)
        return f1000.CombinedTest((first, second), modifiers, criticals)
    if side.test == "half_attribute":
        # PvP defence without a fitting skill: a skill roll at level 0 on the attribute.
        if len(side.attribute_ids) != 1:
            raise RequestError(f"{prefix}attribute", "required")
        attribute = _engine_attribute(character, side.attribute_ids[0], prefix)
        return f1000.SkillTest(
            level=0, attribute=attribute, modifiers=modifiers, criticals=criticals
        )
    if side.test == "skill":
        skill = _skill(side.skill_id, character.system, prefix, session)
        attribute = _engine_attribute(character, skill.attribute_id, prefix)
        return f1000.SkillTest(
            level=character.skill_level(skill.pk),
            attribute=attribute,
            modifiers=modifiers,
            criticals=criticals,
            skill=skill.name,
        )
    raise RequestError(f"{prefix}test", "required")


def _skill(skill_id: int | None, system: str, prefix: str, session=None) -> Skill:
    """The catalog's skill: from the catalogs cached under the version read with the session
    (the panel's and the roll's session row carry it), else read."""
    version = getattr(session, "catalog_version", None)
    if not skill_id:
        skill = None
    elif version is not None:
        skill = next((s for s in system_catalog(system, version).skills if s.pk == skill_id), None)
    else:
        skill = Skill.objects.select_related("attribute").filter(pk=skill_id, system=system).first()
    if skill is None:
        raise RequestError(f"{prefix}skill", "required")
    return skill


def build_test(
    request: RollRequest, characters: dict[int, Character], criticals: bool, session=None
):
    """The engine test for a whole request; RequestError or RuleError if it cannot be made.

    `session` is needed only for an NPC target."""
    if request.kind in SIDE_TESTS:
        return build_side(request.a, characters, criticals, "a-", session)
    for prefix, side in (("a-", request.a), ("b-", request.b)):
        # An NPC's fixed modifier targets a single, combined or skill roll (PvE: no defence).
        if side is not None and side.npc_modifier_id:
            raise RequestError(f"{prefix}npc_modifier", "npc_kind")
    if request.kind == "opposed":
        return f1000.OpposedTest(
            build_side(request.a, characters, criticals, "a-"),
            build_side(request.b, characters, criticals, "b-"),
        )
    if request.kind == "healing":
        skill_test = build_side(request.a, characters, criticals, "a-")
        patient = characters.get(request.patient_id)
        if patient is None:
            raise RequestError("patient", "not_in_session")
        return f1000.HealingTest(skill_test, patient.hp_current, patient.hp_max)
    if request.kind == "initiative":
        entries = []
        for line in request.initiative:
            character = characters.get(line.character_id)
            if character is None:
                raise RequestError("initiative", "not_in_session")
            speed = _speed(character)
            modifiers = (
                (
                    typed_modifier(
                        line.modifier,
                        line.reason,
                        (f"mod_{line.character_id}", f"why_{line.character_id}"),
                    ),
                )
                if line.modifier
                else ()
            )
            entries.append(f1000.InitiativeEntry(character.name, speed, modifiers))
        if not entries:
            raise RequestError("initiative", "no_characters")
        return f1000.InitiativeTest(tuple(entries), criticals)
    raise RequestError("kind", "required")


def _speed(character: Character) -> int:
    speed = character.value_of(f1000.SPEED_ATTRIBUTE)
    if speed is not None:
        return speed
    raise RuleError(
        "no_speed", f"{character.name} has no {f1000.SPEED_ATTRIBUTE}", name=character.name
    )
