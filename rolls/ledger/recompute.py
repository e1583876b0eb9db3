"""Recompute a stored roll from its stored case (`verify_rolls --recompute`).

Every roll's record keeps the engine's `result.to_dict()`, which names the system, the test,
its full input and the dice in the order they were rolled. Parsing that input again and
rolling those dice through the engine must give back the stored result exactly; anything
else means the record was written by something other than the engine (or the engine's rules
changed since: both are worth knowing). Diary entries (rolls.models.ENTRY_KINDS) have no die
and nothing to recompute.
"""

from __future__ import annotations

import json

from rolls.engine import systems
from rolls.engine.dice import DiceError, ScriptedDice
from rolls.engine.errors import RuleError
from rolls.ledger.secret import is_reveal_record, is_secret_record


def _plain(value):
    """As the JSON column gives it back: tuples become lists, keys strings."""
    return json.loads(json.dumps(value))


def recompute_problem(record: dict, is_entry) -> str | None:
    """None if the record's result is what its case gives, else a short reason. `is_entry`
    tells a diary entry's record (rolls.models.is_entry_record). A secret roll's
    entry has nothing to recompute until revealed; a reveal's revealed record is rolled
    again like any roll (rolls.ledger.verify checks it against the commitment)."""
    if is_secret_record(record):
        return None
    if is_reveal_record(record):
        revealed = record["reveals"].get("record")
        if not isinstance(revealed, dict) or is_reveal_record(revealed):
            return "no revealed record"
        problem = recompute_problem(revealed, is_entry)
        return f"the revealed record: {problem}" if problem else None
    if is_entry(record):
        return None
    result = record.get("result")
    if not isinstance(result, dict):
        return "no result"
    try:
        system, test, data, dice = (result[k] for k in ("system", "test", "input", "dice"))
        scripted = _AskedDice(dice)
        again = systems.roll(system, systems.parse_test(system, test, data), scripted)
    except (KeyError, TypeError, RuleError, DiceError) as error:
        return f"the case does not roll again ({error})"
    if not scripted.all_consumed:
        return f"{scripted.remaining} stored dice left over"
    if _plain(again.to_dict()) != _plain(result):
        return "the stored result differs from the engine's"
    fair = record.get("fair")
    if fair is not None and (not isinstance(fair, dict) or fair.get("draws") != scripted.asked):
        # The verifiers recompute the draws from the seeds; these must be the very dice
        # the engine asked for, in order, on the same dice.
        return "its fair dice draws are not the dice its result was rolled with"
    return None


class _AskedDice(ScriptedDice):
    """The stored faces, noting each die the engine asks for as [low, high, face]."""

    def __init__(self, faces) -> None:
        super().__init__(faces)
        self.asked: list[list[int]] = []

    def roll(self, low: int, high: int) -> int:
        face = super().roll(low, high)
        self.asked.append([low, high, face])
        return face
