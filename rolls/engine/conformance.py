"""Conformance runner for the rule vectors (shared/rules/VECTORS.md).

    python -m rolls.conformance FILE [FILE ...]   (rolls/conformance/ names the command)

Evaluates every case of every JSON-lines file with the rules engine, prints one
line per failing case (its id and what differed) and finally `N passed, M failed`.
Exits 0 iff nothing failed. A malformed case fails; it never stops the run.

Besides the documented `{"error": true}`, an error expectation may name the
engine's code, `{"error": true, "code": "gm_modifier_step"}` (our own vectors do).
Our own free-form cases may also carry `"distribution"`: every total's exact chance as a
fraction string (`{"3": "1/216", ...}`), compared for equality with the engine's
`distribution` (the exact odds, by convolution).

This module imports the engine only: no Django.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from rolls.engine.common import fraction_string
from rolls.engine.dice import DiceError, ScriptedDice
from rolls.engine.errors import RuleError
from rolls.engine.systems import system_module


@dataclass(frozen=True)
class CaseReport:
    case_id: str
    problems: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return not self.problems


class MalformedCase(Exception):
    """The case itself (not the rules input) does not follow VECTORS.md."""


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _equal(expected: Any, actual: Any) -> bool:
    """Exact comparison, except that JSON numbers compare by value; a bool is never a number."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return expected == actual
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(map(_equal, expected, actual))
    if isinstance(expected, dict) and isinstance(actual, dict):
        return expected.keys() == actual.keys() and all(
            _equal(value, actual[key]) for key, value in expected.items()
        )
    return type(expected) is type(actual) and expected == actual


def subset_differences(expected: Any, actual: Any, path: str = "") -> list[str]:
    """What differs when `expected` is read as a subset of `actual` (objects recursively)."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path or 'result'}: expected an object, got {_show(actual)}"]
        differences = []
        for key, value in expected.items():
            where = f"{path}.{key}" if path else str(key)
            if key not in actual:
                differences.append(f"{where}: missing (expected {_show(value)})")
            else:
                differences.extend(subset_differences(value, actual[key], where))
        return differences
    if not _equal(expected, actual):
        return [f"{path or 'result'}: expected {_show(expected)}, got {_show(actual)}"]
    return []


def _field(case: dict[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    if key not in case:
        raise MalformedCase(f"malformed case: {key!r} is missing")
    value = case[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise MalformedCase(f"malformed case: {key!r} has the wrong type ({_show(value)})")
    return value


def _run_probability(module: Any, kind: str, data: dict[str, Any], expected: Any) -> list[str]:
    if not isinstance(expected, str):
        raise MalformedCase(
            f"malformed case: probability must be a fraction string, got {_show(expected)}"
        )
    try:
        wanted = Fraction(expected)
    except (ValueError, ZeroDivisionError):
        raise MalformedCase(f"malformed case: {expected!r} is not a fraction") from None
    try:
        chance = module.probability(module.parse_test(kind, data))
    except RuleError as error:
        return [f"probability: engine refused the input ({error.code}: {error})"]
    if chance != wanted:
        return [f"probability: expected {expected}, got {fraction_string(chance)}"]
    return []


def _run_distribution(module: Any, kind: str, data: dict[str, Any], expected: Any) -> list[str]:
    if not isinstance(expected, dict) or not hasattr(module, "distribution"):
        raise MalformedCase("malformed case: a distribution is an object, of the free system")
    try:
        actual = module.distribution(module.parse_test(kind, data))
    except RuleError as error:
        return [f"distribution: engine refused the input ({error.code}: {error})"]
    wanted = {str(k): str(Fraction(v)) for k, v in expected.items()}
    got = {k: str(Fraction(v)) for k, v in actual.items()}
    if wanted != got:
        differing = sorted(set(wanted) ^ set(got) | {k for k in wanted if got.get(k) != wanted[k]})
        return [f"distribution differs at totals {differing[:5]}"]
    return []


def _run_error(
    module: Any, kind: str, data: dict[str, Any], faces: list[Any], expect: dict[str, Any]
) -> list[str]:
    dice = ScriptedDice(faces)
    try:
        result = module.roll(module.parse_test(kind, data), dice)
    except RuleError as error:
        problems = []
        if dice.consumed:
            problems.append(f"error raised only after {dice.consumed} dice were rolled")
        if "code" in expect and expect["code"] != error.code:
            problems.append(f"error code: expected {expect['code']!r}, got {error.code!r}")
        return problems
    except DiceError as error:
        return [f"expected a validation error, but the engine rolled dice ({error})"]
    return [f"expected a validation error, got a result: {_show(result.to_dict())}"]


def _run_roll(
    module: Any, kind: str, data: dict[str, Any], faces: list[Any], expect: dict[str, Any]
) -> list[str]:
    dice = ScriptedDice(faces)
    try:
        result = module.roll(module.parse_test(kind, data), dice)
    except RuleError as error:
        return [f"engine refused the input ({error.code}: {error})"]
    except DiceError as error:
        return [f"dice: {error}"]
    problems = subset_differences(
        {k: v for k, v in expect.items() if k != "error"}, result.to_dict()
    )
    if not dice.all_consumed:
        problems.append(f"dice: {dice.remaining} of {len(faces)} scripted faces were not used")
    return problems


def run_case(case: Any) -> list[str]:
    """The problems of one case; an empty list means it passed. Never raises."""
    try:
        if not isinstance(case, dict):
            raise MalformedCase("malformed case: not a JSON object")
        module = system_module(_field(case, "system", str))
        kind = _field(case, "test", str)
        data = _field(case, "input", dict)
        if "probability" in case:
            return _run_probability(module, kind, data, case["probability"])
        problems = []
        if "distribution" in case:
            problems = _run_distribution(module, kind, data, case["distribution"])
            if "dice" not in case:
                return problems
        faces = _field(case, "dice", list)
        expect = _field(case, "expect", dict)
        if expect.get("error") is True:
            return problems + _run_error(module, kind, data, faces, expect)
        return problems + _run_roll(module, kind, data, faces, expect)
    except MalformedCase as problem:
        return [str(problem)]
    except RuleError as error:  # e.g. an unknown system
        return [f"malformed case: {error}"]
    except Exception as error:  # a crash is a failed case, not a failed run
        return [f"crashed: {type(error).__name__}: {error}"]


def run_file(path: Path) -> Iterator[CaseReport]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        yield CaseReport(str(path), (f"cannot read file: {error}",))
        return
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            case = json.loads(line)
        except json.JSONDecodeError as error:
            yield CaseReport(where, (f"not JSON: {error}",))
            continue
        case_id = case.get("id") if isinstance(case, dict) else None
        label = f"{case_id} ({where})" if isinstance(case_id, str) and case_id else where
        yield CaseReport(label, tuple(run_case(case)))


def main(argv: Sequence[str] | None = None) -> int:
    paths = list(sys.argv[1:] if argv is None else argv)
    if not paths:
        print("usage: python -m rolls.conformance FILE [FILE ...]", file=sys.stderr)
        return 2
    passed = failed = 0
    for path in paths:
        for report in run_file(Path(path)):
            if report.passed:
                passed += 1
            else:
                failed += 1
                print(f"FAIL {report.case_id}: {'; '.join(report.problems)}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
