"""The Roll button waits for the line above it to describe the form (static/js/roll_plan.js),
and never waits for a line that no request will bring.

A field typed into while the whole panel is being redrawn (a new character chosen a moment
before) changed after that redraw left: the redraw's line does not describe it, and the
preview its typing asked for was bound to the form the redraw replaces. The panel redrawn
must ask for that preview itself; else the page stays "pending" and a click on Roll waits
forever. The redraw is held here until the typing is done, so the race runs the same way
every time.
"""

import pytest
from playwright.sync_api import expect

from rolls.models import Roll
from tests.browser.test_roll_panel import (
    choose,
    gm,  # noqa: F401 (a fixture)
    open_panel,
    open_tab,
    roll_and_land_in_the_diary,
)
from tests.conftest import polish

pytestmark = pytest.mark.django_db(transaction=True)


def test_what_was_typed_while_the_panel_redrew_is_described_and_rolled(gm, table):  # noqa: F811
    page = gm
    open_panel(page, table)
    open_tab(page, "Attributes")  # "Cechy"
    choose(page, "a-character", value=str(table.lirael.pk))
    choose(page, "a-attribute", label="Zręczność")
    held = []

    def hold_the_first_panel_redraw(route):
        if route.request.headers.get("hx-target") == "panel" and not held:
            held.append(route)
        else:
            route.continue_()

    page.route("**/rolls/panel/**", hold_the_first_panel_redraw)
    with page.expect_request(lambda request: request.headers.get("hx-target") == "panel"):
        page.locator('[name="a-character"]').select_option(value=str(table.borys.pk))
    page.locator('[name="a-action_value"]').fill("50")
    page.locator('[name="a-action_reason"]').fill("dobry plan")
    while not held:  # the route's handler runs as Playwright's loop turns
        page.wait_for_timeout(20)
    held[0].continue_()

    # The line catches up with what was typed, and the Roll button rolls it.
    expect(page.get_by_test_id("preview")).to_contain_text("dobry plan")
    roll = roll_and_land_in_the_diary(page)
    assert roll.character_id == table.borys.pk
    modifiers = roll.record["result"]["input"]["modifiers"]
    assert any(m.get("value") == 50 and m.get("reason") == "dobry plan" for m in modifiers), (
        modifiers
    )
    assert Roll.objects.count() == 1


def test_a_click_held_for_a_preview_that_fails_is_sent_not_kept_waiting(gm, table):  # noqa: F811
    """The preview a click waits for is answered with an error (the server failed, the
    connection dropped): no line comes, so the click goes as it was made, with the line the
    person read, and the server rolls that roll or refuses it (here the secret box changed
    the roll: refused, nothing stored). It never waits for a line no request will bring."""
    page = gm
    open_panel(page, table)
    open_tab(page, "Attributes")  # "Cechy"
    choose(page, "a-character", value=str(table.borys.pk))
    choose(page, "a-attribute", label="Zręczność")
    held = []

    def hold_the_next_preview(route):
        if route.request.headers.get("hx-target") == "preview" and not held:
            held.append(route)
        else:
            route.continue_()

    page.route("**/rolls/panel/**", hold_the_next_preview)
    page.locator('[name="secret"]').check()
    while not held:
        page.wait_for_timeout(20)
    form = page.locator("form[data-roll-plan]")
    expect(form).to_have_attribute("data-preview", "pending")
    page.get_by_role("button", name=polish("Roll"), exact=True).click()
    held[0].fulfill(status=500, body="")

    expect(page.get_by_test_id("refusal")).to_be_visible()
    assert not Roll.objects.exists()
