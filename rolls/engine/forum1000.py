"""forum1000: the game's own d1000 roll-under system (RULES.md §1).

One d1000 against a threshold built from an attribute, a skill level and
modifiers. Thresholds are exact fractions (combined and skill tests halve) and
are floored only at the end, because a roll is an integer: `roll ≤ t` ⇔
`roll ≤ floor(t)`.

Inputs are frozen dataclasses that validate themselves on construction, so an
invalid test cannot exist and no die is ever rolled for one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from typing import Any, ClassVar

from rolls.engine.common import (
    decimal_string,
    fraction_string,
    notes_dict,
    read,
    require_bool,
    require_instances,
    require_int,
    require_name,
    require_notes,
    require_tuple,
)
from rolls.engine.dice import DiceSource
from rolls.engine.errors import RuleError

SYSTEM = "forum1000"
DIE_FACES = (1, 1000)
CRITICAL_LUCK_MAX = 50  # roll ≤ 50: krytyczne szczęście
CRITICAL_BAD_LUCK_MIN = 950  # roll ≥ 950: krytyczny pech
POINTS_PER_SKILL_LEVEL = 40
SPEED_ATTRIBUTE = "Szybkość"  # initiative is a test on this attribute (RULES 1.4)
GM_STEP = 50
HALF = Fraction(1, 2)
WHOLE = Fraction(1)


class Scope(StrEnum):
    ATTRIBUTE = "attribute"  # ability, flaw or item tied to one attribute
    ACTION = "action"  # tied to the specific action, e.g. +50 to dodge
    GM_DIFFICULTY = "gm_difficulty"
    GM_BONUS = "gm_bonus"


# The largest absolute value of each GM scope (RULES 1.2).
GM_LIMITS = {Scope.GM_DIFFICULTY: 500, Scope.GM_BONUS: 300}
# The largest absolute value of a modifier a person types in (an `action` modifier,
# an initiative modifier; RULES 1.2). The engine takes any integer: the site enforces it.
TYPED_MODIFIER_LIMIT = 500


class Critical(StrEnum):
    LUCK = "luck"
    BAD_LUCK = "bad_luck"


class Winner(StrEnum):
    A = "a"
    B = "b"
    DRAW = "draw"
    NONE = "none"  # both failed: the attempt is annulled


# ---------------------------------------------------------------------------
# Inputs


@dataclass(frozen=True)
class Attribute:
    name: str
    value: int

    def __post_init__(self) -> None:
        require_name(self.name, "attribute name")
        require_int(self.value, "attribute value")
        if self.value < 0:
            raise RuleError(
                "negative_attribute",
                f"attribute {self.name} cannot be negative (got {self.value})",
                attribute=self.name,
                value=self.value,
            )

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value}


@dataclass(frozen=True)
class Modifier:
    """One modifier with its scope; `label`, `reason`, `source` are shown, never interpreted."""

    value: int
    scope: Scope
    attribute: str | None = None
    label: str | None = None
    reason: str | None = None
    source: str | None = None

    def __post_init__(self) -> None:
        require_int(self.value, "modifier value")
        require_notes(self)
        object.__setattr__(self, "scope", _scope(self.scope))
        if self.scope is Scope.ATTRIBUTE:
            if self.attribute is None:
                raise RuleError(
                    "attribute_modifier_without_attribute",
                    "an attribute-scope modifier must name its attribute",
                )
            require_name(self.attribute, "modifier attribute")
        elif self.attribute is not None:
            raise RuleError(
                "unexpected_modifier_attribute",
                f"a {self.scope} modifier is not tied to an attribute (got {self.attribute!r}); "
                "use scope 'attribute' for abilities, flaws and items of one attribute",
                scope=str(self.scope),
                attribute=str(self.attribute),
            )
        if self.scope in GM_LIMITS:
            _check_gm_value(self.scope, self.value)

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "scope": str(self.scope),
            "attribute": self.attribute,
            **notes_dict(self),
        }


def _scope(value: object) -> Scope:
    try:
        return Scope(value)
    except ValueError:
        raise RuleError(
            "unknown_scope",
            f"unknown modifier scope {value!r}; expected one of "
            + ", ".join(scope.value for scope in Scope),
            scope=str(value),
        ) from None


def _check_gm_value(scope: Scope, value: int) -> None:
    limit = GM_LIMITS[scope]
    if value % GM_STEP:
        raise RuleError(
            "gm_modifier_step",
            f"a GM modifier ({scope}) must be a multiple of {GM_STEP}, got {value}",
            scope=str(scope),
            value=value,
            step=GM_STEP,
        )
    if not -limit <= value <= limit:
        raise RuleError(
            "gm_modifier_range",
            f"a GM modifier ({scope}) must lie in -{limit}..+{limit}, got {value}",
            scope=str(scope),
            value=value,
            min=-limit,
            max=limit,
        )


def _check_modifiers(modifiers: tuple[Modifier, ...], tested: tuple[str, ...]) -> None:
    """Attribute modifiers must belong to a tested attribute; each GM scope stays in its range."""
    for modifier in modifiers:
        if modifier.scope is Scope.ATTRIBUTE and modifier.attribute not in tested:
            raise RuleError(
                "foreign_attribute_modifier",
                f"a modifier of {modifier.attribute} cannot be used in a test of "
                f"{' or '.join(tested)}",
                modifier_attribute=modifier.attribute,
                tested_attributes=list(tested),
            )
    for scope, limit in GM_LIMITS.items():
        total = sum(m.value for m in modifiers if m.scope is scope)
        if not -limit <= total <= limit:
            raise RuleError(
                "gm_modifier_total_range",
                f"the GM modifiers of scope {scope} add up to {total}, outside -{limit}..+{limit}",
                scope=str(scope),
                total=total,
                min=-limit,
                max=limit,
            )


def _modifiers(values: object) -> tuple[Modifier, ...]:
    modifiers = require_tuple(values, "modifiers")
    require_instances(modifiers, Modifier, "modifiers")
    return modifiers


@dataclass(frozen=True)
class AttributeTest:
    """Rzut na cechę: `A + Σattribute + Σaction + Σgm`."""

    kind: ClassVar[str] = "attribute"
    attribute: Attribute
    modifiers: tuple[Modifier, ...] = ()
    criticals: bool = True

    def __post_init__(self) -> None:
        require_instances((self.attribute,), Attribute, "attribute")
        object.__setattr__(self, "modifiers", _modifiers(self.modifiers))
        require_bool(self.criticals, "criticals")
        _check_modifiers(self.modifiers, (self.attribute.name,))

    def to_input(self) -> dict[str, Any]:
        return {
            "attribute": self.attribute.to_dict(),
            "modifiers": [m.to_dict() for m in self.modifiers],
            "criticals": self.criticals,
        }


@dataclass(frozen=True)
class CombinedTest:
    """Rzut łączony: one d1000 against `(A + B)/2 + Σattribute/2 + Σaction + Σgm`."""

    kind: ClassVar[str] = "combined"
    attributes: tuple[Attribute, Attribute]
    modifiers: tuple[Modifier, ...] = ()
    criticals: bool = True

    def __post_init__(self) -> None:
        attributes = require_tuple(self.attributes, "attributes")
        require_instances(attributes, Attribute, "attributes")
        if len(attributes) != 2:
            raise RuleError(
                "attribute_count",
                f"a combined test needs exactly 2 attributes, got {len(attributes)}",
                expected=2,
                given=len(attributes),
            )
        first, second = attributes
        if first.name == second.name:
            raise RuleError(
                "same_attribute_twice",
                f"a combined test needs two different attributes, got {first.name} twice",
                attribute=first.name,
            )
        object.__setattr__(self, "attributes", attributes)
        object.__setattr__(self, "modifiers", _modifiers(self.modifiers))
        require_bool(self.criticals, "criticals")
        _check_modifiers(self.modifiers, (first.name, second.name))

    def to_input(self) -> dict[str, Any]:
        return {
            "attributes": [a.to_dict() for a in self.attributes],
            "modifiers": [m.to_dict() for m in self.modifiers],
            "criticals": self.criticals,
        }


@dataclass(frozen=True)
class SkillTest:
    """Rzut na umiejętność: `40·L + A/2 + Σattribute/2 + Σaction + Σgm`.

    `skill` is the skill's name, shown only; L = 0 for an undeveloped skill.
    """

    kind: ClassVar[str] = "skill"
    level: int
    attribute: Attribute
    modifiers: tuple[Modifier, ...] = ()
    criticals: bool = True
    skill: str | None = None

    def __post_init__(self) -> None:
        require_int(self.level, "level")
        if self.level < 0:
            raise RuleError(
                "negative_level",
                f"a skill level cannot be negative (got {self.level})",
                level=self.level,
            )
        require_instances((self.attribute,), Attribute, "attribute")
        if self.skill is not None:
            require_name(self.skill, "skill")
        object.__setattr__(self, "modifiers", _modifiers(self.modifiers))
        require_bool(self.criticals, "criticals")
        _check_modifiers(self.modifiers, (self.attribute.name,))

    def to_input(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "attribute": self.attribute.to_dict(),
            "skill": self.skill,
            "modifiers": [m.to_dict() for m in self.modifiers],
            "criticals": self.criticals,
        }


SingleTest = AttributeTest | CombinedTest | SkillTest
SINGLE_TESTS = (AttributeTest, CombinedTest, SkillTest)


def _require_single(test: object, field_name: str) -> None:
    if not isinstance(test, SINGLE_TESTS):
        raise RuleError(
            "not_a_single_test",
            f"{field_name} must be an attribute, combined or skill test, got {test!r}",
            field=field_name,
        )


@dataclass(frozen=True)
class OpposedTest:
    """Rzut przeciwstawny, also PvP defence: `a` is the initiator, `b` the other side."""

    kind: ClassVar[str] = "opposed"
    a: SingleTest
    b: SingleTest

    def __post_init__(self) -> None:
        _require_single(self.a, "a")
        _require_single(self.b, "b")

    def to_input(self) -> dict[str, Any]:
        return {
            "a": {"test": self.a.kind, **self.a.to_input()},
            "b": {"test": self.b.kind, **self.b.to_input()},
        }


@dataclass(frozen=True)
class InitiativeEntry:
    """One character's initiative: a single test on Szybkość with its own modifiers."""

    name: str
    speed: int
    modifiers: tuple[Modifier, ...] = ()

    def __post_init__(self) -> None:
        require_name(self.name, "character name")
        object.__setattr__(self, "modifiers", _modifiers(self.modifiers))

    def test(self, criticals: bool) -> AttributeTest:
        return AttributeTest(Attribute(SPEED_ATTRIBUTE, self.speed), self.modifiers, criticals)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "speed": self.speed,
            "modifiers": [m.to_dict() for m in self.modifiers],
        }


@dataclass(frozen=True)
class InitiativeTest:
    """Rzut na inicjatywę for every character of an event; dice are rolled in this order."""

    kind: ClassVar[str] = "initiative"
    characters: tuple[InitiativeEntry, ...]
    criticals: bool = True
    tests: tuple[AttributeTest, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        characters = require_tuple(self.characters, "characters")
        require_instances(characters, InitiativeEntry, "characters")
        require_bool(self.criticals, "criticals")
        if not characters:
            raise RuleError("no_characters", "an initiative roll needs at least one character")
        seen: set[str] = set()
        for entry in characters:
            if entry.name in seen:
                raise RuleError(
                    "duplicate_character",
                    f"{entry.name} appears twice in the initiative roll",
                    name=entry.name,
                )
            seen.add(entry.name)
        object.__setattr__(self, "characters", characters)
        # Validates each speed and modifier list as a test of Szybkość.
        object.__setattr__(self, "tests", tuple(c.test(self.criticals) for c in characters))

    def to_input(self) -> dict[str, Any]:
        return {"characters": [c.to_dict() for c in self.characters], "criticals": self.criticals}


@dataclass(frozen=True)
class HealingTest:
    """Leczenie with a skill (RULES 1.6): a skill test plus the patient's HP before it."""

    kind: ClassVar[str] = "healing"
    skill: SkillTest
    hp: int
    max_hp: int

    def __post_init__(self) -> None:
        require_instances((self.skill,), SkillTest, "skill")
        require_int(self.hp, "hp")
        require_int(self.max_hp, "max_hp")
        if self.max_hp < 1:
            raise RuleError(
                "max_hp_not_positive",
                f"maximum HP must be at least 1, got {self.max_hp}",
                max_hp=self.max_hp,
            )
        if self.hp < 0:
            raise RuleError("negative_hp", f"HP cannot be negative, got {self.hp}", hp=self.hp)
        if self.hp > self.max_hp:
            raise RuleError(
                "hp_above_max",
                f"HP {self.hp} is above the maximum {self.max_hp}",
                hp=self.hp,
                max_hp=self.max_hp,
            )

    def to_input(self) -> dict[str, Any]:
        return {**self.skill.to_input(), "hp": self.hp, "max_hp": self.max_hp}


Test = SingleTest | OpposedTest | InitiativeTest | HealingTest


# ---------------------------------------------------------------------------
# Thresholds


@dataclass(frozen=True)
class Term:
    """One line of a threshold breakdown: `value × weight` is its contribution."""

    kind: str  # "attribute", "skill_level" or "modifier"
    value: int
    weight: Fraction
    name: str | None = None  # the attribute's name
    level: int | None = None
    modifier: Modifier | None = None

    @property
    def contribution(self) -> Fraction:
        return self.value * self.weight

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind}
        if self.kind == "attribute":
            data["name"] = self.name
        elif self.kind == "skill_level":
            data["level"] = self.level
            data["points_per_level"] = POINTS_PER_SKILL_LEVEL
        elif self.modifier is not None:
            data.update(self.modifier.to_dict())
        data["value"] = self.value
        data["weight"] = str(self.weight)
        data["contribution"] = decimal_string(self.contribution)
        return data


@dataclass(frozen=True)
class Threshold:
    """The exact threshold, its floor (what the roll is compared with) and every term."""

    exact: Fraction
    value: int
    terms: tuple[Term, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "exact": decimal_string(self.exact),
            "terms": [term.to_dict() for term in self.terms],
        }


def _modifier_terms(modifiers: tuple[Modifier, ...], attribute_weight: Fraction) -> list[Term]:
    # Attribute-scope modifiers follow the attribute's weight (halved in combined
    # and skill tests); action and GM modifiers always count in full.
    return [
        Term(
            "modifier",
            m.value,
            attribute_weight if m.scope is Scope.ATTRIBUTE else WHOLE,
            modifier=m,
        )
        for m in modifiers
    ]


def threshold(test: SingleTest | HealingTest) -> Threshold:
    """The threshold and its breakdown, without rolling (the roll panel's preview)."""
    if isinstance(test, HealingTest):
        test = test.skill
    if isinstance(test, AttributeTest):
        terms = [Term("attribute", test.attribute.value, WHOLE, name=test.attribute.name)]
        terms += _modifier_terms(test.modifiers, WHOLE)
    elif isinstance(test, CombinedTest):
        terms = [Term("attribute", a.value, HALF, name=a.name) for a in test.attributes]
        terms += _modifier_terms(test.modifiers, HALF)
    elif isinstance(test, SkillTest):
        terms = [
            Term("skill_level", POINTS_PER_SKILL_LEVEL * test.level, WHOLE, level=test.level),
            Term("attribute", test.attribute.value, HALF, name=test.attribute.name),
        ]
        terms += _modifier_terms(test.modifiers, HALF)
    else:
        raise TypeError(f"no threshold for {test!r}")
    exact = sum((term.contribution for term in terms), Fraction(0))
    return Threshold(exact=exact, value=math.floor(exact), terms=tuple(terms))


def skill_base_threshold(level: int, attribute_value: int) -> int:
    """A skill's threshold without modifiers, `floor(40·L + A/2)` (shown on the character sheet)."""
    test = SkillTest(level, Attribute("attribute", attribute_value))
    return threshold(test).value


def movement_metres(speed: int) -> tuple[int, int]:
    """Metres per move action (RULES 1.5): on foot `Szybkość/20`, mounted `Szybkość/10`, floored."""
    require_int(speed, "speed")
    return speed // 20, speed // 10


MOVE_ACTIONS_PER_TURN = 2  # RULES 1.5: two actions a turn, so at most two moves


def move_actions(metres: int, speed: int, mounted: bool) -> int:
    """How many move actions (RULES 1.5) covering `metres` takes: ceil(metres / per action),
    0 for no movement. ValueError when the character cannot move at all that way (a
    Szybkość under 20 on foot, under 10 mounted)."""
    require_int(metres, "metres")
    if metres < 0:
        raise ValueError("metres must not be negative")
    if metres == 0:
        return 0
    on_foot, on_mount = movement_metres(speed)
    per_action = on_mount if mounted else on_foot
    if per_action <= 0:
        raise ValueError("no movement per action at this speed")
    return -(-metres // per_action)


# ---------------------------------------------------------------------------
# Evaluating one roll


def percent(threshold_value: int, roll: int) -> int:
    """How clear the result was, 0..100: |distance| over the room on that side, rounded half up."""
    distance = threshold_value - roll
    denominator = threshold_value if distance >= 0 else 1000 - threshold_value
    # round_half_up(100·|d|/den) = floor((200·|d| + den) / (2·den)), in integers.
    return (200 * abs(distance) + denominator) // (2 * denominator)


def critical(roll: int, criticals: bool) -> Critical | None:
    """The critical flag; hidden (None) in sessions with criticals off."""
    if not criticals:
        return None
    if roll <= CRITICAL_LUCK_MAX:
        return Critical.LUCK
    if roll >= CRITICAL_BAD_LUCK_MIN:
        return Critical.BAD_LUCK
    return None


@dataclass(frozen=True)
class TestResult:
    __test__: ClassVar[bool] = False  # not a pytest class

    test: SingleTest
    threshold: Threshold
    roll: int
    success: bool
    distance: int
    percent: int
    critical: Critical | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": SYSTEM,
            "test": self.test.kind,
            "input": self.test.to_input(),
            "threshold": self.threshold.value,
            "threshold_exact": decimal_string(self.threshold.exact),
            "breakdown": [term.to_dict() for term in self.threshold.terms],
            "dice": [self.roll],
            "roll": self.roll,
            "success": self.success,
            "outcome": "success" if self.success else "failure",
            "distance": self.distance,
            "percent": self.percent,
            "critical": None if self.critical is None else str(self.critical),
            "criticals": self.test.criticals,
        }


def evaluate(test: SingleTest, roll: int) -> TestResult:
    """The result of `test` for a given face (no dice involved)."""
    limit = threshold(test)
    distance = limit.value - roll
    return TestResult(
        test=test,
        threshold=limit,
        roll=roll,
        success=distance >= 0,
        distance=distance,
        percent=percent(limit.value, roll),
        critical=critical(roll, test.criticals),
    )


def roll_single(test: SingleTest, dice: DiceSource) -> TestResult:
    return evaluate(test, dice.roll(*DIE_FACES))


# ---------------------------------------------------------------------------
# Opposed rolls


def verdict(a: TestResult, b: TestResult) -> Winner:
    """RULES 1.3: larger distance among successes wins; one success wins; two failures: nobody."""
    if a.success and b.success:
        if a.distance == b.distance:
            return Winner.DRAW
        return Winner.A if a.distance > b.distance else Winner.B
    if a.success:
        return Winner.A
    if b.success:
        return Winner.B
    return Winner.NONE


@dataclass(frozen=True)
class OpposedResult:
    test: OpposedTest
    a: TestResult
    b: TestResult
    winner: Winner

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": SYSTEM,
            "test": OpposedTest.kind,
            "input": self.test.to_input(),
            "dice": [self.a.roll, self.b.roll],
            "a": self.a.to_dict(),
            "b": self.b.to_dict(),
            "winner": str(self.winner),
        }


def roll_opposed(test: OpposedTest, dice: DiceSource) -> OpposedResult:
    a = roll_single(test.a, dice)
    b = roll_single(test.b, dice)
    return OpposedResult(test=test, a=a, b=b, winner=verdict(a, b))


# ---------------------------------------------------------------------------
# Initiative

# Polish alphabetical order for the last tie-break (plain code points would put
# "Ćma" after "Zofia").
_POLISH_ALPHABET = "aąbcćdeęfghijklłmnńoópqrsśtuvwxyzźż"
_POLISH_RANK = {letter: rank for rank, letter in enumerate(_POLISH_ALPHABET)}


def polish_sort_key(name: str) -> tuple[tuple[tuple[int, int], ...], str]:
    """Case-insensitive Polish order; punctuation and digits first, other scripts last."""

    def rank(char: str) -> tuple[int, int]:
        if char in _POLISH_RANK:
            return (1, _POLISH_RANK[char])
        return (2 if char.isalpha() else 0, ord(char))

    return tuple(rank(char) for char in name.casefold()), name


@dataclass(frozen=True)
class InitiativeRoll:
    entry: InitiativeEntry
    result: TestResult

    @property
    def score(self) -> int:
        return self.result.distance


def initiative_order(rolls: tuple[InitiativeRoll, ...]) -> tuple[str, ...]:
    """Highest score first; ties: higher raw Szybkość, then the name in Polish order."""
    ranked = sorted(rolls, key=lambda r: (-r.score, -r.entry.speed, polish_sort_key(r.entry.name)))
    return tuple(r.entry.name for r in ranked)


@dataclass(frozen=True)
class InitiativeResult:
    test: InitiativeTest
    rolls: tuple[InitiativeRoll, ...]
    order: tuple[str, ...]

    @property
    def scores(self) -> dict[str, int]:
        return {r.entry.name: r.score for r in self.rolls}

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": SYSTEM,
            "test": InitiativeTest.kind,
            "input": self.test.to_input(),
            "dice": [r.result.roll for r in self.rolls],
            "entries": [
                {
                    "name": r.entry.name,
                    "speed": r.entry.speed,
                    "score": r.score,
                    "result": r.result.to_dict(),
                }
                for r in self.rolls
            ],
            "order": list(self.order),
            "scores": self.scores,
        }


def roll_initiative(test: InitiativeTest, dice: DiceSource) -> InitiativeResult:
    rolls = tuple(
        InitiativeRoll(entry, roll_single(single, dice))
        for entry, single in zip(test.characters, test.tests, strict=True)
    )
    return InitiativeResult(test=test, rolls=rolls, order=initiative_order(rolls))


# ---------------------------------------------------------------------------
# Healing


@dataclass(frozen=True)
class HealingEffect:
    restored: int  # the distance, on a success
    critical_bonus: int  # floor(HP/10) on critical luck with a success
    critical_loss: int  # floor(HP/10) on critical bad luck
    hp_after: int
    frees_effect: bool


def healing_effect(test: HealingTest, result: TestResult) -> HealingEffect:
    """RULES 1.6. `result.critical` is already None when criticals are off."""
    tenth = test.hp // 10
    loss = tenth if result.critical is Critical.BAD_LUCK else 0
    if not result.success:
        return HealingEffect(0, 0, loss, test.hp - loss, frees_effect=False)
    bonus = tenth if result.critical is Critical.LUCK else 0
    hp_after = min(test.max_hp, test.hp - loss + result.distance + bonus)
    return HealingEffect(result.distance, bonus, loss, hp_after, frees_effect=True)


@dataclass(frozen=True)
class HealingResult:
    test: HealingTest
    result: TestResult
    effect: HealingEffect

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.result.to_dict(),
            "test": HealingTest.kind,
            "input": self.test.to_input(),
            "hp": self.test.hp,
            "max_hp": self.test.max_hp,
            "restored": self.effect.restored,
            "critical_bonus": self.effect.critical_bonus,
            "critical_loss": self.effect.critical_loss,
            "hp_after": self.effect.hp_after,
            "hp_change": self.effect.hp_after - self.test.hp,
            "frees_effect": self.effect.frees_effect,
        }


def roll_healing(test: HealingTest, dice: DiceSource) -> HealingResult:
    result = roll_single(test.skill, dice)
    return HealingResult(test=test, result=result, effect=healing_effect(test, result))


# ---------------------------------------------------------------------------
# Any test

Result = TestResult | OpposedResult | InitiativeResult | HealingResult


def roll(test: Test, dice: DiceSource) -> Result:
    if isinstance(test, SINGLE_TESTS):
        return roll_single(test, dice)
    if isinstance(test, OpposedTest):
        return roll_opposed(test, dice)
    if isinstance(test, InitiativeTest):
        return roll_initiative(test, dice)
    if isinstance(test, HealingTest):
        return roll_healing(test, dice)
    raise TypeError(f"not a forum1000 test: {test!r}")


# ---------------------------------------------------------------------------
# Exact probabilities


def success_probability(threshold_value: int) -> Fraction:
    """P(d1000 ≤ t): every face 1..1000 is equally likely."""
    return Fraction(min(max(threshold_value, 0), 1000), 1000)


@dataclass(frozen=True)
class OpposedOdds:
    a: Fraction  # the initiator wins
    draw: Fraction
    b: Fraction
    none: Fraction  # both fail

    def to_dict(self) -> dict[str, str]:
        return {
            "a": fraction_string(self.a),
            "draw": fraction_string(self.draw),
            "b": fraction_string(self.b),
            "none": fraction_string(self.none),
        }


def _success_distances(threshold_value: int) -> range:
    """The distances of all successful faces: t−1, t−2, …, t−min(t, 1000), each 1/1000 likely."""
    successes = min(max(threshold_value, 0), 1000)
    return range(threshold_value - successes, threshold_value)


def _pairs_greater(first: range, second: range) -> int:
    """#{(x, y) : x ∈ first, y ∈ second, x > y} for two runs of consecutive integers, in O(1)."""
    if not first or not second:
        return 0
    # For each x the count is clamp(x − second.start, 0, len(second)); sum it piecewise.
    low, high = second.start, second.stop  # y in [low, high)
    count = 0
    # x ≤ low contributes 0; low < x ≤ high contributes x − low; x > high contributes len.
    ramp = range(max(first.start, low + 1), min(first.stop, high + 1))
    if ramp:
        count += (ramp.start + ramp.stop - 1 - 2 * low) * len(ramp) // 2
    full = range(max(first.start, high + 1), first.stop)
    count += len(full) * len(second)
    return count


def _overlap(first: range, second: range) -> int:
    return max(0, min(first.stop, second.stop) - max(first.start, second.start))


def opposed_odds(test: OpposedTest) -> OpposedOdds:
    """Exact P(a wins), P(draw), P(b wins), P(nobody), from the two distance ranges."""
    a = _success_distances(threshold(test.a).value)
    b = _success_distances(threshold(test.b).value)
    a_fails, b_fails = 1000 - len(a), 1000 - len(b)
    total = 1000 * 1000
    return OpposedOdds(
        a=Fraction(len(a) * b_fails + _pairs_greater(a, b), total),
        draw=Fraction(_overlap(a, b), total),
        b=Fraction(len(b) * a_fails + _pairs_greater(b, a), total),
        none=Fraction(a_fails * b_fails, total),
    )


def probability(test: Test) -> Fraction:
    """The chance that the test succeeds; for an opposed test, that the initiator `a` wins."""
    if isinstance(test, (*SINGLE_TESTS, HealingTest)):
        return success_probability(threshold(test).value)
    if isinstance(test, OpposedTest):
        return opposed_odds(test).a
    raise RuleError(
        "no_probability",
        f"a {test.kind} roll has no single success probability",
        test=test.kind,
    )


# ---------------------------------------------------------------------------
# Reading the vector / ledger input format


def _read_attribute(data: object) -> Attribute:
    if not isinstance(data, Mapping):
        raise RuleError(
            "invalid_input",
            f"an attribute must be an object with name and value, got {data!r}",
            field="attribute",
            expected="object",
        )
    return Attribute(read(data, "name"), read(data, "value"))


def _read_modifier(data: object) -> Modifier:
    if not isinstance(data, Mapping):
        raise RuleError(
            "invalid_input",
            f"a modifier must be an object with value and scope, got {data!r}",
            field="modifiers",
            expected="object",
        )
    return Modifier(
        value=read(data, "value"),
        scope=read(data, "scope"),
        attribute=data.get("attribute"),
        label=data.get("label"),
        reason=data.get("reason"),
        source=data.get("source"),
    )


def _read_modifiers(data: Mapping[str, Any]) -> tuple[Modifier, ...]:
    return tuple(
        _read_modifier(item) for item in require_tuple(read(data, "modifiers", []), "modifiers")
    )


def _read_single(kind: str, data: Mapping[str, Any], criticals: bool) -> SingleTest:
    criticals = read(data, "criticals", criticals)
    if kind == "attribute":
        return AttributeTest(
            _read_attribute(read(data, "attribute")), _read_modifiers(data), criticals
        )
    if kind == "combined":
        attributes = require_tuple(read(data, "attributes"), "attributes")
        return CombinedTest(
            tuple(_read_attribute(a) for a in attributes), _read_modifiers(data), criticals
        )
    if kind == "skill":
        return SkillTest(
            level=read(data, "level"),
            attribute=_read_attribute(read(data, "attribute")),
            modifiers=_read_modifiers(data),
            criticals=criticals,
            skill=data.get("skill"),
        )
    raise RuleError(
        "unknown_test",
        f"forum1000 has no {kind!r} test here; expected attribute, combined or skill",
        system=SYSTEM,
        test=str(kind),
    )


def parse_test(kind: str, data: Mapping[str, Any]) -> Test:
    """Build a test from its JSON input (the conformance-vector format, also `to_input()`)."""
    if not isinstance(data, Mapping):
        raise RuleError(
            "invalid_input", "the input must be an object", field="input", expected="object"
        )
    criticals = read(data, "criticals", True)
    if kind in ("attribute", "combined", "skill"):
        return _read_single(kind, data, criticals)
    if kind == "opposed":
        sides = [read(data, side) for side in ("a", "b")]
        a, b = (_read_single(read(side, "test"), side, criticals) for side in sides)
        return OpposedTest(a, b)
    if kind == "initiative":
        entries = tuple(
            InitiativeEntry(read(c, "name"), read(c, "speed"), _read_modifiers(c))
            for c in require_tuple(read(data, "characters"), "characters")
        )
        return InitiativeTest(entries, criticals)
    if kind == "healing":
        skill = _read_single("skill", data, criticals)
        return HealingTest(skill, read(data, "hp"), read(data, "max_hp"))
    raise RuleError(
        "unknown_test", f"forum1000 has no {kind!r} test", system=SYSTEM, test=str(kind)
    )
