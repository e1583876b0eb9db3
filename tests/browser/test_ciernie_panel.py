"""In Chromium: the GM rolls every Ciernie i Gwiazdy test in the panel (attribute,
combined, comparative against the NPC's stand-in, effect, skill), each preview shows the
engine's exact chance (and, for a character with a reroll source, the chance with the reroll
chosen after a failure), and each roll lands in the post with the line its record reads
as."""

import re

import pytest
from django.http import QueryDict
from playwright.sync_api import expect

from rolls.engine import systems
from rolls.engine.dice import ScriptedDice
from rolls.models import Roll
from rolls.plugins import FormContext
from rolls.selectors import sheets_in_play
from rolls.systems.ciernie import display, forms
from tests.browser.conftest import log_in, roll_button
from tests.browser.test_roll_panel import (
    COUNT_REDRAWS,
    choose,
    line_in_order,
    percent,
    redraw,
    type_in,
)
from tests.conftest import PASSWORD
from tests.rolls.systems.ciernie.ciernie_table import build_ciernie_table, flag_reroll_sources

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def ciernie(make_user):
    table = build_ciernie_table(make_user)
    flag_reroll_sources()
    return table


def open_mode(page, t, mode: str) -> None:
    page.goto(f"/sessions/{t.session.pk}/rolls/panel/")
    label = str(forms.MODE_LABELS[mode])
    page.get_by_role("link", name=label, exact=True).click()
    expect(page.locator(f'input[name="mode"][value="{mode}"]')).to_have_count(1)
    choose(page, "character", value=str(t.vera.pk))


def set_ticks(page, name: str, values: list[str]) -> None:
    """Exactly these boxes of a checkbox list ticked, each change redrawn."""
    for box in page.locator(f'[name="{name}"]').all():
        value = box.get_attribute("value")
        wanted = value in values
        if box.is_checked() != wanted:
            redraw(page, lambda box=box, wanted=wanted: box.set_checked(wanted))


def check_chance(page, t) -> None:
    """The preview's chance is the engine's exact one for what the form says."""
    shown = percent(page.get_by_test_id("chance").inner_text())
    form = page.locator("form.panel-form")
    query = QueryDict(form.evaluate("f => new URLSearchParams(new FormData(f)).toString()"))
    case = chance_case(t, query)
    assert abs(shown - case.probability() * 100) < 0.006


def chance_case(t, query):
    everyone = list(sheets_in_play(t.session).values())
    form = forms.make_form(
        query["mode"],
        query,
        FormContext(characters=everyone, all_characters=everyone, gm=True, session=t.session),
    )
    assert form.is_valid(), form.errors
    return form.case()


def roll_it(page) -> Roll:
    roll_button(page).click()
    page.wait_for_url(re.compile(r"#roll-\d+$"))
    seq = int(page.url.rsplit("#roll-", 1)[1])
    return Roll.objects.get(seq=seq)


def lands_with_its_line(page, roll: Roll) -> None:
    """The post shows each line of the record's reading, in order; the record recomputes."""
    record = roll.record
    result = record["result"]
    test = systems.parse_test("ciernie", result["test"], result["input"])
    assert systems.roll("ciernie", test, ScriptedDice(result["dice"])).to_dict() == result
    shown = page.locator(f"#roll-{roll.seq}").get_by_test_id("roll-line")
    expected = display.lines(record)
    expect(shown).to_have_count(len(expected))
    for index, line in enumerate(expected):
        expect(shown.nth(index).locator(".outcome")).to_have_text(line.outcome)
        line_in_order(
            shown.nth(index).inner_text(), [line.who, line.what, line.outcome, *line.details]
        )


def test_the_gm_rolls_every_ciernie_test_and_each_lands_in_the_post(page, ciernie):
    t = ciernie
    page.add_init_script(COUNT_REDRAWS)
    log_in(page, t.gm.username, PASSWORD)

    # Test cechy: difficulty and the GM's modifier with its reason.
    open_mode(page, t, "attribute")
    choose(page, "attribute", value=str(t.a["Zręczność"].pk))
    choose(page, "difficulty", value="-3")
    type_in(page, "modifier", "-2")
    type_in(page, "modifier_reason", "Ciemność w ładowni")
    check_chance(page, t)
    expect(page.get_by_test_id("preview-terms")).to_contain_text("wymagający")
    roll = roll_it(page)
    assert roll.record["result"]["input"]["modifiers"][1]["reason"] == "Ciemność w ładowni"
    lands_with_its_line(page, roll)

    # Test łączony: Percepcja and Zręczność, the sheet's ability tied to Percepcja.
    open_mode(page, t, "combined")
    set_ticks(page, "attributes", [str(t.a["Percepcja"].pk), str(t.a["Zręczność"].pk)])
    set_ticks(page, "sources", [f"trait:{t.sharp.pk}"])
    check_chance(page, t)
    roll = roll_it(page)
    assert roll.record["result"]["input"]["attributes"] == [13, 11]
    lands_with_its_line(page, roll)

    # Test porównawczy against the NPC's stand-in, off its sheet.
    open_mode(page, t, "comparative")
    choose(page, "attribute", value=str(t.a["Zwinność"].pk))
    choose(page, "opponent", value=str(t.stand_in.pk))
    check_chance(page, t)
    roll = roll_it(page)
    assert roll.record["result"]["input"] == {"own": 12, "opposing": 14, "modifiers": []}
    assert roll.record["characters"]["b"]["name"] == "Najemnik"
    lands_with_its_line(page, roll)

    # Test efektu: the effect and its time unit.
    open_mode(page, t, "effect_test")
    choose(page, "attribute", value=str(t.a["Wytrzymałość"].pk))
    type_in(page, "effect", "Toksyczny dym")
    choose(page, "unit", value="minutes")
    check_chance(page, t)
    roll = roll_it(page)
    assert roll.record["result"]["unit"] == "minutes"
    lands_with_its_line(page, roll)

    # Test umiejętności against a factor; 3 levels above it succeeds with no roll.
    open_mode(page, t, "skill")
    choose(page, "skill", value=str(t.s["Otwieranie zamków"].pk))
    type_in(page, "factor", "0")
    expect(page.get_by_test_id("preview-note")).to_contain_text("automatycznie")
    expect(page.get_by_test_id("chance")).to_have_count(0)
    type_in(page, "factor", "2")
    check_chance(page, t)
    roll = roll_it(page)
    assert roll.record["result"]["input"]["skill"] == 3
    assert roll.record["result"]["input"]["factor"] == 2
    lands_with_its_line(page, roll)

    # Przerzut is chosen after a failed roll (test_ciernie_reroll.py): the panel has no box
    # for it, and its preview gives the chance with the reroll beside the chance without.
    open_mode(page, t, "attribute")
    choose(page, "attribute", value=str(t.a["Wola"].pk))
    expect(page.locator('[name="reroll"]')).to_have_count(0)
    expect(page.get_by_test_id("preview-terms")).to_contain_text("Z przerzutem po porażce")
    check_chance(page, t)
    assert Roll.objects.count() == 5
