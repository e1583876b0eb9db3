"""The merchant speaks: his portrait (drawn with Pillow at seed time, through the same
checker and service as an upload on the NPC's page), a post the GM writes as him, and a
post of the GM's narration with a block of his words."""

import io

from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image, ImageDraw

from characters.portraits import portrait_check_and_encode
from diary import services as diary_services
from diary.models import GameSession, Npc
from diary.npcs import services as npc_services

DEMO_VOICE_NPC = "Stary kupiec"
DEMO_VOICE_POST = (
    "Sól, panowie, sól z Wieliczki! A kto kupi dwa worki, temu powiem, "
    "kto wczoraj nocą przeprawiał się przez bród."
)
DEMO_VOICE_BLOCK = (
    "Kupiec rozgląda się, czy nikt nie słucha, i nachyla nad ladą.\n\n"
    "[npc: Stary kupiec]Przewoźnik nie zniknął sam. Widziałem światło na drugim brzegu — "
    "i *nie była* to latarnia.[/npc]\n\n"
    "Potem prostuje się i głośno zachwala sól."
)


def seed_npc_voice(session: GameSession, gm) -> None:
    npc = Npc.objects.get(session=session, name=DEMO_VOICE_NPC)
    upload = SimpleUploadedFile("kupiec.png", _merchant_png())
    npc = npc_services.npc_portrait_set(npc=npc, by=gm, portrait=portrait_check_and_encode(upload))
    for narration, speaker in ((DEMO_VOICE_POST, npc), (DEMO_VOICE_BLOCK, None)):
        diary_services.post_create(
            session=session, author=gm, character=None, narration=narration, nc_note="", npc=speaker
        )


def _merchant_png() -> bytes:
    """An old merchant at 48 px: a hood, a grey beard, a salt sack."""
    side = 192
    image = Image.new("RGB", (side, side), (120, 96, 60))
    draw = ImageDraw.Draw(image)
    draw.ellipse((20, 130, 172, 250), fill=(90, 60, 40))  # coat
    draw.ellipse((56, 30, 136, 130), fill=(110, 80, 50))  # hood
    draw.ellipse((68, 50, 124, 118), fill=(225, 190, 160))  # face
    draw.pieslice((62, 70, 130, 150), 0, 180, fill=(200, 200, 200))  # beard
    draw.rectangle((140, 120, 180, 180), fill=(235, 235, 225))  # a sack of salt
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()
