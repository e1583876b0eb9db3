"""A running Ciernie i Gwiazdy session for the ciernie panel's service, demo and browser tests.

Built on tests/rolls/system_tables.py; the NPC stand-in through the diary's services.
"""

from types import SimpleNamespace

from characters.models import Item, Trait
from diary.npcs import services as npc_services
from tests.rolls.system_tables import (
    catalog_attribute,
    catalog_item,
    catalog_skill,
    catalog_trait,
    session_with_players,
    sheet,
    start,
)

SYSTEM = "ciernie"
ATTRIBUTES = ["Siła", "Zręczność", "Zwinność", "Wytrzymałość", "Percepcja", "Wola"]
SKILLS = {"Otwieranie zamków": "Zręczność", "Pilotaż": "Zręczność", "Walka wręcz": "Zwinność"}
REROLL_SOURCES = ("Szczęściarz", "Celownik naprowadzany")


def flag_reroll_sources(names=REROLL_SOURCES) -> None:
    """Mark these abilities and items as reroll sources (the catalog's `rerolls` flag)."""
    Trait.objects.filter(system=SYSTEM, name__in=names).update(rerolls=True)
    Item.objects.filter(system=SYSTEM, name__in=names).update(rerolls=True)


def _sheet(owner, name, values, **rest):
    return sheet(SYSTEM, owner, name, values, hp=12, **rest)


def build_ciernie_table(make_user, *, roll_policy="gm_only"):
    gm, alice, bob = make_user(), make_user(), make_user()
    moderator = make_user(moderator=True)
    a = {
        name: catalog_attribute(SYSTEM, name, position) for position, name in enumerate(ATTRIBUTES)
    }
    s = {name: catalog_skill(SYSTEM, name, a[attribute]) for name, attribute in SKILLS.items()}
    lucky = catalog_trait(SYSTEM, "Szczęściarz", "ability", a["Wola"], 0)
    sharp = catalog_trait(SYSTEM, "Sokoli wzrok", "ability", a["Percepcja"], 2)
    homing = catalog_item(SYSTEM, "Celownik naprowadzany", a["Percepcja"], 1)
    vera = _sheet(
        alice,
        "Vera",
        {
            a["Siła"]: 9,
            a["Zręczność"]: 13,
            a["Zwinność"]: 12,
            a["Wytrzymałość"]: 10,
            a["Percepcja"]: 11,
            a["Wola"]: 12,
        },
        skills={s["Otwieranie zamków"]: 3, s["Pilotaż"]: 4},
        traits=[lucky, sharp],
        items=[homing],
    )
    tomasz = _sheet(
        bob,
        "Tomasz",
        {a["Siła"]: 15, a["Zręczność"]: 8, a["Zwinność"]: 9, a["Percepcja"]: 7},
        skills={s["Walka wręcz"]: 2},
    )
    session = session_with_players(
        SYSTEM,
        gm,
        (vera, tomasz),
        title="Ciernie: Stacja Wega",
        roll_policy=roll_policy,
        npc_mode="gm_character",
    )
    stand_in = _sheet(gm, "Najemnik", {a["Siła"]: 12, a["Zręczność"]: 11, a["Zwinność"]: 14})
    npc = npc_services.npc_create(
        session=session, by=gm, name="Najemnik", description="", visible_to_players=True
    )
    npc_services.npc_stand_in_set(npc=npc, by=gm, character=stand_in)
    stand_in.refresh_from_db()
    session = start(session, gm, moderator)
    return SimpleNamespace(
        gm=gm,
        alice=alice,
        bob=bob,
        moderator=moderator,
        session=session,
        vera=vera,
        tomasz=tomasz,
        stand_in=stand_in,
        npc=npc,
        a=a,
        s=s,
        lucky=lucky,
        sharp=sharp,
        homing=homing,
    )
