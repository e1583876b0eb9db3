"""docs/audit.md's PostgreSQL roles: the site's own role cannot change the ledger at all."""

import uuid

import psycopg
import pytest
from django.db import connection

from tests.rolls.ledger.test_ledger import make_rolls

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]

REFUSED = [
    "UPDATE rolls_roll SET hash = 'x'",
    "DELETE FROM rolls_roll",
    "TRUNCATE rolls_roll CASCADE",
    "DROP TRIGGER rolls_roll_append_only ON rolls_roll",
    "ALTER TABLE rolls_roll DISABLE TRIGGER ALL",
    "SET session_replication_role = replica",
]


@pytest.fixture
def app_role():
    """A login role granted what docs/audit.md grants the site, dropped afterwards."""
    name = f"codziennik_app_{uuid.uuid4().hex[:8]}"
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE ROLE {name} LOGIN")
        cursor.execute(f"GRANT USAGE ON SCHEMA public TO {name}")
        cursor.execute(
            f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {name}"
        )
        cursor.execute(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {name}")
        cursor.execute(f"REVOKE UPDATE, DELETE, TRUNCATE ON rolls_roll FROM {name}")
    yield name
    with connection.cursor() as cursor:
        cursor.execute(f"DROP OWNED BY {name}")
        cursor.execute(f"DROP ROLE {name}")


def _connect_as(role: str) -> psycopg.Connection:
    settings = connection.settings_dict
    return psycopg.connect(
        host=settings["HOST"],
        port=settings["PORT"],
        dbname=settings["NAME"],
        user=role,
        autocommit=True,
    )


@pytest.mark.parametrize("sql", REFUSED)
def test_the_sites_role_cannot_change_rolls(table, app_role, sql):
    (roll,) = make_rolls(table, [321])
    with _connect_as(app_role) as app:
        # It reads and appends like the site does...
        assert app.execute("SELECT count(*) FROM rolls_roll").fetchone() == (1,)
        with pytest.raises(psycopg.Error):
            app.execute(sql)
    with connection.cursor() as cursor:
        cursor.execute("SELECT hash FROM rolls_roll WHERE id = %s", [roll.pk])
        assert cursor.fetchone() == (roll.hash,)


def test_a_roll_the_sites_role_appends_without_the_key_is_found(table, app_role):
    """The site's own role may INSERT (it appends rolls), so it could add a
    forged roll with a correct hash; without the signing key, verify_rolls finds it."""
    from rolls.ledger.chain import chain_hash
    from rolls.ledger.verify import verify_session

    (roll,) = make_rolls(table, [500])
    record = dict(roll.record, seq=2)
    record["result"] = dict(record["result"], roll=1, success=True)
    with _connect_as(app_role) as app:
        app.execute(
            "INSERT INTO rolls_roll (session_id, seq, post_id, rolled_by_id, character_id, "
            "system, test, turn_number, is_action, record, prev_hash, hash, token, "
            "request_digest, created_at) SELECT session_id, 2, post_id, rolled_by_id, "
            "character_id, system, test, turn_number, true, %s, hash, %s, %s, 'forged', "
            "created_at FROM rolls_roll WHERE id = %s",
            [
                psycopg.types.json.Json(record),
                chain_hash(roll.hash, record),
                uuid.uuid4(),
                roll.pk,
            ],
        )
    report = verify_session(table.session.pk)
    assert (report.ok, report.broken_seq, report.problem) == (False, 2, "unsigned")
