"""The ledger's append-only triggers, as the rest of the code sees them.

The triggers' SQL and the test database's flush hatch live in the migration that
installs them (rolls/migrations/0002_append_only_triggers.py), which imports
nothing from the project so that it never changes once applied. This module
only re-exports its names for the `flush` command and the tests, and adds what
no migration needs: dropping the triggers (tamper tests) and finding the permit.
"""

import importlib

_migration = importlib.import_module("rolls.migrations.0002_append_only_triggers")
_secret_migration = importlib.import_module("rolls.migrations.0010_secret_roll_guard")
_post_migration = importlib.import_module("rolls.migrations.0015_roll_posts_stay_in_place")
_turn_seed_migration = importlib.import_module("rolls.migrations.0016_turn_seed_guard")

TABLE = _migration.TABLE
PERMIT_TABLE = _migration.PERMIT_TABLE
MESSAGE = _migration.MESSAGE
is_test_database = _migration.is_test_database
install_sql = _migration.install_sql


def drop_sql(vendor: str) -> list[str]:
    """Only for tests that simulate an attacker with DDL rights (tamper detection)."""
    if vendor == "postgresql":
        return [
            f"DROP TRIGGER IF EXISTS rolls_roll_append_only ON {TABLE}",
            f"DROP TRIGGER IF EXISTS rolls_roll_no_truncate ON {TABLE}",
        ]
    return [
        "DROP TRIGGER IF EXISTS rolls_roll_no_update",
        "DROP TRIGGER IF EXISTS rolls_roll_no_delete",
    ]


def drop_secret_guard_sql(vendor: str) -> list[str]:
    """The same for the secret rolls' hidden half (rolls/migrations/0010_secret_roll_guard)."""
    return _secret_migration.drop_sql(vendor)


def install_secret_guard_sql(vendor: str, hatch: bool) -> list[str]:
    return _secret_migration.install_sql(vendor, hatch)


def drop_post_guard_sql(vendor: str) -> list[str]:
    """The same for the guard that keeps a roll's post in its session and turn
    (rolls/migrations/0015_roll_posts_stay_in_place)."""
    return _post_migration.drop_sql(vendor)


def install_turn_seed_guard_sql(vendor: str, hatch: bool) -> list[str]:
    """The triggers that keep a turn's dice seeds as committed, each reveal column filled
    once (rolls/migrations/0016_turn_seed_guard)."""
    return _turn_seed_migration.install_sql(vendor, hatch)


def drop_turn_seed_guard_sql(vendor: str) -> list[str]:
    return _turn_seed_migration.drop_sql(vendor)


def permit_table_exists(connection) -> bool:
    return PERMIT_TABLE in connection.introspection.table_names()
