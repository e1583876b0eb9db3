"""In Chromium: the GM makes a secret roll in the forum1000 panel; a player's diary
shows only the commitment (no die, no result); the GM reveals it; the player now sees the
result; the export verifies with docs/verify_ledger.py and `verify_rolls` passes."""

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from playwright.sync_api import expect

from rolls.models import Roll, SecretRoll
from tests.browser.conftest import log_in, roll_button
from tests.browser.test_roll_panel import COUNT_REDRAWS, choose, open_panel, open_tab, redraw
from tests.conftest import PASSWORD, polish

pytestmark = pytest.mark.django_db(transaction=True)

SCRIPT = Path(settings.BASE_DIR) / "docs" / "verify_ledger.py"


def export_verified(page, session, tmp_path) -> str:
    """Download the session's ledger as this page's user and run docs/verify_ledger.py on
    it, as anyone may; its report, after checking it passed."""
    download = page.request.get(f"/sessions/{session.pk}/rolls/ledger.json")
    assert download.ok
    path = tmp_path / "ledger.json"
    path.write_bytes(download.body())
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_a_secret_roll_is_a_commitment_until_the_gm_reveals_it(page, player_page, table, tmp_path):
    page.add_init_script(COUNT_REDRAWS)
    log_in(page, table.gm.username, PASSWORD)
    open_panel(page, table)
    open_tab(page, "Attributes")
    choose(page, "a-character", value=str(table.lirael.pk))
    choose(page, "a-attribute", label="Percepcja")
    box = page.get_by_label(polish("Secret roll"))  # "Rzut tajny"
    redraw(page, box.check)
    expect(page.get_by_label(polish("Secret roll"))).to_be_checked()
    roll_button(page).click()

    # The GM lands on the roll's page: the hidden result is theirs to see, with the button.
    page.wait_for_url(re.compile(rf"/sessions/{table.session.pk}/rolls/1/$"))
    roll = Roll.objects.get(seq=1)
    hidden = SecretRoll.objects.get(roll=roll)
    face = hidden.record["result"]["roll"]
    expect(page.get_by_test_id("secret-hidden")).to_contain_text(f"{polish('roll')} {face}")
    assert roll.record["kind"] == "secret" and "result" not in roll.record

    # The player's diary: the commitment, no die and no result.
    log_in(player_page, table.alice.username, PASSWORD)
    player_page.goto(roll.post.get_absolute_url(anchor="roll-1"))
    entry = player_page.locator("#roll-1")
    expect(entry.get_by_test_id("secret-commitment")).to_contain_text(
        roll.record["secret"]["commitment"][:16]
    )
    expect(entry.get_by_test_id("roll-line")).to_have_count(0)
    assert hidden.salt not in player_page.content()
    assert f"{polish('roll')} {face} " not in entry.inner_text()

    # The GM reveals; one click only asks again (nothing is revealed), "Cancel" goes back.
    page.get_by_role("button", name=polish("Reveal the roll")).click()
    expect(page.get_by_role("button", name=polish("Yes, reveal the roll"))).to_be_visible()
    assert not Roll.objects.filter(test="reveal").exists()
    page.get_by_role("link", name=polish("Cancel")).click()
    page.wait_for_url(re.compile(rf"/rolls/{roll.seq}/$"))
    assert not Roll.objects.filter(test="reveal").exists()
    # Asked again and confirmed, the reveal lands beside the commitment.
    page.get_by_role("button", name=polish("Reveal the roll")).click()
    page.get_by_role("button", name=polish("Yes, reveal the roll")).click()
    page.wait_for_url(re.compile(r"#roll-2$"))
    expect(page.locator("#roll-2").get_by_test_id("revealed")).to_be_visible()

    player_page.reload()
    revealed = player_page.locator("#roll-2")
    expect(revealed.get_by_test_id("revealed")).to_contain_text("#1")
    expect(revealed.get_by_test_id("roll-line")).to_contain_text(f"{polish('roll')} {face}")
    expect(revealed.get_by_test_id("roll-line")).to_contain_text("Lirael")

    # The player downloads the ledger; the standalone script verifies both entries.
    assert "Secret rolls: 1, revealed: 1" in export_verified(player_page, table.session, tmp_path)
    out = io.StringIO()
    call_command("verify_rolls", "--recompute", stdout=out)
    assert f"session {table.session.pk}" in out.getvalue() and "OK, 2 rolls" in out.getvalue()
