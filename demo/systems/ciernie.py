"""The demo's Ciernie i Gwiazdy session, and its rolls: one of every test.

`SESSION` is the running session demo/systems/__init__.py builds (its plan, characters and
posts, and the GM's stand-in sheet for an NPC). `seed_ciernie_rolls` builds each test
through the panel's own forms (rolls/systems/ciernie/forms.py) from the characters' sheets,
and rolls it through `rolls.services.roll_make`, the service the panel uses, with scripted
dice chosen from the threshold so each roll shows what it is there to show: an attribute
test that succeeds, a combined test, a comparative test against an NPC stand-in (or another
character), an effect test that fails (the effect lasts), a skill test ending in a delay,
and a reroll whose first roll fails and whose second decides.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from django.http import QueryDict

from characters.models import Attribute, Character, Skill
from demo.sheets import scripted_roll
from diary import services as diary_services
from diary.models import GameSession, NpcMode
from rolls.engine import ciernie as engine
from rolls.models import Roll
from rolls.plugins import Case, FormContext
from rolls.selectors import sheets_in_play
from rolls.systems.ciernie import forms as panel
from rolls.systems.ciernie import rerolls

STAND_IN = {
    "key": "najemnik",
    "name": "Najemnik z Keplera",
    "npc_description": "Najemnik w pancerzu próżniowym, pilnuje korytarza stacji.",
    "attributes": {
        "Siła": 13, "Zręczność": 11, "Zwinność": 11, "Wytrzymałość": 13,
        "Percepcja": 10, "Inteligencja": 8, "Charyzma": 7, "Wola": 11,
    },
    "skills": {"Walka wręcz": 3, "Obsługa broni": 2},
}  # fmt: skip

SESSION = {
    "title": "Ciernie i Gwiazdy: Dryf przy Keplerze",
    "description": "Sesja pokazowa k20: załoga frachtowca i najemnik na stacji w dryfie.",
    # The stand-in NPC sheets (mode gm_character) give the comparative test an opponent.
    "npc_mode": NpcMode.GM_CHARACTER,
    "stand_in": STAND_IN,
    "plan": "Frachtowiec **Cierń** dokuje do martwej stacji przy Keplerze.\n\n"
    "1. Zablokowana śluza (Mechanika przeciw klasie technicznej 4).\n"
    "2. Najemnik w korytarzu (walka wręcz: test porównawczy zwinności).\n"
    "3. Wyciek toksyn (test efektu Wytrzymałości, w minutach).",
    "characters": [
        (
            "vera",
            "gracz",
            "Vera Kos",
            {
                "grammatical_gender": "feminine",
                "attributes": {
                    "Siła": 9,
                    "Zręczność": 14,
                    "Zwinność": 12,
                    "Wytrzymałość": 10,
                    "Percepcja": 13,
                    "Inteligencja": 11,
                    "Charyzma": 10,
                    "Wola": 12,
                },
                "skills": {"Pilotaż": 4, "Obsługa broni": 3, "Walka wręcz": 1},
                "traits": ["Refleks pilota", "Bystry wzrok"],
                "items": {"Uzbrojenie naprowadzane": 1},
                "description": "Pilotka Ciernia. Dwa źródła przerzutu: refleks i broń.",
            },
        ),
        (
            "tomasz",
            "gracz2",
            "Tomasz Reń",
            {
                "attributes": {
                    "Siła": 10,
                    "Zręczność": 12,
                    "Zwinność": 9,
                    "Wytrzymałość": 11,
                    "Percepcja": 11,
                    "Inteligencja": 15,
                    "Charyzma": 8,
                    "Wola": 13,
                },
                "skills": {"Mechanika": 4, "Otwieranie zamków": 3, "Medycyna": 1},
                "items": {"Zestaw wytrychów": 1},
                "description": "Mechanik pokładowy; klasę techniczną zamka zna na oko.",
            },
        ),
        (
            "ilja",
            "gracz3",
            "Ilja Sarnow",
            {
                "attributes": {
                    "Siła": 15,
                    "Zręczność": 10,
                    "Zwinność": 13,
                    "Wytrzymałość": 14,
                    "Percepcja": 9,
                    "Inteligencja": 9,
                    "Charyzma": 11,
                    "Wola": 10,
                },
                "skills": {"Walka wręcz": 4, "Medycyna": 2, "Perswazja": 1},
                "traits": ["Słabe serce"],
                "description": "Ochroniarz załogi, sanitariusz z przymusu.",
            },
        ),
    ],
    "posts": [
        (
            "gm",
            None,
            "Stacja milczy. Śluza numer trzy jest zablokowana, a za szybą ktoś się rusza.",
            "Tura 1: śluza ma klasę techniczną 4. NPC gram kartami zastępczymi.",
        ),
        (
            "gracz2",
            "tomasz",
            "Tomasz zdejmuje panel śluzy i przygląda się przekaźnikom.",
            "Mechanika na śluzie.",
        ),
        (
            "gracz",
            "vera",
            "Vera osłania go z bronią gotową do strzału.",
            "Obsługa broni, jeśli ktoś wyjdzie zza szyby.",
        ),
    ],
}


def seed_ciernie_rolls(session, characters: Iterable[Character] | Mapping, users=None) -> list:
    """Roll one of every ciernie test in `session` (running, with a turn open) for
    `characters` (its playing characters; an NPC stand-in among them is the other side of
    the comparative test). Returns the rolls made, in order. `users` is accepted for the
    demo command's symmetry; the GM rolls, as in play."""
    table = _table(session, characters)
    hero = max(table.players, key=lambda c: len(table.usable(c)))
    own = table.usable(hero)
    if len(own) < 2:
        raise ValueError(f"{hero.name} needs two attributes of 1 or more for the demo")
    diary_services.post_create(
        session=session,
        author=session.gm,
        character=None,
        narration="Mistrz Gry rozstrzyga: śluza, strażnik, toksyczny dym i zamek.",
        nc_note="",
    )
    _attribute_test(table, hero, own[0])
    _combined_test(table, hero, own[0], own[1])
    _comparative_test(table, hero, own[0])
    _effect_test(table, hero, own)
    _skill_test(table, hero, own)
    _reroll(table)
    return table.made


@dataclass
class _Table:
    """What the tests read: the session, the sheets the panel offers (`everyone`: the
    players', then the NPCs' stand-ins), the attributes by id; and the rolls made so far."""

    session: GameSession
    players: list[Character]
    stand_ins: list[Character]
    everyone: list[Character]
    attributes: dict[int, Attribute]
    made: list[Roll] = field(default_factory=list)

    def usable(self, character: Character) -> list[int]:
        """The attributes of 1 or more on the character's sheet."""
        values = _values(character)
        return [pk for pk in self.attributes if values.get(pk, -1) >= 1]

    def case(self, mode: str, acting: Character, **fields) -> Case:
        return _case(mode, self.session, self.everyone, acting, **fields)

    def roll(self, case: Case, faces: list[int], token: uuid.UUID | None = None) -> Roll:
        """The GM's roll of `case` with these faces, as in play."""
        roll = scripted_roll(self.session, case, faces, token)
        self.made.append(roll)
        return roll


def _table(session, characters) -> _Table:
    sheets = _characters(session, characters)
    players = [c for c in sheets if not c.is_stand_in]
    if not players:
        raise ValueError("the ciernie demo needs at least one playing character")
    stand_ins = [c for c in sheets_in_play(session).values() if c.is_stand_in]
    return _Table(
        session=session,
        players=players,
        stand_ins=stand_ins,
        everyone=players + [c for c in stand_ins if c not in players],
        attributes={a.pk: a for a in Attribute.objects.filter(system=panel.SYSTEM)},
    )


def _attribute_test(table: _Table, hero: Character, attribute: int) -> None:
    """An attribute test, succeeding."""
    case = table.case("attribute", hero, attribute=attribute)
    table.roll(case, [_success_face(engine.threshold(case.engine_test()).value)])


def _combined_test(table: _Table, hero: Character, first: int, second: int) -> None:
    """A combined test: the mean of two attributes, floored."""
    case = table.case("combined", hero, attributes=[first, second])
    table.roll(case, [_success_face(engine.threshold(case.engine_test()).value)])


def _comparative_test(table: _Table, hero: Character, attribute: int) -> None:
    """A comparative test against an NPC stand-in, else another character, else a value;
    it fails."""
    opponents = [c for c in table.stand_ins if c.pk != hero.pk] + [
        c for c in table.players if c.pk != hero.pk
    ]
    opponent = next((c for c in opponents if _values(c).get(attribute) is not None), None)
    if opponent is None:
        opposing = {"opponent": "value", "opponent_value": 10, "opponent_reason": "strażnik"}
    else:
        opposing = {"opponent": opponent.pk}
    case = table.case("comparative", hero, attribute=attribute, **opposing)
    table.roll(case, [_failure_face(engine.threshold(case.engine_test()).value)])


def _effect_test(table: _Table, hero: Character, own: list[int]) -> None:
    """An effect test that fails: the effect lasts a few minutes."""
    effect_attribute = next(
        (pk for pk in own if table.attributes[pk].name in ("Wytrzymałość", "Wola")), own[0]
    )
    difficulty = _difficulty_towards(_values(hero)[effect_attribute], 4, 14)
    case = table.case(
        "effect_test",
        hero,
        attribute=effect_attribute,
        effect="toksyczny dym: kaszel i łzawienie",
        unit="minutes",
        difficulty=difficulty,
    )
    threshold = engine.threshold(case.engine_test()).value
    table.roll(case, [min(threshold + 3, 19) if threshold + 3 <= 19 else 20])


def _skill_test(table: _Table, hero: Character, own: list[int]) -> None:
    """A skill test ending in a delay: a face one to three above the threshold."""
    skills = list(Skill.objects.filter(system=panel.SYSTEM, attribute_id__in=own).order_by("name"))
    if not skills:
        raise ValueError(f"no ciernie skill uses an attribute of {hero.name}")
    levels = {row.skill_id: row.level for row in hero.skill_levels.all()}
    skill = max(skills, key=lambda s: levels.get(s.pk, 0))
    factor = levels.get(skill.pk, 0) + 1  # one level short: −3, still rolled
    base = _values(hero)[skill.attribute_id] - 3
    difficulty = _difficulty_towards(base, 4, 15)
    case = table.case("skill", hero, skill=skill.pk, factor=factor, difficulty=difficulty)
    threshold = engine.threshold(case.engine_test()).value
    table.roll(case, [threshold + 2])


def _reroll(table: _Table) -> None:
    """A reroll chosen after the roll: the first roll fails (a roll of its own, kept as it
    fell), then the reroll, linked to it, decides (easier with more sources)."""
    rerolling = next((c for c in table.players if panel.reroll_sources(c)), None)
    if rerolling is None:
        raise ValueError("no demo character has a reroll source (an ability or item rerolls)")
    values = _values(rerolling)
    attribute = max(table.usable(rerolling), key=lambda pk: values[pk])
    case = table.case(
        "attribute",
        rerolling,
        attribute=attribute,
        difficulty=_difficulty_towards(values[attribute], 6, 14),
    )
    failed = table.roll(case, [_failure_face(engine.threshold(case.engine_test()).value)])
    case = rerolls.reroll_case(failed, [s["key"] for s in rerolls.offered_sources(failed)])
    test = case.engine_test()
    faces = [_success_face(engine.threshold(test.base, test.reroll_sources).value)]
    table.roll(case, faces, token=rerolls.reroll_token(failed))


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
