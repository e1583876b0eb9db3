"""A running Ciernie i Gwiazdy session for the ciernie panel's service, demo and browser tests.

The ciernie catalog and sheets are another engineer's part: the rows are made with the ORM
(get_or_create, so a seeded catalog with the same names is reused), the session, its
participations and its NPC stand-in through the diary's services as the pages make them.
"""

from types import SimpleNamespace

from characters.models import (
    Attribute,
    AttributeValue,
    Character,
    Item,
    ItemHolding,
    Skill,
    SkillLevel,
    Trait,
)
from diary import npc_services
from diary import services as diary_services
from diary.models import SessionStatus

ATTRIBUTES = ["Siła", "Zręczność", "Zwinność", "Wytrzymałość", "Percepcja", "Wola"]
SKILLS = {"Otwieranie zamków": "Zręczność", "Pilotaż": "Zręczność", "Walka wręcz": "Zwinność"}
REROLL_SOURCES = ("Szczęściarz", "Celownik naprowadzany")


def flag_reroll_sources(names=REROLL_SOURCES) -> None:
    """Mark these abilities and items as reroll sources (the catalog's `rerolls` flag)."""
    Trait.objects.filter(system="ciernie", name__in=names).update(rerolls=True)
    Item.objects.filter(system="ciernie", name__in=names).update(rerolls=True)


def _sheet(owner, name, values, *, skills=None, traits=(), items=()):
    character = Character.objects.create(
        owner=owner, name=name, system="ciernie", hp_current=12, hp_max=12
    )
    for attribute, value in values.items():
        AttributeValue.objects.create(character=character, attribute=attribute, value=value)
    for skill, level in (skills or {}).items():
        SkillLevel.objects.create(character=character, skill=skill, level=level)
    character.traits.set(traits)
    for item in items:
        ItemHolding.objects.create(character=character, item=item)
    return character


def build_ciernie_table(make_user, *, roll_policy="gm_only"):
    gm, alice, bob = make_user(), make_user(), make_user()
    moderator = make_user(moderator=True)
    a = {
        name: Attribute.objects.get_or_create(
            system="ciernie", name=name, defaults={"position": position}
        )[0]
        for position, name in enumerate(ATTRIBUTES)
    }
    s = {
        name: Skill.objects.get_or_create(
            system="ciernie", name=name, defaults={"attribute": a[attribute]}
        )[0]
        for name, attribute in SKILLS.items()
    }
    lucky = Trait.objects.get_or_create(
        system="ciernie",
        name="Szczęściarz",
        defaults={"kind": "ability", "attribute": a["Wola"], "modifier": 0},
    )[0]
    sharp = Trait.objects.get_or_create(
        system="ciernie",
        name="Sokoli wzrok",
        defaults={"kind": "ability", "attribute": a["Percepcja"], "modifier": 2},
    )[0]
    homing = Item.objects.get_or_create(
        system="ciernie",
        name="Celownik naprowadzany",
        defaults={"attribute": a["Percepcja"], "modifier": 1},
    )[0]
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
    session = diary_services.session_create(
        gm=gm,
        title="Ciernie: Stacja Wega",
        description="",
        system="ciernie",
        criticals_enabled=True,
        npc_mode="gm_character",
        roll_policy=roll_policy,
    )
    for character in (vera, tomasz):
        invitation = diary_services.participation_invite(
            session=session, by=gm, character=character
        )
        diary_services.participation_decide(
            participation=invitation, by=character.owner, accept=True
        )
    stand_in = _sheet(gm, "Najemnik", {a["Siła"]: 12, a["Zręczność"]: 11, a["Zwinność"]: 14})
    npc = npc_services.npc_create(
        session=session, by=gm, name="Najemnik", description="", visible_to_players=True
    )
    npc_services.npc_stand_in_set(npc=npc, by=gm, character=stand_in)
    stand_in.refresh_from_db()
    for status, by in [
        (SessionStatus.PLAN_SUBMITTED, gm),
        (SessionStatus.ACCEPTED, moderator),
        (SessionStatus.RUNNING, gm),
    ]:
        session = diary_services.session_transition(session=session, by=by, to=status)
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
