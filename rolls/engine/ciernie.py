"""ciernie: Ciernie i Gwiazdy, d20 roll-under (RULES.md §3).

One d20 against a threshold; 1 always succeeds and 20 always fails whenever a
roll is allowed. Attribute, combined, comparative and effect tests need a
threshold ≥ 1 to be rolled at all; skill tests are decided by the level
difference instead (±3 or more: automatic success / impossible, no roll), and
have a delay band of three faces above the threshold.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Any, ClassVar

from rolls.engine.common import (
    Adjustment,
    adjustments,
    read,
    read_adjustments,
    require_int,
    require_optional_text,
    require_tuple,
)
from rolls.engine.dice import DiceSource
from rolls.engine.errors import RuleError

SYSTEM = "ciernie"
DIE_FACES = (1, 20)
CRITICAL_SUCCESS_FACE = 1
CRITICAL_FAILURE_FACE = 20
COMPARATIVE_BASE = 10
POINTS_PER_LEVEL = 3  # per level of skill − factor, and per extra reroll source
AUTOMATIC_DIFFERENCE = 3  # skill − factor ≥ 3: automatic success; ≤ −3: impossible
DELAY_BAND = 3

# Difficulty levels are plain threshold modifiers (seed 002).
DIFFICULTY_LEVELS = {
    12: "skrajnie łatwy",
    9: "bardzo łatwy",
    6: "łatwy",
    3: "prosty",
    0: "zwykły",
    -3: "wymagający",
    -6: "trudny",
    -9: "bardzo trudny",
    -12: "skrajnie trudny",
}


class Outcome(StrEnum):
    CRITICAL_SUCCESS = "critical_success"
    SUCCESS = "success"
    DELAY = "delay"  # skill tests: succeeds, but takes longer
    FAILURE = "failure"
    CRITICAL_FAILURE = "critical_failure"
    AUTOMATIC_SUCCESS = "automatic_success"  # no roll
    IMPOSSIBLE = "impossible"  # no roll


SUCCEEDS = frozenset(
    {Outcome.CRITICAL_SUCCESS, Outcome.SUCCESS, Outcome.DELAY, Outcome.AUTOMATIC_SUCCESS}
)
REROLLABLE = frozenset({Outcome.FAILURE, Outcome.CRITICAL_FAILURE})  # a delay is not a failure


def _attribute(value: object, name: str = "attribute") -> int:
    require_int(value, name)
    if value < 0:  # type: ignore[operator]
        raise RuleError(
            "negative_attribute",
            f"an attribute cannot be negative (got {value})",
            attribute=name,
            value=value,
        )
    return value  # type: ignore[return-value]


def _attributes(values: object) -> tuple[int, ...]:
    attributes = require_tuple(values, "attributes")
    if len(attributes) < 2:
        raise RuleError(
            "attribute_count",
            f"a combined test needs at least 2 attributes, got {len(attributes)}",
            expected=2,
            given=len(attributes),
        )
    return tuple(_attribute(value, "attributes") for value in attributes)


def _mean_floor(values: tuple[int, ...]) -> int:
    return sum(values) // len(values)


# ---------------------------------------------------------------------------
# Inputs


@dataclass(frozen=True)
class AttributeTest:
    kind: ClassVar[str] = "attribute"
    attribute: int
    modifiers: tuple[Adjustment, ...] = ()

    def __post_init__(self) -> None:
        _attribute(self.attribute)
        object.__setattr__(self, "modifiers", adjustments(self.modifiers, "modifiers"))

    def to_input(self) -> dict[str, Any]:
        return {"attribute": self.attribute, "modifiers": [m.to_dict() for m in self.modifiers]}


@dataclass(frozen=True)
class CombinedTest:
    """The tested value is the mean of two or more attributes, floored."""

    kind: ClassVar[str] = "combined"
    attributes: tuple[int, ...]
    modifiers: tuple[Adjustment, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "attributes", _attributes(self.attributes))
        object.__setattr__(self, "modifiers", adjustments(self.modifiers, "modifiers"))

    def to_input(self) -> dict[str, Any]:
        return {
            "attributes": list(self.attributes),
            "modifiers": [m.to_dict() for m in self.modifiers],
        }


@dataclass(frozen=True)
class ComparativeTest:
    """Test porównawczy: threshold `10 + (own − opposing)` + modifiers.

    `own` and `opposing` already include each side's own modifiers, so either may be negative.
    """

    kind: ClassVar[str] = "comparative"
    own: int
    opposing: int
    modifiers: tuple[Adjustment, ...] = ()
    # Each side's own modifiers (its skill, its sheet's abilities and items): they add to
    # its value before the two are compared, so the opposing side's count against the roller.
    own_modifiers: tuple[Adjustment, ...] = ()
    opposing_modifiers: tuple[Adjustment, ...] = ()

    def __post_init__(self) -> None:
        require_int(self.own, "own")
        require_int(self.opposing, "opposing")
        object.__setattr__(self, "modifiers", adjustments(self.modifiers, "modifiers"))
        for name in ("own_modifiers", "opposing_modifiers"):
            object.__setattr__(self, name, adjustments(getattr(self, name), name))

    @property
    def own_value(self) -> int:
        return self.own + sum(m.value for m in self.own_modifiers)

    @property
    def opposing_value(self) -> int:
        return self.opposing + sum(m.value for m in self.opposing_modifiers)

    def to_input(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "own": self.own,
            "opposing": self.opposing,
            "modifiers": [m.to_dict() for m in self.modifiers],
        }
        # Only when there are any: a record without them reads (and hashes) as before.
        for name in ("own_modifiers", "opposing_modifiers"):
            if getattr(self, name):
                data[name] = [m.to_dict() for m in getattr(self, name)]
        return data


@dataclass(frozen=True)
class EffectTest:
    """Test efektu: a failure makes the effect last `max(1, roll − threshold)` units of `unit`."""

    kind: ClassVar[str] = "effect"
    attribute: int
    modifiers: tuple[Adjustment, ...] = ()
    unit: str | None = None  # e.g. "tura", shown only

    def __post_init__(self) -> None:
        _attribute(self.attribute)
        object.__setattr__(self, "modifiers", adjustments(self.modifiers, "modifiers"))
        require_optional_text(self.unit, "unit")

    def to_input(self) -> dict[str, Any]:
        return {
            "attribute": self.attribute,
            "modifiers": [m.to_dict() for m in self.modifiers],
            "unit": self.unit,
        }


@dataclass(frozen=True)
class SkillTest:
    """Threshold = attribute (or floored mean of `attributes`) + 3·(skill − factor) + modifiers."""

    kind: ClassVar[str] = "skill"
    skill: int
    factor: int
    modifiers: tuple[Adjustment, ...] = ()
    attribute: int | None = None
    attributes: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if (self.attribute is None) == (self.attributes is None):
            raise RuleError(
                "skill_attribute_shape",
                "a skill test needs either one attribute or a list of attributes",
            )
        if self.attribute is not None:
            _attribute(self.attribute)
        else:
            object.__setattr__(self, "attributes", _attributes(self.attributes))
        require_int(self.skill, "skill")
        if self.skill < 0:
            raise RuleError(
                "negative_level",
                f"a skill level cannot be negative (got {self.skill})",
                level=self.skill,
            )
        require_int(self.factor, "factor")
        if self.factor < 0:
            raise RuleError(
                "negative_factor",
                f"the tested factor cannot be negative (got {self.factor})",
                factor=self.factor,
            )
        object.__setattr__(self, "modifiers", adjustments(self.modifiers, "modifiers"))

    @property
    def difference(self) -> int:
        return self.skill - self.factor

    def to_input(self) -> dict[str, Any]:
        tested: dict[str, Any] = (
            {"attribute": self.attribute}
            if self.attribute is not None
            else {"attributes": list(self.attributes or ())}
        )
        return {
            **tested,
            "skill": self.skill,
            "factor": self.factor,
            "modifiers": [m.to_dict() for m in self.modifiers],
        }


BaseTest = AttributeTest | CombinedTest | ComparativeTest | EffectTest | SkillTest
BASE_TESTS = (AttributeTest, CombinedTest, ComparativeTest, EffectTest, SkillTest)


@dataclass(frozen=True)
class RerollTest:
    """Przerzut: roll `base`; on a failure roll once more, the threshold +3 per extra source."""

    kind: ClassVar[str] = "reroll"
    base: BaseTest
    reroll_sources: int

    def __post_init__(self) -> None:
        if isinstance(self.base, RerollTest):
            raise RuleError("reroll_of_reroll", "a roll can be rerolled only once")
        if not isinstance(self.base, BASE_TESTS):
            raise RuleError(
                "invalid_input",
                f"a reroll needs a test to reroll, got {self.base!r}",
                field="base",
                expected="test",
            )
        require_int(self.reroll_sources, "reroll_sources")
        if self.reroll_sources < 1:
            raise RuleError(
                "no_reroll_sources",
                f"a reroll needs at least one reroll source (got {self.reroll_sources})",
                reroll_sources=self.reroll_sources,
            )

    @property
    def bonus(self) -> int:
        return POINTS_PER_LEVEL * (self.reroll_sources - 1)

    def to_input(self) -> dict[str, Any]:
        return {
            "base": {"test": self.base.kind, **self.base.to_input()},
            "reroll_sources": self.reroll_sources,
        }


@dataclass(frozen=True)
class LinkedReroll:
    """Przerzut chosen after the roll: a roll of its own, made once the first roll (another
    record, which stays as it was) has failed. `first_roll` is that roll's face, so this
    record shows both and proves the first was a failure; the threshold gets +3 per extra
    source, as in `RerollTest`."""

    kind: ClassVar[str] = "reroll_of"
    base: BaseTest
    reroll_sources: int
    first_roll: int

    def __post_init__(self) -> None:
        if not isinstance(self.base, BASE_TESTS):
            raise RuleError(
                "invalid_input",
                f"a reroll needs a test to reroll, got {self.base!r}",
                field="base",
                expected="test",
            )
        RerollTest(self.base, self.reroll_sources)  # the same refusals (k ≥ 1)
        require_int(self.first_roll, "first_roll")
        low, high = DIE_FACES
        if not low <= self.first_roll <= high or roll_allowed(
            self.base, threshold(self.base).value
        ):
            raise RuleError(
                "not_rerollable",
                f"{self.first_roll} is not a roll of this test",
                first_roll=self.first_roll,
            )
        if self.first.outcome not in REROLLABLE:
            raise RuleError(
                "not_rerollable",
                f"only a failed roll is rerolled (the first was {self.first.outcome})",
                outcome=str(self.first.outcome),
            )

    @property
    def first(self) -> CiernieResult:
        return evaluate(self.base, self.first_roll)

    def to_input(self) -> dict[str, Any]:
        return {
            "base": {"test": self.base.kind, **self.base.to_input()},
            "reroll_sources": self.reroll_sources,
            "first_roll": self.first_roll,
        }


Test = BaseTest | RerollTest | LinkedReroll


# ---------------------------------------------------------------------------
# Thresholds


@dataclass(frozen=True)
class Threshold:
    value: int
    terms: tuple[dict[str, Any], ...]  # each with "kind" and its integer "value"

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "terms": [dict(term) for term in self.terms]}


def _modifier_terms(modifiers: tuple[Adjustment, ...]) -> list[dict[str, Any]]:
    return [{"kind": "modifier", **m.to_dict()} for m in modifiers]


def _tested_terms(
    attribute: int | None, attributes: tuple[int, ...] | None
) -> list[dict[str, Any]]:
    if attribute is not None:
        return [{"kind": "attribute", "value": attribute}]
    assert attributes is not None
    return [{"kind": "mean", "attributes": list(attributes), "value": _mean_floor(attributes)}]


def threshold(test: BaseTest, reroll_sources: int | None = None) -> Threshold:
    """The threshold and its terms; `reroll_sources` adds the reroll's +3 per extra source."""
    if isinstance(test, AttributeTest | EffectTest):
        terms = _tested_terms(test.attribute, None)
    elif isinstance(test, CombinedTest):
        terms = _tested_terms(None, test.attributes)
    elif isinstance(test, ComparativeTest):
        terms = [
            {"kind": "base", "value": COMPARATIVE_BASE},
            {"kind": "own", "value": test.own},
            *({"kind": "own_modifier", **m.to_dict()} for m in test.own_modifiers),
            {"kind": "opposing", "value": -test.opposing},
            *(
                {"kind": "opposing_modifier", **m.to_dict(), "value": -m.value}
                for m in test.opposing_modifiers
            ),
        ]
    elif isinstance(test, SkillTest):
        terms = _tested_terms(test.attribute, test.attributes)
        terms.append(
            {
                "kind": "skill",
                "skill": test.skill,
                "factor": test.factor,
                "value": POINTS_PER_LEVEL * test.difference,
            }
        )
    else:
        raise TypeError(f"no threshold for {test!r}")
    terms += _modifier_terms(test.modifiers)
    if reroll_sources is not None:
        terms.append(
            {
                "kind": "reroll_sources",
                "sources": reroll_sources,
                "value": POINTS_PER_LEVEL * (reroll_sources - 1),
            }
        )
    return Threshold(sum(term["value"] for term in terms), tuple(terms))


def roll_allowed(test: BaseTest, limit: int) -> Outcome | None:
    """None when a die is rolled, else the outcome decided without one."""
    if isinstance(test, SkillTest):
        if test.difference >= AUTOMATIC_DIFFERENCE:
            return Outcome.AUTOMATIC_SUCCESS
        if test.difference <= -AUTOMATIC_DIFFERENCE:
            return Outcome.IMPOSSIBLE
        return None  # the level difference alone decides; see docs/rules.md
    return Outcome.IMPOSSIBLE if limit < 1 else None


def classify(roll: int, limit: int, delay_band: bool) -> Outcome:
    if roll == CRITICAL_SUCCESS_FACE:
        return Outcome.CRITICAL_SUCCESS
    if roll == CRITICAL_FAILURE_FACE:
        return Outcome.CRITICAL_FAILURE
    if roll <= limit:
        return Outcome.SUCCESS
    if delay_band and roll <= limit + DELAY_BAND:
        return Outcome.DELAY
    return Outcome.FAILURE


# ---------------------------------------------------------------------------
# Results


@dataclass(frozen=True)
class CiernieResult:
    test: BaseTest
    threshold: Threshold
    roll: int | None
    outcome: Outcome

    @property
    def success(self) -> bool:
        return self.outcome in SUCCEEDS

    @property
    def duration(self) -> int | None:
        """Effect tests: units the effect lasts; 0 when resisted, None when the GM sets it."""
        if self.outcome is Outcome.IMPOSSIBLE:
            return None
        if self.success:
            return 0
        assert self.roll is not None
        return max(1, self.roll - self.threshold.value)

    @property
    def time_multiplier(self) -> int | None:
        """Skill tests: how many times the normal time it takes; None when it does not succeed."""
        if self.outcome is Outcome.DELAY:
            assert self.roll is not None
            return 1 + self.roll - self.threshold.value
        return 1 if self.success else None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "system": SYSTEM,
            "test": self.test.kind,
            "input": self.test.to_input(),
            "threshold": self.threshold.value,
            "breakdown": self.threshold.to_dict()["terms"],
            "dice": [] if self.roll is None else [self.roll],
            "roll": self.roll,
            "outcome": str(self.outcome),
            "success": self.success,
        }
        if isinstance(self.test, EffectTest):
            data["duration"] = self.duration
            data["unit"] = self.test.unit
        if isinstance(self.test, SkillTest):
            data["time_multiplier"] = self.time_multiplier
        return data


def evaluate(test: BaseTest, roll: int | None, reroll_sources: int | None = None) -> CiernieResult:
    limit = threshold(test, reroll_sources)
    decided = roll_allowed(test, limit.value)
    if decided is not None:
        if roll is not None:
            raise ValueError(f"{test!r} is decided without a roll, yet got {roll}")
        return CiernieResult(test, limit, None, decided)
    if roll is None:
        raise ValueError(f"{test!r} needs a roll")
    return CiernieResult(
        test, limit, roll, classify(roll, limit.value, isinstance(test, SkillTest))
    )


def _roll_base(
    test: BaseTest, dice: DiceSource, reroll_sources: int | None = None
) -> CiernieResult:
    limit = threshold(test, reroll_sources)
    if roll_allowed(test, limit.value) is not None:
        return evaluate(test, None, reroll_sources)
    return evaluate(test, dice.roll(*DIE_FACES), reroll_sources)


@dataclass(frozen=True)
class RerollResult:
    test: RerollTest
    first: CiernieResult
    second: CiernieResult | None

    @property
    def deciding(self) -> CiernieResult:
        return self.second if self.second is not None else self.first

    @property
    def outcome(self) -> Outcome:
        return self.deciding.outcome

    @property
    def success(self) -> bool:
        return self.deciding.success

    def to_dict(self) -> dict[str, Any]:
        deciding = self.deciding.to_dict()
        data: dict[str, Any] = {
            "system": SYSTEM,
            "test": RerollTest.kind,
            "input": self.test.to_input(),
            "dice": [
                *self.first.to_dict()["dice"],
                *(self.second.to_dict()["dice"] if self.second else []),
            ],
            "first": self.first.to_dict(),
            "second": None if self.second is None else self.second.to_dict(),
            "rerolled": self.second is not None,
            "threshold": deciding["threshold"],
            "roll": deciding["roll"],
            "outcome": deciding["outcome"],
            "success": deciding["success"],
        }
        for key in ("duration", "unit", "time_multiplier"):
            if key in deciding:
                data[key] = deciding[key]
        return data


def roll_reroll(test: RerollTest, dice: DiceSource) -> RerollResult:
    first = _roll_base(test.base, dice)
    second = None
    if first.outcome in REROLLABLE:
        second = _roll_base(test.base, dice, test.reroll_sources)
    return RerollResult(test, first, second)


@dataclass(frozen=True)
class LinkedRerollResult:
    """The reroll's record: the first roll (read from its face) and the second, which decides.
    Its dice are the second roll's only: the first die is the first record's."""

    test: LinkedReroll
    first: CiernieResult
    second: CiernieResult

    @property
    def outcome(self) -> Outcome:
        return self.second.outcome

    @property
    def success(self) -> bool:
        return self.second.success

    def to_dict(self) -> dict[str, Any]:
        deciding = self.second.to_dict()
        data: dict[str, Any] = {
            "system": SYSTEM,
            "test": LinkedReroll.kind,
            "input": self.test.to_input(),
            "dice": deciding["dice"],
            "first": self.first.to_dict(),
            "second": deciding,
            "rerolled": True,
            "threshold": deciding["threshold"],
            "roll": deciding["roll"],
            "outcome": deciding["outcome"],
            "success": deciding["success"],
        }
        for key in ("duration", "unit", "time_multiplier"):
            if key in deciding:
                data[key] = deciding[key]
        return data


def roll_linked_reroll(test: LinkedReroll, dice: DiceSource) -> LinkedRerollResult:
    return LinkedRerollResult(test, test.first, _roll_base(test.base, dice, test.reroll_sources))


Result = CiernieResult | RerollResult | LinkedRerollResult


def roll(test: Test, dice: DiceSource) -> Result:
    if isinstance(test, RerollTest):
        return roll_reroll(test, dice)
    if isinstance(test, LinkedReroll):
        return roll_linked_reroll(test, dice)
    return _roll_base(test, dice)


# ---------------------------------------------------------------------------
# Exact probabilities (every face 1..20 equally likely)


def _faces_where(test: BaseTest, limit: int, wanted: frozenset[Outcome]) -> int:
    delay_band = isinstance(test, SkillTest)
    return sum(1 for face in range(1, 21) if classify(face, limit, delay_band) in wanted)


def _base_probability(
    test: BaseTest, reroll_sources: int | None = None
) -> tuple[Fraction, Fraction]:
    """(P(succeeds), P(fails in a way a reroll may repeat))."""
    limit = threshold(test, reroll_sources).value
    decided = roll_allowed(test, limit)
    if decided is not None:
        return (Fraction(1), Fraction(0)) if decided in SUCCEEDS else (Fraction(0), Fraction(0))
    return (
        Fraction(_faces_where(test, limit, SUCCEEDS), 20),
        Fraction(_faces_where(test, limit, REROLLABLE), 20),
    )


def probability(test: Test) -> Fraction:
    """P(any succeeding outcome, delay included); for a reroll, of the deciding roll."""
    if isinstance(test, RerollTest):
        first, rerolled = _base_probability(test.base)
        second, _ = _base_probability(test.base, test.reroll_sources)
        return first + rerolled * second
    if isinstance(test, LinkedReroll):
        return _base_probability(test.base, test.reroll_sources)[0]
    return _base_probability(test)[0]


# ---------------------------------------------------------------------------
# Reading the vector / ledger input format


def _read_base(kind: object, data: Mapping[str, Any]) -> BaseTest:
    modifiers = read_adjustments(data, "modifiers")
    if kind == "attribute":
        return AttributeTest(read(data, "attribute"), modifiers)
    if kind == "combined":
        return CombinedTest(read(data, "attributes"), modifiers)
    if kind == "comparative":
        return ComparativeTest(
            read(data, "own"),
            read(data, "opposing"),
            modifiers,
            own_modifiers=read_adjustments(data, "own_modifiers"),
            opposing_modifiers=read_adjustments(data, "opposing_modifiers"),
        )
    if kind == "effect":
        return EffectTest(read(data, "attribute"), modifiers, unit=data.get("unit"))
    if kind == "skill":
        attributes = data.get("attributes")
        return SkillTest(
            skill=read(data, "skill"),
            factor=read(data, "factor"),
            modifiers=modifiers,
            attribute=data.get("attribute"),
            attributes=None if attributes is None else require_tuple(attributes, "attributes"),
        )
    if kind == "reroll":
        raise RuleError("reroll_of_reroll", "a roll can be rerolled only once")
    raise RuleError("unknown_test", f"ciernie has no {kind!r} test", system=SYSTEM, test=str(kind))


def parse_test(kind: str, data: Mapping[str, Any]) -> Test:
    if not isinstance(data, Mapping):
        raise RuleError(
            "invalid_input", "the input must be an object", field="input", expected="object"
        )
    if kind == "reroll":
        base = read(data, "base")
        return RerollTest(_read_base(read(base, "test"), base), read(data, "reroll_sources"))
    if kind == "reroll_of":
        base = read(data, "base")
        return LinkedReroll(
            _read_base(read(base, "test"), base),
            read(data, "reroll_sources"),
            read(data, "first_roll"),
        )
    return _read_base(kind, data)
