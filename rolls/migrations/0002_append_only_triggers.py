"""Make rolls_roll append-only in the database itself, on PostgreSQL and SQLite.

This migration holds its own SQL and imports nothing from the project, so it
stays what it was when it was applied (rolls/ledger/triggers.py and the `flush`
command read the names and statements from here, never the other way round).

The test suite empties its database between live-server tests with Django's
`flush`, which the triggers refuse. The escape hatch is built only into a test
database (the ROLL_LEDGER_TEST_FLUSH setting, which only the test suite turns
on, AND a test database name): a permit table whose row the overridden `flush`
command (rolls/management/commands/flush.py) inserts around the flush. Any other
database gets the triggers without a hatch and without the table: it fails closed.
"""

from django.conf import settings
from django.db import migrations

TABLE = "rolls_roll"
PERMIT_TABLE = "rolls_ledger_test_flush_permit"
MESSAGE = "rolls_roll is append-only: a roll is never changed or deleted"


def is_test_database(connection) -> bool:
    if not getattr(settings, "ROLL_LEDGER_TEST_FLUSH", False):
        return False
    name = str(connection.settings_dict["NAME"])
    if connection.vendor == "sqlite":
        return connection.creation.is_in_memory_db(name) or name.startswith("test_")
    return name.startswith("test_")


def install_sql(vendor: str, test_flush_hatch: bool) -> list[str]:
    if vendor == "postgresql":
        return _postgresql(test_flush_hatch)
    if vendor == "sqlite":
        return _sqlite(test_flush_hatch)
    raise NotImplementedError(f"no ledger triggers for {vendor}")


def _postgresql(hatch: bool) -> list[str]:
    statements = []
    permit_check = ""
    if hatch:
        statements.append(f"CREATE TABLE {PERMIT_TABLE} (permit integer NOT NULL)")
        permit_check = (
            f"IF TG_OP IN ('DELETE', 'TRUNCATE') AND EXISTS (SELECT 1 FROM {PERMIT_TABLE}) THEN "
            "RETURN OLD; END IF;"
        )
    statements += [
        f"""
        CREATE OR REPLACE FUNCTION rolls_ledger_refuse() RETURNS trigger AS $$
        BEGIN
            {permit_check}
            RAISE EXCEPTION '{MESSAGE} (% refused)', TG_OP
                USING ERRCODE = 'integrity_constraint_violation';
        END;
        $$ LANGUAGE plpgsql
        """,
        f"""CREATE TRIGGER rolls_roll_append_only BEFORE UPDATE OR DELETE ON {TABLE}
            FOR EACH ROW EXECUTE FUNCTION rolls_ledger_refuse()""",
        f"""CREATE TRIGGER rolls_roll_no_truncate BEFORE TRUNCATE ON {TABLE}
            FOR EACH STATEMENT EXECUTE FUNCTION rolls_ledger_refuse()""",
    ]
    return statements


def _sqlite(hatch: bool) -> list[str]:
    statements = []
    when = ""
    if hatch:
        statements.append(f"CREATE TABLE {PERMIT_TABLE} (permit integer NOT NULL)")
        when = f"WHEN NOT EXISTS (SELECT 1 FROM {PERMIT_TABLE})"
    statements += [
        f"""CREATE TRIGGER rolls_roll_no_update BEFORE UPDATE ON {TABLE}
            BEGIN SELECT RAISE(ABORT, '{MESSAGE} (UPDATE refused)'); END""",
        f"""CREATE TRIGGER rolls_roll_no_delete BEFORE DELETE ON {TABLE} {when}
            BEGIN SELECT RAISE(ABORT, '{MESSAGE} (DELETE refused)'); END""",
    ]
    return statements


def install(apps, schema_editor):
    connection = schema_editor.connection
    hatch = is_test_database(connection)
    for statement in install_sql(connection.vendor, test_flush_hatch=hatch):
        schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [("rolls", "0001_initial")]

    # No reverse: un-applying would silently make the ledger mutable.
    operations = [migrations.RunPython(install, migrations.RunPython.noop, elidable=False)]
