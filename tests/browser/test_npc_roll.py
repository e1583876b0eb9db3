"""In Chromium: the GM adds an NPC with a fixed modifier on the NPC page, rolls
against it in the panel, and the roll line in the diary shows "NPC …"."""

import re

import pytest
from playwright.sync_api import expect

from rolls.models import Roll
from tests.browser.test_roll_panel import (
    choose,
    gm,  # noqa: F401 (a fixture)
    open_panel,
    open_tab,
    roll_and_land_in_the_diary,
)
from tests.conftest import polish

pytestmark = pytest.mark.django_db(transaction=True)


def test_gm_rolls_against_an_npc_with_a_fixed_modifier(gm, table):  # noqa: F811
    page = gm
    # The NPC page, from the diary's sidebar.
    page.goto(f"/sessions/{table.session.pk}/")
    page.get_by_role("link", name=polish("NPC page")).click()
    page.get_by_label(polish("Name")).fill("Stary kupiec")
    page.get_by_label(polish("Description")).fill("Handluje przy brodzie.")
    page.get_by_role("button", name=polish("Add the NPC")).click()
    page.wait_for_url(re.compile(r"/npcs/\d+/$"))
    page.get_by_label(polish("Interaction")).fill("perswazja")
    page.get_by_label(polish("Modifier")).fill("600")
    page.get_by_label(polish("Reason")).fill("łatwowierny")
    page.get_by_role("button", name=polish("Add the modifier")).click()
    expect(page.locator("p.error")).to_contain_text("−500")  # refused, next to the field
    page.get_by_label(polish("Modifier")).fill("100")
    page.get_by_role("button", name=polish("Add the modifier")).click()
    expect(page.get_by_test_id("npc-modifiers")).to_contain_text("łatwowierny")

    open_panel(page, table)
    open_tab(page, "Attributes")
    choose(page, "a-character", value=str(table.lirael.pk))
    choose(page, "a-attribute", label="Percepcja")
    choose(page, "a-npc_modifier", label="Stary kupiec — perswazja +100 (łatwowierny)")
    expect(page.get_by_test_id("preview")).to_contain_text(
        "NPC Stary kupiec, perswazja: łatwowierny"
    )
    roll = roll_and_land_in_the_diary(page)
    assert roll.record["npc"]["name"] == "Stary kupiec"
    expect(page.locator(f"#roll-{roll.seq}").get_by_test_id("roll-npc")).to_have_text(
        "NPC Stary kupiec, perswazja: +100 (łatwowierny)"
    )
    assert Roll.objects.count() == 1
