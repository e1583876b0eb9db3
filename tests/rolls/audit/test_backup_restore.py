"""Backup and restore (docs/backup.md): scripts/backup and scripts/restore on a
real PostgreSQL; the restored database passes verify_rolls, with the same chain heads, and
its ledger still refuses changes."""

import os
import subprocess
import uuid
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.db import connection

from rolls.selectors import chain_head
from tests.rolls.ledger.test_ledger import make_rolls

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]

ROOT = Path(settings.BASE_DIR)


def url(dbname: str) -> str:
    s = connection.settings_dict
    password = f":{s['PASSWORD']}" if s.get("PASSWORD") else ""
    return f"postgres://{s['USER']}{password}@{s['HOST']}:{s['PORT']}/{dbname}"


def admin_sql(sql: str) -> None:
    s = connection.settings_dict
    with psycopg.connect(
        host=s["HOST"], port=s["PORT"], user=s["USER"], dbname="postgres", autocommit=True
    ) as admin:
        admin.execute(sql)


@pytest.fixture
def empty_database():
    name = f"restored_{uuid.uuid4().hex[:8]}"
    admin_sql(f"CREATE DATABASE {name}")
    yield name
    admin_sql(f"DROP DATABASE {name} WITH (FORCE)")


def run(script: str, *args: str, database_url: str) -> subprocess.CompletedProcess:
    # The site's signing key comes along (outside the database): verify checks signatures.
    env = dict(
        os.environ,
        DATABASE_URL=database_url,
        SECRET_KEY="test-only-secret-key",
        LEDGER_SIGNING_KEY_FILE=str(settings.LEDGER_SIGNING_KEY_FILE),
    )
    return subprocess.run(
        [str(ROOT / "scripts" / script), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_restored_backup_passes_verify_rolls(table, empty_database, tmp_path):
    make_rolls(table, [30, 640, 990])
    head = chain_head(table.session).hash
    dump = tmp_path / "codziennik.dump"

    backed_up = run("backup", str(dump), database_url=url(connection.settings_dict["NAME"]))
    assert backed_up.returncode == 0, backed_up.stderr
    assert dump.stat().st_size > 0

    restored = run("restore", str(dump), database_url=url(empty_database))
    assert restored.returncode == 0, restored.stdout + restored.stderr
    assert f"OK, 3 rolls, head {head}" in restored.stdout

    # The restored ledger is as append-only as the original: its triggers came along.
    with psycopg.connect(url(empty_database), autocommit=True) as copy:
        assert copy.execute("SELECT count(*) FROM rolls_roll").fetchone() == (3,)
        with pytest.raises(psycopg.errors.IntegrityConstraintViolation):
            copy.execute("UPDATE rolls_roll SET hash = 'x'")
        with pytest.raises(psycopg.errors.IntegrityConstraintViolation):
            copy.execute("DELETE FROM rolls_roll")


def test_restore_refuses_a_database_that_is_not_empty(table, tmp_path):
    make_rolls(table, [500])
    dump = tmp_path / "codziennik.dump"
    own = url(connection.settings_dict["NAME"])
    assert run("backup", str(dump), database_url=own).returncode == 0
    refused = run("restore", str(dump), database_url=own)
    assert refused.returncode == 2
    assert "not empty" in refused.stderr
    assert table.session.rolls.count() == 1


def test_verify_after_restore_finds_a_forged_record(table, empty_database, tmp_path):
    """verify_rolls on the copy is a real check: a record changed in the dump's copy (by its
    owner, triggers switched off) is reported and the restore script exits 1."""
    make_rolls(table, [200, 300])
    dump = tmp_path / "codziennik.dump"
    assert (
        run("backup", str(dump), database_url=url(connection.settings_dict["NAME"])).returncode == 0
    )
    assert run("restore", str(dump), database_url=url(empty_database)).returncode == 0
    with psycopg.connect(url(empty_database), autocommit=True) as copy:
        copy.execute("ALTER TABLE rolls_roll DISABLE TRIGGER USER")
        copy.execute(
            "UPDATE rolls_roll SET record = jsonb_set(record::jsonb, '{seq}', '7')::json"
            " WHERE seq = 1"
        )
    verify = run("manage", "verify_rolls", database_url=url(empty_database))
    assert verify.returncode == 1
    assert "BROKEN at #1" in verify.stdout
