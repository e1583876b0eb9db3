"""A post that holds rolls keeps its session and turn, in the database itself (PostgreSQL and
SQLite): a roll's record names its session, turn and post, so moving the post would put the
roll somewhere its record does not say. Only an UPDATE that changes the post's id, session
or turn while a row of rolls_roll names the post is refused; other columns, and posts
without rolls, change as before. Deleting such a post is already refused by rolls_roll's
foreign key; the test database's flush deletes, never updates, so no hatch is needed.

Like 0002, this migration holds its own SQL and imports nothing from the project, so it
stays what it was when it was applied (rolls/ledger/triggers.py re-exports it).

On SQLite a later migration that rebuilds diary_post (an ALTER SQLite cannot do in place)
drops this trigger with the old table: tests/rolls/ledger/test_ledger_placement.py finds that.
"""

from django.db import migrations

TABLE = "diary_post"
MESSAGE = "diary_post: a post that holds rolls keeps its session and turn"
MOVED_SQLITE = (
    "(NEW.id IS NOT OLD.id OR NEW.session_id IS NOT OLD.session_id"
    " OR NEW.turn_id IS NOT OLD.turn_id)"
)
MOVED_POSTGRESQL = (
    "(NEW.id IS DISTINCT FROM OLD.id OR NEW.session_id IS DISTINCT FROM OLD.session_id"
    " OR NEW.turn_id IS DISTINCT FROM OLD.turn_id)"
)
HOLDS_ROLLS = "EXISTS (SELECT 1 FROM rolls_roll WHERE rolls_roll.post_id = OLD.id)"


def install_sql(vendor: str) -> list[str]:
    if vendor == "postgresql":
        return [
            f"""
            CREATE OR REPLACE FUNCTION rolls_post_stays_refuse() RETURNS trigger AS $$
            BEGIN
                IF {MOVED_POSTGRESQL} AND {HOLDS_ROLLS} THEN
                    RAISE EXCEPTION '{MESSAGE} (% refused)', TG_OP
                        USING ERRCODE = 'integrity_constraint_violation';
                END IF;
                RETURN NEW;
            END;
            $$ LANGUAGE plpgsql
            """,
            f"""CREATE TRIGGER rolls_post_stays BEFORE UPDATE OF id, session_id, turn_id
                ON {TABLE} FOR EACH ROW EXECUTE FUNCTION rolls_post_stays_refuse()""",
        ]
    if vendor == "sqlite":
        return [
            f"""CREATE TRIGGER rolls_post_stays BEFORE UPDATE OF id, session_id, turn_id
                ON {TABLE} WHEN {MOVED_SQLITE} AND {HOLDS_ROLLS}
                BEGIN SELECT RAISE(ABORT, '{MESSAGE} (UPDATE refused)'); END""",
        ]
    raise NotImplementedError(f"no post guard for {vendor}")


def drop_sql(vendor: str) -> list[str]:
    """Only for tests that simulate an attacker with DDL rights (rolls.ledger.triggers)."""
    if vendor == "postgresql":
        return [
            f"DROP TRIGGER IF EXISTS rolls_post_stays ON {TABLE}",
            "DROP FUNCTION IF EXISTS rolls_post_stays_refuse()",
        ]
    return ["DROP TRIGGER IF EXISTS rolls_post_stays"]


def install(apps, schema_editor):
    for statement in install_sql(schema_editor.connection.vendor):
        schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("rolls", "0014_fair_dice_seeds"),
        ("diary", "0021_npc_modifier_lock_and_corrections"),
    ]

    # No reverse, as 0002: un-applying would silently let a roll's post move.
    operations = [migrations.RunPython(install, migrations.RunPython.noop, elidable=False)]
