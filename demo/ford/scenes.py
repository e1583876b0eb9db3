"""The party splits: Mira scouts the old watchtower, a second scene beside the ford, with
the GM's narration and Mira's post in it (the diary's scene tabs, each post's scene, and
"Czekamy na" per scene)."""

from diary import services as diary_services
from diary.models import GameSession
from diary.scenes import services as scene_services

SCENE_NAME = "Stara strażnica"


def seed_scenes(session: GameSession, users: dict, characters: dict) -> None:
    gm = users["gm"]
    scene = scene_services.scene_create(session=session, by=gm, name=SCENE_NAME)
    scene_services.scene_move(
        session=session, by=gm, character_pk=characters["Mira"].pk, scene_pk=scene.pk
    )
    diary_services.post_create(
        session=session,
        author=gm,
        character=None,
        narration=(
            "Tymczasem Mira dociera do **starej strażnicy**. Drzwi wiszą na jednym zawiasie, "
            "a ze szczeliny w murze sączy się zapach dymu."
        ),
        nc_note="",
        scene=scene.pk,
    )
    diary_services.post_create(
        session=session,
        author=users["gracz3"],
        character=characters["Mira"],
        narration="Mira przywiera do muru i nasłuchuje. — Ktoś tu niedawno palił ogień.",
        nc_note="",
    )
