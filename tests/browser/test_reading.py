"""Reading, in Chromium: the GM opens a turn and posts; the player sees the unread
count on the home page and the session list, follows it to the first unread post marked
"Nowe", then goes to turn 1 with the turn field and opens a post's permalink."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from diary.models import DIARY_PAGE_SIZE, Post
from diary.services import post_create
from tests.browser.axe import violations
from tests.browser.conftest import log_in, open_turn
from tests.conftest import PASSWORD, polish

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_player_follows_the_unread_count_to_the_first_new_post_then_to_turn_1(
    page, player_page, table
):
    session = table.session
    first_of_turn_1 = post_create(
        session=session,
        author=table.alice,
        character=table.lirael,
        narration="Lirael rozpala *ognisko*.",
        nc_note="",
    )
    # More than a page after it, so turn 1's start is off the newest page.
    for n in range(DIARY_PAGE_SIZE):
        post_create(
            session=session,
            author=table.alice,
            character=table.lirael,
            narration=f"Lirael idzie dalej, krok {n}.",
            nc_note="",
        )
    # The player's first visit: the newest page, with a link to the first unread post;
    # read, the next view has none.
    log_in(player_page, table.bob.username, PASSWORD)
    player_page.goto(f"/sessions/{session.pk}/")
    expect(player_page.get_by_text(f"krok {DIARY_PAGE_SIZE - 1}.")).to_be_visible()
    expect(player_page.get_by_text("rozpala")).to_have_count(0)
    expect(player_page.get_by_test_id("jump-unread")).to_have_count(1)
    player_page.reload()
    expect(player_page.get_by_test_id("jump-unread")).to_have_count(0)

    # The GM opens turn 2 and posts in it.
    log_in(page, table.gm.username, PASSWORD)
    open_turn(page, table, 2)
    page.get_by_label("Narracja").fill("Most nad rzeką *się zawala*.")
    page.get_by_role("button", name="Opublikuj").click()
    expect(page.locator("article.post", has_text="się zawala")).to_have_count(1)
    gm_post = Post.objects.get(session=session, author=table.gm)

    # The player's home page counts it; so does the session list.
    player_page.goto("/")
    count = player_page.get_by_test_id(f"session-unread-{session.pk}")
    expect(count).to_have_text("1 nowy wpis")
    assert not violations(player_page)
    player_page.goto(reverse("diary:session_list"))
    expect(player_page.get_by_test_id(f"session-unread-{session.pk}")).to_have_text("1 nowy wpis")

    # Following it lands on the first unread post, marked "Nowe" in text.
    player_page.get_by_test_id(f"session-unread-{session.pk}").click()
    player_page.wait_for_url(re.compile(rf"/sessions/{session.pk}/.*#post-{gm_post.pk}$"))
    new_post = player_page.locator(f"#post-{gm_post.pk}")
    expect(new_post.get_by_test_id("first-unread")).to_contain_text(polish("New"))
    expect(new_post).to_contain_text("się zawala")
    expect(new_post).to_be_in_viewport()
    assert not violations(player_page)

    # Read now: home shows no count any more.
    player_page.goto("/")
    expect(player_page.get_by_test_id(f"session-unread-{session.pk}")).to_have_count(0)

    # Jump to turn 1 with the field; a turn that does not exist is said next to it.
    player_page.goto(f"/sessions/{session.pk}/")
    field = player_page.get_by_label(polish("Go to turn"))
    field.fill("7")
    player_page.get_by_role("button", name=polish("Go"), exact=True).click()
    expect(player_page.locator("#jump_turn_error")).to_have_text(
        polish("This session has no turn %(number)s (the last one is %(last)s).", number=7, last=2)
    )
    player_page.get_by_label(polish("Go to turn")).fill("1")
    player_page.get_by_role("button", name=polish("Go"), exact=True).click()
    player_page.wait_for_url(re.compile(r"\?turn=1$"))
    expect(player_page.locator(".diary article.post").first).to_contain_text("rozpala")
    expect(player_page.get_by_role("link", name="Tura 1")).to_be_visible()

    # A post's permalink (its time) is the page that starts at it, scrolled to it.
    player_page.locator(f"#post-{first_of_turn_1.pk} a.permalink").click()
    player_page.wait_for_url(
        re.compile(rf"\?after={first_of_turn_1.pk - 1}#post-{first_of_turn_1.pk}$")
    )
    expect(player_page.locator(f"#post-{first_of_turn_1.pk}")).to_be_in_viewport()
