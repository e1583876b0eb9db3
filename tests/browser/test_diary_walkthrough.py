"""A GM and a player use the demo session in a real browser."""

import io
import re

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from diary.models import GameSession, Post
from tests.browser.conftest import log_in

pytestmark = pytest.mark.django_db(transaction=True)


def test_demo_gm_logs_in_reads_the_polish_diary_and_posts(page):
    call_command("seed_demo", stdout=io.StringIO())
    session = GameSession.objects.get()
    gm_posts = Post.objects.filter(author__username="gm").count()
    log_in(page, "gm", "kostka-gm-1000")

    page.goto(f"/sessions/{session.pk}/")
    expect(page.locator("html")).to_have_attribute("lang", "pl")
    expect(page.get_by_role("heading", name="Tura 1")).to_be_visible()
    expect(page.get_by_text("wywróconą łódź")).to_be_visible()

    page.get_by_label("Narracja").fill("Z mgły wyłania się **strażnica**.")
    page.get_by_label("Notka NC").fill("Tura 1: rzuty po moich opisach.")
    page.get_by_role("button", name="Opublikuj").click()

    newest = page.locator("article.post").last
    expect(newest.locator("strong", has_text="strażnica")).to_be_visible()
    expect(newest.locator(".nc")).to_contain_text("rzuty po moich opisach")
    assert Post.objects.filter(author__username="gm").count() == gm_posts + 1


def test_empty_post_shows_the_error_next_to_the_field(page):
    call_command("seed_demo", stdout=io.StringIO())
    session = GameSession.objects.get()
    log_in(page, "gracz", "kostka-gracz-1000")
    page.goto(f"/sessions/{session.pk}/")
    before = Post.objects.count()
    page.get_by_role("button", name="Opublikuj").click()
    error = page.locator("#id_narration_error")
    expect(error).to_be_visible()
    expect(error).to_have_text(re.compile("narrację|notkę", re.I))
    assert Post.objects.count() == before


def test_a_new_player_signs_up_and_builds_a_character(page):
    page.goto("/accounts/signup/")
    page.get_by_label("Nazwa użytkownika").fill("nowy_gracz")
    page.get_by_label("Hasło:", exact=True).fill("Mgliste-Kosci-2026")
    page.get_by_label("Potwierdzenie hasła").fill("Mgliste-Kosci-2026")
    page.get_by_role("button", name="Załóż konto").click()
    page.goto("/characters/new/")
    page.get_by_label("Imię").fill("Wrzos")
    page.get_by_label("Maksymalne PŻ").fill("90")
    page.get_by_label("Aktualne PŻ").fill("90")
    for name in [
        "Percepcja",
        "Zręczność",
        "Szybkość",
        "Siła",
        "Siła Woli",
        "Charyzma",
        "Inteligencja",
        "Mądrość",
    ]:
        page.get_by_label(f"{name}:", exact=True).fill("600")
    page.get_by_label("Otwieranie zamków").fill("2")
    page.get_by_label(re.compile("Precyzyjny")).check()
    page.get_by_role("button", name="Zapisz").click()

    expect(page.get_by_role("heading", name="Wrzos")).to_be_visible()
    # Otwieranie zamków: 40·2 + 600/2 = 380; movement 600/20 = 30 m.
    row = page.locator("tr", has_text="Otwieranie zamków")
    expect(row).to_contain_text("380")
    expect(page.get_by_text("30 m")).to_be_visible()


def test_a_roll_appears_in_an_open_diary_without_reloading(page, table):
    """Issue 4: the roll shows "in everyone's diary at once" — the open diary polls for it."""
    import uuid

    from characters.models import Attribute
    from rolls.requests import RollRequest, SideRequest
    from rolls.services import roll_make
    from tests.conftest import PASSWORD

    log_in(page, table.alice.username, PASSWORD)
    page.goto(f"/sessions/{table.session.pk}/")
    expect(page.locator("#roll-1")).to_have_count(0)

    percepcja = Attribute.objects.get(system="forum1000", name="Percepcja").pk
    made = roll_make(
        session=table.session,
        by=table.gm,
        request=RollRequest(
            kind="attribute",
            a=SideRequest(table.lirael.pk, "attribute", (percepcja,)),
        ),
        token=uuid.uuid4(),
    )
    line = page.locator("#roll-1").get_by_test_id("roll-line")
    face = made.roll.record["result"]["roll"]
    expect(line).to_contain_text(re.compile(rf"\b{face} [≤>] \S+ 600\b"), timeout=20_000)
    assert page.url.endswith(f"/sessions/{table.session.pk}/")  # no navigation happened
