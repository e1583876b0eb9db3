"""The roll panel on a phone (375 × 812): the initiative table's boxes keep visible labels
when its headers are not drawn, and on the long opposed tab the odds and the Roll button
stay on the screen without scrolling, above which a focused field is never hidden."""

import io

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from demo.ford.story import SESSION_TITLE
from demo.users import DEMO_USERS as DEMO_PASSWORDS
from diary.models import GameSession
from tests.browser.conftest import log_in, roll_button, wait_until_quiet
from tests.conftest import polish

pytestmark = pytest.mark.django_db(transaction=True)

WIDTH, HEIGHT = 375, 812


@pytest.fixture
def demo():
    call_command("seed_demo", stdout=io.StringIO())
    return GameSession.objects.get(title=SESSION_TITLE)


@pytest.fixture
def phone(browser, live_server):
    context = browser.new_context(
        locale="pl-PL", base_url=live_server.url, viewport={"width": WIDTH, "height": HEIGHT}
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


def _on_screen(box) -> bool:
    return (
        box is not None
        and box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= WIDTH
        and box["y"] + box["height"] <= HEIGHT
    )


def test_on_a_phone_the_initiative_tables_boxes_have_visible_labels(phone, demo):
    log_in(phone, "gm", DEMO_PASSWORDS["gm"])
    phone.goto(f"/sessions/{demo.pk}/rolls/panel/?mode=initiative")
    wait_until_quiet(phone)
    rows = phone.locator("table.stack-on-phone tbody tr")
    assert rows.count() >= 2
    for index in range(rows.count()):
        row = rows.nth(index)
        for name in (polish("Initiative / speed modifier"), polish("Reason")):
            label = row.locator("label.phone-label", has_text=name)
            expect(label).to_be_visible()
            box = label.bounding_box()
            assert box["width"] > 0 and box["x"] + box["width"] <= WIDTH
            # A real label of the box under it: clicking it focuses the box.
            field = row.locator(f"#{label.get_attribute('for')}")
            label.click()
            expect(field).to_be_focused()
        # The cells without a box of their own say what they are before their value.
        for cell in row.locator("td[data-label]").all():
            before = cell.evaluate("c => getComputedStyle(c, '::before').content")
            assert cell.get_attribute("data-label") in before


def test_on_a_phone_the_opposed_tabs_odds_and_roll_button_stay_in_view(phone, demo):
    log_in(phone, "gm", DEMO_PASSWORDS["gm"])
    phone.goto(f"/sessions/{demo.pk}/rolls/panel/?mode=opposed")
    wait_until_quiet(phone)
    # The tab runs past two screens, so without the bar its end would be far below.
    assert phone.evaluate("document.documentElement.scrollHeight") > 2 * HEIGHT
    odds = phone.get_by_test_id("odds")
    roll = roll_button(phone)
    expect(odds).to_be_visible()
    assert _on_screen(odds.bounding_box()), odds.bounding_box()
    assert _on_screen(roll.bounding_box()), roll.bounding_box()
    # Typing a field's value redraws #preview; the odds stay on the screen.
    bar = phone.get_by_test_id("roll-bar")
    fields = phone.locator(".panel-form input[type=text], .panel-form input[type=number]")
    last = fields.nth(fields.count() - 1)
    last.focus()
    field_box, bar_box = last.bounding_box(), bar.bounding_box()
    # The focused field is on the screen, above the bar, not under it.
    assert field_box["y"] >= 0 and field_box["y"] + field_box["height"] <= bar_box["y"] + 1
    last.fill("5")
    wait_until_quiet(phone)
    assert _on_screen(phone.get_by_test_id("odds").bounding_box())
    assert _on_screen(roll.bounding_box())
    assert not phone.evaluate(
        "document.documentElement.scrollWidth > document.documentElement.clientWidth"
    )
