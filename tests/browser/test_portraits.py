"""Issue 13 in Chromium: a player uploads a portrait on the character's sheet (a file that is
no image is refused next to the field first) and sees it beside the character's posts in the
diary, loaded from the site's own media view."""

import io

import pytest
from PIL import Image
from playwright.sync_api import expect

from diary import services
from tests.browser.conftest import log_in
from tests.conftest import PASSWORD, polish

pytestmark = pytest.mark.django_db(transaction=True)


def _png() -> bytes:
    image = Image.new("RGB", (300, 400), (140, 60, 30))
    image.paste((230, 200, 120), (75, 60, 225, 220))  # a face, of sorts
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def _loaded(locator) -> bool:
    return locator.evaluate("(img) => img.complete && img.naturalWidth > 0")


def test_a_player_uploads_a_portrait_and_sees_it_beside_their_posts(page, table, media_root):
    post = services.post_create(
        session=table.session,
        author=table.alice,
        character=table.lirael,
        narration="Lirael przystaje na moście.",
        nc_note="",
    )
    gm_post = services.post_create(
        session=table.session,
        author=table.gm,
        character=None,
        narration="Wiatr niesie zapach dymu.",
        nc_note="",
    )
    log_in(page, table.alice.username, PASSWORD)
    page.goto(f"/characters/{table.lirael.pk}/")
    file_field = page.get_by_label(polish("Portrait"))

    # A text file named .png: refused, the error next to the field, nothing shown.
    file_field.set_input_files(
        {"name": "portret.png", "mimeType": "image/png", "buffer": b"to nie obraz\n" * 50}
    )
    page.get_by_role("button", name=polish("Upload a portrait")).click()
    expect(page.locator("#id_image_error")).to_have_text(
        polish("This file is not an image (JPEG, PNG, WebP or GIF).")
    )
    expect(page.get_by_test_id("sheet-portrait")).to_have_count(0)

    page.get_by_label(polish("Portrait")).set_input_files(
        {"name": "lirael.png", "mimeType": "image/png", "buffer": _png()}
    )
    page.get_by_role("button", name=polish("Upload a portrait")).click()
    expect(page.get_by_text(polish("Portrait saved."))).to_be_visible()
    sheet_portrait = page.get_by_test_id("sheet-portrait")
    expect(sheet_portrait).to_have_attribute("alt", "Lirael")
    assert _loaded(sheet_portrait)

    page.goto(f"/sessions/{table.session.pk}/")
    portrait = page.locator(f"#post-{post.pk} .post-head img")
    expect(portrait).to_be_visible()
    expect(portrait).to_have_attribute("alt", "Lirael")
    expect(portrait).to_have_attribute("loading", "lazy")
    assert _loaded(portrait)
    assert portrait.bounding_box()["width"] == 48
    expect(page.locator(f"#post-{gm_post.pk} img")).to_have_count(0)
