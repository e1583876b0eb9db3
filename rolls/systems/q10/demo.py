"""Demo rolls of a running q10 session, through the panel's own form and service.

`seed_q10_rolls(session, characters, users)` is called by seed_demo once the session and
its characters exist (rolls/management/demo_systems.py makes them): the jump over the
chasm on Siła + Atletyka, as the narration says — a pool with a 10 (an extra die) and a
declared raise that is achieved, with a GM circumstance, and a second character's jump
that fails. The faces are scripted (ScriptedDice) so the demo
always shows the same thing; everything else is what the panel does.
"""

from __future__ import annotations

import uuid

from characters.models import Attribute, Skill
from diary.services import post_create
from rolls.engine import q10
from rolls.engine.dice import ScriptedDice
from rolls.plugins import FormContext
from rolls.selectors import sheets_in_play
from rolls.services import roll_make
from rolls.systems.q10.forms import ASK_FIELDS, LEVEL_NAMES, PoolForm

# Seed 001: "Za przeskoczenie ponad przepaścią odpowiada Siła i Atletyka"; the demo's
# narration is a jump over the chasm, so that is the pair its rolls test.
JUMP = ("Siła", "Atletyka")


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


def seed_q10_rolls(session, characters, users) -> list:
    """`characters`: the session's characters (a dict by name, or a list), `users`: the
    demo users by username ("gm" runs the session). Returns the rolls made."""
    gm = users["gm"]
    playing = list(characters.values() if isinstance(characters, dict) else characters)
    first = playing[0]
    post_create(
        session=session,
        author=first.owner,
        character=first,
        narration=f"{first.name} rozpędza się i próbuje przeskoczyć rozpadlinę jednym susem.",
        nc_note="Deklaruję jedno podbicie: chcę wylądować po drugiej stronie z gracją.",
    )
    # A 10 among the dice (an extra die) and a raise achieved.
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
    made = [
        roll_make(
            session=session,
            by=gm,
            case=form.case(),
            token=uuid.uuid4(),
            dice=ScriptedDice(faces),
        ).roll
    ]
    if len(playing) > 1:
        second = playing[1]
        post_create(
            session=session,
            author=second.owner,
            character=second,
            narration=f"{second.name} skacze tuż za nim, ale krawędź kruszy się pod stopą.",
            nc_note="Bez podbić.",
        )
        form = _form(session, gm, second, difficulty="25")
        x = q10.effective_pool(form.case().engine_test()).x
        made.append(
            roll_make(
                session=session,
                by=gm,
                case=form.case(),
                token=uuid.uuid4(),
                dice=ScriptedDice([3, 1, 4, 1, 5, 2, 6, 2, 3, 1][:x]),
            ).roll
        )
    return made
