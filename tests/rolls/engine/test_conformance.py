"""The conformance runner: the shared vectors, our own vectors, and how it reports failures."""

import ast
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from rolls.engine import conformance, systems
from rolls.engine.errors import RuleError
from tests.rolls.engine.vector_folders import OWN_VECTORS, SHARED_VECTORS

REPO = Path(__file__).resolve().parents[3]


def vector_files(folder: Path) -> list[Path]:
    # A missing or empty folder yields a path that cannot be read, so the test
    # using it fails instead of being skipped for want of parameters.
    return sorted(folder.glob("*.jsonl")) or [folder / "no-vector-files-here.jsonl"]


def cases(folder: Path) -> list[pytest.param]:
    params = []
    for path in vector_files(folder):
        lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else ["{}"]
        for number, line in enumerate(lines, start=1):
            if line.strip():
                case_id = json.loads(line).get("id", f"{path.name}:{number}")
                params.append(pytest.param(path, line, id=case_id))
    return params


def run(*args: str | Path, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rolls.conformance", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_shared_vector_folder_is_there():
    assert SHARED_VECTORS.is_dir(), f"missing {SHARED_VECTORS}"
    assert {p.name for p in SHARED_VECTORS.glob("*.jsonl")} >= {
        "forum1000.jsonl",
        "q10.jsonl",
        "ciernie.jsonl",
        "arsmagica.jsonl",
    }


@pytest.mark.parametrize(("path", "line"), cases(SHARED_VECTORS))
def test_shared_vector_case(path, line):
    assert conformance.run_case(json.loads(line)) == []


@pytest.mark.parametrize(("path", "line"), cases(OWN_VECTORS))
def test_own_vector_case(path, line):
    assert conformance.run_case(json.loads(line)) == []


@pytest.mark.parametrize("folder", [SHARED_VECTORS, OWN_VECTORS], ids=["shared", "own"])
def test_runner_command_passes_every_vector_file(folder):
    files = vector_files(folder)
    case_count = sum(
        1
        for path in files
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    )
    completed = run(*files)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert completed.stdout.splitlines() == [f"{case_count} passed, 0 failed"]


def test_own_vectors_cover_every_system_and_documented_test():
    seen = set()
    for path in vector_files(OWN_VECTORS):
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            seen.add((case["system"], case["test"], "probability" in case))
    for system, test in [
        ("forum1000", "attribute"),
        ("forum1000", "combined"),
        ("forum1000", "skill"),
        ("forum1000", "opposed"),
        ("forum1000", "initiative"),
        ("forum1000", "healing"),
        ("q10", "pool"),
        ("ciernie", "attribute"),
        ("ciernie", "combined"),
        ("ciernie", "comparative"),
        ("ciernie", "effect"),
        ("ciernie", "skill"),
        ("ciernie", "reroll"),
        ("arsmagica", "simple"),
        ("arsmagica", "stress"),
    ]:
        assert (system, test, False) in seen, (system, test)


def test_wrong_expectation_fails_the_run_and_names_the_case(tmp_path):
    good = json.loads((SHARED_VECTORS / "forum1000.jsonl").read_text().splitlines()[0])
    bad = {**good, "id": "deliberately-wrong", "expect": {**good["expect"], "threshold": 651}}
    vectors = tmp_path / "wrong.jsonl"
    vectors.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")

    completed = run(vectors)

    assert completed.returncode != 0
    lines = completed.stdout.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("FAIL deliberately-wrong")
    assert "threshold: expected 651, got 650" in lines[0]
    assert lines[-1] == "1 passed, 1 failed"


def test_wrong_probability_fails(tmp_path):
    case = {
        "id": "p-wrong",
        "system": "forum1000",
        "test": "attribute",
        "input": {"attribute": {"name": "Siła", "value": 650}, "modifiers": []},
        "probability": "651/1000",
    }
    vectors = tmp_path / "p.jsonl"
    vectors.write_text(json.dumps(case) + "\n", encoding="utf-8")
    completed = run(vectors)
    assert completed.returncode == 1
    assert "p-wrong" in completed.stdout
    assert "expected 651/1000, got 13/20" in completed.stdout


MALFORMED_LINES = [
    "this is not json",
    "[1, 2, 3]",
    json.dumps({"id": "no-input", "system": "q10", "test": "pool", "dice": [], "expect": {}}),
    json.dumps(
        {"id": "no-system", "test": "pool", "input": {"x": 1, "y": 1, "difficulty": 5}, "dice": [1]}
    ),
    json.dumps(
        {
            "id": "unknown-system",
            "system": "dnd",
            "test": "pool",
            "input": {},
            "dice": [],
            "expect": {},
        }
    ),
    json.dumps(
        {
            "id": "face-off-the-die",
            "system": "ciernie",
            "test": "attribute",
            "input": {"attribute": 10, "modifiers": []},
            "dice": [21],
            "expect": {"roll": 21},
        }
    ),
    json.dumps(
        {
            "id": "dice-left-over",
            "system": "ciernie",
            "test": "attribute",
            "input": {"attribute": 10, "modifiers": []},
            "dice": [5, 6],
            "expect": {"roll": 5},
        }
    ),
    json.dumps(
        {
            "id": "dice-run-out",
            "system": "q10",
            "test": "pool",
            "input": {"x": 3, "y": 1, "difficulty": 5},
            "dice": [4, 5],
            "expect": {},
        }
    ),
    json.dumps(
        {
            "id": "probability-as-number",
            "system": "ciernie",
            "test": "attribute",
            "input": {"attribute": 10, "modifiers": []},
            "probability": 0.5,
        }
    ),
    json.dumps(
        {
            "id": "valid-input-marked-error",
            "system": "ciernie",
            "test": "attribute",
            "input": {"attribute": 10, "modifiers": []},
            "dice": [3],
            "expect": {"error": True},
        }
    ),
    json.dumps(
        {
            "id": "bool-is-not-number",
            "system": "ciernie",
            "test": "attribute",
            "input": {"attribute": 10, "modifiers": []},
            "dice": [1],
            "expect": {"roll": True},
        }
    ),
]


def test_malformed_and_failing_cases_are_reported_and_the_run_goes_on(tmp_path):
    good = (SHARED_VECTORS / "ciernie.jsonl").read_text().splitlines()[0]
    vectors = tmp_path / "mixed.jsonl"
    vectors.write_text("\n".join([good, *MALFORMED_LINES, good, ""]), encoding="utf-8")

    completed = run(vectors)

    assert completed.returncode == 1
    lines = completed.stdout.splitlines()
    assert lines[-1] == f"2 passed, {len(MALFORMED_LINES)} failed"
    failures = "\n".join(lines[:-1])
    assert len(lines) == len(MALFORMED_LINES) + 1
    for expected in [
        "not JSON",
        "not a JSON object",
        "no-input",
        "'input' is missing",
        "unknown-system",
        "face-off-the-die",
        "not on a 1..20 die",
        "dice-left-over",
        "1 of 2 scripted faces were not used",
        "dice-run-out",
        "ran out of scripted dice",
        "probability-as-number",
        "valid-input-marked-error",
        "expected a validation error",
        "bool-is-not-number",
    ]:
        assert expected in failures
    assert "Traceback" not in completed.stderr


def test_missing_file_is_a_failure_not_a_crash(tmp_path):
    completed = run(tmp_path / "absent.jsonl")
    assert completed.returncode == 1
    assert completed.stdout.splitlines()[-1] == "0 passed, 1 failed"
    assert "cannot read file" in completed.stdout


def test_no_files_is_a_usage_error(capsys):
    assert conformance.main([]) == 2
    assert "usage" in capsys.readouterr().err


class _LateValidation:
    """A stand-in system whose validation error comes only after a die was rolled."""

    @staticmethod
    def parse_test(kind, data):
        return data

    @staticmethod
    def roll(test, dice):
        dice.roll(1, 6)
        if test.get("explode"):
            raise KeyError("boom")
        raise RuleError("too_late", "refused after rolling")

    @staticmethod
    def probability(test):
        return Fraction(1, 2)


def test_error_case_must_refuse_before_any_die(monkeypatch):
    monkeypatch.setitem(systems.SYSTEMS, "late", _LateValidation)
    case = {
        "id": "late",
        "system": "late",
        "test": "x",
        "input": {},
        "dice": [3],
        "expect": {"error": True},
    }
    assert conformance.run_case(case) == ["error raised only after 1 dice were rolled"]


def test_error_case_with_another_exception_fails(monkeypatch):
    monkeypatch.setitem(systems.SYSTEMS, "late", _LateValidation)
    case = {
        "id": "late",
        "system": "late",
        "test": "x",
        "input": {"explode": True},
        "dice": [3],
        "expect": {"error": True},
    }
    (problem,) = conformance.run_case(case)
    assert problem.startswith("crashed: KeyError")


def test_error_code_is_checked_when_given():
    case = {
        "id": "code",
        "system": "forum1000",
        "test": "attribute",
        "input": {
            "attribute": {"name": "Siła", "value": 500},
            "modifiers": [{"value": 75, "scope": "gm_difficulty"}],
        },
        "dice": [],
        "expect": {"error": True, "code": "gm_modifier_range"},
    }
    assert conformance.run_case(case) == [
        "error code: expected 'gm_modifier_range', got 'gm_modifier_step'"
    ]
    case["expect"]["code"] = "gm_modifier_step"
    assert conformance.run_case(case) == []


def test_subset_comparison():
    actual = {"a": {"threshold": 600, "roll": 300}, "kept": [10, 9], "success": True, "n": 0}
    assert conformance.subset_differences({"a": {"roll": 300}, "kept": [10, 9]}, actual) == []
    assert conformance.subset_differences({"kept": [10]}, actual) == [
        "kept: expected [10], got [10, 9]"
    ]
    assert conformance.subset_differences({"a": {"x": 1}}, actual) == ["a.x: missing (expected 1)"]
    assert conformance.subset_differences({"success": 1}, actual) == [
        "success: expected 1, got true"
    ]
    assert conformance.subset_differences({"n": False}, actual) == ["n: expected false, got 0"]
    assert conformance.subset_differences({"n": None}, actual) == ["n: expected null, got 0"]


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_engine_and_runner_import_no_django():
    sources = sorted((REPO / "rolls" / "engine").glob("*.py"))
    assert len(sources) > 5
    for path in sources:
        for module in _imported_modules(path):
            assert not module.startswith("django"), f"{path.name} imports {module}"
    for module in _imported_modules(REPO / "rolls" / "engine" / "conformance.py"):
        assert module.split(".")[0] != "rolls" or module.startswith("rolls.engine"), module

    probe = (
        "import sys, rolls.engine.conformance, rolls.engine.systems;"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] == 'django');"
        "print(loaded); sys.exit(1 if loaded else 0)"
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
