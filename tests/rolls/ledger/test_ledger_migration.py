"""The ledger's trigger migration holds its own SQL.

An applied migration must never change because a project module changed, so it
imports nothing from the project: only the standard library and Django.
"""

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PROJECT_PACKAGES = {"config", "characters", "demo", "diary", "rolls", "tests", "bench"}
MIGRATION = ROOT / "rolls" / "migrations" / "0002_append_only_triggers.py"
POST_GUARD = ROOT / "rolls" / "migrations" / "0015_roll_posts_stay_in_place.py"
TURN_SEED_GUARD = ROOT / "rolls" / "migrations" / "0016_turn_seed_guard.py"


def imported_modules(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            modules.add("." * node.level + (node.module or ""))
    return modules


@pytest.mark.parametrize(
    "migration", [MIGRATION, POST_GUARD, TURN_SEED_GUARD], ids=lambda path: path.stem
)
def test_the_trigger_migration_imports_nothing_from_the_project(migration):
    modules = imported_modules(migration)
    assert modules, "the scan found no imports at all"
    from_project = {m for m in modules if m.startswith(".") or m.split(".")[0] in PROJECT_PACKAGES}
    assert from_project == set()
    # And nothing is loaded by name at run time either.
    assert "import_module" not in migration.read_text(encoding="utf-8")


def test_the_flush_helpers_read_the_migration_not_a_copy():
    """rolls/ledger/triggers.py keeps no second copy of the trigger SQL."""
    from rolls.ledger import triggers as ledger_sql

    migration = importlib.import_module("rolls.migrations.0002_append_only_triggers")
    assert ledger_sql.install_sql is migration.install_sql
    assert ledger_sql.PERMIT_TABLE == migration.PERMIT_TABLE
    triggers = ROOT / "rolls" / "ledger" / "triggers.py"
    assert "CREATE TRIGGER" not in triggers.read_text(encoding="utf-8")
