"""The demo's Ars Magica session, and its rolls: every test, through the panel's own path.

`SESSION` is the running session demo/systems/__init__.py builds (its plan, characters and
posts). `seed_arsmagica_rolls` fills the panel's forms as the GM would, takes their `Case`
and rolls it with `rolls.services.roll_make`, with scripted dice so the demo always shows
the same three stories: a simple die, a stress die that doubles, and a stress die that
rolls 0 and checks its botch dice.
"""

from __future__ import annotations

from collections.abc import Mapping

from characters.models import Attribute, Character, Skill
from demo.sheets import scripted_roll
from diary.models import NpcMode
from rolls.plugins import FormContext
from rolls.selectors import sheets_in_play
from rolls.systems.arsmagica import forms as panel_arsmagica

SESSION = {
    "title": "Ars Magica: Przymierze Cichej Wody",
    "description": "Sesja pokazowa Ars Magica: mag, towarzyszka i grog z przymierza.",
    "npc_mode": NpcMode.FIXED_MODIFIERS,
    "plan": "Przymierze **Cichej Wody** wysyła wyprawę do ruin klasztoru na klifie.\n\n"
    "1. Wspinaczka na klif przy silnym wietrze (Atletyka, kość stresu, dwie kości "
    "pecha).\n2. Łacińska inskrypcja w krypcie (Łacina, czynnik łatwości 9).\n"
    "3. Rozbójnicy w ruinach.",
    "characters": [
        (
            "magnus",
            "gracz",
            "Magnus z Bonisagusów",
            {
                "attributes": {
                    "Inteligencja": 3,
                    "Percepcja": 1,
                    "Siła": -1,
                    "Wytrzymałość": 0,
                    "Prezencja": 0,
                    "Komunikacja": 2,
                    "Zręczność": -1,
                    "Szybkość": 0,
                },
                "skills": {"Łacina": 5, "Sztuki wyzwolone": 3, "Czujność": 2},
                "description": "Mag przymierza; łacina to jego drugi oddech.",
            },
        ),
        (
            "wilhelm",
            "gracz2",
            "Wilhelm",
            {
                "attributes": {
                    "Inteligencja": -1,
                    "Percepcja": 0,
                    "Siła": 2,
                    "Wytrzymałość": 2,
                    "Prezencja": -1,
                    "Komunikacja": 0,
                    "Zręczność": 1,
                    "Szybkość": 1,
                },
                "skills": {"Walka bronią jednoręczną": 5, "Atletyka": 3, "Czujność": 2},
                "items": {"Lina z hakiem": 1},
                "description": "Grog przymierza, weteran spod Legnicy.",
            },
        ),
        (
            "agnieszka",
            "gracz3",
            "Agnieszka z Raciborza",
            {
                "attributes": {
                    "Inteligencja": 1,
                    "Percepcja": 1,
                    "Siła": 0,
                    "Wytrzymałość": 0,
                    "Prezencja": 3,
                    "Komunikacja": 2,
                    "Zręczność": 0,
                    "Szybkość": -1,
                },
                "skills": {"Przywództwo": 4, "Czujność": 3, "Łacina": 1},
                "traits": ["Wyostrzone zmysły", "Kulawy"],
                "description": "Towarzyszka maga, kasztelanka bez kasztelu.",
            },
        ),
    ],
    "posts": [
        (
            "gm",
            None,
            "Klif opada prosto do morza, a wiatr szarpie liną. Na górze czernieją ruiny.",
            "Tura 1: wspinaczka to rzut stresu; przy tym wietrze dwie kości pecha.",
        ),
        (
            "gracz2",
            "wilhelm",
            "Wilhelm wbija hak w szczelinę i zaczyna się wspinać.",
            "Atletyka, kość stresu.",
        ),
        (
            "gracz",
            "magnus",
            "Magnus zostaje na dole i wodzi palcem po zatartym napisie na głazie.",
            "Łacina: co tu napisano?",
        ),
        (
            "gracz3",
            "agnieszka",
            "Agnieszka podkasuje suknię i rusza po mokrej skale śladem Wilhelma.",
            "Wspinam się za nim (Siła + Atletyka, kość stresu).",
        ),
    ],
}


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
    return scripted_roll(session, form.case(), faces)


# What the demo session's narration says (SESSION above): Magnus reads a Latin
# inscription, Wilhelm and Agnieszka climb the cliff in a strong wind (two botch dice).
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
