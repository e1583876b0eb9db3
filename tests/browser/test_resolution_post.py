"""In Chromium: the GM's roll with the panel's default target lands in a new post at the
bottom of the diary, below the players' posts it resolves; then the GM's damage lands in
that post, which the player has already read: the player's bell, the session's unread
count and the diary's "Nowe" marker all show the changed post as new."""

import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from diary.models import Notification
from diary.services import post_create
from rolls.models import Roll
from tests.browser.conftest import log_in, roll_button, wait_until_quiet
from tests.conftest import PASSWORD, polish

pytestmark = pytest.mark.django_db(transaction=True)


def say(table, author, character, text):
    return post_create(
        session=table.session, author=author, character=character, narration=text, nc_note=""
    )


def test_the_gms_roll_resolves_at_the_bottom_and_a_later_entry_reads_as_new(
    page, player_page, table
):
    session = table.session
    say(table, table.gm, None, "Brama skrzypi.")
    say(table, table.bob, table.borys, "Borys otwiera zamek.")
    last = say(table, table.alice, table.lirael, "Lirael pilnuje drogi.")
    # The invitations the table was set up with are old news.
    Notification.objects.update(read_at=timezone.now())

    # The GM rolls with the default target.
    log_in(page, table.gm.username, PASSWORD)
    page.goto(f"/sessions/{session.pk}/rolls/panel/")
    wait_until_quiet(page)
    target = page.locator('[name="post"]')
    expect(target.locator("option:checked")).to_have_text(
        polish("a new post at the end of the diary (or mine, if it is already the last)")
    )
    page.locator('[name="a-character"]').select_option(str(table.borys.pk))
    wait_until_quiet(page)
    page.locator('[name="a-attribute"]').select_option(label="Zręczność")
    wait_until_quiet(page)
    roll_button(page).click()
    page.wait_for_url(re.compile(r"#roll-1$"))
    roll = Roll.objects.get()
    assert roll.post_id > last.pk and roll.post.author == table.gm
    posts = page.locator("article.post")
    expect(posts.last).to_have_attribute("id", f"post-{roll.post_id}")
    expect(posts.last.locator("#roll-1")).to_have_count(1)

    # The player reads everything, the roll's post included.
    log_in(player_page, table.bob.username, PASSWORD)
    player_page.goto(f"/sessions/{session.pk}/")
    expect(player_page.locator(f"#post-{roll.post_id} #roll-1")).to_have_count(1)
    player_page.goto("/")
    expect(player_page.get_by_test_id(f"session-unread-{session.pk}")).to_have_count(0)
    expect(player_page.get_by_test_id("unread-count")).to_have_count(0)

    # The GM deals damage: it lands in the same post, already read by the player.
    page.goto(f"/sessions/{session.pk}/")
    page.locator("summary", has_text=polish("Damage or HP")).click()
    form = page.get_by_test_id("entry-hp")
    form.locator('[name="hp-character"]').select_option(label="Borys")
    form.locator('[name="hp-amount"]').fill("15")
    form.get_by_label(polish("Reason")).fill("Cios toporem")
    form.get_by_role("button", name=polish("Record the HP change")).click()
    page.wait_for_url(re.compile(r"#roll-\d+$"))
    assert Roll.objects.get(test="hp").post_id == roll.post_id

    # The player sees it as new: the session's count, the bell, "Nowe" on the post.
    player_page.goto("/")
    expect(player_page.get_by_test_id(f"session-unread-{session.pk}")).to_have_text("1 nowy wpis")
    expect(player_page.get_by_test_id("unread-count")).to_have_text("1")
    player_page.get_by_test_id(f"session-unread-{session.pk}").click()
    player_page.wait_for_url(re.compile(rf"#post-{roll.post_id}$"))
    changed = player_page.locator(f"#post-{roll.post_id}")
    expect(changed.get_by_test_id("first-unread")).to_contain_text(polish("New"))
    expect(changed.get_by_test_id("entry-text")).to_contain_text("Cios toporem")
    # Read now: the bell and the count are gone.
    expect(player_page.get_by_test_id("unread-count")).to_have_count(0)
    player_page.goto("/")
    expect(player_page.get_by_test_id(f"session-unread-{session.pk}")).to_have_count(0)
