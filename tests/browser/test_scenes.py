"""In Chromium: the GM splits the party (a second scene, "W lochach", with Borys in it),
each player posts into their character's scene, the diary shows each scene on its own or
all of them marked, and "Czekamy na" is told per scene."""

import re

import pytest
from playwright.sync_api import expect

from diary.models import Post
from tests.browser.conftest import log_in
from tests.conftest import PASSWORD, polish

pytestmark = pytest.mark.django_db(transaction=True)


def post_as(page, table, user, text: str) -> None:
    page.context.clear_cookies()
    log_in(page, user.username, PASSWORD)
    page.goto(f"/sessions/{table.session.pk}/")
    page.locator('textarea[name="narration"]').fill(text)
    page.get_by_role("button", name=polish("Publish"), exact=True).click()
    page.wait_for_url(re.compile(r"#post-\d+$"))


def split_the_party(page, table) -> None:
    """The GM opens "W lochach" from the diary's side and moves Borys into it."""
    page.goto(f"/sessions/{table.session.pk}/")
    # One scene by default: the diary says nothing of scenes.
    expect(page.get_by_test_id("scene-tabs")).to_have_count(0)
    page.get_by_test_id("scenes-link").click()
    page.get_by_label(polish("Scene's name")).fill("W lochach")
    page.get_by_role("button", name=polish("Open the scene")).click()
    expect(page.get_by_text(polish("Scene “%(name)s” opened.", name="W lochach"))).to_be_visible()
    move = page.get_by_test_id("scene-move")
    move.get_by_label(polish("Character")).select_option(label="Borys")
    move.get_by_label(polish("Move to the scene")).select_option(label="W lochach")
    move.get_by_role("button", name=polish("Move")).click()
    expect(page.get_by_text(polish("Character moved."))).to_be_visible()


def test_a_split_party_plays_two_scenes_side_by_side(page, player_page, table):
    log_in(page, table.gm.username, PASSWORD)
    split_the_party(page, table)
    page.get_by_role("link", name=table.session.title).first.click()
    main, dungeon = polish("Main scene"), "W lochach"
    waiting = polish("Waiting for:")
    awaited = page.get_by_test_id("turn-status").get_by_test_id("awaited")
    expect(awaited.locator("li").nth(0)).to_have_text(re.compile(rf"{main}:\s+{waiting} Lirael"))
    expect(awaited.locator("li").nth(1)).to_have_text(re.compile(rf"{dungeon}:\s+{waiting} Borys"))

    post_as(player_page, table, table.alice, "Lirael pilnuje wejścia na górze.")
    post_as(player_page, table, table.bob, "Borys schodzi po omszałych stopniach.")
    scene = Post.objects.get(narration__startswith="Borys schodzi").scene
    assert scene is not None and scene.name == dungeon
    assert Post.objects.get(narration__startswith="Lirael pilnuje").scene is None

    # Bob's diary of all scenes marks each post with its scene.
    lirael = player_page.locator("article.post", has_text="Lirael pilnuje")
    borys = player_page.locator("article.post", has_text="Borys schodzi")
    expect(lirael.get_by_test_id("post-scene")).to_have_text(polish("Scene: %(name)s", name=main))
    expect(borys.get_by_test_id("post-scene")).to_have_text(polish("Scene: %(name)s", name=dungeon))
    # The dungeon alone, then the main scene alone.
    tabs = player_page.get_by_test_id("scene-tabs")
    tabs.get_by_role("link", name=dungeon).click()
    expect(player_page.locator("article.post", has_text="Borys schodzi")).to_be_visible()
    expect(player_page.locator("article.post", has_text="Lirael pilnuje")).to_have_count(0)
    player_page.get_by_test_id("scene-tabs").get_by_role("link", name=main).click()
    expect(player_page.locator("article.post", has_text="Lirael pilnuje")).to_be_visible()
    expect(player_page.locator("article.post", has_text="Borys schodzi")).to_have_count(0)
    player_page.get_by_test_id("scene-tabs").get_by_role("link", name=polish("All scenes")).click()
    expect(player_page.locator("article.post")).to_have_count(2)

    # The GM's diary: both scenes have acted.
    page.reload()
    done = polish("everyone here has posted.")
    awaited = page.get_by_test_id("turn-status").get_by_test_id("awaited")
    expect(awaited.locator("li").nth(0)).to_have_text(f"{main}: {done}")
    expect(awaited.locator("li").nth(1)).to_have_text(f"{dungeon}: {done}")
