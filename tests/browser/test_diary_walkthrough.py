"""A GM and a player use the demo session in a real browser, on both databases (`make run`
serves it on SQLite; the live update there has no listener to lean on)."""

import io
import re

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from demo.ford.story import SESSION_TITLE
from diary.models import GameSession, Post
from tests.browser.conftest import log_in

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.every_database]


def test_demo_gm_logs_in_reads_the_polish_diary_and_posts(page):
    call_command("seed_demo", stdout=io.StringIO())
    session = GameSession.objects.get(title=SESSION_TITLE)
    gm_posts = Post.objects.filter(author__username="gm").count()
    log_in(page, "gm", "kostka-gm-1000")

    # The opening post is on turn 1's page (the GM's resolution posts push it off the
    # newest one).
    page.goto(f"/sessions/{session.pk}/?turn=1")
    expect(page.locator("html")).to_have_attribute("lang", "pl")
    expect(page.get_by_role("heading", name="Tura 1")).to_be_visible()
    expect(page.get_by_text("wywróconą łódź")).to_be_visible()
    page.goto(f"/sessions/{session.pk}/")

    page.get_by_label("Narracja").fill("Z mgły wyłania się **strażnica**.")
    page.get_by_label("Poza grą (OOC)").fill("Tura 1: rzuty po moich opisach.")
    page.get_by_role("button", name="Opublikuj").click()

    newest = page.locator("article.post").last
    expect(newest.locator("strong", has_text="strażnica")).to_be_visible()
    expect(newest.locator(".nc")).to_contain_text("rzuty po moich opisach")
    assert Post.objects.filter(author__username="gm").count() == gm_posts + 1


def test_empty_post_shows_the_error_next_to_the_field(page):
    call_command("seed_demo", stdout=io.StringIO())
    session = GameSession.objects.get(title=SESSION_TITLE)
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
    # Four rule systems; the sheet's fields come from the one chosen.
    page.get_by_label("System zasad").select_option("forum1000")
    page.get_by_role("button", name="Dalej").click()
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
    """The roll shows "in everyone's diary at once" — the open diary polls for it."""
    from characters.models import Attribute
    from rolls.systems.forum1000.requests import RollRequest, SideRequest
    from tests.conftest import PASSWORD
    from tests.rolling import make_roll

    log_in(page, table.alice.username, PASSWORD)
    page.goto(f"/sessions/{table.session.pk}/")
    expect(page.locator("#roll-1")).to_have_count(0)

    percepcja = Attribute.objects.get(system="forum1000", name="Percepcja").pk
    made = make_roll(
        table.session,
        table.gm,
        RollRequest(kind="attribute", a=SideRequest(table.lirael.pk, "attribute", (percepcja,))),
    )
    line = page.locator("#roll-1").get_by_test_id("roll-line")
    face = made.roll.record["result"]["roll"]
    expect(line).to_contain_text(re.compile(rf"\b{face} [≤>] \S+ 600\b"), timeout=20_000)
    assert page.url.endswith(f"/sessions/{table.session.pk}/")  # no navigation happened


def test_irreversible_steps_take_two_clicks(page, table):
    """One click opens the explanation; only the confirm button acts."""
    from diary.models import Participation, SessionStatus, Turn
    from tests.conftest import PASSWORD

    session = table.session
    log_in(page, table.gm.username, PASSWORD)
    page.goto(f"/sessions/{session.pk}/")

    # Open turn 2: the first click only unfolds what cannot be undone.
    page.get_by_text("Otwórz turę 2", exact=True).click()
    expect(page.get_by_text("Tego nie da się cofnąć: bieżąca tura")).to_be_visible()
    assert Turn.objects.filter(session=session).count() == 1
    page.get_by_role("button", name="Tak, otwórz turę 2").click()
    expect(page.get_by_text("Bieżąca tura: 2")).to_be_visible()
    assert Turn.objects.filter(session=session).count() == 2

    # Remove a participant: the same two steps.
    borys = Participation.objects.get(session=session, character=table.borys)
    page.goto(f"/sessions/{session.pk}/participants/")
    row = page.locator("tr", has_text="Borys")
    row.get_by_text("Usuń", exact=True).click()
    expect(row.get_by_text("od razu odchodzi z sesji")).to_be_visible()
    borys.refresh_from_db()
    assert borys.status == "accepted"
    # A playing character's removal carries the reason its player reads.
    row.get_by_label("Powód (gracz go przeczyta)").fill("Gracz zrezygnował.")
    row.get_by_role("button", name="Tak, usuń postać").click()
    page.wait_for_url(f"**/sessions/{session.pk}/participants/")
    borys.refresh_from_db()
    assert borys.status == "withdrawn"
    assert borys.removal_reason == "Gracz zrezygnował."

    # Finish the session.
    page.goto(f"/sessions/{session.pk}/")
    page.get_by_text("Zakończ sesję", exact=True).click()
    expect(page.get_by_text("zakończona sesja już nigdy nie ruszy")).to_be_visible()
    session.refresh_from_db()
    assert session.status == SessionStatus.RUNNING
    page.get_by_role("button", name="Tak, zakończ sesję").click()
    page.wait_for_load_state()
    session.refresh_from_db()
    assert session.status == SessionStatus.FINISHED


def test_after_posting_the_player_is_on_the_live_page_at_the_post(page, table):
    """The player lands on the live newest page at the new post,
    with nothing "earlier" on a fresh session, and writes as their character by default."""
    from tests.conftest import PASSWORD

    log_in(page, table.alice.username, PASSWORD)
    page.goto(f"/sessions/{table.session.pk}/")
    expect(page.get_by_label("Piszesz jako")).to_have_value(str(table.lirael.pk))
    page.get_by_label("Narracja").fill("Lirael rozgląda się po porcie.")
    page.get_by_role("button", name="Opublikuj").click()

    post = Post.objects.get()
    page.wait_for_url(f"**/sessions/{table.session.pk}/#post-{post.pk}")
    assert "after=" not in page.url
    expect(page.locator(f"#post-{post.pk} .narrator")).to_have_text("Lirael")
    expect(page.get_by_text("Wcześniejsze wpisy")).to_have_count(0)

    # The page is live: a post by someone else appears without reloading.
    from diary.services import post_create

    post_create(
        session=table.session,
        author=table.bob,
        character=table.borys,
        narration="Borys macha.",
        nc_note="",
    )
    expect(page.get_by_text("Borys macha.")).to_be_visible(timeout=20_000)

    # The first post's permalink offers nothing earlier either.
    page.locator(f"#post-{post.pk} a.permalink").click()
    expect(page.get_by_text("Lirael rozgląda się po porcie.")).to_be_visible()
    expect(page.get_by_text("Wcześniejsze wpisy")).to_have_count(0)
