"""In Chromium: the GM types a free-form roll, sees what it means (htmx), rolls,
and the diary post shows every die, the dropped one marked in words, and the total."""

import re

import pytest
from playwright.sync_api import expect

from rolls.ledger import verify as ledger
from rolls.models import Roll
from tests.browser.conftest import log_in
from tests.conftest import PASSWORD, polish

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_gm_rolls_4k6kh3_and_the_post_shows_four_dice(page, table):
    log_in(page, table.gm.username, PASSWORD)
    page.goto(f"/sessions/{table.session.pk}/")
    page.get_by_test_id("free-roll-link").click()
    expression = page.get_by_label(polish("Dice expression"))
    # A refused expression: the Polish reason under the field, live.
    expression.fill("4k6x2")
    expect(page.get_by_test_id("free-preview-error")).to_contain_text("Mnożenie zapisz gwiazdką")
    expect(page.get_by_test_id("free-preview-error")).to_contain_text("Może chodziło o: 4k6*2")
    expression.fill("4k6kh3+1")
    summary = page.get_by_test_id("free-summary")
    expect(summary).to_contain_text("4 kości k6, zachowaj 3 najwyższe, +1; wynik 4–19")
    page.get_by_label(polish("What it is for")).fill("Obrażenia od topora")
    # Enter in a text field does not roll.
    page.get_by_label(polish("What it is for")).press("Enter")
    page.wait_for_timeout(300)
    assert not Roll.objects.exists()
    page.get_by_test_id("free-roll-submit").click()
    page.wait_for_url(re.compile(r"#roll-\d+$"))
    roll = Roll.objects.get()
    shown = page.locator(f"#roll-{roll.seq}").get_by_test_id("free-roll")
    expect(shown).to_contain_text("Obrażenia od topora")
    expect(shown).to_contain_text("4k6kh3+1")
    dice = shown.get_by_test_id("free-die")
    expect(dice).to_have_count(4)
    faces = roll.record["result"]["dice"]
    assert [int(d.split()[0]) for d in dice.all_inner_texts()] == faces
    expect(shown.locator(".die.dropped")).to_have_count(1)
    expect(shown.locator(".die.dropped")).to_contain_text(f"({polish('dropped')})")
    expect(shown.get_by_test_id("free-total")).to_have_text(str(roll.record["result"]["total"]))
    assert roll.record["result"]["total"] == sum(faces) - min(faces) + 1
    assert ledger.verify_session(table.session.pk, recompute=True).ok
