"""A running Ars Magica session for the panel's tests (issue 10).

The arsmagica catalog and sheets are another engineer's part: the rows are made directly
with the ORM (get_or_create, so a seeded catalog with the same names is reused), the
session and its participations through the diary's services, as the pages make them (the
session runs, in its turn 1).
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
from diary import services as diary_services
from diary.models import SessionStatus


def attribute(name: str, position: int = 0) -> Attribute:
    return Attribute.objects.get_or_create(
        system="arsmagica", name=name, defaults={"position": position}
    )[0]


def ability(name: str, attribute_row: Attribute) -> Skill:
    return Skill.objects.get_or_create(
        system="arsmagica", name=name, defaults={"attribute": attribute_row}
    )[0]


def trait(name: str, kind: str, attribute_row: Attribute, modifier: int) -> Trait:
    return Trait.objects.get_or_create(
        system="arsmagica",
        name=name,
        defaults={"kind": kind, "attribute": attribute_row, "modifier": modifier},
    )[0]


def item(name: str, attribute_row: Attribute, modifier: int) -> Item:
    return Item.objects.get_or_create(
        system="arsmagica",
        name=name,
        defaults={"attribute": attribute_row, "modifier": modifier},
    )[0]


def ars_character(owner, name: str, values: dict, levels: dict) -> Character:
    character = Character.objects.create(
        owner=owner, name=name, system="arsmagica", hp_current=10, hp_max=10
    )
    for row, value in values.items():
        AttributeValue.objects.create(character=character, attribute=row, value=value)
    for skill, level in levels.items():
        SkillLevel.objects.create(character=character, skill=skill, level=level)
    return character


def ars_session(gm, characters, moderator, *, roll_policy="gm_only"):
    session = diary_services.session_create(
        gm=gm,
        title="Przymierze Durenmar",
        description="",
        system="arsmagica",
        criticals_enabled=True,
        npc_mode="fixed_modifiers",
        roll_policy=roll_policy,
    )
    for character in characters:
        invitation = diary_services.participation_invite(
            session=session, by=gm, character=character
        )
        diary_services.participation_decide(
            participation=invitation, by=character.owner, accept=True
        )
    for status, by in [
        (SessionStatus.PLAN_SUBMITTED, gm),
        (SessionStatus.ACCEPTED, moderator),
        (SessionStatus.RUNNING, gm),
    ]:
        session = diary_services.session_transition(session=session, by=by, to=status)
    return session


def build_saga(make_user, *, roll_policy="gm_only") -> SimpleNamespace:
    """The GM, two players, a moderator; Flambeau (Zręczność +2, Skradanie 5, two sources of
    Zręczność, one of Inteligencja, two items) and the grog Gerold (Zręczność 0 only)."""
    t = SimpleNamespace(gm=make_user(), player=make_user(), player2=make_user())
    t.moderator = make_user(moderator=True)
    t.dex = attribute("Zręczność", 1)
    t.int = attribute("Inteligencja", 2)
    t.sta = attribute("Wytrzymałość", 3)
    t.stealth = ability("Skradanie", t.dex)
    t.latin = ability("Łacina", t.int)
    t.brawl = ability("Bijatyka", t.dex)
    t.quick = trait("Zwinne dłonie", "ability", t.dex, 2)
    t.clumsy = trait("Niezdarny", "flaw", t.dex, -1)
    t.learned = trait("Uczony", "ability", t.int, 1)
    t.gloves = item("Rękawice złodzieja", t.dex, 1)
    t.lamp = item("Lampa", t.int, 3)
    t.flambeau = ars_character(
        t.player, "Flambeau", {t.dex: 2, t.int: -1}, {t.stealth: 5, t.latin: 3}
    )
    t.flambeau.traits.set([t.quick, t.clumsy, t.learned])
    ItemHolding.objects.create(character=t.flambeau, item=t.gloves)
    ItemHolding.objects.create(character=t.flambeau, item=t.lamp)
    t.grog = ars_character(t.player2, "Gerold", {t.dex: 0}, {})  # no Inteligencja
    t.session = ars_session(t.gm, [t.flambeau, t.grog], t.moderator, roll_policy=roll_policy)
    return t
