"""A running Ars Magica session for the panel's tests.

Built on tests/rolls/system_tables.py (the session runs, in its turn 1).
"""

from types import SimpleNamespace

from tests.rolls.system_tables import (
    catalog_attribute,
    catalog_item,
    catalog_skill,
    catalog_trait,
    session_with_players,
    sheet,
    start,
)

SYSTEM = "arsmagica"


def build_saga(make_user, *, roll_policy="gm_only") -> SimpleNamespace:
    """The GM, two players, a moderator; Flambeau (Zręczność +2, Skradanie 5, two sources of
    Zręczność, one of Inteligencja, two items) and the grog Gerold (Zręczność 0 only)."""
    t = SimpleNamespace(gm=make_user(), player=make_user(), player2=make_user())
    t.moderator = make_user(moderator=True)
    t.dex = catalog_attribute(SYSTEM, "Zręczność", 1)
    t.int = catalog_attribute(SYSTEM, "Inteligencja", 2)
    t.sta = catalog_attribute(SYSTEM, "Wytrzymałość", 3)
    t.stealth = catalog_skill(SYSTEM, "Skradanie", t.dex)
    t.latin = catalog_skill(SYSTEM, "Łacina", t.int)
    t.brawl = catalog_skill(SYSTEM, "Bijatyka", t.dex)
    t.quick = catalog_trait(SYSTEM, "Zwinne dłonie", "ability", t.dex, 2)
    t.clumsy = catalog_trait(SYSTEM, "Niezdarny", "flaw", t.dex, -1)
    t.learned = catalog_trait(SYSTEM, "Uczony", "ability", t.int, 1)
    t.gloves = catalog_item(SYSTEM, "Rękawice złodzieja", t.dex, 1)
    t.lamp = catalog_item(SYSTEM, "Lampa", t.int, 3)
    t.flambeau = sheet(
        SYSTEM,
        t.player,
        "Flambeau",
        {t.dex: 2, t.int: -1},
        skills={t.stealth: 5, t.latin: 3},
        traits=[t.quick, t.clumsy, t.learned],
        items=[t.gloves, t.lamp],
    )
    t.grog = sheet(SYSTEM, t.player2, "Gerold", {t.dex: 0})  # no Inteligencja
    session = session_with_players(
        SYSTEM, t.gm, [t.flambeau, t.grog], title="Przymierze Durenmar", roll_policy=roll_policy
    )
    t.session = start(session, t.gm, t.moderator)
    return t


def demo_saga(make_user):
    """The demo command's Ars Magica session (demo/systems/__init__.py), whose
    narration the demo rolls follow: (session, characters by key, users by name)."""
    from demo.systems import seed_system_sessions

    users = {name: make_user(name) for name in ("gm", "gracz", "gracz2", "gracz3")}
    users["moderator"] = make_user("moderator", moderator=True)
    session, characters = seed_system_sessions(users)["arsmagica"]
    return session, characters, users
