"""In Chromium: a player's Ciernie i Gwiazdy roll fails (the dice forced), the diary offers
the reroll to her, she chooses it with the sources that apply, and the post shows the failed
roll as it fell and the reroll, linked to it, with the final outcome; the offer is gone."""

import re

import pytest
from playwright.sync_api import expect

from rolls.engine.dice import ScriptedDice
from rolls.models import Roll
from tests.browser.conftest import log_in, roll_button, wait_until_quiet
from tests.browser.test_roll_panel import COUNT_REDRAWS, choose
from tests.conftest import PASSWORD, polish
from tests.rolls.systems.ciernie.ciernie_table import build_ciernie_table, flag_reroll_sources

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def ciernie(make_user):
    table = build_ciernie_table(make_user, roll_policy="players_own")
    flag_reroll_sources()
    return table


def test_a_player_rerolls_her_failed_roll_and_the_post_shows_both(page, ciernie, monkeypatch):
    t = ciernie
    # The first roll fails (17 over Zręczność 13), the reroll succeeds (9).
    faces = iter([[17], [9]])
    monkeypatch.setattr("rolls.services.SystemDice", lambda: ScriptedDice(next(faces)))
    page.add_init_script(COUNT_REDRAWS)
    log_in(page, t.alice.username, PASSWORD)
    page.goto(f"/sessions/{t.session.pk}/rolls/panel/")
    expect(page.locator('[name="character"]')).to_have_value(str(t.vera.pk))
    choose(page, "attribute", value=str(t.a["Zręczność"].pk))
    wait_until_quiet(page)
    expect(page.get_by_test_id("preview-terms")).to_contain_text("Z przerzutem po porażce")
    roll_button(page).click()
    page.wait_for_url(re.compile(r"#roll-\d+$"))
    first = Roll.objects.get()
    assert first.record["result"]["outcome"] == "failure"
    expect(page.locator(f"#roll-{first.seq} .outcome")).to_have_text("Porażka")

    offer = page.get_by_test_id("reroll-offer")
    expect(offer).to_have_count(1)
    offer.get_by_role("link", name=polish("Reroll")).click()
    expect(page.get_by_test_id("reroll-chance")).to_contain_text("80")  # 16/20, both sources
    # Only the ability applies here: k = 1, the threshold stays 13.
    page.locator('[name="reroll_sources"]').nth(1).uncheck()
    page.get_by_test_id("reroll").click()
    page.wait_for_url(re.compile(r"#roll-\d+$"))

    first.refresh_from_db()
    second = Roll.objects.get(seq=first.seq + 1)
    assert second.record["rerolls"]["seq"] == first.seq
    assert second.record["result"]["input"]["reroll_sources"] == 1
    assert second.post_id == first.post_id
    assert first.record["result"]["roll"] == 17  # the first roll stays as it fell
    lines = page.locator(f"#roll-{second.seq}").get_by_test_id("roll-line")
    expect(lines).to_have_count(2)
    expect(lines.nth(0)).to_contain_text(f"pierwszy rzut (#{first.seq})")
    expect(lines.nth(0).locator(".outcome")).to_have_text("Porażka")
    expect(lines.nth(1)).to_contain_text("rozstrzyga")
    expect(lines.nth(1).locator(".outcome")).to_have_text("Sukces")
    expect(page.locator(f"#roll-{first.seq}")).to_be_visible()
    expect(page.get_by_test_id("reroll-offer")).to_have_count(0)
