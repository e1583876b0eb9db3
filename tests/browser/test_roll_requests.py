"""A player asks for a roll in the browser; the GM answers it with one click and a roll."""

import re

import pytest
from playwright.sync_api import expect

from rolls.models import AskStatus, Roll, RollAsk
from tests.browser.conftest import log_in, roll_button
from tests.browser.steps import ask_for_a_skill_roll
from tests.browser.test_roll_panel import COUNT_REDRAWS
from tests.conftest import PASSWORD, polish

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_request_is_asked_then_answered_in_one_click(browser, live_server, table):
    player_context = browser.new_context(locale="pl-PL", base_url=live_server.url)
    player = player_context.new_page()
    player.add_init_script(COUNT_REDRAWS)
    log_in(player, table.bob.username, PASSWORD)
    player.goto(f"/sessions/{table.session.pk}/")
    player.get_by_label(polish("Narration")).fill("Borys klęka przy skrzyni z wytrychami.")
    player.get_by_role("button", name=polish("Publish")).click()
    ask_for_a_skill_roll(player, "Otwieranie zamków", "Precyzyjny")
    expect(player.get_by_test_id("roll-ask")).to_contain_text("Precyzyjny +50")
    ask = RollAsk.objects.get()

    gm_context = browser.new_context(locale="pl-PL", base_url=live_server.url)
    gm = gm_context.new_page()
    log_in(gm, table.gm.username, PASSWORD)
    gm.goto(f"/sessions/{table.session.pk}/")
    gm.get_by_test_id("open-asks").get_by_role("link", name=polish("Answer with a roll")).click()
    expect(gm.get_by_test_id("answering")).to_contain_text(ask.summary)
    expect(gm.get_by_test_id("threshold")).to_be_visible()
    roll_button(gm).click()
    gm.wait_for_url(re.compile(r"#roll-\d+$"))
    roll = Roll.objects.get()
    ask.refresh_from_db()
    assert (ask.status, ask.answer) == (AskStatus.ANSWERED, roll)
    assert roll.record["result"]["input"]["skill"] == "Otwieranie zamków"
    player.reload()
    expect(player.get_by_test_id("roll-ask")).to_contain_text(
        polish("by roll #%(seq)s", seq=roll.seq)
    )
    player_context.close()
    gm_context.close()
