"""In Chromium: a player of a session whose GM allows free-form rolls rolls "2k6+1" and it
lands in their own post, marked as their free roll; after the turn closes, the player's post
of it has no edit link, and its history shows the change word by word."""

import pytest
from playwright.sync_api import expect

from diary import services as diary_services
from diary.models import GameSession
from rolls.models import Roll
from tests.browser.conftest import log_in
from tests.browser.steps import free_roll
from tests.conftest import PASSWORD, polish

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_player_rolls_2k6_plus_1_into_their_post_labelled(page, table):
    GameSession.objects.filter(pk=table.session.pk).update(players_free_rolls=True)
    log_in(page, table.alice.username, PASSWORD)
    roll = free_roll(page, table.session, "2k6+1", "wynik 3–13", "Ile monet w sakiewce")
    assert Roll.objects.get() == roll
    assert roll.rolled_by == table.alice and roll.post.author == table.alice
    shown = page.locator(f"#roll-{roll.seq}")
    expect(shown.locator(".roll-kind")).to_have_text(polish("Player's free-form roll"))
    expect(shown).to_contain_text("alicja")
    expect(shown.get_by_test_id("free-roll")).to_contain_text("Ile monet w sakiewce")
    expect(shown.get_by_test_id("free-die")).to_have_count(2)
    expect(shown.get_by_test_id("free-total")).to_have_text(str(roll.record["result"]["total"]))
    expect(page.locator(f"#post-{roll.post.pk}")).to_contain_text("Ile monet w sakiewce")


def test_a_closed_turns_post_has_no_edit_link_and_its_history_shows_the_words(page, table):
    post = diary_services.post_create(
        session=table.session,
        author=table.alice,
        character=table.lirael,
        narration="Lirael skrada się pod bramę.",
        nc_note="",
    )
    diary_services.post_edit(
        post=post,
        by=table.alice,
        character=table.lirael,
        narration="Lirael biegnie pod bramę.",
        nc_note="",
    )
    diary_services.turn_open_next(session=table.session, by=table.gm)
    log_in(page, table.alice.username, PASSWORD)
    page.goto(f"/sessions/{table.session.pk}/?turn=1")
    article = page.locator(f"#post-{post.pk}")
    expect(article).to_contain_text("Lirael biegnie pod bramę.")
    expect(article.get_by_role("link", name=polish("Edit"))).to_have_count(0)
    article.locator(f'a[href="/sessions/posts/{post.pk}/history/"]').click()
    diff = page.get_by_test_id("word-diff")
    expect(diff.locator("del")).to_contain_text("skrada")
    expect(diff.locator("ins")).to_contain_text("biegnie")
    # Marked by more than colour: the struck-through word is crossed out.
    decoration = diff.locator("del").evaluate("e => getComputedStyle(e).textDecorationLine")
    assert "line-through" in decoration
