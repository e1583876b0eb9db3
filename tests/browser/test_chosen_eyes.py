"""In Chromium: the GM writes a post with a line for Borys's eyes and a spoiler; Borys's
player reads the line, Lirael's reads "(tekst tylko dla wybranych)" and never its words, both
when the post arrives by the live update and after a reload; the spoiler opens on a click."""

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import _polish_page, log_in
from tests.conftest import PASSWORD, polish

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = "Pod ladą leży klucz do piwnicy."


def test_a_line_for_one_players_eyes_reaches_only_them_also_live(
    page, player_page, browser, live_server, table
):
    diary = f"/sessions/{table.session.pk}/"
    context, other_page = _polish_page(browser, live_server)
    try:
        # Both players have the diary open before the GM writes: the post comes live.
        log_in(player_page, table.bob.username, PASSWORD)
        player_page.goto(diary)
        log_in(other_page, table.alice.username, PASSWORD)
        other_page.goto(diary)

        log_in(page, table.gm.username, PASSWORD)
        page.goto(diary)
        page.get_by_label("Narracja").fill(
            "Karczmarz wita was w progu.\n\n"
            f"[dla: Borys]{SECRET}[/dla]\n\n"
            "[spoiler]Karczmarz zna przemytników.[/spoiler]"
        )
        page.get_by_role("button", name="Opublikuj").click()
        expect(page.get_by_test_id("for-eyes")).to_contain_text(SECRET)
        expect(page.get_by_test_id("for-eyes")).to_contain_text(
            polish("only for: %(names)s", names="Borys")
        )

        chosen = player_page.get_by_test_id("for-eyes")
        expect(chosen).to_contain_text(SECRET, timeout=20_000)
        expect(chosen).to_contain_text(polish("only for: %(names)s", names="Borys"))

        hidden = other_page.get_by_test_id("for-eyes-hidden")
        expect(hidden).to_have_text("(tekst tylko dla wybranych)", timeout=20_000)
        expect(other_page.get_by_text("Karczmarz wita was w progu.")).to_be_visible()
        assert "klucz do piwnicy" not in other_page.content()

        # The spoiler is closed until clicked, for anyone.
        spoiler = other_page.locator("details.spoiler")
        expect(spoiler.get_by_text("Karczmarz zna przemytników.")).to_be_hidden()
        spoiler.get_by_text("Spoiler").click()
        expect(spoiler.get_by_text("Karczmarz zna przemytników.")).to_be_visible()

        other_page.reload()
        expect(other_page.get_by_test_id("for-eyes-hidden")).to_be_visible()
        assert "klucz do piwnicy" not in other_page.content()
    finally:
        context.close()
