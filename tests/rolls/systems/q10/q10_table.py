"""A running q10 session for the case path's tests.

Built on tests/rolls/system_tables.py, as the ciernie and arsmagica tables are.
"""

from types import SimpleNamespace

import pytest

from tests.rolls.system_tables import (
    catalog_attribute,
    catalog_skill,
    catalog_trait,
    session_with_players,
    sheet,
    start,
)


def build_q10_table(make_user, *, roll_policy="gm_only"):
    gm = make_user()
    alice, bob = make_user(), make_user()
    moderator = make_user(moderator=True)
    sila = catalog_attribute("q10", "Siła", 1)
    zrecznosc = catalog_attribute("q10", "Zręczność", 2)
    atletyka = catalog_skill("q10", "Atletyka", sila)
    walka = catalog_skill("q10", "Walka wręcz", sila)
    strong = catalog_trait("q10", "Silny jak tur", "ability", sila, 1)
    eryk = sheet(
        "q10",
        alice,
        "Eryk",
        {sila: 3, zrecznosc: 2},
        skills={atletyka: 2, walka: 2},
        traits=[strong],
    )
    runa = sheet("q10", bob, "Runa", {sila: 2, zrecznosc: 4}, skills={atletyka: 1, walka: 3})
    session = session_with_players(
        "q10", gm, [eryk, runa], title="Shur'tugal", roll_policy=roll_policy
    )
    session = start(session, gm, moderator)
    return SimpleNamespace(
        gm=gm,
        alice=alice,
        bob=bob,
        moderator=moderator,
        outsider=make_user(),
        session=session,
        eryk=eryk,
        runa=runa,
        sila=sila,
        zrecznosc=zrecznosc,
        atletyka=atletyka,
        walka=walka,
        strong=strong,
    )


def build_archer_table(make_user, skills: dict[str, int]):
    """A running q10 session with one character, Ilsa: Siła 2, Zręczność 4 and these
    skills (of Atletyka on Siła, Łucznictwo and Otwieranie zamków on Zręczność).
    Returns (gm, session, Siła, Zręczność, the skills by name)."""
    sila, zrecznosc = catalog_attribute("q10", "Siła", 1), catalog_attribute("q10", "Zręczność", 2)
    catalog = {
        "Atletyka": catalog_skill("q10", "Atletyka", sila),
        "Łucznictwo": catalog_skill("q10", "Łucznictwo", zrecznosc),
        "Otwieranie zamków": catalog_skill("q10", "Otwieranie zamków", zrecznosc),
    }
    gm = make_user()
    archer = sheet(
        "q10",
        make_user(),
        "Ilsa",
        {sila: 2, zrecznosc: 4},
        skills={catalog[name]: level for name, level in skills.items()},
    )
    session = session_with_players("q10", gm, [archer], title="Strzelnica")
    session = start(session, gm, make_user(moderator=True))
    return gm, session, sila, zrecznosc, catalog


@pytest.fixture
def q10(make_user):
    return build_q10_table(make_user)


@pytest.fixture
def q10_players_own(make_user):
    return build_q10_table(make_user, roll_policy="players_own")
