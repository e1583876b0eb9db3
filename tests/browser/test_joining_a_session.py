"""In Chromium: a player opens a session's diary from the list, is told it is private and
led to its public page (the pitch rendered), applies with a message; the GM reads it,
accepts with a note; the player reads the note and the diary opens."""

import pytest
from playwright.sync_api import expect

from diary.models import GameSession
from tests.browser.conftest import log_in
from tests.browser.steps import apply_with, open_the_public_page
from tests.conftest import PASSWORD, polish

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_player_applies_and_the_gm_accepts_with_a_note(
    page, player_page, make_user, make_character, make_session
):
    gm, player = make_user("mg_karawana"), make_user("wanda")
    make_character(player, "Wanda z Ostrogu")
    session = make_session(gm, title="Karawana do Ostrogu")
    GameSession.objects.filter(pk=session.pk).update(
        description="Karawana wyrusza o świcie. **Potrzebni strażnicy.**"
    )

    log_in(player_page, player.username, PASSWORD)
    open_the_public_page(player_page, "Karawana do Ostrogu")
    expect(player_page.get_by_test_id("session-pitch").locator("strong")).to_have_text(
        "Potrzebni strażnicy."
    )
    apply_with(player_page, "Pilnuję wozów od lat.")

    log_in(page, gm.username, PASSWORD)
    page.goto(f"/sessions/{session.pk}/participants/")
    expect(page.get_by_test_id("application-message")).to_have_text("Pilnuję wozów od lat.")
    page.get_by_label(polish("Note to the player")).fill("Witaj w karawanie!")
    page.get_by_role("button", name=polish("Accept")).click()
    page.wait_for_load_state("networkidle")

    player_page.goto(f"/sessions/{session.pk}/join/")
    expect(player_page.get_by_test_id("my-applications")).to_contain_text("Witaj w karawanie!")
    player_page.goto(f"/sessions/{session.pk}/")
    expect(player_page.get_by_test_id("session-private")).to_have_count(0)
    expect(player_page.get_by_role("heading", name="Karawana do Ostrogu")).to_be_visible()
