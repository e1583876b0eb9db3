""" "Since you were last here", in Chromium: a player back after two days finds the recap
above the first unread post, reads the roll made against her character and her wound,
keeps it while a new post comes in live, folds it away, follows the roll's link to it, and
on her next visit the recap is gone."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from diary.models import ReadMark
from diary.services import post_create
from rolls.engine.dice import ScriptedDice
from rolls.systems.forum1000.requests import RollRequest
from tests.browser.axe import violations
from tests.browser.conftest import log_in
from tests.conftest import PASSWORD, polish
from tests.diary.recap.test_recap import percepcja
from tests.diary_entries import hp_entry
from tests.rolling import make_roll

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_player_back_after_a_while_reads_the_recap_naming_the_roll_against_her(
    player_page, table
):
    session = table.session
    post_create(session=session, author=table.gm, character=None, narration="Brzeg.", nc_note="")
    log_in(player_page, table.alice.username, PASSWORD)
    player_page.goto(f"/sessions/{session.pk}/")
    expect(player_page.get_by_text("Brzeg.")).to_be_visible()
    ReadMark.objects.filter(user=table.alice).update(moved_at=timezone.now() - timedelta(days=2))

    # While she is away: Borys's post, the GM's ambush, Borys against Lirael, her wound.
    post_create(
        session=session,
        author=table.bob,
        character=table.borys,
        narration="Borys sięga po nóż.",
        nc_note="",
    )
    post_create(session=session, author=table.gm, character=None, narration="Zasadzka!", nc_note="")
    opposed = RollRequest(kind="opposed", a=percepcja(table.borys), b=percepcja(table.lirael))
    roll = make_roll(session, table.gm, opposed, dice=ScriptedDice([200, 900])).roll
    hp_entry(session, table.gm, table.lirael, -5, reason="Nóż Borysa")

    player_page.goto(f"/sessions/{session.pk}/")
    recap = player_page.get_by_test_id("recap")
    expect(recap).to_be_visible()
    expect(recap).to_contain_text(polish("Since you were last here"))
    # Above the first unread post (Borys's), inside the diary's posts.
    first_new = player_page.locator("article.post", has_text="sięga po nóż")
    assert recap.bounding_box()["y"] < first_new.bounding_box()["y"]
    rolls = recap.get_by_test_id("recap-rolls")
    against_her = rolls.get_by_role("link", name=re.compile("Lirael"))
    expect(against_her).to_contain_text("Borys")
    expect(rolls).to_contain_text(polish("(your character)"))
    expect(recap.get_by_test_id("recap-changes")).to_contain_text("Nóż Borysa")
    assert not violations(player_page)

    # A post arriving while she reads comes in live; the recap stays where it is, open.
    post_create(
        session=session, author=table.gm, character=None, narration="Deszcz pada.", nc_note=""
    )
    expect(player_page.get_by_text("Deszcz pada.")).to_be_visible(timeout=20_000)
    expect(against_her).to_be_visible()
    assert recap.bounding_box()["y"] < first_new.bounding_box()["y"]

    # Folded away, then the roll's link leads to the roll in the diary.
    recap.locator("summary").click()
    expect(against_her).not_to_be_visible()
    recap.locator("summary").click()
    against_her.click()
    player_page.wait_for_url(re.compile(rf"roll={roll.seq}#roll-{roll.seq}$"))
    expect(player_page.locator(f"#roll-{roll.seq}")).to_be_in_viewport()

    # Read on: the next visit has no recap.
    player_page.goto(f"/sessions/{session.pk}/")
    expect(player_page.get_by_text("Zasadzka!")).to_be_visible()
    expect(player_page.get_by_test_id("recap")).to_have_count(0)
