"""Steps a person takes in the browser that more than one test walks through: each ends
where the next thing the test checks is on the page."""

import re

from playwright.sync_api import expect

from characters.models import Skill
from rolls.models import Roll
from tests.browser.conftest import wait_until_quiet
from tests.browser.test_roll_panel import choose, open_ask_mode, source_key, tick
from tests.conftest import polish


def open_the_public_page(page, title: str) -> None:
    """From the sessions list, a session the user does not play in: told it is private,
    led on to its public page (the pitch and the form to apply)."""
    page.goto("/sessions/")
    page.get_by_role("link", name=title).click()
    expect(page.get_by_test_id("session-private")).to_be_visible()
    page.get_by_role(
        "link", name=polish("What the session is about, and how to ask to join")
    ).click()


def apply_with(page, message: str) -> None:
    """On the public page: the request to join, with a message to the GM."""
    page.get_by_label(polish("Message to the GM")).fill(message)
    page.get_by_role("button", name=polish("Send the request")).click()
    wait_until_quiet(page)


def free_roll(page, session, expression: str, summary: str, purpose: str) -> Roll:
    """A free-form roll from the diary's link; the panel's summary read before rolling."""
    page.goto(f"/sessions/{session.pk}/")
    page.get_by_test_id("free-roll-link").click()
    page.get_by_label(polish("Dice expression")).fill(expression)
    expect(page.get_by_test_id("free-summary")).to_contain_text(summary)
    wait_until_quiet(page)
    page.get_by_label(polish("What it is for")).fill(purpose)
    page.get_by_test_id("free-roll-submit").click()
    page.wait_for_url(re.compile(r"#roll-\d+$"))
    return Roll.objects.get(session=session, seq=int(page.url.rsplit("#roll-", 1)[1]))


def open_new_whisper(page, session) -> None:
    page.goto(f"/sessions/{session.pk}/")
    page.get_by_test_id("whispers-link").click()
    page.get_by_test_id("whisper-new").click()


def send_whisper(page, session, player: str, subject: str, text: str) -> str:
    """On the new whisper's form: to one player, with a subject; returns the whisper's URL."""
    page.get_by_label(player).check()
    page.get_by_label(polish("Subject")).fill(subject)
    page.locator("#id_text").fill(text)
    page.get_by_role("button", name=polish("Send the whisper")).click()
    page.wait_for_url(re.compile(rf"/sessions/{session.pk}/whispers/\d+/$"))
    return page.url


def ask_for_a_skill_roll(page, skill: str, source: str) -> None:
    """From the diary (the page counts the panel's redraws): a request for a roll of the
    player's character's skill, with one source."""
    page.get_by_role("link", name=polish("Ask the GM for a roll")).click()
    open_ask_mode(page, "skill")
    choose(page, "a-skill", value=str(Skill.objects.get(system="forum1000", name=skill).pk))
    tick(page, "a-sources", source_key(source))
    page.get_by_role("button", name=polish("Send the request")).click()
    expect(page.get_by_test_id("roll-ask")).to_contain_text(skill)
