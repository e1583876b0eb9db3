"""Words to search for in the demo: one in turn 3 of the main session that all three
players may find, and one only in the stand-in session, which gracz (Lirael) may not read."""

from characters.models import Character
from demo.ford.story import SESSION_TITLE
from demo.stand_in_session import STAND_IN_SESSION_TITLE
from diary import services as diary_services
from diary.models import GameSession

SEARCH_WORD_TURN_3 = "żurawiem"
SEARCH_WORD_HIDDEN_FROM_GRACZ = "jemioły"


def seed_search_words(users: dict) -> None:
    gm = users["gm"]
    session = GameSession.objects.get(title=SESSION_TITLE, gm=gm)
    diary_services.post_create(
        session=session,
        author=users["gracz"],
        character=Character.objects.get(owner=users["gracz"], name="Lirael"),
        narration=f"Lirael przygląda się tarczy strażnika: herb ze złotym {SEARCH_WORD_TURN_3}, "
        "jak u rodu z południa.",
        nc_note="",
    )
    stand_in = GameSession.objects.get(title=STAND_IN_SESSION_TITLE, gm=gm)
    diary_services.post_create(
        session=stand_in,
        author=gm,
        character=None,
        narration=f"Nad brodem wisi wieniec z {SEARCH_WORD_HIDDEN_FROM_GRACZ}: znak, że wilki "
        "strzegą tego miejsca.",
        nc_note="",
    )
