"""In Chromium: the composer's toolbar wraps the selection in Markdown by mouse and by
keyboard alone (Tab to its buttons, Ctrl+B, Ctrl+I), inserts the markers the renderer
reads, is clean for axe, and is not there without JavaScript."""

import pytest
from playwright.sync_api import expect

from tests.browser.axe import violations
from tests.browser.conftest import log_in
from tests.conftest import PASSWORD, polish

pytestmark = pytest.mark.django_db(transaction=True)


def select(textarea, start: int, end: int) -> None:
    textarea.evaluate("(el, range) => el.setSelectionRange(range[0], range[1])", [start, end])


def test_the_toolbar_writes_markdown_by_mouse_and_by_keyboard(page, table):
    log_in(page, table.alice.username, PASSWORD)
    page.goto(f"/sessions/{table.session.pk}/")
    reply = page.locator("#write textarea[name=narration]")
    toolbar = page.get_by_role("toolbar", name=polish("Formatting"))
    expect(toolbar).to_be_visible()
    # No picture field in this form: no picture button.
    expect(toolbar.get_by_role("button", name=polish("Picture"))).to_be_hidden()

    reply.fill("Lirael skrada się")
    select(reply, 7, 13)
    toolbar.get_by_role("button", name=polish("Bold")).click()
    expect(reply).to_have_value("Lirael **skrada** się")

    # Keyboard only: Ctrl+I on a selection, then Shift+Tab back into the toolbar.
    reply.focus()
    select(reply, 0, 6)
    page.keyboard.press("Control+i")
    expect(reply).to_have_value("*Lirael* **skrada** się")
    page.keyboard.press("End")
    page.keyboard.press("Enter")
    page.keyboard.type("Kto tam?")
    page.keyboard.press("Shift+Home")
    # The toolbar is one Tab stop before the textarea; its arrows move between its buttons.
    page.keyboard.press("Shift+Tab")
    expect(toolbar.get_by_role("button", name=polish("Bold"))).to_be_focused()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(toolbar.get_by_role("button", name=polish("Quotation"))).to_be_focused()
    page.keyboard.press("Enter")
    expect(reply).to_have_value("*Lirael* **skrada** się\n> Kto tam?")
    expect(reply).to_be_focused()
    page.keyboard.press("Control+a")
    page.keyboard.press("Control+b")
    expect(reply).to_have_value("***Lirael* **skrada** się\n> Kto tam?**")

    # The markers: a spoiler around a selection, a line for chosen eyes, a roll in the text.
    reply.fill("Pułapka")
    select(reply, 0, 7)
    toolbar.get_by_role("button", name="Spoiler").click()
    expect(reply).to_have_value("[spoiler]Pułapka[/spoiler]")
    reply.fill("Sekret")
    select(reply, 0, 6)
    toolbar.get_by_role("button", name=polish("For chosen eyes")).click()
    # The placeholder name is selected: typing replaces it with the reader's.
    page.keyboard.type("bartek")
    expect(reply).to_have_value("[dla: bartek]Sekret[/dla]")
    reply.fill("")
    toolbar.get_by_role("button", name=polish("Dice")).click()
    page.keyboard.type("skok")
    expect(reply).to_have_value("[[1k20 skok]]")

    assert violations(page) == []


def test_without_javascript_there_is_no_toolbar_and_markdown_still_posts(
    browser, live_server, table
):
    context = browser.new_context(
        locale="pl-PL", base_url=live_server.url, java_script_enabled=False
    )
    page = context.new_page()
    log_in(page, table.alice.username, PASSWORD)
    page.goto(f"/sessions/{table.session.pk}/")
    expect(page.locator("[data-composer]")).to_be_hidden()
    page.locator("#write textarea[name=narration]").fill("Lirael **skrada** się.")
    page.get_by_role("button", name=polish("Publish")).click()
    expect(page.locator("article.post strong")).to_have_text("skrada")
    context.close()
