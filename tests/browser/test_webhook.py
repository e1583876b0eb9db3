"""In Chromium: the GM connects the session to the group's chat, sends a test message,
and the next turn reaches the chat (a real HTTP server on loopback) through the worker."""

import pytest
from playwright.sync_api import expect

from tests.browser.axe import violations
from tests.browser.conftest import log_in, open_turn
from tests.conftest import PASSWORD, polish
from tests.smtp import run_worker

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_gm_connects_the_chat_and_the_next_turn_reaches_it(page, table, chat):
    log_in(page, table.gm.username, PASSWORD)
    page.goto(f"/sessions/{table.session.pk}/")
    page.get_by_role("link", name=polish("Table chat webhook")).click()
    assert not violations(page)
    # A plain-http address on the public internet is refused next to the field.
    page.get_by_label(polish("Webhook URL")).fill("ftp://discord.com/api/webhooks/1/x")
    page.get_by_role("button", name=polish("Save"), exact=True).click()
    expect(page.locator("#id_url_error")).to_have_text(
        polish("The webhook address must start with https://.")
    )
    page.get_by_label(polish("Webhook URL")).fill(chat.url)
    page.get_by_label(polish("A new post")).uncheck()
    page.get_by_role("button", name=polish("Save"), exact=True).click()
    expect(page.get_by_role("status")).to_contain_text(polish("Webhook saved."))
    # The saved address is never printed back whole.
    expect(page.locator("main")).not_to_contain_text("sekret")
    page.get_by_role("button", name=polish("Send a test message")).click()
    run_worker()
    assert len(chat.received) == 1

    open_turn(page, table, 2)
    run_worker()
    assert chat.contents()[1] == polish(
        "**%(session)s**: turn %(number)s is open.", session=table.session.title, number=2
    )
    page.goto(f"/sessions/{table.session.pk}/webhook/")
    expect(page.get_by_test_id("webhook-ok")).to_be_visible()
