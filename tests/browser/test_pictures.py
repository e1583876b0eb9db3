"""In Chromium: the GM attaches a map to a post (first without its description: refused
next to the field, nothing posted), a player sees the thumbnail with its alt text and opens
the full picture by its link; the GM pins the map, and the session's Galeria shows it."""

import io
import re

import pytest
from PIL import Image, ImageDraw
from playwright.sync_api import expect

from diary.models import Post, PostPicture
from tests.browser.axe import violations
from tests.browser.conftest import log_in, wait_until_quiet
from tests.conftest import PASSWORD, polish

pytestmark = pytest.mark.django_db(transaction=True)

ALT = "Mapa brodu: karczma na północnym brzegu, most na wschodzie"


def _map_png() -> bytes:
    image = Image.new("RGB", (1600, 1000), (225, 210, 170))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 450, 1600, 550), fill=(70, 120, 190))  # the river
    draw.rectangle((700, 300, 820, 420), fill=(120, 60, 30))  # the inn
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def _attach(page, alt: str) -> None:
    pictures = page.get_by_test_id("post-pictures")
    if pictures.get_attribute("open") is None:
        pictures.locator("summary").click()
    page.get_by_label(polish("Picture %(number)s", number=1)).set_input_files(
        {"name": "mapa.png", "mimeType": "image/png", "buffer": _map_png()}
    )
    page.get_by_label(polish("Description of picture %(number)s (alt text)", number=1)).fill(alt)


def test_the_gm_attaches_a_map_a_player_opens_it_and_the_gm_pins_it(
    page, player_page, table, media_root
):
    log_in(page, table.gm.username, PASSWORD)
    page.goto(f"/sessions/{table.session.pk}/")
    page.locator("#id_narration").fill("Karczmarz rozkłada na stole starą mapę.")
    _attach(page, "")
    page.get_by_role("button", name=polish("Publish")).click()
    expect(page.locator("#id_alt_1_error")).to_have_text(
        polish("Describe the picture: its description (alt text) is required.")
    )
    expect(page.get_by_test_id("pictures-dropped")).to_be_visible()
    expect(page.locator("#id_narration")).to_have_value("Karczmarz rozkłada na stole starą mapę.")
    assert not Post.objects.exists()
    assert violations(page) == []  # the form with its errors, as axe-core sees it

    _attach(page, ALT)
    page.get_by_role("button", name=polish("Publish")).click()
    page.wait_for_url(re.compile(r"#post-\d+$"))
    picture = PostPicture.objects.get()
    assert (picture.width, picture.height) == (1600, 1000)  # within 2048 px: as drawn

    log_in(player_page, table.alice.username, PASSWORD)
    player_page.goto(f"/sessions/{table.session.pk}/")
    thumbnail = player_page.get_by_test_id("picture-thumb")
    expect(thumbnail).to_have_attribute("alt", ALT)
    # Lazy: it loads once scrolled to; waited for, not assumed.
    thumbnail.scroll_into_view_if_needed()
    player_page.wait_for_function(
        "() => { const img = document.querySelector('[data-testid=picture-thumb]');"
        " return img && img.complete && img.naturalWidth > 0; }"
    )
    assert thumbnail.evaluate("(img) => img.naturalWidth") == 400
    player_page.get_by_role("link", name=ALT).click()
    player_page.wait_for_url(re.compile(rf"/pictures/{picture.image_file}$"))
    player_page.wait_for_function(
        "() => { const img = document.querySelector('img');"
        " return img && img.complete && img.naturalWidth > 0; }"
    )
    assert player_page.locator("img").evaluate("(img) => img.naturalWidth") == picture.width

    page.get_by_test_id("gallery-link").click()
    expect(page.get_by_test_id("gallery-no-pinned")).to_be_visible()
    page.get_by_test_id(f"picture-pin-{picture.pk}").click()
    expect(page.get_by_text(polish("The picture is pinned in the gallery."))).to_be_visible()
    pinned = page.get_by_test_id("gallery-pinned")
    expect(pinned.get_by_role("img", name=ALT)).to_be_visible()
    assert violations(page) == []

    player_page.goto(f"/sessions/{table.session.pk}/")
    player_page.get_by_test_id("gallery-link").click()
    wait_until_quiet(player_page)
    expect(
        player_page.get_by_test_id("gallery-pinned").get_by_role("img", name=ALT)
    ).to_be_visible()
    expect(player_page.get_by_test_id(f"picture-pin-{picture.pk}")).to_have_count(0)
