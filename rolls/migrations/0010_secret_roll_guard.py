"""Make rolls_secretroll's hidden half unchangeable in the database itself, as rolls_roll is
(0002_append_only_triggers): its record and salt are what the chain's commitment was made
over, so the only change allowed is setting `reveal` once, from nothing to the reveal entry.
Deleting is refused too, with the same test-database flush hatch as 0002 (its permit table).

Like 0002, this migration holds its own SQL and imports nothing from the project but 0002's
own test-database check.
"""

import importlib

from django.db import migrations

TABLE = "rolls_secretroll"
MESSAGE = "rolls_secretroll: a secret roll is never changed or deleted, only revealed once"
# The one update allowed: reveal set from NULL, every other column as it was.
ONLY_THE_REVEAL = (
    "OLD.reveal_id IS NULL AND NEW.reveal_id IS NOT NULL AND NEW.id = OLD.id"
    " AND NEW.roll_id = OLD.roll_id AND NEW.salt = OLD.salt AND NEW.record = OLD.record"
)

_ledger = importlib.import_module("rolls.migrations.0002_append_only_triggers")


def install_sql(vendor: str, hatch: bool) -> list[str]:
    permit = _ledger.PERMIT_TABLE
    if vendor == "postgresql":
        permit_check = (
            f"IF TG_OP IN ('DELETE', 'TRUNCATE') AND EXISTS (SELECT 1 FROM {permit}) THEN "
            "RETURN OLD; END IF;"
            if hatch
            else ""
        )
        return [
            f"""
            CREATE OR REPLACE FUNCTION rolls_secretroll_refuse() RETURNS trigger AS $$
            BEGIN
                IF TG_OP = 'UPDATE' THEN
                    IF {ONLY_THE_REVEAL} THEN RETURN NEW; END IF;
                END IF;
                {permit_check}
                RAISE EXCEPTION '{MESSAGE} (% refused)', TG_OP
                    USING ERRCODE = 'integrity_constraint_violation';
            END;
            $$ LANGUAGE plpgsql
            """,
            f"""CREATE TRIGGER rolls_secretroll_guard BEFORE UPDATE OR DELETE ON {TABLE}
                FOR EACH ROW EXECUTE FUNCTION rolls_secretroll_refuse()""",
            f"""CREATE TRIGGER rolls_secretroll_no_truncate BEFORE TRUNCATE ON {TABLE}
                FOR EACH STATEMENT EXECUTE FUNCTION rolls_secretroll_refuse()""",
        ]
    if vendor == "sqlite":
        when = f"WHEN NOT EXISTS (SELECT 1 FROM {permit})" if hatch else ""
        return [
            f"""CREATE TRIGGER rolls_secretroll_no_update BEFORE UPDATE ON {TABLE}
                WHEN NOT ({ONLY_THE_REVEAL})
                BEGIN SELECT RAISE(ABORT, '{MESSAGE} (UPDATE refused)'); END""",
            f"""CREATE TRIGGER rolls_secretroll_no_delete BEFORE DELETE ON {TABLE} {when}
                BEGIN SELECT RAISE(ABORT, '{MESSAGE} (DELETE refused)'); END""",
        ]
    raise NotImplementedError(f"no secret roll triggers for {vendor}")


def drop_sql(vendor: str) -> list[str]:
    """Only for tests that simulate an attacker with DDL rights (rolls.ledger.triggers)."""
    if vendor == "postgresql":
        return [
            f"DROP TRIGGER IF EXISTS rolls_secretroll_guard ON {TABLE}",
            f"DROP TRIGGER IF EXISTS rolls_secretroll_no_truncate ON {TABLE}",
            "DROP FUNCTION IF EXISTS rolls_secretroll_refuse()",
        ]
    return [
        "DROP TRIGGER IF EXISTS rolls_secretroll_no_update",
        "DROP TRIGGER IF EXISTS rolls_secretroll_no_delete",
    ]


def install(apps, schema_editor):
    connection = schema_editor.connection
    hatch = _ledger.PERMIT_TABLE in connection.introspection.table_names()
    for statement in install_sql(connection.vendor, hatch):
        schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [("rolls", "0009_secret_rolls")]

    # No reverse, as 0002: un-applying would silently make the hidden half mutable.
    operations = [migrations.RunPython(install, migrations.RunPython.noop, elidable=False)]
