"""Make rolls_turnseed unchangeable in the database itself, as rolls_roll (0002) and
rolls_secretroll (0010) are: a turn's seeds are what its chained commitment was made over, so
a seed, its turn, its session or its commitment entry changed would make every die of the
turn a lie. The only change allowed is filling each reveal column (`public_reveal_id`,
`secret_reveal_id`) once, from nothing; deleting and emptying the table are refused, with the
test database's flush hatch where 0002 built it (its permit table exists).

Like 0015, this migration holds its own SQL and imports nothing from the project, so it stays
what it was when it was applied (rolls/ledger/triggers.py re-exports it). On SQLite a later
migration that rebuilds rolls_turnseed (an ALTER SQLite cannot do in place) drops these
triggers with the old table and must install them again, as 0014 does for rolls_roll.
"""

from django.db import migrations

TABLE = "rolls_turnseed"
# 0002's table: a row in it, put there by the test suite's `flush`, opens DELETE/TRUNCATE.
PERMIT_TABLE = "rolls_ledger_test_flush_permit"
MESSAGE = "rolls_turnseed: the dice seeds of a turn are never changed or deleted, only revealed once"
KEPT_COLUMNS = ("id", "session_id", "turn_number", "seed", "secret_seed", "commit_id")
REVEAL_COLUMNS = ("public_reveal_id", "secret_reveal_id")


def _only_reveals_filled(same: str) -> str:
    """The one update allowed, with `same` the dialect's null-safe equality."""
    kept = [f"NEW.{c} {same} OLD.{c}" for c in KEPT_COLUMNS]
    filled = [
        f"(NEW.{c} {same} OLD.{c} OR (OLD.{c} IS NULL AND NEW.{c} IS NOT NULL))"
        for c in REVEAL_COLUMNS
    ]
    return " AND ".join(kept + filled)


def install_sql(vendor: str, hatch: bool) -> list[str]:
    if vendor == "postgresql":
        permit_check = (
            f"IF TG_OP IN ('DELETE', 'TRUNCATE') AND EXISTS (SELECT 1 FROM {PERMIT_TABLE}) THEN "
            "RETURN OLD; END IF;"
            if hatch
            else ""
        )
        allowed = _only_reveals_filled("IS NOT DISTINCT FROM")
        return [
            f"""
            CREATE OR REPLACE FUNCTION rolls_turnseed_refuse() RETURNS trigger AS $$
            BEGIN
                IF TG_OP = 'UPDATE' THEN
                    IF {allowed} THEN RETURN NEW; END IF;
                END IF;
                {permit_check}
                RAISE EXCEPTION '{MESSAGE} (% refused)', TG_OP
                    USING ERRCODE = 'integrity_constraint_violation';
            END;
            $$ LANGUAGE plpgsql
            """,
            f"""CREATE TRIGGER rolls_turnseed_guard BEFORE UPDATE OR DELETE ON {TABLE}
                FOR EACH ROW EXECUTE FUNCTION rolls_turnseed_refuse()""",
            f"""CREATE TRIGGER rolls_turnseed_no_truncate BEFORE TRUNCATE ON {TABLE}
                FOR EACH STATEMENT EXECUTE FUNCTION rolls_turnseed_refuse()""",
        ]
    if vendor == "sqlite":
        when = f"WHEN NOT EXISTS (SELECT 1 FROM {PERMIT_TABLE})" if hatch else ""
        allowed = _only_reveals_filled("IS")
        return [
            f"""CREATE TRIGGER rolls_turnseed_no_update BEFORE UPDATE ON {TABLE}
                WHEN NOT ({allowed})
                BEGIN SELECT RAISE(ABORT, '{MESSAGE} (UPDATE refused)'); END""",
            f"""CREATE TRIGGER rolls_turnseed_no_delete BEFORE DELETE ON {TABLE} {when}
                BEGIN SELECT RAISE(ABORT, '{MESSAGE} (DELETE refused)'); END""",
        ]
    raise NotImplementedError(f"no turn seed triggers for {vendor}")


def drop_sql(vendor: str) -> list[str]:
    """Only for tests that simulate an attacker with DDL rights (rolls.ledger.triggers)."""
    if vendor == "postgresql":
        return [
            f"DROP TRIGGER IF EXISTS rolls_turnseed_guard ON {TABLE}",
            f"DROP TRIGGER IF EXISTS rolls_turnseed_no_truncate ON {TABLE}",
            "DROP FUNCTION IF EXISTS rolls_turnseed_refuse()",
        ]
    return [
        "DROP TRIGGER IF EXISTS rolls_turnseed_no_update",
        "DROP TRIGGER IF EXISTS rolls_turnseed_no_delete",
    ]


def install(apps, schema_editor):
    connection = schema_editor.connection
    hatch = PERMIT_TABLE in connection.introspection.table_names()
    for statement in install_sql(connection.vendor, hatch):
        schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [("rolls", "0015_roll_posts_stay_in_place")]

    # No reverse, as 0002: un-applying would silently make the seeds mutable.
    operations = [migrations.RunPython(install, migrations.RunPython.noop, elidable=False)]
