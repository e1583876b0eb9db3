"""Signed rolls: every ledger row is signed with the app's Ed25519 key, held
outside the database; a row written by a database user without the key is found by
verify_rolls, the audit page and docs/verify_ledger.py; rotated keys keep verifying."""

import base64
import importlib.util
import json
import uuid
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.urls import reverse

from rolls.ledger import signing
from rolls.ledger.chain import chain_hash
from rolls.ledger.verify import verify_session
from rolls.models import Roll
from tests.diary_entries import hp_entry
from tests.rolls.ledger.test_ledger import _tamper, make_rolls

pytestmark = pytest.mark.django_db

SCRIPT = Path(settings.BASE_DIR) / "docs" / "verify_ledger.py"


def load_script():
    spec = importlib.util.spec_from_file_location("verify_ledger", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def forge_next_roll(session, *, key: Ed25519PrivateKey | None = None) -> None:
    """What a database user without the site's key can do: INSERT a row that extends the
    chain with a correct hash (and, at best, a signature by a key of their own)."""
    last = Roll.objects.filter(session=session).order_by("-seq").first()
    record = dict(last.record, seq=last.seq + 1, rolled_at="2026-12-01T20:00:00+00:00")
    record["result"] = dict(record["result"], roll=1, success=True)
    row_hash = chain_hash(last.hash, record)
    key_id = signature = None
    if key is not None:
        raw = key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )
        key_id = signing.key_id_of(base64.b64encode(raw).decode())
        signature = base64.b64encode(key.sign(row_hash.encode())).decode()
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO rolls_roll (session_id, seq, post_id, rolled_by_id, character_id, "
            "system, test, turn_number, is_action, record, prev_hash, hash, token, "
            "request_digest, created_at, key_id, signature) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            [
                session.pk,
                last.seq + 1,
                last.post_id,
                last.rolled_by_id,
                last.character_id,
                last.system,
                last.test,
                last.turn_number,
                True,
                json.dumps(record),
                last.hash,
                row_hash,
                uuid.uuid4().hex if connection.vendor == "sqlite" else str(uuid.uuid4()),
                "forged",
                last.created_at,
                key_id,
                signature,
            ],
        )


def test_every_roll_is_signed_by_the_sites_key(table):
    rolls = make_rolls(table, [100, 600])
    current = signing.key_id_of(signing.current_public_key())
    for roll in rolls:
        assert roll.key_id == current
        assert signing.signature_problem(roll.hash, roll.key_id, roll.signature, {}) == (
            "unknown_key"
        )
        assert (
            signing.signature_problem(
                roll.hash, roll.key_id, roll.signature, signing.trusted_public_keys()
            )
            is None
        )
    assert verify_session(table.session.pk).ok


def test_the_key_lives_outside_the_database(table):
    make_rolls(table, [100])
    path = Path(settings.LEDGER_SIGNING_KEY_FILE)
    assert path.exists()
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    pem = path.read_bytes()
    with connection.cursor() as cursor:
        cursor.execute("SELECT record, signature FROM rolls_roll")
        rows = cursor.fetchall()
    assert all(b"PRIVATE" not in str(row).encode() for row in rows)
    assert b"PRIVATE KEY" in pem


@pytest.mark.parametrize("forger_key", [None, "own"], ids=["unsigned", "own-key"])
def test_a_forged_row_with_a_correct_hash_is_found(table, capsys, forger_key):
    """The finding: the site's database role could append a forged roll that verified."""
    make_rolls(table, [700, 800])
    forge_next_roll(table.session, key=Ed25519PrivateKey.generate() if forger_key else None)
    report = verify_session(table.session.pk)
    assert not report.ok
    assert report.broken_seq == 3
    assert report.problem == ("unknown_key" if forger_key else "unsigned")
    with pytest.raises(SystemExit) as exit_info:
        call_command("verify_rolls")
    assert exit_info.value.code == 1
    assert "BROKEN at #3" in capsys.readouterr().out


def test_a_signature_moved_to_another_row_is_bad(table):
    first, second = make_rolls(table, [10, 20])
    # An attacker with DDL rights (the triggers dropped, within this test) copies a good one.
    _tamper("UPDATE rolls_roll SET signature = %s WHERE id = %s", [first.signature, second.pk])
    report = verify_session(table.session.pk)
    assert (report.broken_seq, report.problem) == (2, "bad_signature")


def test_a_rotated_key_keeps_verifying_its_rolls(table, settings, tmp_path):
    make_rolls(table, [100])
    old_public = signing.current_public_key()
    settings.LEDGER_SIGNING_KEY_FILE = tmp_path / "new-key.pem"
    # The new key alone does not trust the old rolls …
    assert verify_session(table.session.pk).problem == "unknown_key"
    # … until the old public key is listed as retired.
    settings.LEDGER_RETIRED_PUBLIC_KEYS = [old_public]
    make_rolls(table, [200])
    rolls = list(Roll.objects.order_by("seq"))
    assert rolls[0].key_id != rolls[1].key_id
    assert rolls[1].key_id == signing.key_id_of(signing.current_public_key())
    assert verify_session(table.session.pk).ok


def test_the_export_carries_signatures_and_the_script_checks_them(table, client_for, tmp_path):
    make_rolls(table, [300, 400])
    exported = client_for(table.gm).get(reverse("rolls:export", args=[table.session.pk]))
    ledger = json.loads(exported.content)
    public = signing.current_public_key()
    assert ledger["public_keys"] == {signing.key_id_of(public): public}
    assert all(roll["signature"] for roll in ledger["rolls"])
    script = load_script()
    path = tmp_path / "ledger.json"
    path.write_text(json.dumps(ledger), encoding="utf-8")
    assert script.main([str(path), "--public-key", public]) == 0

    # A key the site never published does not verify the rows.
    stranger = base64.b64encode(
        Ed25519PrivateKey.generate()
        .public_key()
        .public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    ).decode()
    assert script.main([str(path), "--public-key", stranger]) == 1
    # A row whose signature was blanked fails too.
    ledger["rolls"][1]["signature"] = ""
    path.write_text(json.dumps(ledger), encoding="utf-8")
    assert script.main([str(path), "--public-key", public]) == 1


def test_the_scripts_pure_python_ed25519_agrees_with_cryptography():
    script = load_script()
    key = Ed25519PrivateKey.generate()
    public = key.public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw
    )
    for n in range(3):
        message = f"{n:064x}".encode()
        signature = key.sign(message)
        assert script.ed25519_verify_pure(public, message, signature)
        assert not script.ed25519_verify_pure(public, message + b"0", signature)
        tampered = bytes([signature[0] ^ 1]) + signature[1:]
        assert not script.ed25519_verify_pure(public, message, tampered)


def test_the_public_keys_are_published_to_anyone(client):
    response = client.get(reverse("rolls:ledger_keys"))
    assert response.status_code == 200
    payload = response.json()
    assert payload["current_key_id"] == signing.key_id_of(signing.current_public_key())
    assert payload["public_keys"][payload["current_key_id"]] == signing.current_public_key()


def test_recompute_passes_on_real_rolls_and_entries(table, capsys):
    make_rolls(table, [1, 500, 999])
    # A diary entry in the same chain: no die, nothing to recompute, still verified.
    hp_entry(table.session, table.gm, table.lirael, -5)
    call_command("verify_rolls", "--recompute")
    out = capsys.readouterr().out
    assert "OK, 4 rolls" in out
    assert "every result recomputed" in out
    assert verify_session(table.session.pk, recompute=True).ok


def test_recompute_finds_a_result_the_dice_do_not_give(table, capsys):
    """A record whose hash and signature are right but whose result is not what its stored
    case and dice give (a writer other than the engine) passes the chain, not --recompute."""
    make_rolls(table, [900])
    last = Roll.objects.get()
    record = dict(last.record, seq=2)
    record["result"] = dict(record["result"], success=True, outcome="success")
    row_hash = chain_hash(last.hash, record)
    key_id, signature = signing.sign(row_hash)  # a writer holding the site's key
    Roll.objects.create(
        session=table.session,
        seq=2,
        post=last.post,
        rolled_by=last.rolled_by,
        character=last.character,
        system=last.system,
        test=last.test,
        turn_number=last.turn_number,
        record=record,
        prev_hash=last.hash,
        hash=row_hash,
        key_id=key_id,
        signature=signature,
        token=uuid.uuid4(),
        request_digest="x",
        created_at=last.created_at,
    )
    assert verify_session(table.session.pk).ok
    report = verify_session(table.session.pk, recompute=True)
    assert (report.broken_seq, report.problem) == (2, "wrong_result")
    with pytest.raises(SystemExit):
        call_command("verify_rolls", "--recompute")
    assert "BROKEN at #2" in capsys.readouterr().out
