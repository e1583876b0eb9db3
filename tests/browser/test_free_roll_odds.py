"""In Chromium: before rolling, the free-form roll page shows the exact odds of 4k6k3,
10k10>=8 and 3k6! (mean, the chance of a total the GM types, every total's chance); after
rolling, the post shows every die of each, and the ledger recomputes them."""

import re

import pytest
from playwright.sync_api import expect

from rolls.ledger import verify as ledger
from rolls.models import Roll
from tests.browser.conftest import log_in, wait_until_quiet
from tests.conftest import PASSWORD, polish

pytestmark = pytest.mark.django_db(transaction=True)

CASES = [
    # expression, target, mean, P(total ≥ target), as AnyDice gives them
    ("4k6k3", "15", "12,24", "23,15 %"),
    ("10k10>=8", "3", "3,00", "61,72 %"),
    ("3k6!", "15", "12,60", "30,32 %"),
]


def test_the_exact_odds_before_rolling_and_every_die_after(page, table):
    log_in(page, table.gm.username, PASSWORD)
    for expression, target, mean, at_least in CASES:
        page.goto(f"/sessions/{table.session.pk}/")
        page.get_by_test_id("free-roll-link").click()
        page.get_by_label(polish("Dice expression")).fill(expression)
        page.get_by_test_id("free-target").fill(target)
        expect(page.get_by_test_id("free-mean")).to_have_text(mean)
        expect(page.get_by_test_id("free-at-least")).to_have_text(at_least)
        table_of_totals = page.get_by_test_id("free-odds-table")
        table_of_totals.locator("summary").click()
        expect(table_of_totals.locator("tbody tr").first).to_be_visible()
        wait_until_quiet(page)
        page.get_by_label(polish("What it is for")).fill(f"Próba {expression}")
        page.get_by_test_id("free-roll-submit").click()
        page.wait_for_url(re.compile(r"#roll-\d+$"))
        roll = Roll.objects.get(session=table.session, seq=int(page.url.rsplit("#roll-", 1)[1]))
        shown = page.locator(f"#roll-{roll.seq}").get_by_test_id("free-roll")
        faces = roll.record["result"]["dice"]
        dice = shown.get_by_test_id("free-die")
        expect(dice).to_have_count(len(faces))
        assert [int(d.split()[0]) for d in dice.all_inner_texts()] == faces
        expect(shown.get_by_test_id("free-total")).to_have_text(str(roll.record["result"]["total"]))
    assert Roll.objects.filter(session=table.session).count() == 3
    assert ledger.verify_session(table.session.pk, recompute=True).ok
