"""In Chromium: the GM deals damage from the diary with a reason (HP falls on the
sheet, the entry shows in the post and stays as it was when the post is edited), stuns a
character for one turn (it ends by itself when the next turn opens), grants a potion in a
post; the player drinks it (HP back, entry in the diary, counted in the turn), and a
second use with none left is refused next to the field."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from characters.models import NegativeEffect
from rolls.models import Roll
from tests.browser.conftest import log_in
from tests.conftest import PASSWORD, polish

pytestmark = pytest.mark.django_db(transaction=True)


def diary(page, table) -> None:
    page.goto(f"/sessions/{table.session.pk}/")


def entry_form(page, test_id: str, summary: str):
    page.locator("summary", has_text=polish(summary)).click()
    return page.get_by_test_id(test_id)


def sheet_hp(page, character):
    page.goto(f"/characters/{character.pk}/")
    return page.get_by_test_id("hp")


def test_damage_a_one_turn_stun_and_a_potion_drunk(page, table):
    borys = table.borys
    start, top = borys.hp_current, borys.hp_max
    log_in(page, table.gm.username, PASSWORD)
    diary(page, table)

    # Damage, with a reason: it lands in the GM's post, the sheet's HP falls.
    form = entry_form(page, "entry-hp", "Damage or HP")
    form.locator('[name="hp-character"]').select_option(label="Borys")
    form.locator('[name="hp-amount"]').fill("15")
    form.get_by_label(polish("Reason")).fill("Cios toporem")
    form.get_by_role("button", name=polish("Record the HP change")).click()
    page.wait_for_url(re.compile(r"#roll-\d+$"))
    entry = page.get_by_test_id("entry-text").filter(has_text="Cios toporem")
    expect(entry).to_contain_text(f"{start} → {start - 15}")
    expect(sheet_hp(page, borys)).to_have_text(f"{start - 15} / {top}")

    # The post's narration can be edited; the entry cannot, and stays as it was.
    damage = Roll.objects.get(test="hp")
    page.goto(reverse("diary:post_edit", args=[damage.post_id]))
    page.locator('textarea[name="narration"]').fill("Topór spada na Borysa.")
    page.get_by_role("button", name=re.compile(polish("Save"))).click()
    page.wait_for_url(re.compile(r"#post-\d+$"))
    expect(page.get_by_text("Topór spada na Borysa.")).to_be_visible()
    expect(page.get_by_test_id("entry-text").filter(has_text="Cios toporem")).to_contain_text(
        f"{start} → {start - 15}"
    )
    assert Roll.objects.get(pk=damage.pk).record == damage.record

    # A stun for one turn: active in turn 1, gone when turn 2 opens.
    diary(page, table)
    form = entry_form(page, "entry-effect", "Apply an effect")
    form.locator('[name="effect-character"]').select_option(label="Borys")
    form.locator('[name="effect-kind"]').select_option("stun")
    form.locator('[name="effect-description"]').fill("Ogłuszony")
    form.locator('[name="effect-length_turns"]').fill("1")
    form.get_by_label(polish("Reason")).fill("Cios w hełm")
    form.get_by_role("button", name=polish("Apply the effect")).click()
    page.wait_for_url(re.compile(r"#roll-\d+$"))
    expect(page.get_by_test_id("entry-text").filter(has_text="Ogłuszony")).to_contain_text("2")
    stun = NegativeEffect.objects.get(kind="stun")
    assert stun.freed_at is None
    page.get_by_text("Otwórz turę 2", exact=True).click()
    page.get_by_role("button", name="Tak, otwórz turę 2").click()
    expect(page.get_by_text("Bieżąca tura: 2")).to_be_visible()
    stun.refresh_from_db()
    assert stun.ended_by_itself
    page.goto(f"/characters/{borys.pk}/")
    # The note already says it ended by itself (capitalised, once): not said twice.
    expect(page.locator("li", has_text="Ogłuszony")).to_contain_text(
        polish("ended by itself"), ignore_case=True
    )

    # A potion granted in the GM's post.
    diary(page, table)
    form = entry_form(page, "entry-grant", "Grant potions or healing items")
    form.locator('[name="grant-character"]').select_option(label="Borys")
    form.locator('[name="grant-count"]').fill("1")
    form.locator('[name="grant-effect"]').fill("Napar z krwawnika: +10 PŻ")
    form.locator('[name="grant-restores_hp"]').fill("10")
    form.get_by_role("button", name=polish("Grant")).click()
    page.wait_for_url(re.compile(r"#roll-\d+$"))
    expect(page.get_by_test_id("entry-text").filter(has_text="Napar z krwawnika")).to_be_visible()

    # The player drinks it: HP back, the entry in the diary, one action used this turn.
    page.context.clear_cookies()
    log_in(page, table.bob.username, PASSWORD)
    diary(page, table)
    page.get_by_test_id("item-use-link").click()
    page.get_by_label(polish("Potion or item")).select_option(index=1)
    page.get_by_role("button", name=polish("Use it")).click()
    page.wait_for_url(re.compile(r"#roll-\d+$"))
    used = page.get_by_test_id("entry-text").filter(has_text=polish("left: %(count)s", count=0))
    expect(used).to_contain_text(f"{start - 15} → {start - 5}")
    usage = page.get_by_test_id("turn-usage").filter(has_text="Borys").first
    expect(usage.get_by_test_id("item-actions")).to_be_visible()
    expect(sheet_hp(page, borys)).to_have_text(f"{start - 5} / {top}")

    # None left: refused next to the field, nothing stored.
    page.goto(f"/sessions/{table.session.pk}/items/use/")
    page.get_by_label(polish("Potion or item")).select_option(index=1)
    page.get_by_role("button", name=polish("Use it")).click()
    expect(page.locator("#id_potion_error")).to_have_text(
        polish("No potions of this kind are left.")
    )
    assert Roll.objects.filter(test="item_use").count() == 1
