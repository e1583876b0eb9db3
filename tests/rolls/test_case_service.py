"""rolls.services.roll_make for a case system's roll (q10's pool): roll_make's guarantees,
in the same chain as every other row."""

import dataclasses
import importlib.util
import json
import uuid
from pathlib import Path

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from diary.models import Post
from diary.services import post_create
from rolls import services
from rolls.engine import systems
from rolls.engine.dice import ScriptedDice
from rolls.engine.errors import RuleError
from rolls.entries import services as entries
from rolls.ledger import verify as ledger
from rolls.models import AskStatus, Roll, RollAsk
from rolls.plugins import Case

pytestmark = pytest.mark.django_db


def pool_case(character, *, raises=0, difficulty=15, modifiers=(), gm_typed=False, **extra):
    return Case(
        system="q10",
        mode="pool",
        test="pool",
        input={
            "attribute": 3,
            "skill": 2,
            "pool_modifiers": list(modifiers),
            "difficulty": difficulty,
            "circumstances": [],
            "raises": raises,
        },
        people={"a": character.pk},
        what="Siła + Atletyka",
        gm_typed=gm_typed,
        **extra,
    )


def make(t, case, *, by=None, token=None, faces=(5, 9, 6, 10, 3, 2), **kwargs):
    return services.roll_make(
        session=t.session,
        by=by or t.gm,
        case=case,
        token=token or uuid.uuid4(),
        dice=ScriptedDice(faces),
        **kwargs,
    )


def test_a_pool_roll_stores_the_engines_case_and_recomputes(q10):
    made = make(q10, pool_case(q10.eryk, raises=1))
    roll = made.roll
    assert made.created
    assert (roll.seq, roll.system, roll.test, roll.character, roll.is_action) == (
        1,
        "q10",
        "pool",
        q10.eryk,
        True,
    )
    record = roll.record
    result = record["result"]
    assert record["kind"] == "pool"
    assert record["what"] == "Siła + Atletyka"
    assert record["characters"]["a"]["name"] == "Eryk"
    # Seed 001's example: 5z2 → 5, 9, 6, 10, 3, extra 2 → 10 + 9 + 2 = 21 ≥ 15 + 5 (a raise).
    assert (result["system"], result["test"]) == ("q10", "pool")
    assert result["dice"] == [5, 9, 6, 10, 3, 2]
    assert (result["total"], result["difficulty"], result["raises_achieved"]) == (21, 20, 1)
    # Anyone recomputes it from the record alone.
    test = systems.parse_test(result["system"], result["test"], result["input"])
    again = systems.roll(result["system"], test, ScriptedDice(result["dice"]))
    assert again.to_dict() == result
    assert roll.hash == ledger.chain_hash(roll.prev_hash, record)


def test_the_chain_is_one_across_case_rolls_and_diary_entries(q10):
    make(q10, pool_case(q10.eryk))
    entries.damage_deal(
        session=q10.session,
        by=q10.gm,
        character_id=q10.runa.pk,
        delta=-3,
        reason="Cios pałką",
        token=uuid.uuid4(),
        digest="d",
    )
    make(q10, pool_case(q10.runa), faces=(1, 2, 3, 4, 5))
    rows = list(Roll.objects.filter(session=q10.session).order_by("seq"))
    assert [r.seq for r in rows] == [1, 2, 3]
    assert [r.test for r in rows] == ["pool", "hp", "pool"]
    assert rows[1].prev_hash == rows[0].hash and rows[2].prev_hash == rows[1].hash
    report = ledger.verify_session(q10.session.pk)
    assert report.ok and report.count == 3 and report.head_hash == rows[2].hash


def test_verify_rolls_and_the_standalone_script_check_case_rolls(q10, client, tmp_path):
    from django.core.management import call_command

    make(q10, pool_case(q10.eryk))
    make(q10, pool_case(q10.runa), faces=(10, 10, 1, 2, 3, 7, 4))
    call_command("verify_rolls", session=q10.session.pk)  # exits 1 on a break
    client.force_login(q10.gm)
    exported = client.get(f"/sessions/{q10.session.pk}/rolls/ledger.json")
    path = tmp_path / "ledger.json"
    path.write_bytes(exported.content)
    spec = importlib.util.spec_from_file_location(
        "verify_ledger", Path(__file__).resolve().parents[2] / "docs" / "verify_ledger.py"
    )
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.main([str(path)]) == 0
    # A changed face breaks it.
    data = json.loads(exported.content)
    data["rolls"][1]["record"]["result"]["dice"][0] = 9
    path.write_text(json.dumps(data))
    assert script.main([str(path)]) == 1


def test_a_repeated_token_answers_with_its_roll(q10):
    token = uuid.uuid4()
    first = make(q10, pool_case(q10.eryk), token=token)
    again = make(q10, pool_case(q10.eryk), token=token, faces=(1, 1, 1, 1, 1))
    assert (first.created, again.created) == (True, False)
    assert again.roll == first.roll
    assert Roll.objects.count() == 1


def test_the_same_token_with_other_inputs_is_refused(q10):
    token = uuid.uuid4()
    make(q10, pool_case(q10.eryk), token=token)
    with pytest.raises(services.TokenReused):
        make(q10, pool_case(q10.eryk, raises=2), token=token)
    assert Roll.objects.count() == 1


@pytest.mark.parametrize(
    "change",
    [{"raises": -1}, {"difficulty": -5}, {"modifiers": [{"dice": "x", "keep": 0}]}],
)
def test_bad_input_stores_nothing(q10, change):
    posts = Post.objects.count()
    with pytest.raises(RuleError):
        make(q10, pool_case(q10.eryk, **change))
    assert Roll.objects.count() == 0
    assert Post.objects.count() == posts  # no post made for a roll that was refused


def test_who_may_roll(q10_players_own):
    t = q10_players_own
    made = make(t, pool_case(t.eryk), by=t.alice)
    assert made.roll.rolled_by == t.alice
    with pytest.raises(PermissionDenied):  # another player's character
        make(t, pool_case(t.runa), by=t.alice)
    with pytest.raises(PermissionDenied):  # typed modifiers are the GM's
        make(t, pool_case(t.eryk, gm_typed=True), by=t.alice)
    with pytest.raises(PermissionDenied):  # an outsider
        make(t, pool_case(t.eryk), by=t.outsider)
    with pytest.raises(PermissionDenied):  # a mode q10 does not have
        make(t, dataclasses.replace(pool_case(t.eryk), mode="stress"))
    with pytest.raises(PermissionDenied):  # another system's case in this session
        make(t, dataclasses.replace(pool_case(t.eryk), system="ciernie"))
    assert Roll.objects.count() == 1


def test_the_gm_only_session_refuses_players(q10):
    with pytest.raises(PermissionDenied):
        make(q10, pool_case(q10.eryk), by=q10.alice)


def test_a_second_action_roll_is_counted_not_refused(q10):
    make(q10, pool_case(q10.eryk))
    second = make(q10, pool_case(q10.eryk)).roll
    assert second.record["action_count"] == {"number": 2, "earlier_seq": 1}


def _ask(t, *, fields, post=None):
    post = post or post_create(
        session=t.session, author=t.alice, character=t.eryk, narration="Skaczę!", nc_note=""
    )
    return RollAsk.objects.create(
        session=t.session,
        post=post,
        asked_by=t.alice,
        character=t.eryk,
        test="pool",
        case_fields=fields,
        summary="Eryk: Siła + Atletyka",
    )


def test_an_answer_rolls_what_was_asked_in_its_own_post(q10):
    fields = {"character": str(q10.eryk.pk), "raises": "1"}
    ask = _ask(q10, fields=fields)
    made = make(q10, pool_case(q10.eryk, raises=1, request_fields=fields), answers=ask)
    ask.refresh_from_db()
    assert ask.status == AskStatus.ANSWERED and ask.answer == made.roll
    assert made.roll.post != ask.post and made.roll.post.author == q10.gm
    answers = made.roll.record["answers"]
    assert answers == {"ask": ask.pk, "post": ask.post_id, "summary": ask.summary}


def test_an_answer_rolling_something_else_needs_a_reason(q10):
    ask = _ask(q10, fields={"character": str(q10.eryk.pk), "raises": "1"})
    other = {"character": str(q10.eryk.pk), "raises": "0"}
    with pytest.raises(ValidationError) as refused:  # the GM's judgment, said why
        make(q10, pool_case(q10.eryk, request_fields=other), answers=ask)
    assert "answer_note" in refused.value.error_dict
    with pytest.raises(PermissionDenied):  # only the GM answers
        make(q10, pool_case(q10.eryk), answers=ask, by=q10.alice)
    ask.refresh_from_db()
    assert ask.is_open and Roll.objects.count() == 0
    made = make(
        q10,
        pool_case(q10.eryk, request_fields=other),
        answers=ask,
        answer_note="Bez rozbiegu nie ma podbicia.",
    )
    ask.refresh_from_db()
    assert ask.status == AskStatus.ANSWERED_DIFFERENTLY and ask.answer == made.roll
    assert ask.note == "Bez rozbiegu nie ma podbicia."
    answers = made.roll.record["answers"]
    assert (answers["ask"], answers["summary"]) == (ask.pk, ask.summary)
    assert answers["rolled"] == "Siła + Atletyka (5z2)"  # in words; the case names no one
    assert answers["note"] == "Bez rozbiegu nie ma podbicia."
