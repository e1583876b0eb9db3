"""In Chromium: a player whose GM allows free rolls types `[[1k20+3 skok]]` into the
narration, previews it and sees its exact odds, publishes, and the result stands inline in
the post, linked to its entry in the chain (the roll's page)."""

import re

import pytest
from playwright.sync_api import expect

from diary.models import GameSession
from rolls.ledger import verify as ledger
from rolls.models import InlineRoll
from tests.browser.conftest import log_in
from tests.conftest import PASSWORD, polish

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.fair_dice]


def test_a_player_writes_dice_into_the_narration_sees_the_odds_and_the_result(page, table):
    GameSession.objects.filter(pk=table.session.pk).update(players_free_rolls=True)
    log_in(page, table.alice.username, PASSWORD)
    page.goto(f"/sessions/{table.session.pk}/")
    narration = page.locator("#write textarea[name=narration]")
    narration.fill("Lirael bierze rozbieg. [[1k20+3 skok]]")
    page.get_by_role("button", name=polish("Preview")).click()
    dice = page.get_by_test_id("inline-dice-preview")
    expect(dice).to_contain_text("1k20+3")
    expect(dice.get_by_test_id("inline-dice-mean")).to_have_text("13,50")
    expect(narration).to_have_value("Lirael bierze rozbieg. [[1k20+3 skok]]")
    page.get_by_role("button", name=polish("Publish")).click()

    shown = page.locator("article.post").last.get_by_test_id("inline-roll")
    expect(shown).to_contain_text("1k20+3 skok")
    row = InlineRoll.objects.select_related("roll").get()
    total = row.roll.record["result"]["total"]
    expect(shown.locator(".inline-roll-total")).to_have_text(str(total))
    # The roller's seed came from this page, as on the roll forms.
    assert row.roll.record["fair"]["client_seed_by"] == "browser"
    shown.click()
    page.wait_for_url(re.compile(rf"/sessions/{table.session.pk}/rolls/{row.roll.seq}/$"))
    expect(page.get_by_role("main")).to_contain_text(str(total))
    assert ledger.verify_session(table.session.pk).ok
