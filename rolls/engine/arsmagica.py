"""arsmagica: Ars Magica simple and stress dice (RULES.md §4).

Total = characteristic + ability + modifiers + die; success iff total ≥ ease
factor. Faces are the d10's 0..9.

Stress die: 2..9 count as they are; a first 1 starts a doubling chain (each
further 1 doubles again, 0 counts 10 on these rerolls); a first 0 is a 0 that
calls for N botch dice, and any 0 among them is a botch (total 0, a failure).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from rolls.engine.common import (
    Adjustment,
    adjustments,
    read,
    read_adjustments,
    require_int,
)
from rolls.engine.dice import DiceSource
from rolls.engine.errors import RuleError

SYSTEM = "arsmagica"
DIE_FACES = (0, 9)
ZERO_AS = 10  # the simple die and the doubling rerolls read face 0 as 10
DOUBLING_FACE = 1
TENTH = Fraction(1, 10)


def _check_common(test: SimpleTest | StressTest) -> None:
    require_int(test.characteristic, "characteristic")
    require_int(test.ability, "ability")
    if test.ability < 0:
        raise RuleError(
            "negative_ability",
            f"an ability cannot be negative (got {test.ability})",
            ability=test.ability,
        )
    require_int(test.ease_factor, "ease_factor")
    object.__setattr__(test, "modifiers", adjustments(test.modifiers, "modifiers"))


def _common_input(test: SimpleTest | StressTest) -> dict[str, Any]:
    return {
        "characteristic": test.characteristic,
        "ability": test.ability,
        "modifiers": [m.to_dict() for m in test.modifiers],
        "ease_factor": test.ease_factor,
    }


@dataclass(frozen=True)
class SimpleTest:
    kind: ClassVar[str] = "simple"
    characteristic: int
    ability: int
    ease_factor: int
    modifiers: tuple[Adjustment, ...] = ()

    def __post_init__(self) -> None:
        _check_common(self)

    @property
    def base(self) -> int:
        """Characteristic + ability + modifiers: everything but the die."""
        return self.characteristic + self.ability + sum(m.value for m in self.modifiers)

    def to_input(self) -> dict[str, Any]:
        return _common_input(self)


@dataclass(frozen=True)
class StressTest:
    kind: ClassVar[str] = "stress"
    characteristic: int
    ability: int
    ease_factor: int
    modifiers: tuple[Adjustment, ...] = ()
    botch_dice: int = 1  # 0: no botch is possible

    def __post_init__(self) -> None:
        _check_common(self)
        require_int(self.botch_dice, "botch_dice")
        if self.botch_dice < 0:
            raise RuleError(
                "negative_botch_dice",
                f"the number of botch dice cannot be negative (got {self.botch_dice})",
                botch_dice=self.botch_dice,
            )

    @property
    def base(self) -> int:
        return self.characteristic + self.ability + sum(m.value for m in self.modifiers)

    def to_input(self) -> dict[str, Any]:
        return {**_common_input(self), "botch_dice": self.botch_dice}


Test = SimpleTest | StressTest


# ---------------------------------------------------------------------------
# Results


@dataclass(frozen=True)
class ArsResult:
    test: Test
    die: int  # the die's value after reading 0 as 10 / doubling
    dice: tuple[int, ...]  # the die's own faces: one, or the doubling chain
    botch_faces: tuple[int, ...] = ()  # stress only: the botch dice, if rolled

    @property
    def botch_zeros(self) -> int:
        return self.botch_faces.count(0)

    @property
    def botch(self) -> bool:
        return self.botch_zeros > 0

    @property
    def doublings(self) -> int:
        """How many times the stress die doubled (the 1s in its chain)."""
        return self.dice.count(DOUBLING_FACE) if isinstance(self.test, StressTest) else 0

    @property
    def total(self) -> int:
        return 0 if self.botch else self.test.base + self.die

    @property
    def success(self) -> bool:
        return not self.botch and self.total >= self.test.ease_factor

    @property
    def margin(self) -> int:
        return self.total - self.test.ease_factor

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "system": SYSTEM,
            "test": self.test.kind,
            "input": self.test.to_input(),
            "dice": [*self.dice, *self.botch_faces],
            "die_faces": list(self.dice),
            "die": self.die,
            "base": self.test.base,
            "total": self.total,
            "ease_factor": self.test.ease_factor,
            "success": self.success,
            "outcome": "botch" if self.botch else "success" if self.success else "failure",
            "margin": self.margin,
        }
        if isinstance(self.test, StressTest):
            data["doublings"] = self.doublings
            data["botch_faces"] = list(self.botch_faces)
            data["botch"] = self.botch
            data["botch_zeros"] = self.botch_zeros
        return data


def simple_value(face: int) -> int:
    return ZERO_AS if face == 0 else face


def roll_simple(test: SimpleTest, dice: DiceSource) -> ArsResult:
    face = dice.roll(*DIE_FACES)
    return ArsResult(test, simple_value(face), (face,))


def roll_stress(test: StressTest, dice: DiceSource) -> ArsResult:
    first = dice.roll(*DIE_FACES)
    faces = [first]
    if first == 0:
        botch_faces = tuple(dice.roll(*DIE_FACES) for _ in range(test.botch_dice))
        return ArsResult(test, 0, (first,), botch_faces)
    if first != DOUBLING_FACE:
        return ArsResult(test, first, (first,))
    multiplier = 2
    while (face := dice.roll(*DIE_FACES)) == DOUBLING_FACE:
        faces.append(face)
        multiplier *= 2
    faces.append(face)
    return ArsResult(test, multiplier * simple_value(face), tuple(faces))


def roll(test: Test, dice: DiceSource) -> ArsResult:
    if isinstance(test, SimpleTest):
        return roll_simple(test, dice)
    if isinstance(test, StressTest):
        return roll_stress(test, dice)
    raise TypeError(f"not an Ars Magica test: {test!r}")


# ---------------------------------------------------------------------------
# Exact probabilities

_REROLL_VALUES = tuple(range(2, 11))  # a doubling reroll's value: 2..9, or 0 read as 10


def _simple_probability(test: SimpleTest) -> Fraction:
    needed = test.ease_factor - test.base
    return Fraction(sum(1 for value in range(1, 11) if value >= needed), 10)


def _stress_probability(test: StressTest) -> Fraction:
    needed = test.ease_factor - test.base  # the die must show at least this
    plain = Fraction(sum(1 for value in range(2, 10) if value >= needed), 10)
    # First 0: no botch (every botch die non-zero) leaves a die of 0.
    zero = TENTH * Fraction(9, 10) ** test.botch_dice if needed <= 0 else Fraction(0)
    # First 1, then k−1 more 1s, then a value v in 2..10: die = 2**k · v, chance 10**−(k+1).
    # Once even the smallest value wins (2**k · 2 ≥ needed), every longer chain wins too,
    # and those chains together have chance Σ_{j≥k} 10**−j · 9/10 = 10**−k: the exact tail.
    doubling = Fraction(0)
    k = 1
    while 2**k * 2 < needed:
        winners = sum(1 for value in _REROLL_VALUES if 2**k * value >= needed)
        doubling += TENTH**k * Fraction(winners, 10)
        k += 1
    doubling += TENTH**k
    return plain + zero + doubling


def probability(test: Test) -> Fraction:
    """P(total ≥ ease factor); a botch never succeeds."""
    if isinstance(test, SimpleTest):
        return _simple_probability(test)
    if isinstance(test, StressTest):
        return _stress_probability(test)
    raise TypeError(f"not an Ars Magica test: {test!r}")


# ---------------------------------------------------------------------------
# Reading the vector / ledger input format


def parse_test(kind: str, data: Mapping[str, Any]) -> Test:
    if not isinstance(data, Mapping):
        raise RuleError(
            "invalid_input", "the input must be an object", field="input", expected="object"
        )
    common = {
        "characteristic": read(data, "characteristic"),
        "ability": read(data, "ability"),
        "ease_factor": read(data, "ease_factor"),
        "modifiers": read_adjustments(data, "modifiers"),
    }
    if kind == "simple":
        return SimpleTest(**common)
    if kind == "stress":
        return StressTest(**common, botch_dice=read(data, "botch_dice", 1))
    raise RuleError(
        "unknown_test", f"arsmagica has no {kind!r} test", system=SYSTEM, test=str(kind)
    )
