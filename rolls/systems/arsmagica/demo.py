"""The demo's Ars Magica rolls: every test, through the panel's own path.

`seed_arsmagica_rolls` fills the panel's forms as the GM would, takes their `Case` and rolls
it with `rolls.services.roll_make`, with scripted dice so the demo always shows the
same three stories: a simple die, a stress die that doubles, and a stress die that rolls 0
and checks its botch dice.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping

from characters.models import Attribute, Character, Skill
from rolls.engine.dice import ScriptedDice
from rolls.plugins import FormContext
from rolls.selectors import sheets_in_play
from rolls.services import roll_make
from rolls.systems.arsmagica import forms as panel_arsmagica


def _roll(
    session,
    gm,
    character: Character,
    pair: tuple[str, str | None],
    mode: str,
    fields: dict,
    faces: list[int],
):
    """Roll `pair` (Charakterystyka, Umiejętność or None) by the catalog's names; an ability
    the character has not developed counts 0, as in the panel."""
    playing = list(sheets_in_play(session).values())
    characteristic = Attribute.objects.get(system=panel_arsmagica.SYSTEM, name=pair[0])
    ability = Skill.objects.get(system=panel_arsmagica.SYSTEM, name=pair[1]) if pair[1] else None
    data = {
        "character": str(character.pk),
        "characteristic": str(characteristic.pk),
        "ability": "" if ability is None else str(ability.pk),
        **{key: value if isinstance(value, list) else str(value) for key, value in fields.items()},
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


# What the demo session's narration says (rolls/management/demo_systems.py): Magnus reads a
# Latin inscription, Wilhelm and Agnieszka climb the cliff in a strong wind (two botch dice).
READING = ("Inteligencja", "Łacina")
CLIMBING = ("Siła", "Atletyka")
CLIMBING_BOTCH_DICE = 2


def seed_arsmagica_rolls(session, characters: Mapping[str, Character], users: Mapping) -> list:
    """Magnus's simple roll on the inscription, Wilhelm's climb with a doubling (1, 1, 5:
    5 × 4 = 20) and his rope, and Agnieszka's climb that rolls 0 and botches on one of its
    two botch dice, all by the session's GM in the current turn; returns the three rolls.
    `characters`: the demo session's characters by key ("magnus", "wilhelm", "agnieszka")."""
    gm = users.get("gm", session.gm)
    keys = ("magnus", "wilhelm", "agnieszka")
    # The sheets as the panel reads them (values, levels, sources prefetched).
    sheets = sheets_in_play(session, ids=[characters[key].pk for key in keys])
    magnus, wilhelm, agnieszka = (sheets[characters[key].pk] for key in keys)
    rope = next(h.item for h in wilhelm.item_holdings.all() if h.item.name == "Lina z hakiem")
    return [
        _roll(session, gm, magnus, READING, "simple", {"ease": 9}, [7]),
        _roll(
            session,
            gm,
            wilhelm,
            CLIMBING,
            "stress",
            {"ease": 21, "botch_dice": CLIMBING_BOTCH_DICE, "sources": [f"item:{rope.pk}"]},
            [1, 1, 5],
        ),
        _roll(
            session,
            gm,
            agnieszka,
            CLIMBING,  # she has not learnt Atletyka: level 0, as the panel counts it
            "stress",
            {
                "ease": 9,
                "botch_dice": CLIMBING_BOTCH_DICE,
                "modifier_1": -2,
                "reason_1": "mokra, śliska skała",
            },
            [0, 4, 0],
        ),
    ]
