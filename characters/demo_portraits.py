"""Portraits for the demo characters (seed_demo), drawn with Pillow at seed time:
no image files in the repo, and each goes through the same checker and service as an
upload from the sheet."""

import io

from PIL import Image, ImageDraw

# name -> (background, cloak, skin, hair): enough to tell three characters apart at 48 px.
PALETTES = {
    "Lirael": ((92, 60, 110), (170, 40, 70), (236, 200, 170), (230, 190, 90)),
    "Borys": ((60, 70, 60), (90, 80, 70), (200, 160, 130), (50, 35, 25)),
    "Mira": ((40, 70, 100), (40, 110, 90), (220, 180, 150), (120, 60, 30)),
}
SIDE = 256


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
