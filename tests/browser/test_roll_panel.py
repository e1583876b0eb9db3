"""The GM uses the roll panel in a real browser: preview, roll, and the line in the diary.

The panel redraws itself through htmx as fields change; every step below waits
for that redraw before the next one, as a person would wait for the numbers to
settle. Fields are picked by their `name`; texts the page must show in Polish
(tabs, the roll button, outcomes, errors) come from the Polish catalogue via
`polish`, which fails while a msgid is untranslated. Thresholds and chances are
recomputed here with the engine from the characters' stored values.
"""

import re
import time
from decimal import Decimal
from fractions import Fraction

import pytest
from playwright.sync_api import expect

from characters.models import Attribute, AttributeValue, Character, NegativeEffect, Skill, Trait
from diary.services import turn_open_next
from rolls import services
from rolls.engine import forum1000 as f1000
from rolls.engine.dice import ScriptedDice
from rolls.models import Roll
from rolls.systems.forum1000.requests import RollRequest, SideRequest
from tests.browser.conftest import log_in, roll_button, wait_until_quiet
from tests.conftest import PASSWORD, polish
from tests.diary_entries import effect_entry
from tests.rolling import make_roll

pytestmark = pytest.mark.django_db(transaction=True)

# Counts htmx's redraws on <html data-redraws>, so a step can wait until the panel has
# settled. (The site's CSP forbids eval, so no wait_for_function: the count is polled.)
COUNT_REDRAWS = """
document.addEventListener("htmx:afterSettle", () => {
  const root = document.documentElement;
  root.dataset.redraws = String(Number(root.dataset.redraws || 0) + 1);
});
"""


def percent(text: str) -> Fraction:
    """A percent as the page shows it ("39.5%", "39,5%") as an exact number."""
    return Fraction(Decimal(text.strip().rstrip("%").strip().replace(",", ".")))


def value_of(character, attribute: str) -> int:
    return AttributeValue.objects.get(character=character, attribute__name=attribute).value


def trait_modifier(name: str) -> f1000.Modifier:
    trait = Trait.objects.select_related("attribute").get(system="forum1000", name=name)
    return f1000.Modifier(trait.modifier, "attribute", attribute=trait.attribute.name)


def source_key(name: str) -> str:
    return f"trait:{Trait.objects.get(system='forum1000', name=name).pk}"


def skill_id(name: str) -> str:
    return str(Skill.objects.get(system="forum1000", name=name).pk)


def redraws(page) -> int:
    return int(page.locator("html").get_attribute("data-redraws") or 0)


def wait_for_redraws(page, more_than: int) -> None:
    deadline = time.monotonic() + 15
    while redraws(page) <= more_than:
        assert time.monotonic() < deadline, "the panel did not redraw"
        page.wait_for_timeout(20)


def redraw(page, act) -> None:
    """Change the form, then wait until htmx has redrawn the panel."""
    before = redraws(page)
    act()
    wait_for_redraws(page, before)
    # A redraw counted may be an earlier one landing late: wait until none is on its way.
    expect(page.locator(".htmx-request")).to_have_count(0)


def choose(page, name: str, **option) -> None:
    redraw(page, lambda: page.locator(f'[name="{name}"]').select_option(**option))


def type_in(page, name: str, text: str) -> None:
    redraw(page, lambda: page.locator(f'[name="{name}"]').fill(text))


def tick(page, name: str, value: str) -> None:
    redraw(page, lambda: page.locator(f'[name="{name}"][value="{value}"]').check())


def roll_and_land_in_the_diary(page) -> Roll:
    roll_button(page).click()
    page.wait_for_url(re.compile(r"/sessions/\d+/.*#roll-\d+$"))
    seq = int(page.url.rsplit("#roll-", 1)[1])
    roll = Roll.objects.get(seq=seq)
    expect(page.locator(f"#roll-{seq}")).to_be_visible()
    return roll


def line_in_order(line: str, parts: list[str]) -> None:
    """Every part is in the line, in this order."""
    line = re.sub(r"\s+", " ", line)
    start = 0
    for part in parts:
        at = line.find(part, start)
        assert at >= 0, f"{part!r} missing (or out of order) in the roll line {line!r}"
        start = at + len(part)


def outcome_text(result: dict) -> str:
    return polish("Success") if result["success"] else polish("Failure")  # Sukces / Porażka


def roll_against_threshold(result: dict) -> str:
    """The line's "rzut 61 ≤ próg 500"."""
    comparison = "≤" if result["success"] else ">"
    threshold = str(result["threshold"]).replace("-", "\u2212")
    return f"{polish('roll')} {result['roll']} {comparison} {polish('threshold')} {threshold}"


def distance_text(result: dict) -> str:
    """The distance with its sign, and the one minus sign (U+2212)."""
    return f"{polish('distance')} {result['distance']:+d}".replace("-", "\u2212")


def expected_winner(a: dict, b: dict) -> str:
    """RULES 1.3, computed here from the two stored results."""
    if a["success"] and b["success"]:
        if a["distance"] == b["distance"]:
            return "draw"
        return "a" if a["distance"] > b["distance"] else "b"
    if a["success"] != b["success"]:
        return "a" if a["success"] else "b"
    return "none"


@pytest.fixture
def gm(page, table):
    """The table's GM, logged in; the page counts the panel's redraws."""
    page.add_init_script(COUNT_REDRAWS)
    log_in(page, table.gm.username, PASSWORD)
    return page


def panel_url_with(mode: str) -> re.Pattern:
    """The panel's URL in this mode, carrying its one-time token."""
    return re.compile(rf"/rolls/panel/\?(?=.*\bmode={mode}(&|$))(?=.*\btoken=)")


def first_redraw(page) -> None:
    """A fresh panel arrives complete (its URL carries the token); wait until it has loaded."""
    page.wait_for_load_state("load")
    expect(page.get_by_test_id("preview")).to_be_visible()


def open_panel(page, table, mode: str = "") -> None:
    """From the diary, the way the GM goes: the "Roll panel" link by the ledger head."""
    page.goto(f"/sessions/{table.session.pk}/")
    page.get_by_test_id("chain-head").get_by_role("link", name=polish("Roll panel")).click()
    page.wait_for_url(f"**/sessions/{table.session.pk}/rolls/panel/**")
    first_redraw(page)
    if mode:
        page.locator(f'#panel a[href="?mode={mode}"]').first.click()
        page.wait_for_url(panel_url_with(mode))
        first_redraw(page)


def open_ask_mode(page, mode: str) -> None:
    """On the request page, the kind of test by its tab (each askable mode has one)."""
    page.locator(f'#ask a.tab[href="?mode={mode}"]').click()
    page.wait_for_url(f"**/rolls/ask/?mode={mode}")
    expect(page.locator(f'#ask input[name="mode"][value="{mode}"]')).to_have_count(1)


def open_tab(page, msgid: str) -> None:
    page.get_by_role("link", name=polish(msgid), exact=True).click()
    page.wait_for_load_state()
    first_redraw(page)
    expect(page.locator("a.tab.current")).to_have_text(polish(msgid))


# -- tab "Cechy" -------------------------------------------------------------------


def test_single_attribute_chance_is_the_engines_and_the_roll_lands_in_the_diary(gm, table):
    page, borys = gm, table.borys
    open_panel(page, table)
    open_tab(page, "Attributes")  # "Cechy"

    choose(page, "a-character", value=str(borys.pk))
    choose(page, "a-attribute", label="Zręczność")
    tick(page, "a-sources", source_key("Precyzyjny"))
    choose(page, "a-gm_difficulty", value="-150")
    type_in(page, "a-gm_difficulty_reason", "śliska klamka")
    choose(page, "a-gm_bonus", value="50")
    type_in(page, "a-gm_bonus_reason", "dobry plan")

    test = f1000.AttributeTest(
        f1000.Attribute("Zręczność", value_of(borys, "Zręczność")),
        (
            trait_modifier("Precyzyjny"),
            f1000.Modifier(-150, "gm_difficulty", reason="śliska klamka"),
            f1000.Modifier(50, "gm_bonus", reason="dobry plan"),
        ),
    )
    limit = f1000.threshold(test).value
    assert limit == 500 + 50 - 150 + 50
    expect(page.get_by_test_id("threshold")).to_have_text(str(limit))
    shown = page.get_by_test_id("chance").inner_text()
    assert percent(shown) == f1000.success_probability(limit) * 100
    preview = page.get_by_test_id("preview")
    expect(preview).to_contain_text("śliska klamka")
    expect(preview).to_contain_text("Precyzyjny")

    roll = roll_and_land_in_the_diary(page)
    result = roll.record["result"]
    assert result["threshold"] == limit
    assert (roll.character_id, roll.test, roll.rolled_by) == (borys.pk, "attribute", table.gm)
    line = page.locator(f"#roll-{roll.seq}").get_by_test_id("roll-line")
    expect(line).to_have_count(1)
    line_in_order(
        line.inner_text(),
        [
            outcome_text(result),
            f"{result['percent']}%",
            roll_against_threshold(result),
            distance_text(result),
            "Precyzyjny",
            "śliska klamka",
            "dobry plan",
        ],
    )


def test_a_choice_made_while_the_panel_redraws_neither_cuts_the_redraw_short_nor_is_undone(
    gm, table
):
    """The GM picks a character and, before the panel's redraw for that character arrives,
    a difficulty (a field that redraws only the preview). The redraw must still come (the
    character's own abilities offered), and, drawn from the form as it was, must not put
    the old difficulty back. The redraw is held here until the second choice has been
    made, so the race runs the same way every time."""
    page, borys = gm, table.borys
    open_panel(page, table)
    open_tab(page, "Attributes")  # "Cechy"
    choose(page, "a-character", value=str(table.lirael.pk))
    choose(page, "a-attribute", label="Zręczność")
    held = []

    def hold_the_first_panel_redraw(route):
        if route.request.headers.get("hx-target") == "panel" and not held:
            held.append(route)
        else:
            route.continue_()

    page.route("**/rolls/panel/**", hold_the_first_panel_redraw)
    difficulty = page.locator('[name="a-gm_difficulty"]')
    with page.expect_request(lambda request: request.headers.get("hx-target") == "panel"):
        page.locator('[name="a-character"]').select_option(value=str(borys.pk))
    difficulty.select_option(value="-150")
    while not held:  # the route's handler runs as Playwright's loop turns
        page.wait_for_timeout(20)

    held[0].continue_()
    wait_until_quiet(page)
    precise = page.locator(f'[name="a-sources"][value="{source_key("Precyzyjny")}"]')
    expect(precise).to_be_enabled()
    expect(difficulty).to_have_value("-150")
    expect(page.locator('[name="a-character"]')).to_have_value(str(borys.pk))
    # The preview is drawn from the difficulty too: it now asks for the difficulty's reason.
    expect(page.get_by_test_id("preview-problems")).to_be_visible()


def test_combined_roll_averages_two_attributes(gm, table):
    page, lirael = gm, table.lirael
    open_panel(page, table, "combined")
    choose(page, "a-character", value=str(lirael.pk))
    choose(page, "a-attribute", label="Percepcja")
    choose(page, "a-attribute_2", label="Siła")

    test = f1000.CombinedTest(
        (
            f1000.Attribute("Percepcja", value_of(lirael, "Percepcja")),
            f1000.Attribute("Siła", value_of(lirael, "Siła")),
        )
    )
    limit = f1000.threshold(test).value
    assert limit == (600 + 450) // 2
    expect(page.get_by_test_id("threshold")).to_have_text(str(limit))
    assert percent(page.get_by_test_id("chance").inner_text()) == Fraction(limit, 10)

    roll = roll_and_land_in_the_diary(page)
    result = roll.record["result"]
    assert (roll.test, result["threshold"]) == ("combined", limit)
    line = page.locator(f"#roll-{roll.seq}").get_by_test_id("roll-line")
    line_in_order(
        line.inner_text(),
        [
            "Lirael",
            "Percepcja",
            "Siła",
            outcome_text(result),
            f"{result['percent']}%",
            roll_against_threshold(result),
        ],
    )


def test_opposed_roll_shows_the_odds_then_both_lines_and_the_verdict(gm, table):
    """Lirael charms (Uwodzenie + Seksapil); Borys has no fitting skill: Siła Woli ÷ 2."""
    page, lirael, borys = gm, table.lirael, table.borys
    open_panel(page, table, "opposed")
    choose(page, "a-character", value=str(lirael.pk))
    choose(page, "a-test", value="skill")
    choose(page, "a-skill", value=skill_id("Uwodzenie"))
    tick(page, "a-sources", source_key("Seksapil"))
    choose(page, "b-character", value=str(borys.pk))
    choose(page, "b-test", value="half_attribute")
    choose(page, "b-attribute", label="Siła Woli")

    side_a = f1000.SkillTest(
        1, f1000.Attribute("Charyzma", value_of(lirael, "Charyzma")), (trait_modifier("Seksapil"),)
    )
    side_b = f1000.SkillTest(0, f1000.Attribute("Siła Woli", value_of(borys, "Siła Woli")))
    limits = [f1000.threshold(side_a).value, f1000.threshold(side_b).value]
    assert limits == [40 + 700 // 2 + 50 // 2, 520 // 2]
    expect(page.get_by_test_id("threshold")).to_have_text([str(t) for t in limits])
    chances = [percent(text) for text in page.get_by_test_id("chance").all_inner_texts()]
    assert chances == [f1000.success_probability(t) * 100 for t in limits]

    odds = f1000.opposed_odds(f1000.OpposedTest(side_a, side_b))
    odds_line = page.get_by_test_id("odds")
    expect(odds_line).to_be_visible()
    shown = [percent(p) for p in re.findall(r"\d+(?:[.,]\d+)?\s*%", odds_line.inner_text())]
    exact = [odds.a, odds.draw, odds.b, odds.none]
    assert len(shown) == 4, odds_line.inner_text()
    for on_page, value in zip(shown, exact, strict=True):
        assert abs(on_page - value * 100) <= Fraction(1, 200), (shown, exact)

    roll = roll_and_land_in_the_diary(page)
    result = roll.record["result"]
    assert roll.test == "opposed"
    assert [result["a"]["threshold"], result["b"]["threshold"]] == limits
    assert result["winner"] == expected_winner(result["a"], result["b"])
    post = page.locator(f"#roll-{roll.seq}")
    lines = post.get_by_test_id("roll-line")
    expect(lines).to_have_count(2)
    for line, name, side in zip(
        lines.all_inner_texts(), ["Lirael", "Borys"], [result["a"], result["b"]], strict=True
    ):
        line_in_order(line, [name, outcome_text(side), roll_against_threshold(side)])
    verdict = post.get_by_test_id("verdict")
    expect(verdict).to_be_visible()
    winner = result["winner"]
    if winner in ("a", "b"):
        expect(verdict).to_contain_text("Lirael" if winner == "a" else "Borys")
    elif winner == "draw":
        expect(verdict).to_have_text(polish("Draw"))
    else:
        expect(verdict).to_have_text(polish("Nobody wins: both failed, the attempt is annulled"))


# -- tab "Umiejętności" ----------------------------------------------------------------


def borys_with_a_foreign_ability(table):
    """Borys also has Dobry Wzrok, an ability of Percepcja (RULES 1.2's example)."""
    Character.objects.get(pk=table.borys.pk).traits.add(
        Trait.objects.get(system="forum1000", name="Dobry Wzrok")
    )


def pick_lock_test(page, table) -> None:
    open_panel(page, table)
    open_tab(page, "Skills")  # "Umiejętności"
    choose(page, "a-character", value=str(table.borys.pk))
    choose(page, "a-skill", value=skill_id("Otwieranie zamków"))


def test_skill_roll_with_a_matching_ability_ticked(gm, table):
    page, borys = gm, table.borys
    borys_with_a_foreign_ability(table)
    pick_lock_test(page, table)
    precise = page.locator(f'[name="a-sources"][value="{source_key("Precyzyjny")}"]')
    sharp_eyes = page.locator(f'[name="a-sources"][value="{source_key("Dobry Wzrok")}"]')
    expect(precise).to_be_enabled()
    expect(sharp_eyes).to_be_disabled()

    tick(page, "a-sources", source_key("Precyzyjny"))
    test = f1000.SkillTest(
        3,
        f1000.Attribute("Zręczność", value_of(borys, "Zręczność")),
        (trait_modifier("Precyzyjny"),),
    )
    limit = f1000.threshold(test).value
    assert limit == 40 * 3 + 500 // 2 + 50 // 2
    expect(page.get_by_test_id("threshold")).to_have_text(str(limit))
    assert percent(page.get_by_test_id("chance").inner_text()) == Fraction(limit, 10)

    roll = roll_and_land_in_the_diary(page)
    result = roll.record["result"]
    assert (roll.test, result["threshold"]) == ("skill", limit)
    line = page.locator(f"#roll-{roll.seq}").get_by_test_id("roll-line")
    line_in_order(
        line.inner_text(),
        [
            "Borys",
            "Otwieranie zamków",
            outcome_text(result),
            roll_against_threshold(result),
            "Precyzyjny",
        ],
    )


def test_an_ability_of_another_attribute_is_disabled_with_a_reason_naming_it(gm, table):
    page = gm
    borys_with_a_foreign_ability(table)
    pick_lock_test(page, table)
    sharp_eyes = page.locator(f'[name="a-sources"][value="{source_key("Dobry Wzrok")}"]')
    expect(sharp_eyes).to_be_disabled()
    # RULES 1.2: the reason names the ability and both attributes.
    reason = page.locator("label", has=sharp_eyes).locator(".reason")
    expect(reason).to_contain_text("Percepcja")
    expect(reason).to_contain_text("Zręczność")
    expect(reason).to_contain_text("Dobry Wzrok")


def test_skill_list_shows_each_skills_attribute_and_the_characters_level(gm, table):
    page, borys = gm, table.borys
    open_panel(page, table, "skill")
    choose(page, "a-character", value=str(borys.pk))
    option = page.locator(f'[name="a-skill"] option[value="{skill_id("Otwieranie zamków")}"]')
    expect(option).to_contain_text("Zręczność")
    # The skill list shows each skill's attribute and the character's level.
    expect(option).to_contain_text(re.compile(r"\b3\b"))


def test_healing_changes_the_patients_hp_and_frees_the_chosen_wound(gm, table, monkeypatch):
    page, healer, patient = gm, table.lirael, table.borys
    Character.objects.filter(pk=patient.pk).update(hp_current=40)
    # In play the GM wounds through the diary's entries.
    wound = effect_entry(table.session, table.gm, patient, "wound", "Cięcie")
    illness = effect_entry(table.session, table.gm, patient, "illness", "Gorączka")
    # Leczenie ran, level 0, Mądrość 600 → threshold 300; a 250 succeeds by 50 (no critical).
    monkeypatch.setattr("rolls.services.SystemDice", lambda: ScriptedDice([250]))

    open_panel(page, table)
    open_tab(page, "Skills")  # "Umiejętności"
    page.locator('#panel a.mode[href="?mode=healing"]').click()
    page.wait_for_url(panel_url_with("healing"))
    first_redraw(page)
    choose(page, "a-character", value=str(healer.pk))
    choose(page, "a-skill", value=skill_id("Leczenie ran"))
    choose(page, "patient", value=str(patient.pk))
    choose(page, "effect", value=str(wound.pk))
    expect(page.get_by_test_id("threshold")).to_have_text("300")
    assert percent(page.get_by_test_id("chance").inner_text()) == 30

    roll = roll_and_land_in_the_diary(page)
    assert roll.test == "healing"
    assert roll.record["result"]["threshold"] == 300
    healing = page.locator(f"#roll-{roll.seq}").get_by_test_id("healing")
    expect(healing).to_contain_text("Borys")
    expect(healing).to_contain_text(re.compile(r"40\D+90"))
    expect(healing).to_contain_text("Cięcie")

    assert Character.objects.get(pk=patient.pk).hp_current == 90
    assert NegativeEffect.objects.get(pk=wound.pk).freed_at is not None
    assert NegativeEffect.objects.get(pk=illness.pk).freed_at is None

    page.goto(f"/characters/{patient.pk}/")
    expect(page.get_by_test_id("hp")).to_have_text(re.compile(r"^\s*90 / 100\s*$"))
    expect(page.locator("li.freed", has_text="Cięcie")).to_be_visible()
    expect(page.locator("li:not(.freed)", has_text="Gorączka")).to_be_visible()


# -- tab "Inicjatywa" --------------------------------------------------------------------


def test_initiative_rolls_for_every_character_at_once(gm, table):
    page, lirael, borys = gm, table.lirael, table.borys
    open_panel(page, table)
    open_tab(page, "Initiative")  # "Inicjatywa"
    for character in (lirael, borys):
        row = page.locator("#panel tr", has_text=character.name)
        expect(row).to_contain_text(str(value_of(character, "Szybkość")))
        expect(row.locator(f'[name="mod_{character.pk}"]')).to_be_visible()
    type_in(page, f"mod_{lirael.pk}", "50")
    type_in(page, f"why_{lirael.pk}", "zwinny but")
    expect(page.get_by_test_id("threshold")).to_have_count(2)

    roll = roll_and_land_in_the_diary(page)
    assert Roll.objects.count() == 1
    result = roll.record["result"]
    assert roll.test == "initiative"
    assert sorted(result["order"]) == ["Borys", "Lirael"]
    scores = result["scores"]
    order = page.locator(f"#roll-{roll.seq}").get_by_test_id("initiative-order").locator("li")
    expect(order).to_have_count(2)
    for item, name in zip(order.all_inner_texts(), result["order"], strict=True):
        score = str(scores[name]).replace("-", "\u2212")  # the one minus sign
        assert item.split()[0] == name and f"({score})" in item
    lirael_entry = next(e for e in result["entries"] if e["name"] == "Lirael")
    assert lirael_entry["result"]["threshold"] == value_of(lirael, "Szybkość") + 50


# -- one roll per form, refusals ----------------------------------------------------------------


def lirael_perception(page, table) -> None:
    open_panel(page, table)
    choose(page, "a-character", value=str(table.lirael.pk))
    choose(page, "a-attribute", label="Percepcja")
    expect(page.get_by_test_id("threshold")).to_have_text("600")


def test_double_click_stores_one_roll(gm, table):
    """Chromium itself sends one POST for a double click; the next test makes it send two."""
    page = gm
    lirael_perception(page, table)
    roll_button(page).dblclick()
    expect(page).to_have_url(re.compile(r"#roll-1$"))
    assert Roll.objects.count() == 1


def test_a_second_click_while_the_first_is_on_its_way_stores_no_second_roll(gm, table, monkeypatch):
    """The first answer is slow, so the GM clicks again: the server gets the token twice."""
    page = gm
    made = []
    real_roll_make = services.roll_make

    def slow_first_answer(**kwargs):
        result = real_roll_make(**kwargs)  # committed: the slowness comes after it
        made.append(result.created)
        if len(made) == 1:
            time.sleep(0.6)
        return result

    monkeypatch.setattr("rolls.services.roll_make", slow_first_answer)
    lirael_perception(page, table)
    # Two real clicks on the button, 200 ms apart (Playwright's own click would wait).
    roll_button(page).evaluate("b => { b.click(); setTimeout(() => b.click(), 200); }")
    expect(page).to_have_url(re.compile(r"#roll-1$"))
    deadline = time.monotonic() + 5
    while len(made) < 2 and time.monotonic() < deadline:  # the first request ends too
        page.wait_for_timeout(50)
    assert made == [True, False]  # the second POST got the first roll back
    assert Roll.objects.count() == 1


def test_back_to_the_panel_and_roll_again_stores_no_second_roll(gm, table):
    """The back button must not make a second roll (RULES 1.8)."""
    page = gm
    lirael_perception(page, table)
    first = roll_and_land_in_the_diary(page)

    page.go_back()
    page.wait_for_url("**/rolls/panel/**")
    wait_until_quiet(page)
    roll_button(page).click()
    expect(page).to_have_url(re.compile(r"#roll-\d+$"))
    rolls = list(Roll.objects.order_by("seq").values_list("seq", "character__name"))
    assert rolls == [(first.seq, "Lirael")], (
        "going back gave the panel a fresh token and default fields; "
        f"the same click stored another roll: {rolls}"
    )


def test_gm_modifier_without_a_reason_shows_a_polish_error_and_stores_nothing(gm, table):
    page, lirael = gm, table.lirael
    open_panel(page, table)
    choose(page, "a-character", value=str(lirael.pk))
    choose(page, "a-attribute", label="Percepcja")
    choose(page, "a-gm_difficulty", value="-100")
    roll_button(page).click()
    page.wait_for_load_state()

    error = page.locator("#id_a-gm_difficulty_reason_error")
    expect(error).to_be_visible()
    expect(error).to_have_text(
        polish("A GM modifier needs a reason: the roll shows it to everyone.")
    )
    # Next to its field: in the same field box as the reason input.
    field = page.locator(".field", has=page.locator('[name="a-gm_difficulty_reason"]'))
    expect(field.locator(".error")).to_have_count(1)
    assert not Roll.objects.exists()


# -- only "Roll" rolls; a link is never someone else's roll ------------------------------------


def watch_requests(page) -> list[tuple[str, str]]:
    sent: list[tuple[str, str]] = []
    page.on("request", lambda request: sent.append((request.method, request.url)))
    return sent


def press_enter_in(page, name: str) -> None:
    page.locator(f'[name="{name}"]').press("Enter")
    page.wait_for_timeout(700)  # long enough for a submission to have left


def assert_nothing_submitted(page, url: str, sent) -> None:
    assert page.url == url, "Enter navigated away from the panel"
    assert not [request for request in sent if request[0] == "POST"], sent
    assert not [request for request in sent if "csrfmiddlewaretoken" in request[1]], sent
    assert not Roll.objects.exists()


def test_enter_in_a_text_field_never_rolls_nor_navigates(gm, table):
    """On a fresh panel, and again after htmx has redrawn it."""
    page = gm
    open_panel(page, table)
    sent = watch_requests(page)
    fresh = page.url
    for name in ("a-gm_difficulty_reason", "a-action_value", "a-action_reason"):
        press_enter_in(page, name)
        assert_nothing_submitted(page, fresh, sent)

    type_in(page, "a-action_reason", "skok przez płot")  # a redraw: the fragment is new
    choose(page, "a-attribute", label="Siła")
    redrawn = page.url
    assert "csrfmiddlewaretoken" not in redrawn
    for name in ("a-action_reason", "a-gm_bonus_reason"):
        press_enter_in(page, name)
        assert_nothing_submitted(page, redrawn, sent)

    roll_and_land_in_the_diary(page)  # the button still rolls
    assert Roll.objects.count() == 1


def test_without_javascript_show_the_chance_rolls_nothing_and_keeps_the_csrf_token_out(
    browser, live_server, table
):
    context = browser.new_context(
        locale="pl-PL", base_url=live_server.url, java_script_enabled=False
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    try:
        log_in(page, table.gm.username, PASSWORD)
        page.goto(f"/sessions/{table.session.pk}/rolls/panel/")
        page.locator('[name="a-character"]').select_option(str(table.borys.pk))
        page.locator('[name="a-attribute"]').select_option(label="Zręczność")
        page.get_by_role("button", name=polish("Show the chance")).click()
        page.wait_for_load_state()
        assert "csrfmiddlewaretoken" not in page.url
        expect(page.get_by_test_id("threshold")).to_have_text(
            str(value_of(table.borys, "Zręczność"))
        )
        assert not Roll.objects.exists()

        shown = page.url
        page.locator('[name="a-gm_difficulty_reason"]').press("Enter")
        page.wait_for_timeout(700)
        assert page.url == shown and not Roll.objects.exists()

        roll_button(page).click()
        page.wait_for_url(re.compile(r"#roll-1$"))
        assert Roll.objects.get().character_id == table.borys.pk
    finally:
        context.close()


def test_a_players_panel_link_with_gm_modifiers_opens_clean_for_the_gm(gm, table):
    """The player's token and the modifiers they slipped in are not the GM's."""
    page = gm
    table.session.roll_policy = "players_own"
    table.session.save()
    player_token = make_roll(
        table.session,
        table.alice,
        RollRequest(
            kind="attribute",
            a=SideRequest(table.lirael.pk, "attribute", (attribute_id("Percepcja"),)),
        ),
    ).roll.token
    # A new turn: the GM's roll below is Lirael's first action roll of it (RULES 1.5).
    turn_open_next(session=table.session, by=table.gm)
    link = (
        f"/sessions/{table.session.pk}/rolls/panel/?mode=attribute&token={player_token}"
        f"&a-character={table.lirael.pk}&a-gm_bonus=300&a-gm_bonus_reason=zas%C5%82u%C5%BCy%C5%82"
    )
    page.goto(link)
    first_redraw(page)
    assert str(player_token) not in page.url and "gm_bonus=300" not in page.url
    expect(page.locator('[name="a-gm_bonus"]')).to_have_value("0")
    expect(page.get_by_test_id("preview")).not_to_contain_text("zasłużył")
    roll = roll_and_land_in_the_diary(page)
    assert (roll.seq, roll.rolled_by) == (2, table.gm)
    assert roll.record["result"]["threshold"] == value_of(table.lirael, "Percepcja")


# -- every input has a name; the record can be focused ---------------------------------------


def attribute_id(name: str) -> int:
    return Attribute.objects.get(system="forum1000", name=name).pk


def test_initiative_inputs_are_labelled_and_the_record_can_be_focused(gm, table):
    page = gm
    open_panel(page, table)
    open_tab(page, "Initiative")
    for character in (table.lirael, table.borys):
        modifier = page.get_by_label(polish("Initiative modifier: %(name)s", name=character.name))
        expect(modifier).to_have_attribute("name", f"mod_{character.pk}")
        reason = page.get_by_label(polish("Reason: %(name)s", name=character.name))
        expect(reason).to_have_attribute("name", f"why_{character.pk}")

    roll = roll_and_land_in_the_diary(page)
    page.goto(f"/sessions/{table.session.pk}/rolls/{roll.seq}/")
    record = page.get_by_test_id("record")
    record.focus()  # only a focusable element (tabindex) takes the focus
    expect(record).to_be_focused()
    expect(record).to_have_attribute("aria-label", polish("Stored record (JSON)"))


@pytest.mark.fair_dice
def test_the_rollers_browser_draws_its_share_of_the_dice_and_the_page_says_when_they_verify(
    gm, table
):
    """Chromium's page puts its own random seed into the roll; the roll's page shows it and,
    once the turn closes, says the dice are verifiable."""
    page = gm
    lirael_perception(page, table)
    seed_box = page.locator('input[name="client_seed"]')
    expect(seed_box).to_have_value(re.compile(r"^[0-9a-f]{32}$"))
    sent = seed_box.input_value()
    # The turn's commitment is on the panel before the roll (turn 1's, the chain's first entry).
    commitment = page.get_by_test_id("dice-commitment")
    expect(commitment).to_contain_text("tury 1")
    expect(commitment.get_by_role("link")).to_have_attribute(
        "href", f"/sessions/{table.session.pk}/rolls/1/"
    )
    roll = roll_and_land_in_the_diary(page)
    fair = roll.record["fair"]
    assert (fair["client_seed"], fair["client_seed_by"]) == (sent, "browser")

    page.goto(f"/sessions/{table.session.pk}/rolls/{roll.seq}/")
    expect(page.get_by_test_id("dice-awaiting")).to_be_visible()
    expect(page.get_by_test_id("fair-dice")).to_contain_text(sent)
    expect(page.get_by_test_id("fair-dice")).to_contain_text("przeglądarkę rzucającego")
    turn_open_next(session=table.session, by=table.gm)
    page.reload()
    expect(page.get_by_test_id("dice-verifiable")).to_contain_text("Kości sprawdzalne")
