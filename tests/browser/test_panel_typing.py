"""The GM types a modifier's reason while the panel redraws, in every system, in Chromium.

The GM changes a modifier (a select, or a number) and at once types its reason at about
60 ms a key, as a person does: the change's redraw arrives mid-word. The panel redraws only
the preview for such a change (hx-target #preview; the whole #panel only when a field
others depend on changes), and a typed field carries hx-preserve, so the reason field is
the very element typed into from the first key to the last and keeps every character. The
roll then stores the full reason and the post shows it.
"""

import json
import re

import pytest
from playwright.sync_api import expect

from rolls.models import Roll
from tests.browser.conftest import log_in, roll_button, settle_panel
from tests.browser.test_roll_panel import COUNT_REDRAWS, choose, open_panel, skill_id
from tests.conftest import PASSWORD, polish
from tests.rolls.systems.arsmagica.ars_table import build_saga
from tests.rolls.systems.ciernie.ciernie_table import build_ciernie_table

pytestmark = pytest.mark.django_db(transaction=True)

KEY_DELAY_MS = 60  # about a person's typing speed


def gm_panel(page, t, mode: str = "") -> None:
    """The GM's panel of the table's session, from the diary's link."""
    page.add_init_script(COUNT_REDRAWS)
    log_in(page, t.gm.username, PASSWORD)
    page.goto(f"/sessions/{t.session.pk}/")
    page.get_by_role("link", name=polish("Roll panel")).click()
    page.wait_for_url(f"**/sessions/{t.session.pk}/rolls/panel/**")
    if mode:
        page.locator(f'#panel a[href="?mode={mode}"]').first.click()
        page.wait_for_url(re.compile(rf"[?&]mode={mode}(&|$)"))
    expect(page.get_by_test_id("preview")).to_be_visible()


def watch_redraws(page) -> list[str]:
    """The target of each htmx redraw the panel asks for (its HX-Target header)."""
    targets: list[str] = []

    def seen(request) -> None:
        if "/rolls/panel/" in request.url and request.headers.get("hx-request"):
            targets.append(request.headers.get("hx-target") or "")

    page.on("request", seen)
    return targets


def change_then_type_the_reason(
    page, change, reason: str, text: str, redraws: str = "preview"
) -> None:
    """Change a field, then at once type a reason key by key; every key stays. A modifier
    redraws the preview; a field others depend on, the panel (`redraws`)."""
    box = page.locator(f'[name="{reason}"]')
    expect(box).to_have_attribute("hx-preserve", "true")
    box.evaluate("el => { window.__typedInto = el; }")
    targets = watch_redraws(page)
    change()
    box.click()
    page.keyboard.type(text, delay=KEY_DELAY_MS)
    expect(box).to_have_value(text)
    # The preview has caught up with the whole reason; the field was never replaced.
    expect(page.get_by_test_id("preview")).to_contain_text(text)
    expect(box).to_have_value(text)
    assert box.evaluate("el => el === window.__typedInto"), "the reason field was replaced"
    assert targets, "the change redrew nothing"
    # The change redraws its part; the keys typed after it, the preview alone.
    assert targets[0] == redraws, targets
    assert set(targets[1:]) <= {"preview"}, f"typing redrew more than the preview: {targets}"


def roll_with(page, text: str) -> Roll:
    """Roll; the record keeps the whole reason and the post shows it."""
    settle_panel(page)
    roll_button(page).click()
    page.wait_for_url(re.compile(r"/sessions/\d+/.*#roll-\d+$"))
    session, seq = re.search(r"/sessions/(\d+)/.*#roll-(\d+)$", page.url).groups()
    roll = Roll.objects.get(session_id=session, seq=seq)
    assert text in json.dumps(roll.record, ensure_ascii=False)
    expect(page.locator(f"#roll-{seq}")).to_contain_text(text)
    return roll


def test_forum1000_a_gm_difficulty_then_its_reason(page, table):
    text = "Skok z rozbiegu"
    page.add_init_script(COUNT_REDRAWS)
    log_in(page, table.gm.username, PASSWORD)
    open_panel(page, table, "skill")
    choose(page, "a-character", value=str(table.borys.pk))
    choose(page, "a-skill", value=skill_id("Otwieranie zamków"))
    change_then_type_the_reason(
        page,
        lambda: page.locator('[name="a-gm_difficulty"]').select_option("-100"),
        "a-gm_difficulty_reason",
        text,
    )
    roll = roll_with(page, text)
    assert roll.test == "skill"
    line = page.locator(f"#roll-{roll.seq}").get_by_test_id("roll-line")
    expect(line).to_contain_text(text)


def test_forum1000_another_skill_redraws_the_panel_and_keeps_what_is_being_typed(page, table):
    """A structural field (the skill: the sources depend on it) redraws the whole panel
    mid-word; the reason typed into keeps its place and every key."""
    text = "Skok z rozbiegu"
    page.add_init_script(COUNT_REDRAWS)
    log_in(page, table.gm.username, PASSWORD)
    open_panel(page, table, "skill")
    choose(page, "a-character", value=str(table.borys.pk))
    choose(page, "a-gm_bonus", value="50")
    change_then_type_the_reason(
        page,
        lambda: page.locator('[name="a-skill"]').select_option(skill_id("Otwieranie zamków")),
        "a-gm_bonus_reason",
        text,
        redraws="panel",
    )
    expect(page.locator('[name="a-skill"]')).to_have_value(skill_id("Otwieranie zamków"))
    roll = roll_with(page, text)
    assert roll.record["result"]["input"]["skill"] == "Otwieranie zamków"


def test_q10_a_circumstance_then_its_reason(page, q10):
    text = "Gęsta mgła"
    gm_panel(page, q10)
    choose(page, "character", value=str(q10.eryk.pk))
    choose(page, "skill", value=str(q10.atletyka.pk))
    change_then_type_the_reason(
        page,
        lambda: page.locator('[name="circumstance_1"]').select_option("10"),
        "circumstance_reason_1",
        text,
    )
    roll = roll_with(page, text)
    assert roll.record["result"]["input"]["circumstances"][0]["reason"] == text
    line = page.locator(f"#roll-{roll.seq}").get_by_test_id("roll-line")
    expect(line).to_contain_text(f"MG +10: {text}")


def test_ciernie_a_typed_modifier_then_its_reason(page, make_user):
    t = build_ciernie_table(make_user)
    text = "Apteczka polowa"
    gm_panel(page, t, "attribute")
    choose(page, "character", value=str(t.vera.pk))
    choose(page, "attribute", value=str(t.a["Zręczność"].pk))
    change_then_type_the_reason(
        page, lambda: page.locator('[name="modifier"]').fill("2"), "modifier_reason", text
    )
    roll = roll_with(page, text)
    modifiers = roll.record["result"]["input"]["modifiers"]
    assert [m["reason"] for m in modifiers if m.get("source") == "gm"] == [text]


def test_arsmagica_a_typed_modifier_then_its_reason(page, make_user):
    t = build_saga(make_user)
    text = "Skok z rozbiegu"
    gm_panel(page, t, "stress")
    choose(page, "character", value=str(t.flambeau.pk))
    choose(page, "characteristic", value=str(t.dex.pk))
    change_then_type_the_reason(
        page, lambda: page.locator('[name="modifier_1"]').fill("-2"), "reason_1", text
    )
    roll = roll_with(page, text)
    assert roll.test == "stress"
    modifiers = roll.record["result"]["input"]["modifiers"]
    assert [m["reason"] for m in modifiers if m["source"] == "gm"] == [text]


def test_a_number_typed_into_a_fresh_field_is_that_number(page, table):
    """Clicked into and typed, as a person does: 25 reads 25, never "025" after a prefilled
    0. The panel's typed modifier (empty, left empty it counts 0) and a new sheet's skill."""
    log_in(page, table.gm.username, PASSWORD)
    open_panel(page, table, "skill")
    modifier = page.locator('[name="a-action_value"]')
    expect(modifier).to_have_value("")
    expect(modifier).to_have_attribute("placeholder", "0")
    modifier.click()
    page.keyboard.type("25", delay=KEY_DELAY_MS)
    expect(modifier).to_have_value("25")
    page.locator('[name="a-action_reason"]').fill("Dobre miejsce")
    expect(page.get_by_test_id("preview")).to_contain_text("+25")

    page.goto("/characters/new/?system=forum1000")
    skill = page.get_by_label("Otwieranie zamków")
    expect(skill).to_have_value("")
    skill.click()
    page.keyboard.type("25", delay=KEY_DELAY_MS)
    expect(skill).to_have_value("25")
