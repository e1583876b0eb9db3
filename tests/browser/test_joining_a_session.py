"""In Chromium: a player opens a session's diary from the list, is told it is private and
led to its public page (the pitch rendered), applies with a message; the GM reads it,
accepts with a note; the player reads the note and the diary opens."""

import re

import pytest
from playwright.sync_api import expect

from characters.models import Attribute, Character
from diary.models import GameSession, Participation, ParticipationStatus
from tests.browser.conftest import log_in, wait_until_quiet
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
    wait_until_quiet(page)

    player_page.goto(f"/sessions/{session.pk}/join/")
    expect(player_page.get_by_test_id("my-applications")).to_contain_text("Witaj w karawanie!")
    player_page.goto(f"/sessions/{session.pk}/")
    expect(player_page.get_by_test_id("session-private")).to_have_count(0)
    expect(player_page.get_by_role("heading", name="Karawana do Ostrogu")).to_be_visible()


def test_a_newcomer_finds_a_session_builds_a_character_for_it_and_applies(
    page, make_user, make_session
):
    """From the home page to an application with no character yet: the link leads to the
    recruiting board, the join page's "New character" opens the session's system's sheet, and
    saving it leads back to the application with the new character chosen."""
    gm, player = make_user("mg_zamek"), make_user("nowicjusz")
    session = make_session(gm, title="Oblężenie Zamku Shur")
    GameSession.objects.filter(pk=session.pk).update(system="q10")
    make_session(make_user(), title="Sesja bez naboru", recruiting=False)

    log_in(page, player.username, PASSWORD)
    page.get_by_role("link", name=polish("Find a session to join")).click()
    page.wait_for_url("**/sessions/recruiting/")
    expect(page.get_by_role("link", name="Sesja bez naboru")).to_have_count(0)
    page.get_by_role("link", name="Oblężenie Zamku Shur").click()
    page.wait_for_url(f"**/sessions/{session.pk}/join/")
    page.get_by_role("link", name=polish("New character")).click()

    expect(page.get_by_test_id("form-system")).to_have_text(polish("Q10 (XzY d10 pools)"))
    page.get_by_label(polish("Name")).fill("Arin z Doliny")
    page.get_by_label(polish("Maximum HP")).fill("12")
    page.get_by_label(polish("Current HP")).fill("12")
    for attribute in Attribute.objects.filter(system="q10"):
        page.locator(f'[name="attr_{attribute.pk}"]').fill("3")
    page.get_by_role("button", name=polish("Save")).click()

    page.wait_for_url(re.compile(rf"/sessions/{session.pk}/join/\?character=\d+$"))
    arin = Character.objects.get(owner=player, name="Arin z Doliny")
    assert arin.system == "q10"
    expect(page.get_by_label(polish("Your character"))).to_have_value(str(arin.pk))
    apply_with(page, "Pierwszy raz gram w Q10.")
    application = Participation.objects.get(session=session, character=arin)
    assert application.status == ParticipationStatus.REQUESTED
    assert application.message == "Pierwszy raz gram w Q10."
