"""The roll panel redraws itself through htmx without tripping the site's Content Security
Policy: no inline style or script of htmx's or ours is refused while the GM changes the tab,
the mode and a field, and types."""

import pytest

from tests.browser.conftest import log_in
from tests.browser.test_roll_panel import COUNT_REDRAWS, choose, open_panel, open_tab, type_in
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_panels_redraws_log_no_content_security_policy_error(page, table):
    messages: list[str] = []
    page.on("console", lambda m: messages.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: messages.append(f"pageerror: {e}"))
    page.add_init_script(COUNT_REDRAWS)
    log_in(page, table.gm.username, PASSWORD)

    open_panel(page, table)
    open_tab(page, "Attributes")
    choose(page, "a-character", value=str(table.borys.pk))
    choose(page, "a-attribute", label="Zręczność")
    type_in(page, "a-action_reason", "ciemno")
    open_tab(page, "Skills")
    choose(page, "a-character", value=str(table.lirael.pk))
    page.wait_for_load_state("networkidle")

    refused = [
        m
        for m in messages
        if m.startswith(("error", "pageerror")) and "Content Security Policy" in m
    ]
    print("MESSAGES", messages)
    assert not refused, refused
    assert not [m for m in messages if m.startswith("pageerror")], messages
