"""The audit from outside: docs/verify_ledger.py on a real export, and who sees what."""

import base64
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.conf import settings

from rolls.ledger import signing
from rolls.ledger.chain import GENESIS_HASH, chain_hash
from rolls.selectors import chain_head
from tests.rolling import make_roll
from tests.rolls.ledger.test_ledger import make_rolls, percepcja_request

pytestmark = pytest.mark.django_db

SCRIPT = Path(settings.BASE_DIR) / "docs" / "verify_ledger.py"


def export(table, client_for) -> dict:
    response = client_for(table.gm).get(f"/sessions/{table.session.pk}/rolls/ledger.json")
    assert response.status_code == 200
    return json.loads(response.content)


def run_script(tmp_path, ledger: dict, *args) -> subprocess.CompletedProcess:
    path = tmp_path / "ledger.json"
    path.write_text(json.dumps(ledger, ensure_ascii=False), encoding="utf-8")
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(path), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture
def ledger(table, client_for):
    make_rolls(table, [412, 650, 999])
    return export(table, client_for)


def test_the_script_verifies_a_real_export(table, client_for, tmp_path):
    make_rolls(table, [412, 650, 999])
    response = client_for(table.gm).get(f"/sessions/{table.session.pk}/rolls/ledger.json")
    path = tmp_path / "codziennik-ledger.json"
    path.write_bytes(response.content)  # the file exactly as downloaded
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(path)], capture_output=True, text=True, check=False
    )
    head = chain_head(table.session).hash
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines() == [
        f"OK: 3 rolls, head {head}",
        "Every signature checks out against the keys listed in the file.",
    ]


def test_the_head_can_be_checked_against_a_noted_hash(table, ledger, tmp_path):
    head = chain_head(table.session).hash
    assert run_script(tmp_path, ledger, "--head", head).returncode == 0
    # The diary page shows the head's first 16 characters and an ellipsis.
    assert run_script(tmp_path, ledger, "--head", head[:16] + "…").returncode == 0
    wrong = run_script(tmp_path, ledger, "--head", "ab" * 32)
    assert wrong.returncode == 1
    assert "HEAD MISMATCH" in wrong.stdout
    assert run_script(tmp_path, ledger, "--head", head[:8]).returncode == 1  # too short to trust


def test_a_head_noted_before_later_rolls_is_found_in_the_chain(table, client_for, tmp_path):
    make_rolls(table, [412, 650])
    noted = chain_head(table.session).hash
    make_rolls(table, [999])
    done = run_script(tmp_path, export(table, client_for), "--head", noted[:16])
    assert done.returncode == 1  # the head moved on: not the noted one
    assert "roll #2's; rolls after it: 1" in done.stdout


def test_a_changed_record_is_found(ledger, tmp_path):
    ledger["rolls"][1]["record"]["result"]["roll"] = 1
    done = run_script(tmp_path, ledger)
    assert done.returncode == 1
    assert "BROKEN at #2: changed record" in done.stdout


def test_a_removed_roll_is_found_as_a_missing_number(ledger, tmp_path):
    del ledger["rolls"][1]
    done = run_script(tmp_path, ledger)
    assert done.returncode == 1
    assert "BROKEN at #2: missing number" in done.stdout


def test_a_rewritten_chain_keeps_its_links_but_not_its_signatures_or_head(table, ledger, tmp_path):
    """A forger who recomputes every hash passes the chain check; the site's signatures (and
    the noted head) tell. Even re-signed with a key of their own, listed in the forged file,
    the rows fail against the key the site publishes."""
    noted = chain_head(table.session).hash
    site_key = signing.current_public_key()
    forger = Ed25519PrivateKey.generate()
    forger_public = base64.b64encode(
        forger.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    ).decode()
    prev_hash = GENESIS_HASH
    ledger["rolls"][1]["record"]["result"]["roll"] = 1
    for roll in ledger["rolls"]:
        roll["prev_hash"] = prev_hash
        roll["hash"] = prev_hash = chain_hash(prev_hash, roll["record"])
    done = run_script(tmp_path, ledger)
    assert done.returncode == 1
    assert "BROKEN at #2: bad signature" in done.stdout
    for roll in ledger["rolls"]:
        roll["key_id"] = signing.key_id_of(forger_public)
        roll["signature"] = base64.b64encode(forger.sign(roll["hash"].encode())).decode()
    ledger["public_keys"] = {signing.key_id_of(forger_public): forger_public}
    assert run_script(tmp_path, ledger).returncode == 0  # the file vouches for itself …
    refused = run_script(tmp_path, ledger, "--public-key", site_key)
    assert refused.returncode == 1  # … the site's published key does not
    assert "signed with a key not trusted here" in refused.stdout
    assert run_script(tmp_path, ledger, "--head", noted).returncode == 1


def test_a_bad_link_and_a_moved_record_are_found(ledger, tmp_path):
    ledger["rolls"][2]["prev_hash"] = "f" * 64
    ledger["rolls"][2]["hash"] = chain_hash("f" * 64, ledger["rolls"][2]["record"])
    assert "BROKEN at #3: bad link" in run_script(tmp_path, ledger).stdout
    ledger["session"] += 1
    assert "BROKEN at #1: wrong position" in run_script(tmp_path, ledger).stdout


def test_the_audit_page_is_for_moderators_only(table, client_for):
    make_rolls(table, [100, 200, 300])
    make_roll(table.session, table.gm, percepcja_request(table.borys))
    url = f"/sessions/{table.session.pk}/rolls/audit/"
    for user in (table.gm, table.alice, table.bob, table.outsider):
        assert client_for(user).get(url).status_code == 403, user
    response = client_for(table.moderator).get(url)
    assert response.status_code == 200
    report = response.context["report"]
    assert (report.ok, report.count, report.head_hash) == (
        True,
        4,
        chain_head(table.session).hash,
    )
    stats = {s.name: s for s in response.context["stats"]}
    assert {name: s.count for name, s in stats.items()} == {"Lirael": 3, "Borys": 1}
    assert stats["Lirael"].mean_roll == 200.0
    body = response.content.decode()
    assert report.head_hash in body
    for name, count in (("Lirael", 3), ("Borys", 1)):
        cells = rf"<strong>{name}</strong></td><td data-label=\"[^\"]+\">{count}</td>"
        assert re.search(cells, body)


def test_the_export_is_hidden_from_outsiders(table, client_for):
    make_rolls(table, [500])
    url = f"/sessions/{table.session.pk}/rolls/ledger.json"
    assert client_for(table.outsider).get(url).status_code == 404
    for user in (table.alice, table.moderator):
        assert client_for(user).get(url).status_code == 200
