"""Table talk in Chromium: the GM whispers to one player, who is told (the bell, the badge,
"Nowe") and answers; the other player cannot read it; a player and the GM talk out of
character beside the diary, which never shows it."""

import pytest
from playwright.sync_api import expect

from tests.browser.axe import violations
from tests.browser.conftest import _polish_page, log_in, wait_until_quiet
from tests.browser.steps import open_new_whisper, send_whisper
from tests.conftest import PASSWORD, polish

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def second_player_page(browser, live_server):
    """A third browser of its own: the other player."""
    context, page = _polish_page(browser, live_server)
    yield page
    context.close()


def settle(page) -> None:
    wait_until_quiet(page)


@pytest.fixture(autouse=True)
def _earlier_news_read(table):
    """What the table's setup told everyone (turn 1) is read: the bells count table talk."""
    from django.utils import timezone

    from diary.models import Notification

    Notification.objects.update(read_at=timezone.now())


def test_the_gm_whispers_to_one_player_who_answers_and_the_other_cannot_read_it(
    page, player_page, second_player_page, table
):
    session = table.session
    diary = f"/sessions/{session.pk}/"

    # The GM starts a whisper to Alicja from the session page.
    log_in(page, table.gm.username, PASSWORD)
    open_new_whisper(page, session)
    expect(page.get_by_role("heading", name=polish("Whisper to players"))).to_be_visible()
    assert not violations(page)
    # Nothing chosen, nothing typed: refused in Polish next to the fields.
    page.get_by_role("button", name=polish("Send the whisper")).click()
    expect(page.locator("#id_players_error")).to_have_text(polish("Choose at least one player."))
    expect(page.locator("#id_text_error")).to_have_text(polish("Write a message."))
    whisper_url = send_whisper(
        page, session, "alicja", "Sylwetka w mgle", "Tylko Lirael widzi w mgle **herb żurawia**."
    )
    expect(page.get_by_test_id("talk-message")).to_contain_text("Tylko Lirael widzi w mgle")
    expect(page.locator("strong", has_text="herb żurawia")).to_be_visible()

    # Alicja is told: the bell, the badge on the session page, "Nowe" in the whisper.
    log_in(player_page, table.alice.username, PASSWORD)
    expect(player_page.get_by_test_id("unread-count")).to_have_text("1")
    player_page.goto(diary)
    expect(player_page.get_by_test_id("whispers-unread")).to_contain_text("1")
    player_page.get_by_test_id("whispers-link").click()
    expect(player_page.get_by_test_id("whisper-unread")).to_be_visible()
    assert not violations(player_page)
    player_page.get_by_role("link", name="Sylwetka w mgle").click()
    expect(player_page.get_by_test_id("talk-new")).to_have_count(1)
    expect(player_page.get_by_test_id("talk-message")).to_contain_text("herb żurawia")
    expect(player_page.get_by_test_id("unread-count")).to_have_count(0)
    assert not violations(player_page)
    # She answers; the badge is gone, and the GM's bell counts her answer.
    player_page.locator("#id_text").fill("Lirael podchodzi bliżej.")
    player_page.get_by_role("button", name=polish("Send"), exact=True).click()
    settle(player_page)
    expect(player_page.get_by_test_id("talk-message")).to_have_count(2)
    expect(player_page.get_by_test_id("talk-new")).to_have_count(0)
    player_page.goto(diary)
    expect(player_page.get_by_test_id("whispers-unread")).to_have_count(0)
    page.goto(diary)
    expect(page.get_by_test_id("unread-count")).to_have_text("1")
    expect(page.get_by_test_id("whispers-unread")).to_contain_text("1")

    # Bartek plays in the session but is no member: not in his list, and the address
    # itself shows a page that says why, without the text.
    log_in(second_player_page, table.bob.username, PASSWORD)
    second_player_page.goto(diary)
    expect(second_player_page.get_by_test_id("whispers-unread")).to_have_count(0)
    second_player_page.get_by_test_id("whispers-link").click()
    expect(second_player_page.get_by_text("Sylwetka w mgle")).to_have_count(0)
    expect(second_player_page.get_by_text(polish("No whispers yet."))).to_be_visible()
    second_player_page.goto(whisper_url)
    expect(second_player_page.get_by_test_id("talk-refused")).to_have_text(
        polish("This whisper is private: only the GM and the players it was started with read it.")
    )
    expect(second_player_page.get_by_text("herb żurawia")).to_have_count(0)
    expect(second_player_page.get_by_text("Lirael podchodzi bliżej.")).to_have_count(0)
    assert not violations(second_player_page)


def test_a_player_and_the_gm_talk_out_of_character(page, player_page, table):
    session = table.session
    diary = f"/sessions/{session.pk}/"

    log_in(player_page, table.bob.username, PASSWORD)
    player_page.goto(diary)
    player_page.get_by_test_id("ooc-link").click()
    expect(player_page.get_by_role("heading", name=polish("Out of character"))).to_be_visible()
    # An empty message is refused in Polish next to its field.
    player_page.get_by_role("button", name=polish("Send"), exact=True).click()
    expect(player_page.locator("#id_text_error")).to_have_text(polish("Write a message."))
    player_page.locator("#id_text").fill("Czy mogę odpisywać wieczorami? *Wyjeżdżam* do piątku.")
    player_page.get_by_role("button", name=polish("Send"), exact=True).click()
    settle(player_page)
    expect(player_page.get_by_test_id("talk-message")).to_contain_text("do piątku")
    assert not violations(player_page)

    # The GM sees the badge, "Nowe" on the message, and answers.
    log_in(page, table.gm.username, PASSWORD)
    page.goto(diary)
    expect(page.get_by_test_id("ooc-unread")).to_contain_text("1")
    # Never in the diary itself.
    expect(page.get_by_text("do piątku")).to_have_count(0)
    page.get_by_test_id("ooc-link").click()
    expect(page.get_by_test_id("talk-new")).to_have_count(1)
    expect(page.locator("em", has_text="Wyjeżdżam")).to_be_visible()
    page.locator("#id_text").fill("Jasne, termin tury to dwa dni.")
    page.get_by_role("button", name=polish("Send"), exact=True).click()
    settle(page)
    expect(page.get_by_test_id("talk-message")).to_have_count(2)

    # Bartek's bell and badge count the answer; reading the thread clears both.
    player_page.goto(diary)
    expect(player_page.get_by_test_id("ooc-unread")).to_contain_text("1")
    expect(player_page.get_by_test_id("unread-count")).to_have_text("1")
    player_page.get_by_test_id("ooc-link").click()
    expect(player_page.get_by_test_id("talk-new")).to_have_count(1)
    expect(player_page.get_by_text("Jasne, termin tury to dwa dni.")).to_be_visible()
    expect(player_page.get_by_test_id("unread-count")).to_have_count(0)
    player_page.goto(diary)
    expect(player_page.get_by_test_id("ooc-unread")).to_have_count(0)
