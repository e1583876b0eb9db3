"""A moderator extends a system's catalog in the site, and a player builds a
sheet with the new skill."""

import pytest
from playwright.sync_api import expect

from characters.models import Skill
from tests.browser.conftest import log_in
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_moderator_adds_a_q10_skill_and_a_player_uses_it(page, make_user):
    make_user("moderatorka", moderator=True)
    make_user("gracz_q10")
    log_in(page, "moderatorka", PASSWORD)
    page.get_by_role("link", name="Katalogi").click()
    page.get_by_role("link", name="Q10 (pule XzY na k10)").click()
    page.get_by_role("link", name="Dodaj: Umiejętność").click()
    # Bad input first: no name, no attribute; refused next to the fields.
    page.get_by_role("button", name="Zapisz").click()
    expect(page.locator("#id_name_error")).to_be_visible()
    expect(page.locator("#id_attribute_error")).to_be_visible()
    page.get_by_label("Nazwa").fill("Pływanie")
    page.get_by_label("Atrybut").select_option(label="Siła")
    page.get_by_label("Opis").fill("Przepłynięcie rwącej rzeki.")
    page.get_by_role("button", name="Zapisz").click()
    expect(page.get_by_text("Dodano do katalogu: Pływanie.")).to_be_visible()
    expect(page.get_by_test_id("catalog-skills")).to_contain_text("Pływanie")
    skill = Skill.objects.get(system="q10", name="Pływanie")
    assert skill.attribute.name == "Siła"

    page.get_by_role("button", name="Wyloguj").click()
    log_in(page, "gracz_q10", PASSWORD)
    page.goto("/characters/new/")
    page.get_by_label("System zasad").select_option("q10")
    page.get_by_role("button", name="Dalej").click()
    page.get_by_label("Imię").fill("Roran")
    page.get_by_label("Maksymalne PŻ").fill("12")
    page.get_by_label("Aktualne PŻ").fill("12")
    for name in ("Siła", "Zręczność", "Mądrość", "Charyzma"):
        page.get_by_label(f"{name}:", exact=True).fill("3")
    page.get_by_label("Pływanie").fill("6")  # beyond Q10's 0..5
    page.get_by_role("button", name="Zapisz").click()
    expect(page.locator(f"#id_skill_{skill.pk}_error")).to_contain_text("od 0 do 5")
    page.get_by_label("Pływanie").fill("2")
    page.get_by_role("button", name="Zapisz").click()
    expect(page.get_by_role("heading", name="Roran")).to_be_visible()
    # Siła 3 + Pływanie 2: the pool 5z2.
    expect(page.locator("tr", has_text="Pływanie")).to_contain_text("5z2")
