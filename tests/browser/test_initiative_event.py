"""In Chromium: the GM opens a fight with an initiative roll including a stand-in
NPC; the order shows in the diary with the marker, which the GM moves; a stunned character
drops to the end and returns when freed; a haste spell raises one character for 2 turns
and expires on the third; one character hands initiative over to another; a second
initiative roll during the event is refused; the GM ends the event; the history shows every
change."""

import re

import pytest
from playwright.sync_api import expect

from diary.npcs import services as npc_services
from rolls.engine.dice import ScriptedDice
from rolls.models import ChangeKind, InitiativeChange, InitiativeEvent, Roll
from rolls.selectors import sheets_in_play
from tests.browser.conftest import open_turn
from tests.browser.test_roll_panel import (
    gm,  # noqa: F401 (a fixture)
    open_panel,
    open_tab,
    roll_and_land_in_the_diary,
    roll_button,
    type_in,
)
from tests.conftest import polish, polish_as

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def wolf(table, make_character, monkeypatch):
    """A stand-in wolf, and dice that make the order Lirael (540), Borys (340), Wilk (140)."""
    table.session.npc_mode = "gm_character"
    table.session.save()
    sheet = make_character(table.gm, "Wilk")
    npc = npc_services.npc_create(
        session=table.session,
        by=table.gm,
        name="Wilk",
        description="Głodny.",
        visible_to_players=True,
    )
    npc_services.npc_stand_in_set(npc=npc, by=table.gm, character=sheet)
    face = {"Lirael": 100, "Borys": 300, "Wilk": 500}
    faces = [face[c.name] for c in sheets_in_play(table.session).values()]
    monkeypatch.setattr("rolls.services.SystemDice", lambda: ScriptedDice(faces))
    return sheet


def order_in_diary(page, table) -> list[str]:
    page.goto(f"/sessions/{table.session.pk}/")
    items = page.get_by_test_id("fight-order").locator("li strong")
    return items.all_inner_texts()


def expect_order(page, table, names: list[str]) -> None:
    assert order_in_diary(page, table) == names


def marked(page):
    return page.get_by_test_id("fight-marked").locator("strong")


def test_a_fight_from_the_first_roll_to_its_history(gm, table, wolf):  # noqa: F811
    page = gm
    # The GM opens the fight: the initiative tab offers the stand-in NPC.
    open_panel(page, table)
    open_tab(page, "Initiative")
    expect(page.locator("#panel tr", has_text="Wilk (NPC)")).to_be_visible()
    type_in(page, "event_name", "Zasadzka u brodu")
    roll_and_land_in_the_diary(page)
    event = InitiativeEvent.objects.get()
    assert event.name == "Zasadzka u brodu"

    # The order at the top of the diary, the marker on the first.
    fight = page.get_by_test_id("fight")
    expect(fight).to_contain_text("Zasadzka u brodu")
    expect_order(page, table, ["Lirael", "Borys", "Wilk"])
    expect(marked(page)).to_have_text("Lirael")
    page.get_by_test_id("fight-next").click()
    page.wait_for_url(re.compile(r"#fight$"))
    expect(marked(page)).to_have_text("Borys")

    # Lirael is stunned: her sheet links to the diary's entry forms, Lirael preselected
    # (in play the sheet itself writes no effect).
    page.goto(f"/characters/{table.lirael.pk}/")
    page.get_by_test_id("tend-in-diary-link").click()
    page.wait_for_url(re.compile(r"entry_character=\d+#entries$"))
    page.locator("summary", has_text=polish("Apply an effect")).click()
    form = page.get_by_test_id("entry-effect")
    expect(form.locator('[name="effect-character"]')).to_have_value(str(table.lirael.pk))
    form.locator('[name="effect-kind"]').select_option(label="ogłuszenie")
    form.locator('[name="effect-description"]').fill("Cios w skroń")
    form.locator('[name="effect-reason"]').fill("Wilk powala Lirael")
    form.get_by_role("button", name=polish("Apply the effect")).click()
    page.wait_for_url(re.compile(r"#roll-\d+$"))
    expect(page.get_by_test_id("entry-text").filter(has_text="Cios w skroń")).to_be_visible()
    expect_order(page, table, ["Borys", "Wilk", "Lirael"])
    expect(page.get_by_test_id("fight-order").locator("li", has_text="Lirael")).to_contain_text(
        polish_as("feminine", "held: at the end while stunned or immobilised")
    )
    # Freed early, in the diary: back in her place.
    page.goto(f"/characters/{table.lirael.pk}/")
    page.get_by_test_id("tend-in-diary-link").click()
    page.locator("summary", has_text=polish("Free an effect early")).click()
    form = page.get_by_test_id("entry-free")
    form.locator('[name="free-effect"]').select_option(label="Lirael: Cios w skroń (ogłuszenie)")
    form.locator('[name="free-reason"]').fill("Ocknęła się")
    form.get_by_role("button", name=polish("Free the effect")).click()
    page.wait_for_url(re.compile(r"#roll-\d+$"))
    expect(page.get_by_test_id("entry-text").filter(has_text="Ocknęła się")).to_be_visible()
    expect_order(page, table, ["Lirael", "Borys", "Wilk"])

    # A haste spell on the wolf for 2 turns (given in turn 1: turns 1 and 2).
    page.get_by_test_id("fight").get_by_role("link").click()
    page.wait_for_url(f"**/sessions/{table.session.pk}/rolls/initiative/")
    form = page.get_by_test_id("modifier-form")
    form.get_by_label(polish("Character")).select_option(label="Wilk")
    form.get_by_label(polish("Modifier")).fill("450")
    form.get_by_label(polish("For how many turns")).fill("2")
    form.get_by_label(polish("Reason (spell, item)")).fill("Przyspieszenie")
    form.get_by_role("button", name=polish("Record the modifier")).click()
    expect(page.get_by_test_id("fight")).to_contain_text("Przyspieszenie")
    expect_order(page, table, ["Wilk", "Lirael", "Borys"])
    open_turn(page, table, 2)
    expect_order(page, table, ["Wilk", "Lirael", "Borys"])
    open_turn(page, table, 3)
    expect_order(page, table, ["Lirael", "Borys", "Wilk"])  # expired on the third

    # Lirael hands initiative over to Borys, who takes the first place.
    page.goto(f"/sessions/{table.session.pk}/rolls/initiative/")
    form = page.get_by_test_id("handover-form")
    form.get_by_label(polish("Takes over initiative")).select_option(label="Borys")
    form.get_by_label(polish("From (hands it over)")).select_option(label="Lirael")
    form.get_by_label(polish("New place")).fill("1")
    form.get_by_label(polish("Reason")).fill("Lirael przepuszcza Borysa")
    form.get_by_role("button", name=polish("Record the handover")).click()
    expect(page.get_by_test_id("fight-history")).to_contain_text("Lirael przepuszcza Borysa")
    expect_order(page, table, ["Borys", "Lirael", "Wilk"])

    # A second initiative roll during the event: refused next to the field, nothing stored.
    rolls = Roll.objects.count()
    open_panel(page, table)
    open_tab(page, "Initiative")
    roll_button(page).click()
    page.wait_for_load_state()
    refusal = polish(
        "An initiative event is running (%(name)s): its order holds until the GM ends "
        "it. End it first; then a new initiative roll opens the next one.",
        name="Zasadzka u brodu",
    )
    expect(page.locator("#id_event_name_error")).to_have_text(refusal)
    assert Roll.objects.count() == rolls and InitiativeEvent.objects.count() == 1

    # The GM ends the event (the first click only unfolds the confirmation).
    page.goto(f"/sessions/{table.session.pk}/rolls/initiative/")
    page.get_by_text(polish("End the event"), exact=True).click()
    page.get_by_role("button", name=polish("Yes, end the event")).click()
    expect(page.get_by_test_id("no-fight")).to_be_visible()
    page.goto(f"/sessions/{table.session.pk}/")
    expect(page.get_by_test_id("fight")).to_have_count(0)

    # The history shows every change, the sheet's stun and its end included.
    page.goto(f"/sessions/{table.session.pk}/rolls/initiative/")
    history = page.get_by_test_id("fight-history")
    kinds = history.locator("tbody tr").evaluate_all("rows => rows.map(r => r.dataset.kind)")
    assert kinds == [
        "opened",
        "marker",
        "held",
        "freed",
        "modifier",
        "handover",
        "ended",
    ]
    for text in ("Cios w skroń", "Ocknęła się", "Przyspieszenie", "Lirael przepuszcza Borysa"):
        expect(history).to_contain_text(text)
    recorded = list(InitiativeChange.objects.values_list("kind", flat=True))
    assert recorded == [
        ChangeKind.OPENED,
        ChangeKind.MARKER,
        ChangeKind.MODIFIER,
        ChangeKind.HANDOVER,
        ChangeKind.ENDED,
    ]
