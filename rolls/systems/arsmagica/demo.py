"""The demo's Ars Magica rolls: every test, through the panel's own path.

`seed_arsmagica_rolls` fills the panel's forms as the GM would, takes their `Case` and rolls
it with `rolls.services.roll_make`, with scripted dice so the demo always shows the
same three stories: a simple die, a stress die that doubles, and a stress die that rolls 0
and checks its botch dice.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence

from characters.models import Character
from rolls.engine.dice import ScriptedDice
from rolls.plugins import FormContext
from rolls.selectors import sheets_in_play
from rolls.services import roll_make
from rolls.systems.arsmagica import forms as panel_arsmagica


def _strongest(character: Character) -> tuple[int, int | None]:
    """The sheet's best characteristic and its best ability (None: the sheet has none)."""
    values = sorted(character.attribute_values.all(), key=lambda r: (-r.value, r.attribute_id))
    levels = sorted(character.skill_levels.all(), key=lambda r: (-r.level, r.skill_id))
    return values[0].attribute_id, levels[0].skill_id if levels else None


def _roll(session, gm, character: Character, mode: str, fields: dict, faces: list[int]):
    playing = list(sheets_in_play(session).values())
    characteristic, ability = _strongest(character)
    data = {
        "character": str(character.pk),
        "characteristic": str(characteristic),
        "ability": "" if ability is None else str(ability),
        **{key: str(value) for key, value in fields.items()},
    }
    form = panel_arsmagica.make_form(
        mode,
        data,
        FormContext(characters=playing, all_characters=playing, gm=True, session=session),
    )
    if not form.is_valid():
        raise ValueError(f"the demo's {mode} roll is refused: {form.errors.as_json()}")
    return roll_make(
        session=session,
        by=gm,
        case=form.case(),
        token=uuid.uuid4(),
        dice=ScriptedDice(faces),
    ).roll


def seed_arsmagica_rolls(
    session, characters: Mapping[str, Character] | Sequence[Character], users: Mapping
) -> list:
    """A simple roll, a stress roll with a doubling (1, 1, 5: 5 × 4 = 20) and a stress roll
    that rolls 0 and botches on one of its two botch dice, all by the session's GM in the
    current turn; returns the three rolls."""
    people = list(characters.values() if isinstance(characters, Mapping) else characters)
    gm = users.get("gm", session.gm) if isinstance(users, Mapping) else session.gm
    first = people[0]
    second = people[1] if len(people) > 1 else first
    # The sheets as the panel reads them (values, levels, sources prefetched).
    sheets = sheets_in_play(session, ids=[first.pk, second.pk])
    first, second = sheets[first.pk], sheets[second.pk]
    return [
        _roll(session, gm, first, "simple", {"ease": 6}, [7]),
        _roll(
            session,
            gm,
            second,
            "stress",
            {"ease": 21, "botch_dice": 1, "modifier_1": 1, "reason_1": "aura przymierza"},
            [1, 1, 5],
        ),
        _roll(
            session,
            gm,
            first,
            "stress",
            {"ease": 12, "botch_dice": 2, "modifier_1": -2, "reason_1": "śliska skała w deszczu"},
            [0, 4, 0],
        ),
    ]
