"""In Chromium: the "awaited" list empties as two players post (the GM's open
diary follows live), and a second action roll is refused, then allowed with a reason."""

import re

import pytest
from playwright.sync_api import expect

from rolls.models import Roll
from tests.browser.conftest import log_in, wait_until_quiet
from tests.browser.test_roll_panel import (
    COUNT_REDRAWS,
    first_redraw,
    open_panel,
    roll_and_land_in_the_diary,
    roll_button,
    type_in,
)
from tests.conftest import PASSWORD, polish

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def other_page(browser, live_server):
    """A second person's browser, next to the GM's."""
    context = browser.new_context(locale="pl-PL", base_url=live_server.url)
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


def post_as(page, table, user, text: str) -> None:
    page.context.clear_cookies()
    log_in(page, user.username, PASSWORD)
    page.goto(f"/sessions/{table.session.pk}/")
    page.locator('textarea[name="narration"]').fill(text)
    page.get_by_role("button", name=polish("Publish"), exact=True).click()
    page.wait_for_url(re.compile(r"#post-\d+$"))


def test_the_awaited_list_empties_as_two_players_post(page, other_page, table):
    log_in(page, table.gm.username, PASSWORD)
    page.goto(f"/sessions/{table.session.pk}/")
    awaited = page.get_by_test_id("awaited")
    waiting = polish("Waiting for:")
    expect(awaited).to_have_text(re.compile(rf"{waiting}\s+Borys, Lirael"))

    post_as(other_page, table, table.alice, "Lirael rusza przodem.")
    # The GM's open diary follows live (it polls every 8 seconds).
    expect(awaited).to_have_text(re.compile(rf"{waiting}\s+Borys$"), timeout=25_000)

    post_as(other_page, table, table.bob, "Borys osłania tyły.")
    expect(awaited).to_have_text(polish("Everyone has posted in this turn."), timeout=25_000)
    page.reload()
    expect(page.get_by_test_id("awaited")).to_have_text(polish("Everyone has posted in this turn."))


def test_a_second_action_roll_is_refused_then_allowed_with_a_reason(page, table):
    page.add_init_script(COUNT_REDRAWS)
    log_in(page, table.gm.username, PASSWORD)
    open_panel(page, table)
    name = page.locator('[name="a-character"] option:checked').inner_text()
    first = roll_and_land_in_the_diary(page)
    usage = page.get_by_test_id("turn-usage").filter(has_text=name)
    expect(usage).to_contain_text(polish("%(count)s/%(limit)s action roll", count=1, limit=1))

    open_panel(page, table)
    refusal = polish(
        "%(name)s already has an action roll in this turn (#%(seq)s). Outside combat one "
        "action per turn may have a roll: a second one only if the GM allows it, with a "
        "reason.",
        name=name,
        seq=first.seq,
    )
    expect(page.get_by_test_id("preview-problems")).to_contain_text(refusal)
    roll_button(page).click()
    page.wait_for_load_state()
    expect(page.locator("#id_extra_action_reason_error")).to_have_text(refusal)
    assert Roll.objects.count() == 1

    first_redraw(page)
    reason = "Zasadzka daje drugą szansę"
    type_in(page, "extra_action_reason", reason)
    expect(page.get_by_test_id("preview-problems")).to_have_count(0)
    # The GM's permission answers the "one action per turn" warning: it is not shown.
    expect(page.get_by_test_id("chance")).to_be_visible()
    wait_until_quiet(page)
    expect(page.get_by_test_id("action-warning")).to_have_count(0)
    second = roll_and_land_in_the_diary(page)
    assert second.record["extra_action"]["reason"] == reason
    expect(page.locator(f"#roll-{second.seq}").get_by_test_id("extra-action")).to_contain_text(
        reason
    )

    # A third allowed roll is named by its place in the turn, not "second".
    open_panel(page, table)
    first_redraw(page)
    type_in(page, "extra_action_reason", "Trzecia próba")
    expect(page.get_by_test_id("preview-problems")).to_have_count(0)
    wait_until_quiet(page)
    expect(page.get_by_test_id("action-warning")).to_have_count(0)
    third = roll_and_land_in_the_diary(page)
    expect(page.locator(f"#roll-{third.seq}").get_by_test_id("extra-action")).to_have_text(
        polish(
            "Extra action (%(number)s.) this turn, allowed by the GM: %(reason)s",
            number=3,
            reason="Trzecia próba",
        )
    )
