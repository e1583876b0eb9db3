"""In Chromium: a player uploads a portrait on the character's sheet (a file that is
no image is refused next to the field first) and sees it beside the character's posts in the
diary, loaded from the site's own media view; `make serve` serves portraits too."""

import io
import urllib.error
import urllib.request
import uuid

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image
from playwright.sync_api import expect

from characters.portraits import portrait_check_and_encode
from diary import services
from tests.browser import test_production
from tests.browser.axe import violations
from tests.browser.conftest import log_in
from tests.conftest import PASSWORD, polish
from tests.serving import free_port, make_serve, serve_environment

pytestmark = pytest.mark.django_db(transaction=True)
server_database = test_production.server_database  # the fixture: a database for the server


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
    assert violations(page) == []  # the form with its error, as axe-core sees it

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
    assert violations(page) == []


def test_make_serve_serves_portraits_from_media_root(server_database, tmp_path):
    """WhiteNoise serves static files only: under `make serve` (gunicorn, DEBUG off) the
    site's media view serves the portraits, with the headers a content-hash name allows."""

    portrait = portrait_check_and_encode(SimpleUploadedFile("p.png", _png()))
    media = tmp_path / "media"
    (media / "portraits").mkdir(parents=True)
    (media / portrait.name).write_bytes(portrait.content)
    env = serve_environment(
        SECRET_KEY="production-test-" + uuid.uuid4().hex,
        DATABASE_URL=server_database,
        BIND=f"127.0.0.1:{free_port()}",
        WEB_CONCURRENCY="1",
        STATIC_ROOT=str(tmp_path / "static"),
        MEDIA_ROOT=str(media),
    )
    with make_serve(env, tmp_path / "serve.log") as served:
        with urllib.request.urlopen(f"{served.url}/media/{portrait.name}", timeout=10) as got:
            assert got.read() == portrait.content
            assert got.headers["Content-Type"] == "image/webp"
            assert got.headers["X-Content-Type-Options"] == "nosniff"
            assert "immutable" in got.headers["Cache-Control"]
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(f"{served.url}/media/portraits/{'0' * 32}.webp", timeout=10)
        assert missing.value.code == 404
