"""A running q10 session for the case path's tests (issue 10).

The q10 catalog and sheets are another engineer's part: the rows are made directly with the
ORM (get_or_create, so a seeded catalog with the same names is reused), the session and
participations through the diary's services as the pages make them.
"""

from types import SimpleNamespace

import pytest

from characters.models import Attribute, AttributeValue, Character, Skill, SkillLevel, Trait
from diary import services as diary_services
from diary.models import SessionStatus


def q10_attribute(name: str, position: int = 0) -> Attribute:
    return Attribute.objects.get_or_create(
        system="q10", name=name, defaults={"position": position}
    )[0]


def q10_skill(name: str, attribute: Attribute) -> Skill:
    return Skill.objects.get_or_create(system="q10", name=name, defaults={"attribute": attribute})[
        0
    ]


def q10_character(owner, name: str, *, attributes: dict, skills: dict, traits=()) -> Character:
    character = Character.objects.create(
        owner=owner, name=name, system="q10", hp_current=10, hp_max=10
    )
    for attribute, value in attributes.items():
        AttributeValue.objects.create(character=character, attribute=attribute, value=value)
    for skill, level in skills.items():
        SkillLevel.objects.create(character=character, skill=skill, level=level)
    character.traits.set(traits)
    return character


def q10_session(gm, characters, moderator, *, roll_policy="gm_only", title="Shur'tugal"):
    session = diary_services.session_create(
        gm=gm,
        title=title,
        description="",
        system="q10",
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


def build_q10_table(make_user, *, roll_policy="gm_only"):
    gm = make_user()
    alice, bob = make_user(), make_user()
    moderator = make_user(moderator=True)
    sila = q10_attribute("Siła", 1)
    zrecznosc = q10_attribute("Zręczność", 2)
    atletyka = q10_skill("Atletyka", sila)
    walka = q10_skill("Walka wręcz", sila)
    strong = Trait.objects.get_or_create(
        system="q10",
        name="Silny jak tur",
        defaults={"kind": "ability", "attribute": sila, "modifier": 1},
    )[0]
    eryk = q10_character(
        alice,
        "Eryk",
        attributes={sila: 3, zrecznosc: 2},
        skills={atletyka: 2, walka: 2},
        traits=[strong],
    )
    runa = q10_character(
        bob, "Runa", attributes={sila: 2, zrecznosc: 4}, skills={atletyka: 1, walka: 3}
    )
    session = q10_session(gm, [eryk, runa], moderator, roll_policy=roll_policy)
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


@pytest.fixture
def q10(make_user):
    return build_q10_table(make_user)


@pytest.fixture
def q10_players_own(make_user):
    return build_q10_table(make_user, roll_policy="players_own")
