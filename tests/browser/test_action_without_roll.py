"""In Chromium: a player records a spell used without a roll from the diary ("Akcja bez
rzutu"); it shows in their post, and a second action in the same turn (another spell)
is refused next to the field, nothing stored."""

import re

import pytest
from playwright.sync_api import expect

from rolls.models import Roll
from tests.browser.conftest import log_in
from tests.conftest import PASSWORD, polish

pytestmark = pytest.mark.django_db(transaction=True)

ALREADY_DONE = (
    "%(name)s has already used a potion, an item, or a spell or ability without a roll in "
    "this turn, which is its action. Outside combat a turn is one action and one move, or "
    "two moves: another action only if the GM allows it, with a reason."
)


def record(page, name: str, does: str) -> None:
    page.get_by_label(polish("Spell or ability")).fill(name)
    page.get_by_label(polish("What it does")).fill(does)
    page.get_by_role("button", name=polish("Record the action")).click()


def test_a_player_records_a_spell_without_a_roll_in_the_post(page, table):
    log_in(page, table.bob.username, PASSWORD)
    page.goto(f"/sessions/{table.session.pk}/")
    page.get_by_test_id("ability-use-link").click()
    page.get_by_label(polish("Character")).select_option(label="Borys")
    record(page, "Światło", "Kula światła rozjaśnia korytarz")
    page.wait_for_url(re.compile(r"#roll-\d+$"))
    entry = page.get_by_test_id("entry-text").filter(has_text="Światło")
    expect(entry).to_have_text(
        polish(
            "Action without a roll: %(name)s — %(description)s",
            name="Światło",
            description="Kula światła rozjaśnia korytarz",
        )
    )
    assert Roll.objects.get(test="ability_use").post.author == table.bob

    # A second action in the turn, outside combat: refused next to the character.
    page.get_by_test_id("ability-use-link").click()
    page.get_by_label(polish("Character")).select_option(label="Borys")
    record(page, "Tarcza", "Błyszcząca tarcza")
    expect(page.locator("#id_character_error")).to_have_text(polish(ALREADY_DONE, name="Borys"))
    assert Roll.objects.filter(test="ability_use").count() == 1
