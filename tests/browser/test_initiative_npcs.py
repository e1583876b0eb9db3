"""In Chromium (mode fixed_modifiers): the GM adds two NPCs to the running fight in the
tracker, one hidden from players, damages the visible one through the diary's HP form and
stuns it through the effect form (it drops to the end of the order, then returns when freed);
the player's diary shows the visible NPC in the order and never the hidden one."""

import re
import uuid

import pytest
from playwright.sync_api import expect

from diary.npcs import services as npc_services
from rolls.engine.dice import ScriptedDice
from rolls.models import InitiativeParticipant
from rolls.selectors import sheets_in_play
from tests.browser.conftest import log_in, wait_until_quiet
from tests.browser.test_effects_and_potions import entry_form
from tests.conftest import PASSWORD, polish
from tests.rolls.conftest import described_plan
from tests.rolls.initiative.test_initiative_event import initiative

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def fight(table, monkeypatch):
    """Lirael (540) and Borys (340) rolled; the guard and the hidden archer on the roster."""
    from django.test import Client

    from rolls import access

    for name, visible in (("Strażnik", True), ("Łucznik", False)):
        npc_services.npc_create(
            session=table.session,
            by=table.gm,
            name=name,
            description="",
            visible_to_players=visible,
        )
    face = {"Lirael": 100, "Borys": 300}
    faces = [face[c.name] for c in sheets_in_play(table.session).values()]
    monkeypatch.setattr("rolls.services.SystemDice", lambda: ScriptedDice(faces))
    client = Client()
    client.force_login(table.gm)
    data = initiative(event_name="Zasadzka")
    data["token"] = access.sign_token(table.gm, table.session, uuid.UUID(data["token"]))
    url = f"/sessions/{table.session.pk}/rolls/panel/"
    data["plan"] = described_plan(client, url, data)  # the line its preview drew
    response = client.post(url, data)
    assert response.status_code == 302
    return table


def add_npc(page, table, name: str, score: str, hp: str = "") -> None:
    page.goto(f"/sessions/{table.session.pk}/rolls/initiative/")
    form = page.get_by_test_id("npc-join-form")
    form.locator('[name="npc"]').select_option(label=name)
    form.locator('[name="score"]').fill(score)
    form.locator('[name="hp_max"]').fill(hp)
    form.get_by_role("button", name=polish("Add to the order")).click()
    wait_until_quiet(page)


def test_the_gm_adds_and_damages_an_npc_and_the_player_never_sees_the_hidden_one(
    page, player_page, fight
):
    log_in(page, fight.gm.username, PASSWORD)
    add_npc(page, fight, "Strażnik", "400", "30")
    add_npc(page, fight, polish("%(name)s (hidden)", name="Łucznik"), "600")
    order = page.get_by_test_id("fight-order").locator("li strong")
    expect(order).to_have_text(["Łucznik", "Lirael", "Strażnik", "Borys"])
    expect(page.get_by_test_id("hidden-npc")).to_have_count(1)

    page.goto(f"/sessions/{fight.session.pk}/")
    form = entry_form(page, "entry-hp", "Damage or HP")
    form.locator('[name="hp-character"]').select_option(label="Strażnik (NPC)")
    form.locator('[name="hp-amount"]').fill("12")
    form.get_by_label(polish("Reason")).fill("Cięcie mieczem")
    form.get_by_role("button", name=polish("Record the HP change")).click()
    page.wait_for_url(re.compile(r"#roll-\d+$"))
    expect(page.get_by_test_id("fight-order").get_by_test_id("npc-hp")).to_have_text(
        polish("HP %(current)s/%(max)s", current=18, max=30)
    )
    assert InitiativeParticipant.objects.get(name="Strażnik").hp_current == 18

    form = entry_form(page, "entry-effect", "Apply an effect")
    form.locator('[name="effect-character"]').select_option(label="Strażnik (NPC)")
    form.locator('[name="effect-kind"]').select_option("stun")
    form.locator('[name="effect-description"]').fill("Ogłuszony tarczą")
    form.get_by_label(polish("Reason")).fill("Uderzenie tarczą")
    form.get_by_role("button", name=polish("Apply the effect")).click()
    page.wait_for_url(re.compile(r"#roll-\d+$"))
    expect(order).to_have_text(["Łucznik", "Lirael", "Borys", "Strażnik"])
    expect(page.get_by_test_id("initiative-order-now").locator("li strong")).to_have_text(
        ["Łucznik", "Lirael", "Borys", "Strażnik"]
    )

    log_in(player_page, fight.alice.username, PASSWORD)
    player_page.goto(f"/sessions/{fight.session.pk}/")
    player_order = player_page.get_by_test_id("fight-order").locator("li strong")
    expect(player_order).to_have_text(["Lirael", "Borys", "Strażnik"])
    expect(player_page.get_by_test_id("initiative-order-now").locator("li strong")).to_have_text(
        ["Lirael", "Borys", "Strażnik"]
    )
    expect(player_page.get_by_text("Łucznik")).to_have_count(0)

    # Freed early through the diary's form, the NPC takes its place again.
    page.goto(f"/sessions/{fight.session.pk}/")
    form = entry_form(page, "entry-free", "Free an effect early")
    form.locator('[name="free-character"]').select_option(label="Strażnik (NPC)")
    form.locator('[name="free-effect"]').select_option(
        label=f"Strażnik: Ogłuszony tarczą ({polish('stun')})"
    )
    form.get_by_label(polish("Reason")).fill("Ocknął się")
    form.get_by_role("button", name=polish("Free the effect")).click()
    page.wait_for_url(re.compile(r"#roll-\d+$"))
    expect(order).to_have_text(["Łucznik", "Lirael", "Strażnik", "Borys"])
