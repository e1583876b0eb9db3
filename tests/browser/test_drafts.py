"""In Chromium: a player's post survives another device and an expired log-in. What they
type is saved as a draft a few seconds after they stop ("szkic zapisany"); another browser
of theirs finds the form filled; with the log-in gone the text stays in this browser, and
after logging in again (back on the same page) it is there and saved; publishing deletes
the draft."""

import pytest
from django.contrib.sessions.models import Session
from playwright.sync_api import expect

from diary.models import Draft
from tests.browser.conftest import log_in
from tests.conftest import PASSWORD, polish

pytestmark = pytest.mark.django_db(transaction=True)

# The save waits about 3 s after the last keystroke; the serial live server may be slow.
SAVED = 20_000


def test_a_draft_survives_another_device_and_an_expired_login(page, player_page, table):
    diary = f"/sessions/{table.session.pk}/"
    log_in(page, table.alice.username, PASSWORD)
    page.goto(diary)
    reply = page.locator("#write textarea[name=narration]")
    status = page.locator("#write [data-draft-status]")
    reply.click()
    reply.press_sequentially("Lirael skrada się pod okno.")
    expect(status).to_contain_text("szkic zapisany", timeout=SAVED)
    assert Draft.objects.get(author=table.alice).text == "Lirael skrada się pod okno."

    # Another device of the same player: the form comes filled with the draft.
    log_in(player_page, table.alice.username, PASSWORD)
    player_page.goto(diary)
    expect(player_page.locator("#write textarea[name=narration]")).to_have_value(
        "Lirael skrada się pod okno."
    )
    expect(player_page.locator("#write [data-draft-status]")).to_contain_text("szkic zapisany")

    # The log-in runs out (the session row is gone); the player types on.
    Session.objects.all().delete()
    reply.press("End")
    reply.press_sequentially(" Nasłuchuje.")
    expect(status).to_contain_text(
        "nie zapisano na serwerze — zaloguj się ponownie; tekst jest bezpieczny w tej przeglądarce",
        timeout=SAVED,
    )
    assert Draft.objects.get(author=table.alice).text == "Lirael skrada się pod okno."

    # Logging in again leads back to the diary, where the newer text is restored and saved.
    status.get_by_role("link", name=polish("Log in again")).click()
    page.get_by_label("Nazwa użytkownika").fill(table.alice.username)
    page.get_by_label("Hasło").fill(PASSWORD)
    page.get_by_role("button", name="Zaloguj się").click()
    page.wait_for_url(f"**{diary}#write")
    expect(reply).to_have_value("Lirael skrada się pod okno. Nasłuchuje.")
    expect(status).to_contain_text("szkic zapisany", timeout=SAVED)
    assert Draft.objects.get(author=table.alice).text == "Lirael skrada się pod okno. Nasłuchuje."

    page.get_by_role("button", name=polish("Publish")).click()
    expect(page.locator("article.post")).to_contain_text("Nasłuchuje.")
    assert not Draft.objects.exists()
    # The page's own copy went with the post: nothing comes back on the next visit.
    page.goto(diary)
    expect(reply).to_have_value("")


def test_discarding_the_draft_empties_the_form(page, table):
    diary = f"/sessions/{table.session.pk}/"
    log_in(page, table.alice.username, PASSWORD)
    page.goto(diary)
    reply = page.locator("#write textarea[name=narration]")
    reply.click()
    reply.press_sequentially("Do wyrzucenia")
    discard = page.get_by_role("button", name=polish("Discard draft"))
    expect(discard).to_be_visible(timeout=SAVED)
    discard.click()
    expect(page.locator("#write [data-draft-status]")).to_have_text(polish("Draft discarded."))
    expect(reply).to_have_value("")
    assert not Draft.objects.exists()
    page.reload()
    expect(reply).to_have_value("")
