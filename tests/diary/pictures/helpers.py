"""Images and requests the pictures' tests share."""

import io
import uuid

from django.urls import reverse
from PIL import Image


def image_bytes(size=(800, 600), colour=(40, 90, 160), fmt="PNG", **save) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, colour).save(buf, format=fmt, **save)
    return buf.getvalue()


def jpeg_with_gps() -> bytes:
    """A JPEG carrying EXIF with a GPS position (where the photo was taken)."""
    exif = Image.Exif()
    exif[0x010F] = "Aparat"
    exif[0x8825] = {1: "N", 2: (52.0, 13.0, 25.5), 3: "E", 4: (21.0, 0.0, 1.0)}
    data = image_bytes((900, 700), fmt="JPEG", exif=exif.tobytes())
    assert Image.open(io.BytesIO(data)).getexif().get_ifd(0x8825)  # it is there to remove
    return data


SVG = b"""<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">
<script>alert(1)</script><rect width="100" height="100" fill="red"/></svg>"""


def file(data: bytes, name: str) -> io.BytesIO:
    handle = io.BytesIO(data)
    handle.name = name
    return handle


def write(client, session, *, pictures=(), narration="Oto mapa.", **data):
    """The post form sent with (file bytes, file name, alt) per picture slot."""
    data.setdefault("token", str(uuid.uuid4()))
    data["narration"] = narration
    for number, (content, name, alt) in enumerate(pictures, start=1):
        data[f"picture_{number}"] = file(content, name)
        data[f"alt_{number}"] = alt
    return client.post(reverse("diary:post_create", args=[session.pk]), data)


def stored_files(media_root) -> list[str]:
    return sorted(p.name for p in media_root.rglob("*") if p.is_file())
