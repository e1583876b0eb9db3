"""In Chromium: the GM rolls a Q10 pool in the panel (the preview redraws with the
exact chance and the cap), the roll lands in the post with its line; a player asks for a
pool and the GM answers it in one click."""

import re
from types import SimpleNamespace

import pytest
from playwright.sync_api import expect

from rolls.engine import q10 as engine
from rolls.models import AskStatus, Roll, RollAsk
from tests.browser.conftest import log_in, roll_button
from tests.browser.test_roll_panel import COUNT_REDRAWS, choose, percent, redraw, type_in
from tests.conftest import PASSWORD, polish
from tests.rolls.systems.q10.q10_table import build_archer_table

pytestmark = pytest.mark.django_db(transaction=True)


def open_panel(page, t):
    page.add_init_script(COUNT_REDRAWS)
    log_in(page, t.gm.username, PASSWORD)
    page.goto(f"/sessions/{t.session.pk}/")
    page.get_by_role("link", name=polish("Roll panel")).click()
    expect(page.get_by_test_id("chance")).to_be_visible()


def test_the_gm_rolls_a_q10_pool_and_it_lands_in_the_post(page, q10):
    open_panel(page, q10)
    choose(page, "character", value=str(q10.eryk.pk))
    choose(page, "attribute", value=str(q10.sila.pk))
    choose(page, "skill", value=str(q10.atletyka.pk))
    choose(page, "difficulty", value="20")
    type_in(page, "raises", "1")
    # 5z2 against 20 + 5 (a raise): the engine's exact chance.
    shown = percent(page.get_by_test_id("chance").inner_text())
    assert abs(shown - engine.pool_probability(5, 2, 25) * 100) < 0.006
    # A pool modifier beyond 10 dice is capped, and the preview says so.
    type_in(page, "pool_dice_1", "7")
    type_in(page, "pool_reason_1", "Szał bojowy")
    expect(page.get_by_test_id("preview-terms")).to_contain_text("12z2 → 10z2")
    # Enter in a text field does not roll.
    page.locator('[name="pool_reason_1"]').press("Enter")
    page.wait_for_timeout(300)
    assert not Roll.objects.exists()
    type_in(page, "pool_dice_1", "0")
    type_in(page, "pool_reason_1", "")
    choose(page, "circumstance_1", value="10")
    type_in(page, "circumstance_reason_1", "Ciemność")
    roll_button(page).click()
    page.wait_for_url(re.compile(r"#roll-\d+$"))
    roll = Roll.objects.get()
    result = roll.record["result"]
    assert (result["x"], result["y"], result["difficulty"]) == (5, 2, 35)
    line = page.locator(f"#roll-{roll.seq}").get_by_test_id("roll-line")
    expect(line).to_contain_text("Eryk · Siła + Atletyka (5z2)")
    expect(line).to_contain_text(f"kości: {', '.join(map(str, result['faces']))}")
    expect(line).to_contain_text(f"Trudność {result['difficulty']}")
    expect(line).to_contain_text("MG +10: Ciemność")
    outcome = polish("Success") if result["success"] else polish("Failure")
    expect(line.locator(".outcome")).to_have_text(outcome)
    assert line.locator(".die.kept").count() == 2 + len(result["extra"])


def test_a_gm_modifier_without_a_reason_is_refused_in_the_browser(page, q10):
    open_panel(page, q10)
    redraw(page, lambda: page.locator('[name="pool_keep_1"]').fill("1"))
    expect(page.get_by_test_id("preview-problems")).to_be_visible()
    roll_button(page).click()
    expect(page.locator("#id_pool_reason_1_error")).to_contain_text(
        polish("A modifier you type needs a reason: the roll shows it to everyone.")
    )
    assert not Roll.objects.exists()


def test_a_player_asks_for_a_pool_and_the_gm_answers_in_one_click(browser, live_server, q10):
    player_context = browser.new_context(locale="pl-PL", base_url=live_server.url)
    player = player_context.new_page()
    player.add_init_script(COUNT_REDRAWS)
    log_in(player, q10.alice.username, PASSWORD)
    player.goto(f"/sessions/{q10.session.pk}/")
    player.get_by_label(polish("Narration")).fill("Eryk bierze rozbieg nad rozpadliną.")
    player.get_by_role("button", name=polish("Publish")).click()
    player.get_by_role("link", name=polish("Ask the GM for a roll")).click()
    choose(player, "skill", value=str(q10.atletyka.pk))
    raises = player.locator('[name="raises"]')
    redraw(player, lambda: (raises.fill("1"), raises.press("Tab")))  # the form redraws on change
    player.get_by_role("button", name=polish("Send the request")).click()
    expect(player.get_by_test_id("roll-ask")).to_contain_text(
        "Eryk: Siła + Atletyka (5z2) · podbicia: 1"
    )
    ask = RollAsk.objects.get()

    gm_context = browser.new_context(locale="pl-PL", base_url=live_server.url)
    gm = gm_context.new_page()
    log_in(gm, q10.gm.username, PASSWORD)
    gm.goto(f"/sessions/{q10.session.pk}/")
    gm.get_by_test_id("open-asks").get_by_role("link", name=polish("Answer with a roll")).click()
    expect(gm.get_by_test_id("answering")).to_contain_text(ask.summary)
    expect(gm.locator('[name="raises"]')).to_have_value("1")
    gm.locator('[name="difficulty"]').select_option("10")
    roll_button(gm).click()
    gm.wait_for_url(re.compile(r"#roll-\d+$"))
    roll = Roll.objects.get()
    ask.refresh_from_db()
    assert (ask.status, ask.answer) == (AskStatus.ANSWERED, roll)
    assert roll.record["result"]["difficulty"] == 15
    player.reload()
    expect(player.get_by_test_id("roll-ask")).to_contain_text(
        polish("by roll #%(seq)s", seq=roll.seq)
    )
    player_context.close()
    gm_context.close()


def test_a_fresh_panel_previews_the_sheets_best_pair(page, make_user):
    """Ilsa shoots (Zręczność 4 + Łucznictwo 3): the panel opens on that pool, 7z3 against
    15, not on the catalog's first skill at level 0 (Siła + Atletyka, 2z0)."""
    gm, session, _sila, zrecznosc, catalog = build_archer_table(make_user, {"Łucznictwo": 3})
    open_panel(page, SimpleNamespace(gm=gm, session=session))
    expect(page.locator('[name="attribute"]')).to_have_value(str(zrecznosc.pk))
    expect(page.locator('[name="skill"]')).to_have_value(str(catalog["Łucznictwo"].pk))
    expect(page.get_by_test_id("preview-terms")).to_contain_text("7z3")
    shown = percent(page.get_by_test_id("chance").inner_text())
    assert abs(shown - engine.pool_probability(7, 3, 15) * 100) < 0.006
