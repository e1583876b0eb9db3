"""The fake system's rules, pure like the site's engines: one d6, success on `target` or
more."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rolls.engine.errors import RuleError

SYSTEM = "d6test"


@dataclass(frozen=True)
class D6Test:
    target: int
    kind: str = "d6"

    def to_input(self) -> dict[str, Any]:
        return {"target": self.target}


@dataclass(frozen=True)
class D6Result:
    test: D6Test
    face: int

    @property
    def success(self) -> bool:
        return self.face >= self.test.target

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": SYSTEM,
            "test": self.test.kind,
            "input": self.test.to_input(),
            "dice": [self.face],
            "face": self.face,
            "success": self.success,
        }


def parse_test(kind: str, data) -> D6Test:
    target = data.get("target") if isinstance(data, dict) else None
    if kind != "d6" or not isinstance(target, int) or not 1 <= target <= 6:
        raise RuleError("invalid_input", "a d6 test needs a target from 1 to 6", field="target")
    return D6Test(target)


def roll(test: D6Test, dice) -> D6Result:
    return D6Result(test, dice.roll(1, 6))


def probability(test: D6Test) -> Fraction:
    return Fraction(7 - test.target, 6)
