"""The roll panel redraws itself through htmx without tripping the site's Content Security
Policy: while the GM changes the tab, the mode and a field, and types, no inline style or
script (htmx's indicator styles, an inline handler, a `style=` attribute) is refused: the
console has no CSP error and the page no `securitypolicyviolation` event."""

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in, wait_until_quiet
from tests.browser.test_roll_panel import COUNT_REDRAWS, choose, open_panel, open_tab, type_in
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)

# Every violation the page meets, read back at the end (the CSP forbids eval, not this).
WATCH_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) =>
  window.__violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`));
"""


def style_the_fields(page) -> None:
    page.evaluate(
        """() => document.querySelectorAll("#panel [id]").forEach(
             (el) => { el.style.outlineColor = "orange"; })"""
    )


@pytest.mark.parametrize("debug", [False, True], ids=["production", "debug"])
def test_the_panels_redraws_meet_no_content_security_policy_error(page, table, settings, debug):
    # `make run` serves with DEBUG on, where django-htmx adds its debugging script.
    settings.DEBUG = debug
    messages: list[str] = []
    page.on("console", lambda m: messages.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: messages.append(f"pageerror: {e}"))
    page.add_init_script(WATCH_VIOLATIONS)
    page.add_init_script(COUNT_REDRAWS)
    log_in(page, table.gm.username, PASSWORD)

    open_panel(page, table)
    open_tab(page, "Attributes")
    # A browser extension (a password manager, a dark theme) styles fields through the CSSOM,
    # which the CSP allows; htmx must not copy that `style` onto the redrawn elements.
    style_the_fields(page)
    choose(page, "a-character", value=str(table.borys.pk))
    style_the_fields(page)
    choose(page, "a-attribute", label="Zręczność")
    type_in(page, "a-action_reason", "ciemno")
    open_tab(page, "Skills")
    choose(page, "a-character", value=str(table.lirael.pk))
    # Another mode of the tab, then the preview's own button.
    page.locator("#panel a.mode:not(.current)").first.click()
    wait_until_quiet(page)
    page.get_by_test_id("show-chance").click()
    wait_until_quiet(page)
    expect(page.get_by_test_id("preview")).to_be_visible()

    refused = [
        m
        for m in messages
        if m.startswith(("error", "pageerror")) and "Content Security Policy" in m
    ]
    assert not refused, refused
    assert page.evaluate("window.__violations") == []
    assert not [m for m in messages if m.startswith("pageerror")], messages
