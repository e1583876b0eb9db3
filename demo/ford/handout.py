"""A handout map: the GM's opening post carries a map of the ford (drawn here, as a player
would scan or draw one), with its description, pinned in the session's Galeria."""

import io

from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from PIL import Image, ImageDraw

from diary.models import Post
from diary.pictures.services import picture_pin, pictures_attach
from diary.pictures.uploads import picture_check_and_encode

MAP_ALT = (
    "Mapa Czarnego Brodu: rzeka z zachodu na wschód, bród pośrodku, wywrócona łódź na "
    "południowym brzegu, ślady do starej strażnicy na północy"
)


def _ford_map() -> bytes:
    """The ford seen from above, on old paper."""
    image = Image.new("RGB", (1400, 1000), (226, 212, 172))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 430, 1400, 560), fill=(70, 110, 160))  # the river
    draw.rectangle((620, 430, 780, 560), fill=(140, 160, 170))  # the ford's shallows
    draw.ellipse((560, 600, 660, 650), fill=(90, 60, 30))  # the overturned boat
    for step in range(8):  # footprints towards the watchtower
        x, y = 700 + step * 25, 600 - step * 70
        draw.ellipse((x, y, x + 12, y + 18), fill=(60, 45, 30))
    draw.rectangle((860, 60, 1000, 200), outline=(50, 40, 30), width=8)  # the watchtower
    draw.line((20, 980, 300, 980), fill=(50, 40, 30), width=6)  # the scale bar
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def seed_handout(post: Post, gm) -> None:
    """The map attached to the GM's post and pinned in the gallery."""
    upload = SimpleUploadedFile("mapa-brodu.png", _ford_map(), content_type="image/png")
    checked = picture_check_and_encode(upload, MAP_ALT)
    with transaction.atomic():
        (picture,) = pictures_attach(post=post, images=[checked], by=gm)
    picture_pin(session_pk=post.session_id, picture_pk=picture.pk, by=gm, pinned=True)
