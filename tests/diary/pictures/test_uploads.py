"""A post's pictures get the portraits' hardening: the content decides what a file is (a
PNG named .jpg is a PNG, an SVG is no image), EXIF and its GPS position are gone, the size
is bounded, and a refusal is a Polish error next to its field with nothing stored."""

import io
import re

import pytest
from PIL import Image

from diary.models import Post, PostPicture
from diary.pictures import uploads, views
from tests.conftest import polish
from tests.diary.pictures.helpers import SVG, image_bytes, jpeg_with_gps, stored_files, write

pytestmark = pytest.mark.django_db


def error_next_to(response, field: str) -> str:
    match = re.search(
        rf'<p class="error" id="id_{field}_error">([^<]*)</p>', response.content.decode()
    )
    assert match, f"no error next to {field}"
    return match.group(1)


def test_exif_and_its_gps_position_are_not_stored(table, client_for, media_root):
    response = write(
        client_for(table.gm), table.session, pictures=[(jpeg_with_gps(), "mapa.jpg", "Mapa")]
    )
    assert response.status_code == 302
    picture = PostPicture.objects.get()
    for name in (picture.image, picture.thumb):
        raw = (media_root / name).read_bytes()
        with Image.open(io.BytesIO(raw)) as stored:
            assert stored.format == "WEBP"
            assert not stored.getexif() and "exif" not in stored.info
        assert b"Aparat" not in raw and b"Exif" not in raw


def test_a_png_named_jpg_is_read_as_the_png_it_is(table, client_for, media_root):
    png = image_bytes((3000, 1500))
    response = write(client_for(table.alice), table.session, pictures=[(png, "szkic.jpg", "Szkic")])
    assert response.status_code == 302
    picture = PostPicture.objects.get()
    # Bounded on its longer side: the handout to 2048 px, the thumbnail to 400 px.
    assert (picture.width, picture.height) == (uploads.PICTURE_MAX_SIDE, 1024)
    assert (picture.thumb_width, picture.thumb_height) == (uploads.PICTURE_THUMB_SIDE, 200)
    assert re.fullmatch(r"pictures/[0-9a-f]{32}\.webp", picture.image)


@pytest.mark.parametrize(
    ("content", "name"),
    [(SVG, "mapa.svg"), (SVG, "mapa.png"), (b"%PDF-1.4 not a picture", "mapa.jpg")],
)
def test_svg_and_what_is_no_image_are_refused_next_to_the_field(
    table, client_for, media_root, content, name
):
    response = write(client_for(table.gm), table.session, pictures=[(content, name, "Mapa")])
    assert response.status_code == 400
    assert error_next_to(response, "picture_1") == polish(
        "This file is not an image (JPEG, PNG, WebP or GIF)."
    )
    assert not Post.objects.exists() and not PostPicture.objects.exists()
    assert stored_files(media_root) == []


def test_an_oversized_file_is_cut_off_while_read_and_refused(
    table, client_for, media_root, monkeypatch
):
    monkeypatch.setattr(views, "PICTURE_MAX_BYTES", 2000)
    big = image_bytes((400, 400)) + b"\0" * 5000
    response = write(
        client_for(table.gm),
        table.session,
        pictures=[(image_bytes((64, 64)), "a.png", "Mała"), (big, "b.png", "Duża")],
        nc_note="Po obrazkach",  # a field after the files is still read
    )
    assert response.status_code == 400
    assert error_next_to(response, "picture_2") == polish(
        "The file is too large (at most %(mb)d MB).", mb=10
    )
    page = response.content.decode()
    assert "Po obrazkach" in page  # what was typed comes back
    assert 'data-testid="pictures-dropped"' in page  # and the files must be chosen again
    assert not Post.objects.exists() and stored_files(media_root) == []


def test_too_many_pixels_are_refused(table, client_for, media_root):
    response = write(
        client_for(table.gm),
        table.session,
        pictures=[(image_bytes((9000, 40), fmt="PNG"), "pas.png", "Pas")],
    )
    assert response.status_code == 400
    assert error_next_to(response, "picture_1") == polish(
        "The image is too large (at most %(px)d pixels on a side).", px=8000
    )
    assert not Post.objects.exists() and stored_files(media_root) == []


def test_the_alt_text_is_required(table, client_for, media_root):
    response = write(
        client_for(table.gm), table.session, pictures=[(image_bytes(), "mapa.png", "  ")]
    )
    assert response.status_code == 400
    assert error_next_to(response, "alt_1") == polish(
        "Describe the picture: its description (alt text) is required."
    )
    assert not Post.objects.exists() and not PostPicture.objects.exists()
    assert stored_files(media_root) == []
