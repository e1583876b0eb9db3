"""The demo's q10 session, and its rolls through the panel's own form and service.

`SESSION` is the running session demo/systems/__init__.py builds (its plan, characters and
posts). `seed_q10_rolls(session, characters, users)` is called by seed_demo once the session
and its characters exist: the jump over the chasm on Siła + Atletyka, as the narration
says — a pool with a 10 (an extra die) and a declared raise that is achieved, with a GM
circumstance, and a second character's jump that fails. The faces are scripted
(ScriptedDice) so the demo always shows the same thing; everything else is what the panel
does.
"""

from __future__ import annotations

from characters.models import Attribute, Skill
from demo.sheets import scripted_roll
from diary.models import NpcMode
from diary.services import post_create
from rolls.engine import q10
from rolls.plugins import FormContext
from rolls.selectors import sheets_in_play
from rolls.systems.q10.forms import ASK_FIELDS, LEVEL_NAMES, PoolForm

SESSION = {
    "title": "Shur'tugal: Jaja w Kośćcu",
    "description": "Sesja pokazowa Q10 (pule XzY): trzech śmiałków rusza w góry Kościec.",
    "npc_mode": NpcMode.FIXED_MODIFIERS,
    "plan": "Trójka młodych śmiałków szuka w górach **Kościec** skradzionego smoczego "
    "jaja.\n\n1. Przełęcz i przepaść (Atletyka, Trudność 20).\n"
    "2. Strażnicy Urgali przy jaskini (Walka wręcz, Blef).\n"
    "3. Starożytna inskrypcja na wrotach (Wiedza, Trudność 25).",
    "characters": [
        (
            "eragon",
            "gracz",
            "Eragon",
            {
                "attributes": {"Siła": 3, "Zręczność": 3, "Mądrość": 2, "Charyzma": 2},
                "skills": {"Walka wręcz": 2, "Atletyka": 2, "Łucznictwo": 3, "Magia": 1},
                "traits": ["Wprawny szermierz"],
                "description": "Młody łowca z Carvahall. Siła 3 i Walka wręcz 2: pula 5z2.",
            },
        ),
        (
            "arya",
            "gracz2",
            "Arya",
            {
                "attributes": {"Siła": 2, "Zręczność": 4, "Mądrość": 4, "Charyzma": 3},
                "skills": {"Magia": 3, "Łucznictwo": 2, "Wiedza": 3, "Otwieranie zamków": 2},
                "traits": ["Sokole oko"],
                "items": {"Wytrychy": 1},
                "description": "Elfia wysłanniczka, zna stare zaklęcia i stare zamki.",
                "grammatical_gender": "feminine",
            },
        ),
        (
            "murtagh",
            "gracz3",
            "Murtagh",
            {
                "attributes": {"Siła": 4, "Zręczność": 3, "Mądrość": 2, "Charyzma": 3},
                "skills": {"Walka wręcz": 3, "Blef": 2, "Atletyka": 1},
                "description": "Syn zdrajcy; mieczem włada lepiej niż słowem.",
            },
        ),
    ],
    "posts": [
        (
            "gm",
            None,
            "Wiatr gwiżdże na przełęczy. Przed wami **przepaść** szeroka na trzy kroki, "
            "a za nią ścieżka do jaskini.",
            "Tura 1: Trudność skoku 20 (niełatwy). Deklarujcie Podbicia przed rzutem.",
        ),
        (
            "gracz",
            "eragon",
            "Eragon cofa się kilka kroków, bierze rozbieg i skacze.",
            "Atletyka, deklaruję jedno Podbicie: chcę wylądować cicho.",
        ),
        (
            "gracz2",
            "arya",
            "Arya przygląda się runom wyrytym przy ścieżce.",
            "Wiedza: co mówią runy?",
        ),
    ],
}

# Seed 001: "Za przeskoczenie ponad przepaścią odpowiada Siła i Atletyka"; the demo's
# narration is a jump over the chasm, so that is the pair its rolls test.
JUMP = ("Siła", "Atletyka")


def seed_q10_rolls(session, characters, users) -> list:
    """`characters`: the session's characters (a dict by name, or a list), `users`: the
    demo users by username ("gm" runs the session). Returns the rolls made."""
    gm = users["gm"]
    playing = list(characters.values() if isinstance(characters, dict) else characters)
    made = [_the_first_jump(session, gm, playing[0])]
    if len(playing) > 1:
        made.append(_the_second_jump(session, gm, playing[1]))
    return made


def _the_first_jump(session, gm, first):
    """A 10 among the dice (an extra die) and a raise achieved."""
    post_create(
        session=session,
        author=first.owner,
        character=first,
        narration=f"{first.name} rozpędza się i próbuje przeskoczyć rozpadlinę jednym susem.",
        nc_note="Deklaruję jedno podbicie: chcę wylądować po drugiej stronie z gracją.",
    )
    probe = _form(session, gm, first).case()
    pool = q10.effective_pool(probe.engine_test())
    faces = [10] + [9] * (pool.x - 1) + [2]
    total = 10 + 9 * (pool.y - 1) + 2
    circumstance = 5
    fitting = [level for level in LEVEL_NAMES if level + circumstance + q10.RAISE_STEP <= total]
    difficulty = max(fitting) if fitting else max(0, total - circumstance - q10.RAISE_STEP)
    form = _form(
        session,
        gm,
        first,
        difficulty=str(difficulty),
        raises="1",
        circumstance_1=str(circumstance),
        circumstance_reason_1="Śliska, omszała krawędź",
    )
    return scripted_roll(session, form.case(), faces)


def _the_second_jump(session, gm, second):
    """Against difficulty 25, with low faces: it fails."""
    post_create(
        session=session,
        author=second.owner,
        character=second,
        narration=f"{second.name} skacze tuż za nim, ale krawędź kruszy się pod stopą.",
        nc_note="Bez podbić.",
    )
    form = _form(session, gm, second, difficulty="25")
    x = q10.effective_pool(form.case().engine_test()).x
    return scripted_roll(session, form.case(), [3, 1, 4, 1, 5, 2, 6, 2, 3, 1][:x])


def _jump_pair() -> tuple[int, int]:
    attribute_name, skill_name = JUMP
    attribute = Attribute.objects.get(system=q10.SYSTEM, name=attribute_name)
    skill = Skill.objects.get(system=q10.SYSTEM, name=skill_name)
    return attribute.pk, skill.pk


def _form(session, gm, character, **fields) -> PoolForm:
    playing = list(sheets_in_play(session).values())
    attribute_id, skill_id = _jump_pair()
    data = {
        "character": character.pk,
        "attribute": attribute_id,
        "skill": skill_id,
        "difficulty": "15",
        "raises": "0",
        **fields,
    }
    context = FormContext(characters=playing, all_characters=playing, gm=True, session=session)
    form = PoolForm(data, context=context, ask_fields=ASK_FIELDS)
    if not form.is_valid():
        raise ValueError(f"demo q10 roll refused: {form.errors.as_json()}")
    return form
