"""Portraits for the main session's demo characters, drawn with Pillow at seed time:
no image files in the repo, and each goes through the same checker and service as an
upload from the sheet."""

import io

from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image, ImageDraw

from characters import services as character_services
from characters.models import Character
from characters.portraits import portrait_check_and_encode
from characters.systems import RuleSystem
from demo.ford.story import CHARACTERS

# name -> (background, cloak, skin, hair): enough to tell three characters apart at 48 px.
PALETTES = {
    "Lirael": ((92, 60, 110), (170, 40, 70), (236, 200, 170), (230, 190, 90)),
    "Borys": ((60, 70, 60), (90, 80, 70), (200, 160, 130), (50, 35, 25)),
    "Mira": ((40, 70, 100), (40, 110, 90), (220, 180, 150), (120, 60, 30)),
}
SIDE = 256


def seed_portraits(users: dict) -> int:
    """A portrait for each forum1000 demo character that has none, through the
    checker and service the sheet's upload uses. The number added."""
    added = 0
    for spec in CHARACTERS:
        owner = users[spec["owner"]]
        character = Character.objects.filter(
            owner=owner, name=spec["name"], system=RuleSystem.FORUM1000, is_stand_in=False
        ).first()
        if character is None or character.portrait:
            continue
        upload = SimpleUploadedFile(f"{spec['name']}.png", demo_portrait_png(spec["name"]))
        character_services.character_portrait_set(
            character_pk=character.pk, by=owner, portrait=portrait_check_and_encode(upload)
        )
        added += 1
    return added


def demo_portrait_png(name: str) -> bytes:
    background, cloak, skin, hair = PALETTES[name]
    image = Image.new("RGB", (SIDE, SIDE), background)
    draw = ImageDraw.Draw(image)
    for y in range(SIDE):  # a soft light from above
        shade = tuple(min(255, c + (SIDE - y) // 6) for c in background)
        draw.line([(0, y), (SIDE, y)], fill=shade)
    draw.ellipse((28, 170, 228, 330), fill=cloak)  # shoulders
    draw.ellipse((78, 46, 178, 160), fill=hair)  # hair behind the head
    draw.ellipse((88, 62, 168, 160), fill=skin)  # face
    draw.chord((84, 44, 172, 120), 180, 360, fill=hair)  # fringe
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()
