"""Catalog rows, sheets and running sessions of any rule system, for the tables of the
q10, ciernie and arsmagica tests (tests/rolls/{q10,ciernie,ars}_table.py).

Catalog rows are made with get_or_create, so a seeded catalog with the same names is
reused; sheets directly with the ORM; the session, its participations and its steps to
running through the diary's services, as the pages make them.
"""

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
from diary.models import GameSession, SessionStatus


def catalog_attribute(system: str, name: str, position: int = 0) -> Attribute:
    return Attribute.objects.get_or_create(
        system=system, name=name, defaults={"position": position}
    )[0]


def catalog_skill(system: str, name: str, attribute: Attribute) -> Skill:
    return Skill.objects.get_or_create(system=system, name=name, defaults={"attribute": attribute})[
        0
    ]


def catalog_trait(system: str, name: str, kind: str, attribute: Attribute, modifier: int) -> Trait:
    return Trait.objects.get_or_create(
        system=system,
        name=name,
        defaults={"kind": kind, "attribute": attribute, "modifier": modifier},
    )[0]


def catalog_item(system: str, name: str, attribute: Attribute, modifier: int) -> Item:
    return Item.objects.get_or_create(
        system=system, name=name, defaults={"attribute": attribute, "modifier": modifier}
    )[0]


def sheet(
    system: str, owner, name: str, attributes: dict, *, skills=None, traits=(), items=(), hp=10
) -> Character:
    character = Character.objects.create(
        owner=owner, name=name, system=system, hp_current=hp, hp_max=hp
    )
    for attribute, value in attributes.items():
        AttributeValue.objects.create(character=character, attribute=attribute, value=value)
    for skill, level in (skills or {}).items():
        SkillLevel.objects.create(character=character, skill=skill, level=level)
    character.traits.set(traits)
    for item in items:
        ItemHolding.objects.create(character=character, item=item)
    return character


def session_with_players(
    system: str, gm, characters, *, title: str, roll_policy="gm_only", npc_mode="fixed_modifiers"
) -> GameSession:
    """A draft session whose characters have accepted the GM's invitation."""
    session = diary_services.session_create(
        gm=gm,
        title=title,
        description="",
        system=system,
        criticals_enabled=True,
        npc_mode=npc_mode,
        roll_policy=roll_policy,
        player_slots=max(4, len(characters)),  # a place for every character
    )
    for character in characters:
        invitation = diary_services.participation_invite(
            session=session, by=gm, character=character
        )
        diary_services.participation_decide(
            participation=invitation, by=character.owner, accept=True
        )
    return session


def start(session: GameSession, gm, moderator) -> GameSession:
    """The plan submitted, accepted by the moderator, the session running in its turn 1."""
    for status, by in [
        (SessionStatus.PLAN_SUBMITTED, gm),
        (SessionStatus.ACCEPTED, moderator),
        (SessionStatus.RUNNING, gm),
    ]:
        session = diary_services.session_transition(session=session, by=by, to=status)
    return session
