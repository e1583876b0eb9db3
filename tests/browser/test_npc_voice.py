"""In Chromium: the GM gives the innkeeper a portrait on the NPC's page, picks "Mów jako:
Karczmarz" in the diary and publishes; the post shows the NPC's name and portrait, marked
as the GM's NPC, and a player reads it so. A hidden NPC is not offered."""

import io

import pytest
from PIL import Image
from playwright.sync_api import expect

from diary.models import Post
from diary.npcs import services as npc_services
from tests.browser.axe import violations
from tests.browser.conftest import log_in
from tests.conftest import PASSWORD, polish

pytestmark = pytest.mark.django_db(transaction=True)


def _png() -> bytes:
    image = Image.new("RGB", (200, 200), (120, 80, 40))
    image.paste((230, 200, 160), (60, 40, 140, 130))
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def _loaded(locator) -> bool:
    return locator.evaluate("(img) => img.complete && img.naturalWidth > 0")


def test_the_gm_speaks_as_the_innkeeper_with_his_portrait(page, player_page, table, media_root):
    innkeeper = npc_services.npc_create(
        session=table.session,
        by=table.gm,
        name="Karczmarz",
        description="",
        visible_to_players=True,
    )
    npc_services.npc_create(
        session=table.session, by=table.gm, name="Szpieg", description="", visible_to_players=False
    )
    log_in(page, table.gm.username, PASSWORD)
    page.goto(f"/sessions/{table.session.pk}/npcs/{innkeeper.pk}/")
    page.get_by_label(polish("Portrait")).set_input_files(
        {"name": "karczmarz.png", "mimeType": "image/png", "buffer": _png()}
    )
    page.get_by_role("button", name=polish("Upload a portrait")).click()
    expect(page.get_by_text(polish("Portrait saved."))).to_be_visible()
    assert _loaded(page.get_by_test_id("npc-portrait"))

    page.goto(f"/sessions/{table.session.pk}/")
    speak_as = page.get_by_label(polish("Speak as"))
    expect(speak_as.locator("option", has_text="Szpieg")).to_have_count(0)
    speak_as.select_option(label="Karczmarz")
    page.get_by_label(polish("Narration")).fill("Czego sobie życzycie, wędrowcy?")
    page.get_by_role("button", name=polish("Publish")).click()

    post = Post.objects.get()
    assert post.npc_id == innkeeper.pk
    article = page.locator(f"#post-{post.pk}")
    expect(article.get_by_test_id("post-npc")).to_have_text("Karczmarz")
    expect(article.get_by_test_id("post-npc-mark")).to_contain_text(polish("NPC voiced by the GM"))
    portrait = article.get_by_test_id("post-npc-portrait")
    expect(portrait).to_have_attribute("alt", "Karczmarz")
    assert _loaded(portrait)
    assert violations(page) == []

    log_in(player_page, table.alice.username, PASSWORD)
    player_page.goto(f"/sessions/{table.session.pk}/")
    seen = player_page.locator(f"#post-{post.pk}")
    expect(seen.get_by_test_id("post-npc")).to_have_text("Karczmarz")
    assert _loaded(seen.get_by_test_id("post-npc-portrait"))
    expect(player_page.get_by_text("Szpieg")).to_have_count(0)
