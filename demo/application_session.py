"""A demo session on the recruiting board, with a pitch a player applied to: the GM has an
application to answer."""

from characters.systems import RuleSystem
from demo.sheets import forum1000_character, run_with_accepted_plan
from diary import services as diary_services
from diary.models import GameSession, NpcMode, RollPolicy

APPLICATION_SESSION_TITLE = "Karawana do Ostrogu"


def seed_application(users: dict) -> GameSession:
    """A session with a pitch a player applied to: the GM has an application to answer."""
    gm = users["gm"]
    session = diary_services.session_create(
        gm=gm,
        title=APPLICATION_SESSION_TITLE,
        description=(
            "Karawana kupca Welfa wyrusza o świcie przez **Wilcze Pola**.\n\n"
            "- szukamy dwóch, trzech strażników i kogoś, kto zna drogę,\n"
            "- posty co najmniej co dwa dni, tura trwa tydzień."
        ),
        system=RuleSystem.FORUM1000,
        criticals_enabled=True,
        npc_mode=NpcMode.FIXED_MODIFIERS,
        roll_policy=RollPolicy.GM_ONLY,
        # On the recruiting board, with how the table posts.
        recruiting=True,
        player_slots=3,
        posting_habits="posty co 2–3 dni, tura zamykana w niedzielę wieczorem",
    )
    session = run_with_accepted_plan(session, users)
    applicant = forum1000_character(
        users["gracz3"],
        "Zbyszko",
        "Przewodnik karawan, zna Wilcze Pola.",
        hp=(90, 90),
        values=[520, 540, 580, 600, 560, 450, 500, 480],
    )
    diary_services.participation_request(
        session=session,
        by=users["gracz3"],
        character=applicant,
        message="Zbyszko prowadził już trzy karawany przez Wilcze Pola. Piszę codziennie.",
    )
    return session
