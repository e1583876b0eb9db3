"""Text for chosen eyes and a spoiler in the main session: the GM's post with a line only
Borys's player (gracz2) reads, which Lirael's (gracz) reads as "(tekst tylko dla
wybranych)", and a spoiler anyone opens."""

from diary import services as diary_services
from diary.models import GameSession, Post

EYES_WORDS = "ślady podkutych butów"
SPOILER_WORDS = "Karczmarz zna przemytników"


def seed_chosen_eyes(session: GameSession, gm) -> Post:
    return diary_services.post_create(
        session=session,
        author=gm,
        character=None,
        narration=(
            "Deszcz ustaje; przy brodzie zostaje tylko szum wody.\n\n"
            f"[dla: Borys]Tylko ty dostrzegasz w błocie {EYES_WORDS}, "
            "świeże, prowadzące w stronę młyna.[/dla]\n\n"
            f"[spoiler]{SPOILER_WORDS} i wie, kto przeprawiał się nocą.[/spoiler]"
        ),
        nc_note="",
    )
