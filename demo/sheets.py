"""What every demo session is made of: characters from catalog names, joined to a session,
and a session's plan taken through review to a running session."""

import uuid
from typing import NamedTuple

from characters import services as character_services
from characters.models import Attribute, Character, Item, Skill, Trait
from characters.systems import ATTRIBUTE_RANGE, RuleSystem
from diary import services as diary_services
from diary.models import GameSession, SessionStatus
from rolls.engine.dice import ScriptedDice
from rolls.services import roll_make

FORUM1000_ATTRIBUTE_ORDER = [
    "Percepcja", "Zręczność", "Szybkość", "Siła",
    "Siła Woli", "Charyzma", "Inteligencja", "Mądrość",
]  # fmt: skip


def system_character(
    owner,
    system: str,
    name: str,
    *,
    attributes: dict[str, int],
    skills: dict[str, int] | None = None,
    traits=(),
    items: dict[str, int] | None = None,
    hp: tuple[int, int] = (20, 20),
    description: str = "",
    grammatical_gender: str = "masculine",
) -> Character:
    """A character of `system` from catalog names, through characters.services (the sheet's
    own checks apply: ranges, one system). Attributes missing from `attributes` get the
    system's low end (Ars Magica: 0)."""
    low, high = ATTRIBUTE_RANGE[system]
    default = 0 if low < 0 <= high else low
    catalog = {a.name: a for a in Attribute.objects.filter(system=system)}
    unknown = set(attributes) - set(catalog)
    if unknown:
        raise ValueError(f"no such {system} attributes: {sorted(unknown)}")
    skill_rows = {s.name: s for s in Skill.objects.filter(system=system)}
    return character_services.character_create(
        owner=owner,
        system=system,
        values={
            "name": name,
            "description": description,
            "grammatical_gender": grammatical_gender,
            "hp_current": hp[0],
            "hp_max": hp[1],
            "attributes": {row: attributes.get(n, default) for n, row in catalog.items()},
            "skills": {skill_rows[n]: level for n, level in (skills or {}).items()},
            "traits": list(Trait.objects.filter(system=system, name__in=list(traits))),
            "items": {
                Item.objects.get(system=system, name=n): quantity
                for n, quantity in (items or {}).items()
            },
        },
    )


def forum1000_character(
    owner,
    name: str,
    description: str,
    *,
    hp,
    values,
    skills=None,
    traits=(),
    items=None,
    grammatical_gender="masculine",
) -> Character:
    """A forum1000 sheet: `values` are the attributes in FORUM1000_ATTRIBUTE_ORDER."""
    return system_character(
        owner,
        RuleSystem.FORUM1000,
        name,
        attributes=dict(zip(FORUM1000_ATTRIBUTE_ORDER, values, strict=True)),
        skills=skills,
        traits=traits,
        items=items,
        hp=hp,
        description=description,
        grammatical_gender=grammatical_gender,
    )


class CatalogIds(NamedTuple):
    """A system's catalog by name: name → id of each attribute, skill and trait."""

    attribute: dict[str, int]
    skill: dict[str, int]
    trait: dict[str, int]


def forum1000_catalog() -> CatalogIds:
    system = RuleSystem.FORUM1000
    return CatalogIds(
        attribute={a.name: a.pk for a in Attribute.objects.filter(system=system)},
        skill={s.name: s.pk for s in Skill.objects.filter(system=system)},
        trait={t.name: t.pk for t in Trait.objects.filter(system=system)},
    )


def join_session(session: GameSession, gm, character: Character) -> None:
    """The GM invites the character and its owner accepts: it plays in the session."""
    participation = diary_services.participation_invite(session=session, by=gm, character=character)
    diary_services.participation_decide(
        participation=participation, by=character.owner, accept=True
    )


def run_with_accepted_plan(session: GameSession, users: dict) -> GameSession:
    """The GM submits the plan, the moderator accepts it, the GM starts the session."""
    for status in (SessionStatus.PLAN_SUBMITTED, SessionStatus.ACCEPTED, SessionStatus.RUNNING):
        by = users["moderator"] if status == SessionStatus.ACCEPTED else session.gm
        session = diary_services.session_transition(session=session, by=by, to=status)
    return session


def scripted_roll(session: GameSession, case, faces: list[int], token: uuid.UUID | None = None):
    """The GM's roll of `case` through the panel's roll service, with these faces: a demo
    scene rolls what its narration tells (its turns open unseeded, so no fair part)."""
    return roll_make(
        session=session,
        by=session.gm,
        case=case,
        token=token if token is not None else uuid.uuid4(),
        dice=ScriptedDice(faces),
    ).roll
