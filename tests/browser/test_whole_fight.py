"""A whole fight in Chromium, every step through the pages by the
person who would take it (the GM and Bartek, Borys's player, each in a browser of their own).

The database holds only what a fight starts from: the users, the sheets, the running session
and the wolf's stand-in. Scripted dice fix the order (Lirael 540, Borys 340, Wilk 140). Then:
the GM opens the fight with an initiative roll including the stand-in; the order shows at the
top of the diary, the marker on the first, and the GM moves it; Lirael is stunned from the
diary's entry forms and drops to the end, is freed early from the diary (in play the sheet links
there) and returns; a haste spell raises the wolf for 2 turns and is gone in the third
(turns opened from the diary); Lirael hands initiative over to Borys; the GM grants Borys a
potion in a post, Bartek drinks it and HP is restored (the sheet and the diary's entry); the
GM deals damage from the diary with a reason; the GM ends the event; the history shows every
change, the stun's start and end included, and Bartek can read it.
"""

import re

import pytest
from django.utils import translation
from playwright.sync_api import expect

from rolls.models import ChangeKind, InitiativeChange, InitiativeEvent
from tests.browser.conftest import log_in, roll_button
from tests.browser.test_initiative_event import wolf  # noqa: F401 (the stand-in wolf)
from tests.browser.test_roll_panel import COUNT_REDRAWS, open_panel, open_tab, type_in
from tests.conftest import PASSWORD, polish, polish_as


def polish_plural(singular: str, plural: str, count: int, **params) -> str:
    with translation.override("pl"):
        text = translation.ngettext(singular, plural, count)
    assert text not in (singular, plural), f"no Polish translation for {plural!r}"
    return text % {"count": count, **params}


pytestmark = pytest.mark.django_db(transaction=True)

EVENT = "Zasadzka przy młynie"


@pytest.fixture
def player(browser, live_server, table):
    """Bartek (Borys's player) in a browser context of his own."""
    context = browser.new_context(locale="pl-PL", base_url=live_server.url)
    page = context.new_page()
    page.set_default_timeout(15_000)
    log_in(page, table.bob.username, PASSWORD)
    yield page
    context.close()


def diary(page, table) -> None:
    page.goto(f"/sessions/{table.session.pk}/")


def event_page(page, table) -> None:
    page.goto(f"/sessions/{table.session.pk}/rolls/initiative/")


def order(page) -> list[str]:
    return page.get_by_test_id("fight-order").locator("li strong").all_inner_texts()


def expect_order(page, table, names: list[str]) -> None:
    """The order at the top of the diary, as whoever holds `page` reads it."""
    diary(page, table)
    expect(page.get_by_test_id("fight-order").locator("li strong")).to_have_text(names)
    assert order(page) == names


def marked(page):
    return page.get_by_test_id("fight-marked").locator("strong")


def row_of(page, name: str):
    return page.get_by_test_id("fight-order").locator("li", has_text=name)


def entry_form(page, test_id: str, summary: str):
    page.locator("summary", has_text=polish(summary)).click()
    return page.get_by_test_id(test_id)


def entry(page, text: str):
    return page.get_by_test_id("entry-text").filter(has_text=text)


def open_turn(page, table, number: int) -> None:
    diary(page, table)
    page.get_by_text(polish("Open turn %(number)s", number=number), exact=True).click()
    page.get_by_role("button", name=polish("Yes, open turn %(number)s", number=number)).click()
    expect(page.get_by_text(polish("Current turn: %(number)s", number=number))).to_be_visible()


def in_turn(turn: int) -> str:
    return polish(
        "Initiative order in turn %(turn)s. Players post in any order; the GM resolves in "
        "this order.",
        turn=turn,
    )


@pytest.mark.usefixtures("wolf")
def test_a_whole_fight_from_the_initiative_roll_to_its_history(page, player, table):
    gm = page
    gm.add_init_script(COUNT_REDRAWS)
    log_in(gm, table.gm.username, PASSWORD)
    borys = table.borys
    hp, top = borys.hp_current, borys.hp_max  # 80 / 100
    stunned = polish("stun")  # "ogłuszenie"

    # -- The GM opens the fight: the initiative tab offers the wolf's stand-in. -------------
    open_panel(gm, table)
    open_tab(gm, "Initiative")
    expect(gm.locator("#panel tr", has_text="Wilk (NPC)")).to_be_visible()
    type_in(gm, "event_name", EVENT)
    roll_button(gm).click()
    gm.wait_for_url(re.compile(r"/sessions/\d+/.*#roll-\d+$"))

    # -- The order at the top of the diary, the marker on the first; both see it. ----------
    expect_order(gm, table, ["Lirael", "Borys", "Wilk"])
    fight = gm.get_by_test_id("fight")
    expect(fight.get_by_role("heading", name=EVENT)).to_be_visible()
    expect(fight).to_contain_text(in_turn(1))
    expect(marked(gm)).to_have_text("Lirael")
    expect(row_of(gm, "Lirael")).to_contain_text("540")
    expect_order(player, table, ["Lirael", "Borys", "Wilk"])
    expect(marked(player)).to_have_text("Lirael")
    expect(player.get_by_test_id("fight-next")).to_have_count(0)  # the marker is the GM's
    expect(player.get_by_test_id("fight").get_by_role("link")).to_have_text(
        polish("The event's history")
    )

    # -- The GM resolves Lirael and moves the marker to the next. --------------------------
    diary(gm, table)
    gm.get_by_role("button", name=polish("Resolved: mark the next")).click()
    gm.wait_for_url(re.compile(r"#fight$"))
    expect(marked(gm)).to_have_text("Borys")
    diary(player, table)
    expect(marked(player)).to_have_text("Borys")

    # -- Lirael is stunned from the diary's entry forms: she drops to the end. -------------
    diary(gm, table)
    form = entry_form(gm, "entry-effect", "Apply an effect")
    form.locator('[name="effect-character"]').select_option(label="Lirael")
    form.locator('[name="effect-kind"]').select_option(label=stunned)
    form.locator('[name="effect-description"]').fill("Ogłuszona uderzeniem tarczy")
    form.get_by_label(polish("Reason")).fill("Borys trafia ją tarczą")
    form.get_by_role("button", name=polish("Apply the effect")).click()
    gm.wait_for_url(re.compile(r"#roll-\d+$"))
    stun_text = (
        polish(
            "%(name)s: %(kind)s, %(description)s, from turn %(turn)s",
            name="Lirael",
            kind=stunned,
            description="Ogłuszona uderzeniem tarczy",
            turn=1,
        )
        + "; "
        + polish("until freed")
        + ". "
        + polish("Reason: %(reason)s", reason="Borys trafia ją tarczą")
    )
    expect(entry(gm, "Ogłuszona uderzeniem tarczy")).to_have_text(stun_text)
    expect_order(gm, table, ["Borys", "Wilk", "Lirael"])
    held = polish_as("feminine", "held: at the end while stunned or immobilised")
    expect(row_of(gm, "Lirael")).to_contain_text(held)
    expect(marked(gm)).to_have_text("Borys")
    expect_order(player, table, ["Borys", "Wilk", "Lirael"])

    # -- In play the sheet sends the GM to the diary, where the stun is freed early. -------
    gm.goto(f"/characters/{table.lirael.pk}/")
    effect = gm.locator("li", has_text="Ogłuszona uderzeniem tarczy")
    expect(effect).to_contain_text(polish("since turn %(first)s, until freed", first=1))
    gm.get_by_test_id("tend-in-diary-link").click()
    gm.wait_for_url(re.compile(r"entry_character=\d+#entries$"))
    form = entry_form(gm, "entry-free", "Free an effect early")
    form.locator('[name="free-effect"]').select_option(
        label=f"Lirael: Ogłuszona uderzeniem tarczy ({stunned})"
    )
    form.locator('[name="free-reason"]').fill("Ocknęła się po chwili")
    form.get_by_role("button", name=polish("Free the effect")).click()
    gm.wait_for_url(re.compile(r"#roll-\d+$"))
    expect(entry(gm, "Ocknęła się po chwili")).to_be_visible()
    expect_order(gm, table, ["Lirael", "Borys", "Wilk"])
    expect(gm.get_by_test_id("fight-order")).not_to_contain_text(held)

    # -- A haste spell on the wolf, +450 for 2 turns, given in turn 1. ----------------------
    gm.get_by_test_id("fight").get_by_role(
        "link", name=polish("Run the event: order changes, history, end")
    ).click()
    gm.wait_for_url(f"**/sessions/{table.session.pk}/rolls/initiative/")
    form = gm.get_by_test_id("modifier-form")
    form.get_by_label(polish("Character")).select_option(label="Wilk")
    form.get_by_label(polish("Modifier")).fill("450")
    form.get_by_label(polish("For how many turns")).fill("2")
    form.get_by_label(polish("Reason (spell, item)")).fill("Czar przyspieszenia")
    form.get_by_role("button", name=polish("Record the modifier")).click()
    until_two = polish("%(name)s: %(value)s until turn %(last)s", name="Wilk", value="+450", last=2)
    expect(gm.get_by_test_id("fight")).to_contain_text(until_two)
    expect_order(gm, table, ["Wilk", "Lirael", "Borys"])
    expect(row_of(gm, "Wilk")).to_contain_text("590")
    expect(gm.get_by_test_id("fight")).to_contain_text("Czar przyspieszenia")

    # Turn 2: the spell still counts.
    open_turn(gm, table, 2)
    expect_order(gm, table, ["Wilk", "Lirael", "Borys"])
    expect(gm.get_by_test_id("fight")).to_contain_text(in_turn(2))
    expect(gm.get_by_test_id("fight")).to_contain_text(until_two)
    expect_order(player, table, ["Wilk", "Lirael", "Borys"])

    # Turn 3: it has run out by itself.
    open_turn(gm, table, 3)
    expect_order(gm, table, ["Lirael", "Borys", "Wilk"])
    expect(gm.get_by_test_id("fight")).to_contain_text(in_turn(3))
    expect(gm.get_by_test_id("fight")).not_to_contain_text("Czar przyspieszenia")
    expect(row_of(gm, "Wilk")).to_contain_text("140")
    expect_order(player, table, ["Lirael", "Borys", "Wilk"])

    # -- Lirael hands initiative over to Borys, who takes the first place. ------------------
    event_page(gm, table)
    form = gm.get_by_test_id("handover-form")
    form.get_by_label(polish("Takes over initiative")).select_option(label="Borys")
    form.get_by_label(polish("From (hands it over)")).select_option(label="Lirael")
    form.get_by_label(polish("New place")).fill("1")
    form.get_by_label(polish("Reason")).fill("Lirael ustępuje Borysowi")
    form.get_by_role("button", name=polish("Record the handover")).click()
    expect(gm.get_by_test_id("fight-history")).to_contain_text("Lirael ustępuje Borysowi")
    expect_order(gm, table, ["Borys", "Lirael", "Wilk"])
    expect(row_of(gm, "Borys")).to_contain_text(polish("place from a handover"))
    expect_order(player, table, ["Borys", "Lirael", "Wilk"])

    # -- The GM grants Borys a potion in a post. --------------------------------------------
    diary(gm, table)
    form = entry_form(gm, "entry-grant", "Grant potions or healing items")
    form.locator('[name="grant-character"]').select_option(label="Borys")
    form.locator('[name="grant-count"]').fill("1")
    form.locator('[name="grant-effect"]').fill("Eliksir z krwawnika")
    form.locator('[name="grant-restores_hp"]').fill("15")
    form.get_by_role("button", name=polish("Grant")).click()
    gm.wait_for_url(re.compile(r"#roll-\d+$"))
    granted = polish(
        "%(name)s receives %(count)s× %(effect)s",
        name="Borys",
        count=1,
        effect="Eliksir z krwawnika",
    ) + " ({})".format(polish("restores %(hp)s HP", hp=15))
    expect(entry(gm, "Eliksir z krwawnika")).to_have_text(granted)

    # -- Bartek, in his own browser, drinks it: HP restored on the sheet and in the diary. --
    diary(player, table)
    expect(entry(player, "Eliksir z krwawnika")).to_have_text(granted)
    player.get_by_test_id("item-use-link").click()
    player.get_by_label(polish("Potion or item")).select_option(
        label="Borys: Eliksir z krwawnika (×1)"
    )
    player.get_by_role("button", name=polish("Use it")).click()
    player.wait_for_url(re.compile(r"#roll-\d+$"))
    drunk = "; ".join(
        [
            polish("%(name)s uses: %(effect)s", name="Borys", effect="Eliksir z krwawnika"),
            polish("HP %(before)s → %(after)s", before=hp, after=hp + 15),
            polish("left: %(count)s", count=0),
        ]
    )
    expect(entry(player, polish("left: %(count)s", count=0))).to_have_text(drunk)
    # In combat the use is counted as an action of the turn, with no limit shown.
    usage = player.get_by_test_id("turn-usage").filter(has_text="Borys")
    expect(usage.get_by_test_id("item-actions")).to_have_text(
        polish_plural("%(count)s action without a roll", "%(count)s actions without a roll", 1)
    )
    expect(usage).to_contain_text(polish("actions: %(used)s", used=1))
    player.goto(f"/characters/{borys.pk}/")
    expect(player.get_by_test_id("hp")).to_have_text(f"{hp + 15} / {top}")
    diary(gm, table)
    expect(entry(gm, polish("left: %(count)s", count=0))).to_have_text(drunk)

    # -- The GM deals damage from the diary, with a reason. ---------------------------------
    form = entry_form(gm, "entry-hp", "Damage or HP")
    form.locator('[name="hp-character"]').select_option(label="Borys")
    form.locator('[name="hp-amount"]').fill("20")
    form.get_by_label(polish("Reason")).fill("Kły Wilka")
    form.get_by_role("button", name=polish("Record the HP change")).click()
    gm.wait_for_url(re.compile(r"#roll-\d+$"))
    damage = polish(
        "%(what)s (HP %(before)s → %(after)s). Reason: %(reason)s",
        what=polish("%(name)s loses %(amount)s HP", name="Borys", amount=20),
        before=hp + 15,
        after=hp - 5,
        reason="Kły Wilka",
    )
    expect(entry(gm, "Kły Wilka")).to_have_text(damage)
    gm.goto(f"/characters/{borys.pk}/")
    expect(gm.get_by_test_id("hp")).to_have_text(f"{hp - 5} / {top}")
    diary(player, table)
    expect(entry(player, "Kły Wilka")).to_have_text(damage)

    # -- The GM marks the wolf by name, then ends the event. --------------------------------
    event_page(gm, table)
    form = gm.get_by_test_id("marker-form")
    form.get_by_label(polish("Mark")).select_option(label="Wilk")
    form.get_by_role("button", name=polish("Mark"), exact=True).click()
    expect(marked(gm)).to_have_text("Wilk")
    gm.get_by_text(polish("End the event"), exact=True).click()
    gm.get_by_role("button", name=polish("Yes, end the event")).click()
    expect(gm.get_by_test_id("no-fight")).to_have_text(
        polish("No initiative event is running. An initiative roll in the panel opens one.")
    )
    diary(gm, table)
    expect(gm.get_by_test_id("fight")).to_have_count(0)
    diary(player, table)
    expect(player.get_by_test_id("fight")).to_have_count(0)

    # -- The history shows every change; Bartek, a participant, reads it too. --------------
    event_page(player, table)
    history = player.get_by_test_id("fight-history")
    expect(history.get_by_role("heading")).to_contain_text(polish("ended in turn %(turn)s", turn=3))
    rows = history.locator("tbody tr")
    kinds = rows.evaluate_all("rows => rows.map(r => r.dataset.kind)")
    assert kinds == [
        "opened",
        "marker",
        "held",
        "freed",
        "modifier",
        "handover",
        "marker",
        "ended",
    ]
    marked_any_gender = re.compile(
        "|".join(
            re.escape(polish_as(g, "marked: the GM resolves this character next"))
            for g in ("masculine", "feminine", "neuter")
        )
    )
    expected = [
        (
            "opened",
            polish(
                "Opened by initiative roll #%(seq)s; order: %(order)s",
                seq=1,
                order="Lirael, Borys, Wilk",
            ),
            "",
        ),
        ("marker", marked_any_gender, ""),
        (
            "held",
            polish("%(kind)s: drops to the end of the order while it lasts", kind=stunned),
            "Ogłuszona uderzeniem tarczy",
        ),
        (
            "freed",
            polish_as("feminine", "freed of %(kind)s: back in the order", kind=stunned),
            "Ocknęła się po chwili",
        ),
        (
            "modifier",
            polish_plural(
                "%(value)s to initiative for %(turns)s turn: turn %(first)s",
                "%(value)s to initiative for %(turns)s turns: turns %(first)s–%(last)s",
                2,
                value="+450",
                turns=2,
                first=1,
                last=2,
            ),
            "Czar przyspieszenia",
        ),
        (
            "handover",
            polish(
                "takes over initiative from %(other)s: place %(position)s",
                other="Lirael",
                position=1,
            ),
            "Lirael ustępuje Borysowi",
        ),
        ("marker", marked_any_gender, ""),
        ("ended", polish("Event ended"), ""),
    ]
    for row, (kind, text, reason) in zip(rows.all(), expected, strict=True):
        assert row.get_attribute("data-kind") == kind
        expect(row).to_contain_text(text)
        if reason:
            expect(row).to_contain_text(reason)
    characters = [
        "—",
        "Borys",
        "Lirael",
        "Lirael",
        "Wilk",
        "Borys",
        "Wilk",
        "—",
    ]
    cells = rows.locator(f'td[data-label="{polish("Character")}"]').all_inner_texts()
    assert [c.strip() for c in cells] == characters
    turns = rows.locator(f'td[data-label="{polish("Turn")}"]').all_inner_texts()
    # The stun's start and end carry their turn too (it began and was freed in turn 1).
    assert [t.strip() for t in turns] == ["1", "1", "1", "1", "1", "3", "3", "3"]

    # The recorded rows match: the stun's start and end are read off the sheet, not stored.
    assert list(InitiativeChange.objects.values_list("kind", flat=True)) == [
        ChangeKind.OPENED,
        ChangeKind.MARKER,
        ChangeKind.MODIFIER,
        ChangeKind.HANDOVER,
        ChangeKind.MARKER,
        ChangeKind.ENDED,
    ]
    assert InitiativeEvent.objects.get().name == EVENT
