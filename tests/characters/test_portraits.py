import io

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from characters import portraits
from characters.portraits import portrait_check_and_encode


def _image_bytes(size=(200, 100), fmt="JPEG", **save_kwargs):
    buf = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(buf, format=fmt, **save_kwargs)
    return buf.getvalue()


def _upload(data, name="p.png"):
    return SimpleUploadedFile(name, data, content_type="image/png")


def _codes(data, name="p.png"):
    with pytest.raises(ValidationError) as caught:
        portrait_check_and_encode(_upload(data, name))
    return caught.value.code


def test_a_text_file_named_png_is_refused():
    assert _codes(b"hello, not an image" * 10) == "not_image"


def test_a_truncated_image_is_refused():
    data = _image_bytes((300, 300), "PNG")
    assert _codes(data[: len(data) // 2]) == "not_image"


def test_an_oversized_file_is_refused_before_decoding(monkeypatch):
    monkeypatch.setattr(portraits, "PORTRAIT_MAX_BYTES", 100)
    assert _codes(_image_bytes((300, 300), "PNG")) == "too_large"


def test_too_small_and_too_large_dimensions_are_refused():
    assert _codes(_image_bytes((10, 10), "PNG")) == "too_small"
    assert _codes(_image_bytes((8001, 40), "PNG")) == "too_big"


def test_a_decompression_bomb_is_refused_from_its_header():
    # 20000×20000 of one colour compresses to a few kB but would take 1.2 GB decoded.
    buf = io.BytesIO()
    Image.new("1", (20000, 20000)).save(buf, format="PNG")
    assert len(buf.getvalue()) < portraits.PORTRAIT_MAX_BYTES
    assert _codes(buf.getvalue()) == "too_big"


def test_exif_gps_is_dropped_and_orientation_applied():
    exif = Image.Exif()
    exif[0x0112] = 6  # orientation: rotate 90° clockwise to view
    exif[0x8825] = {2: (52.0, 13.0, 0.0)}  # GPSInfo: latitude
    data = _image_bytes((200, 100), "JPEG", exif=exif)
    portrait = portrait_check_and_encode(_upload(data, "x.jpg"))
    stored = Image.open(io.BytesIO(portrait.content))
    assert stored.format == "WEBP"
    assert (stored.width, stored.height) == (100, 200)  # turned upright
    assert not stored.getexif()
    assert "exif" not in stored.info and "icc_profile" not in stored.info


def test_the_stored_name_is_a_content_hash_bounded_in_size():
    portrait = portrait_check_and_encode(_upload(_image_bytes((2000, 1000)), "../../evil.php"))
    assert portrait.name.startswith("portraits/") and portrait.name.endswith(".webp")
    assert "evil" not in portrait.name
    assert max(portrait.width, portrait.height) == portraits.PORTRAIT_MAX_SIDE


def test_a_gif_keeps_its_first_frame():
    frames = [Image.new("RGB", (64, 64), c) for c in ((255, 0, 0), (0, 0, 255))]
    buf = io.BytesIO()
    frames[0].save(buf, format="GIF", save_all=True, append_images=frames[1:])
    portrait = portrait_check_and_encode(_upload(buf.getvalue(), "a.gif"))
    pixel = Image.open(io.BytesIO(portrait.content)).convert("RGB").getpixel((5, 5))
    assert pixel[0] > 200 and pixel[2] < 50


def test_the_upload_handler_stops_keeping_a_file_past_the_limit(monkeypatch):
    from django.core.files.uploadhandler import StopUpload

    monkeypatch.setattr(portraits, "PORTRAIT_MAX_BYTES", 1000)
    handler = portraits.PortraitSizeLimit()
    handler.new_file("image", "p.png", "image/png", None)
    assert handler.receive_data_chunk(b"x" * 600, 0) == b"x" * 600  # passed on to be kept
    with pytest.raises(StopUpload) as stopped:
        handler.receive_data_chunk(b"x" * 600, 600)
    assert handler.exceeded and not stopped.value.connection_reset
