"""Demo rolls of a running Ciernie i Gwiazdy session: one of every test.

`seed_ciernie_rolls` builds each test through the panel's own forms (rolls/panel_ciernie.py)
from the characters' sheets, and rolls it through `rolls.services.roll_make`, the
service the panel uses, with scripted dice chosen from the threshold so each roll shows what
it is there to show: an attribute test that succeeds, a combined test, a comparative test
against an NPC stand-in (or another character), an effect test that fails (the effect lasts),
a skill test ending in a delay, and a reroll whose first roll fails and whose second decides.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping

from django.http import QueryDict

from characters.models import Attribute, Character, Skill
from diary import services as diary_services
from rolls.engine import ciernie as engine
from rolls.engine.dice import ScriptedDice
from rolls.plugins import FormContext
from rolls.selectors import sheets_in_play
from rolls.services import roll_make
from rolls.systems.ciernie import forms as panel
from rolls.systems.ciernie import rerolls


def _query(**fields) -> QueryDict:
    query = QueryDict(mutable=True)
    for key, value in fields.items():
        values = value if isinstance(value, list | tuple) else [value]
        query.setlist(key, [str(v) for v in values])
    return query


def _case(mode: str, session, characters: list[Character], acting: Character, **fields):
    form = panel.make_form(
        mode,
        _query(character=acting.pk, **fields),
        FormContext(characters=characters, all_characters=characters, gm=True, session=session),
    )
    if not form.is_valid():
        raise ValueError(f"demo {mode} test of {acting.name} refused: {form.errors.as_text()}")
    return form.case()


def _success_face(threshold: int) -> int:
    return max(1, min(threshold, 19))


def _failure_face(threshold: int) -> int:
    """A face above the threshold (20 when nothing else fails)."""
    return threshold + 1 if 2 <= threshold + 1 <= 19 else 20


def _values(character: Character) -> dict[int, int]:
    return {row.attribute_id: row.value for row in character.attribute_values.all()}


def _difficulty_towards(threshold: int, low: int, high: int) -> int:
    """The difficulty level that brings a threshold closest into low..high."""
    return min(
        engine.DIFFICULTY_LEVELS,
        key=lambda d: (max(low - (threshold + d), 0, (threshold + d) - high), abs(d)),
    )


def _characters(session, characters) -> list[Character]:
    if isinstance(characters, Mapping):
        characters = characters.values()
    ids = [c.pk for c in characters] if characters is not None else None
    playing = sheets_in_play(session, ids=ids)
    if ids is None:
        return list(playing.values())
    return [playing[pk] for pk in ids if pk in playing]


def seed_ciernie_rolls(session, characters: Iterable[Character] | Mapping, users=None) -> list:
    """Roll one of every ciernie test in `session` (running, with a turn open) for
    `characters` (its playing characters; an NPC stand-in among them is the other side of
    the comparative test). Returns the rolls made, in order. `users` is accepted for the
    demo command's symmetry; the GM rolls, as in play."""
    gm = session.gm
    sheets = _characters(session, characters)
    stand_ins = [c for c in sheets_in_play(session).values() if c.is_stand_in]
    players = [c for c in sheets if not c.is_stand_in]
    if not players:
        raise ValueError("the ciernie demo needs at least one playing character")
    everyone = players + [c for c in stand_ins if c not in players]
    attributes = {a.pk: a for a in Attribute.objects.filter(system=panel.SYSTEM)}

    def usable(character: Character) -> list[int]:
        values = _values(character)
        return [pk for pk in attributes if values.get(pk, -1) >= 1]

    hero = max(players, key=lambda c: len(usable(c)))
    own = usable(hero)
    if len(own) < 2:
        raise ValueError(f"{hero.name} needs two attributes of 1 or more for the demo")
    values = _values(hero)
    first, second = own[0], own[1]

    diary_services.post_create(
        session=session,
        author=gm,
        character=None,
        narration="Mistrz Gry rozstrzyga: śluza, strażnik, toksyczny dym i zamek.",
        nc_note="",
    )
    made = []

    def roll(case, faces):
        result = roll_make(
            session=session, by=gm, case=case, token=uuid.uuid4(), dice=ScriptedDice(faces)
        )
        made.append(result.roll)
        return result.roll

    # 1. Attribute test, succeeding.
    case = _case("attribute", session, everyone, hero, attribute=first)
    roll(case, [_success_face(engine.threshold(case.engine_test()).value)])

    # 2. Combined test: the mean of two attributes, floored.
    case = _case("combined", session, everyone, hero, attributes=[first, second])
    roll(case, [_success_face(engine.threshold(case.engine_test()).value)])

    # 3. Comparative test against an NPC stand-in, else another character, else a value.
    opponents = [c for c in stand_ins if c.pk != hero.pk] + [c for c in players if c.pk != hero.pk]
    opponent = next((c for c in opponents if _values(c).get(first) is not None), None)
    if opponent is None:
        opposing = {"opponent": "value", "opponent_value": 10, "opponent_reason": "strażnik"}
    else:
        opposing = {"opponent": opponent.pk}
    case = _case("comparative", session, everyone, hero, attribute=first, **opposing)
    roll(case, [_failure_face(engine.threshold(case.engine_test()).value)])

    # 4. Effect test that fails: the effect lasts a few minutes.
    effect_attribute = next(
        (pk for pk in own if attributes[pk].name in ("Wytrzymałość", "Wola")), first
    )
    threshold = values[effect_attribute]
    difficulty = _difficulty_towards(threshold, 4, 14)
    case = _case(
        "effect_test",
        session,
        everyone,
        hero,
        attribute=effect_attribute,
        effect="toksyczny dym: kaszel i łzawienie",
        unit="minutes",
        difficulty=difficulty,
    )
    threshold = engine.threshold(case.engine_test()).value
    roll(case, [min(threshold + 3, 19) if threshold + 3 <= 19 else 20])

    # 5. Skill test ending in a delay: a face one to three above the threshold.
    skills = list(Skill.objects.filter(system=panel.SYSTEM, attribute_id__in=own).order_by("name"))
    if not skills:
        raise ValueError(f"no ciernie skill uses an attribute of {hero.name}")
    levels = {row.skill_id: row.level for row in hero.skill_levels.all()}
    skill = max(skills, key=lambda s: levels.get(s.pk, 0))
    level = levels.get(skill.pk, 0)
    factor = level + 1  # one level short: −3, still rolled
    base = values[skill.attribute_id] - 3
    difficulty = _difficulty_towards(base, 4, 15)
    case = _case(
        "skill", session, everyone, hero, skill=skill.pk, factor=factor, difficulty=difficulty
    )
    threshold = engine.threshold(case.engine_test()).value
    roll(case, [threshold + 2])

    # 6. A reroll chosen after the roll: the first roll fails (a roll of its own, kept as
    # it fell), then the reroll, linked to it, decides (easier with more sources).
    rerolling = next((c for c in players if panel.reroll_sources(c)), None)
    if rerolling is None:
        raise ValueError("no demo character has a reroll source (an ability or item rerolls)")
    attribute = max(usable(rerolling), key=lambda pk: _values(rerolling)[pk])
    case = _case(
        "attribute",
        session,
        everyone,
        rerolling,
        attribute=attribute,
        difficulty=_difficulty_towards(_values(rerolling)[attribute], 6, 14),
    )
    failed = roll(case, [_failure_face(engine.threshold(case.engine_test()).value)])
    case = rerolls.reroll_case(failed, [s["key"] for s in rerolls.offered_sources(failed)])
    test = case.engine_test()
    result = roll_make(
        session=session,
        by=gm,
        case=case,
        token=rerolls.reroll_token(failed),
        dice=ScriptedDice([_success_face(engine.threshold(test.base, test.reroll_sources).value)]),
    )
    made.append(result.roll)
    return made
