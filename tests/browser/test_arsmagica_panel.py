"""In Chromium: the GM rolls every Ars Magica test in the panel (the simple die
and the stress die, the preview redrawing with the exact chance and the botch chance, bad
input refused in Polish) and each roll lands in the post with its line; the demo's
doubling and botch read in the diary as the record says."""

import re

import pytest
from playwright.sync_api import expect

from demo.systems.arsmagica import seed_arsmagica_rolls
from rolls.engine import systems
from rolls.models import Roll
from rolls.systems.arsmagica import display
from tests.browser.conftest import log_in, roll_button
from tests.browser.test_roll_panel import COUNT_REDRAWS, choose, percent, redraw, type_in
from tests.conftest import PASSWORD, polish
from tests.rolls.systems.arsmagica.ars_table import build_saga, demo_saga

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def saga(make_user):
    return build_saga(make_user)


def open_panel(page, t):
    page.add_init_script(COUNT_REDRAWS)
    log_in(page, t.gm.username, PASSWORD)
    page.goto(f"/sessions/{t.session.pk}/")
    page.get_by_role("link", name=polish("Roll panel")).click()
    expect(page.get_by_test_id("chance")).to_be_visible()


def engine_chance(mode: str, **data) -> float:
    test = systems.parse_test("arsmagica", mode, data)
    return float(systems.probability("arsmagica", test) * 100)


def expect_the_line(page, roll: Roll) -> None:
    """The post shows the roll's line exactly as its record renders it."""
    (line,) = display.lines(roll.record)
    shown = page.locator(f"#roll-{roll.seq}").get_by_test_id("roll-line")
    expect(shown).to_contain_text(f"{line.who} · {line.what}")
    expect(shown.locator(".outcome")).to_have_text(line.outcome)
    for detail in line.details:
        expect(shown).to_contain_text(detail)
    expect(shown.get_by_test_id("roll-dice").locator(".die")).to_have_count(len(line.dice))


def roll_it(page) -> Roll:
    before = Roll.objects.count()
    roll_button(page).click()
    page.wait_for_url(re.compile(r"/sessions/\d+/.*#roll-\d+$"))
    assert Roll.objects.count() == before + 1
    return Roll.objects.order_by("-seq").first()


def test_the_gm_rolls_every_ars_magica_test_and_each_lands_in_the_post(page, saga):
    open_panel(page, saga)
    # The simple die: Zręczność +2 + Skradanie 5 + Zwinne dłonie +2 − 2 (GM) vs Trudny (12).
    choose(page, "character", value=str(saga.flambeau.pk))
    choose(page, "characteristic", value=str(saga.dex.pk))
    choose(page, "ability", value=str(saga.stealth.pk))
    choose(page, "ease", value="12")
    redraw(page, lambda: page.locator(f'[name="sources"][value="trait:{saga.quick.pk}"]').check())
    type_in(page, "modifier_1", "-2")
    # A modifier without its reason is refused in Polish, and nothing rolls.
    expect(page.get_by_test_id("preview-problems")).to_contain_text(
        polish("A modifier you type needs a reason: the roll shows it to everyone.")
    )
    type_in(page, "reason_1", "ciemno")
    expect(page.get_by_test_id("preview-terms")).to_contain_text("modyfikator MG −2: ciemno")
    modifiers = [2, -2]
    shown = percent(page.get_by_test_id("chance").inner_text())
    exact = engine_chance(
        "simple", characteristic=2, ability=5, ease_factor=12, modifiers=modifiers
    )
    assert abs(float(shown) - exact) < 0.006
    # Enter in the reason does not roll.
    page.locator('[name="reason_1"]').press("Enter")
    page.wait_for_timeout(300)
    assert not Roll.objects.exists()
    simple = roll_it(page)
    assert simple.test == "simple"
    assert simple.record["result"]["input"]["ease_factor"] == 12
    expect_the_line(page, simple)

    # The stress die: the tab, a bad botch count refused, then two botch dice.
    page.goto(f"/sessions/{saga.session.pk}/")
    page.get_by_role("link", name=polish("Roll panel")).click()
    page.get_by_role("link", name=polish("Stress die")).click()
    expect(page.get_by_test_id("chance")).to_be_visible()
    choose(page, "character", value=str(saga.flambeau.pk))
    choose(page, "characteristic", value=str(saga.dex.pk))
    choose(page, "ability", value=str(saga.stealth.pk))
    type_in(page, "botch_dice", "-1")
    expect(page.get_by_test_id("preview-problems")).to_contain_text(
        polish("The number of botch dice cannot be negative.")
    )
    type_in(page, "botch_dice", "2")
    choose(page, "ease", value="other")
    type_in(page, "ease_value", "14")
    expect(page.get_by_test_id("preview-terms")).to_contain_text("Szansa fuszerki")
    expect(page.get_by_test_id("preview-terms")).to_contain_text("1,9%")
    shown = percent(page.get_by_test_id("chance").inner_text())
    exact = engine_chance("stress", characteristic=2, ability=5, ease_factor=14, botch_dice=2)
    assert abs(float(shown) - exact) < 0.006
    stress = roll_it(page)
    result = stress.record["result"]
    assert (stress.test, result["input"]["botch_dice"], result["ease_factor"]) == (
        "stress",
        2,
        14,
    )
    expect_the_line(page, stress)
    assert [roll.seq for roll in Roll.objects.order_by("seq")] == [1, 2]


def test_the_demo_doubling_and_botch_read_in_the_diary(page, make_user):
    session, characters, users = demo_saga(make_user)
    made = seed_arsmagica_rolls(session, characters, users)
    log_in(page, users["gm"].username, PASSWORD)
    page.goto(made[0].post.get_absolute_url())
    for roll in made:
        expect_the_line(page, roll)
    doubling = page.locator(f"#roll-{made[1].seq}").get_by_test_id("roll-line")
    expect(doubling).to_contain_text("Kość stresu: 1 → 1 → 5: 5 × 4 = 20")
    botch = page.locator(f"#roll-{made[2].seq}").get_by_test_id("roll-line")
    expect(botch.locator(".outcome")).to_have_text(polish("Botch"))
    expect(botch).to_contain_text("fuszerka! 1 zero")
