"""The four rule systems (and free-form dice notation) by key, one entry point per operation.

Each system module offers the same three functions:
`parse_test(kind, input) -> test`, `roll(test, dice) -> result` (with `to_dict()`)
and `probability(test) -> Fraction`. The web layer and the conformance runner
go through here when they only know a system's key.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from types import ModuleType
from typing import Any

from rolls.engine import arsmagica, ciernie, forum1000, notation, q10
from rolls.engine.dice import DiceSource
from rolls.engine.errors import RuleError

SYSTEMS: dict[str, ModuleType] = {
    forum1000.SYSTEM: forum1000,
    q10.SYSTEM: q10,
    ciernie.SYSTEM: ciernie,
    arsmagica.SYSTEM: arsmagica,
    notation.SYSTEM: notation,  # free-form dice notation: no probability
}


def register(module: ModuleType) -> ModuleType:
    """Add a rule system's engine module (its `SYSTEM` key, `parse_test`, `roll`,
    `probability`): a plug-in of the site (rolls.registry) brings its own engine this way."""
    SYSTEMS[module.SYSTEM] = module
    return module


def unregister(system: str) -> None:
    SYSTEMS.pop(system, None)


def system_module(system: str) -> ModuleType:
    try:
        return SYSTEMS[system]
    except (KeyError, TypeError):
        raise RuleError(
            "unknown_system",
            f"unknown rule system {system!r}; expected one of {', '.join(SYSTEMS)}",
            system=str(system),
        ) from None


def parse_test(system: str, kind: str, data: Mapping[str, Any]) -> Any:
    """A validated test from its JSON input; raises `RuleError` for anything invalid."""
    return system_module(system).parse_test(kind, data)


def roll(system: str, test: Any, dice: DiceSource) -> Any:
    return system_module(system).roll(test, dice)


def probability(system: str, test: Any) -> Fraction:
    return system_module(system).probability(test)
