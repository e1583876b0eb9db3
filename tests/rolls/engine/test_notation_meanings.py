"""What the notation means where players could read it two ways: a comparison after `!` (the
explosion's trigger, as in rpg-dice-roller), keep/drop after a one-part group (from its dice),
the suggestions offered with a refusal (each must mean what the text plainly meant), the
refusal of an expression that stops early (what is missing), and rolls stored before the
notation's version 2 (they recompute as they were read)."""

from __future__ import annotations

import json
import re
import uuid

import pytest
from django.utils import translation
from hypothesis import given, settings
from hypothesis import strategies as st

from rolls.engine import notation
from rolls.engine.dice import ScriptedDice
from rolls.engine.errors import RuleError
from rolls.engine.notation import exact_odds, parse_notation, roll_notation, value_range
from rolls.ledger import recompute
from rolls.messages import notation_error_message
from tests.rolls.engine.test_notation_features import enumerated


def rolled(text, faces) -> dict:
    dice = ScriptedDice(faces)
    data = roll_notation(parse_notation(text), dice).to_dict()
    assert dice.all_consumed, "every scripted face is used"
    assert recompute.recompute_problem({"result": data}, lambda r: False) is None
    return data


def refused(text) -> RuleError:
    with pytest.raises(RuleError) as error:
        parse_notation(text)
    return error.value


@pytest.fixture
def small_caps(monkeypatch):
    monkeypatch.setattr(notation, "EXPLOSION_CAP", 2)
    monkeypatch.setattr(notation, "REROLL_CAP", 2)


# ---------------------------------------------------------------------------
# A comparison straight after ! or !! is the explosion's trigger


def test_a_comparison_after_the_bang_is_the_trigger():
    data = rolled("1d6!>=5", [5, 6, 2])
    term = data["terms"][0]
    assert data["total"] == 13
    assert [d["exploded"] for d in term["dice"]] == [True, True, False]
    assert term["explode_on"] == {"compare": ">=", "value": 5}
    assert "success" not in term
    assert data["notation"] == "1d6!>=5"
    assert data["input"] == {"expression": "1d6!>=5", "version": notation.VERSION}


def test_successes_are_counted_only_after_the_trigger():
    data = rolled("2d6!>=5>=4", [5, 3, 1])
    term = data["terms"][0]
    assert term["explode_on"] == {"compare": ">=", "value": 5}
    assert term["success"] == {"compare": ">=", "value": 4}
    assert [(d["face"], d["success"]) for d in term["dice"]] == [(5, True), (3, False), (1, False)]
    assert data["total"] == 1
    # A count written before the ! stays a count; the ! then explodes on the highest face.
    before = rolled("1d6>=4!", [6, 2])
    assert "explode_on" not in before["terms"][0] and before["total"] == 1
    assert parse_notation(before["notation"]).terms == parse_notation("1d6>=4!").terms


def test_compounding_takes_a_trigger_too():
    data = rolled("2d6!!>=5", [5, 6, 1, 3])
    assert [d["kept"] for d in data["terms"][0]["dice"]] == [True, True, True, True]
    assert data["total"] == 15
    # `=3` on a d3 is its highest face: the plain explosion, stored as such.
    assert parse_notation("3d3!!=3").terms == parse_notation("3d3!!").terms
    assert rolled("3d3!!=3", [3, 1, 2, 2])["total"] == 8


def test_a_glued_bang_equals_is_a_trigger_and_a_spaced_one_is_refused():
    assert rolled("1d6!=3", [3, 3, 1])["total"] == 7
    error = refused("1d6 != 3")
    assert (error.code, error.params["hint"]) == ("notation_syntax", "not_equal")


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("1d6!>=1", "notation_explode_all"),  # every face explodes: the chain never ends
        ("1d6!>=2r1", "notation_explode_all"),  # every face a die keeps explodes
        ("1d6!r<6", "notation_explode_all"),
        ("1d6!>6", "notation_explode_none"),
        ("1d6!!=7", "notation_explode_none"),
        ("4dF!>=1", "notation_fate_explode"),
    ],
)
def test_triggers_that_cannot_work_are_refused(text, code):
    error = refused(text)
    assert error.code == code
    assert error.params["position"] == text.index("!") + 1 or code == "notation_fate_explode"


TRIGGERED = [
    "1d6!>=5",
    "2d4!<=1",
    "2d4!=2",
    "1d6!>=5>=4",
    "2d4!>=3>=4f1",
    "2d4!>=3kh1",
    "3d4!=2kl2",
    "2d4!>2dh1",
    "2d3!<3dl1",
    "3d4!<=2kh2",
    "2d4!!>=3",
    "2d4!!>=3kh1",
    "2d4!!<2>=5",
    "1d4!>=3r1",
    "2d4!<=2ro1",
]


@pytest.mark.parametrize("text", TRIGGERED)
def test_triggered_odds_equal_brute_force(small_caps, text):
    odds = exact_odds(parse_notation(text))
    assert odds.distribution == enumerated(text)


@pytest.mark.parametrize("text", [*TRIGGERED, "2d4!<=2", "1d6!<=2", "3d6!<=2dl1", "2d4!>=4<=2"])
def test_the_range_of_triggered_dice_is_their_odds_span(small_caps, text):
    odds = exact_odds(parse_notation(text))
    assert value_range(parse_notation(text)) == (odds.low, odds.high)


@pytest.mark.parametrize(
    "text",
    ["1d6>=4!", "2d4>=5!!", "1d6>=4f1!", "1d6!r1>=4", "1d6!>=5>=4f1", "2d6!!>4<3", "{4d10!}kl1",
     "1d6>=4!r2", "3d6!=6>=5[ogień]"],
)  # fmt: skip
def test_the_canonical_text_reads_back_the_same(text):
    parsed = parse_notation(text)
    assert parse_notation(parsed.canonical).terms == parsed.terms


@st.composite
def triggered(draw) -> str:
    count = draw(st.integers(1, 6))
    faces = draw(st.sampled_from([2, 3, 4, 6, 10]))
    bang = draw(st.sampled_from(["!", "!!"]))
    op = draw(st.sampled_from(["=", "<", "<=", ">", ">="]))
    trigger = f"{op}{draw(st.integers(1, faces))}"
    after = draw(st.sampled_from(["", "r1", "ro2", ">=3", "<2f1", "kh1", "kl2", "dh1", "dl1"]))
    return f"{count}d{faces}{bang}{trigger}{after}"


@settings(deadline=None, derandomize=True, max_examples=300)
@given(triggered(), st.integers(0, 2**32))
def test_every_triggered_total_is_in_the_range(text, seed):
    from rolls.engine.dice import RandomDice

    try:
        parsed = parse_notation(text)
    except RuleError:
        return
    low, high = value_range(parsed)
    data = roll_notation(parsed, RandomDice(seed)).to_dict()
    assert low <= data["total"] <= high
    for die in data["terms"][0]["dice"]:
        if not die.get("rerolled"):
            assert die["exploded"] or die["capped"] or not parsed.terms[0].explodes(die["face"])


def test_the_preview_says_the_trigger():
    from rolls.presenters import notation_summary

    with translation.override("pl"):
        words = notation_summary(parse_notation("2d6!>=5>=4"))
    assert "wybuchające przy ≥ 5" in words and "liczy kości ≥ 4" in words


# ---------------------------------------------------------------------------
# Keep/drop after a one-part group keeps from its dice (rpg-dice-roller)


def test_a_one_part_group_keeps_from_its_dice():
    data = rolled("{4d10}kl1", [3, 5, 1, 8])
    assert data["total"] == 1
    assert data["notation"] == "4d10kl1"
    assert [d["kept"] for d in data["terms"][0]["dice"]] == [False, False, True, False]
    assert parse_notation("{4d6!}kh3").terms == parse_notation("4d6!kh3").terms
    assert exact_odds(parse_notation("{2d20}kh1")) == exact_odds(parse_notation("2d20kh1"))


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("{4d10+2}kl1", "notation_group_one_part"),
        ("{1d6*2}kh1", "notation_group_one_part"),
        ("{-4d6}kh1", "notation_group_one_part"),
        ("{4d6kh3}kh1", "notation_group_one_part"),
        ("{4d6>=5}kh1", "notation_group_one_part"),
        ("{4d10}dl4", "notation_selection"),
    ],
)
def test_a_one_part_group_it_cannot_keep_from_is_refused(text, code):
    error = refused(text)
    assert error.code == code
    if code == "notation_group_one_part":
        assert error.params["position"] == text.index("}") + 2
        with translation.override("pl"):
            assert "jednej części" in notation_error_message(error)


# ---------------------------------------------------------------------------
# An expression that stops early says what is missing


@pytest.mark.parametrize(
    ("text", "missing", "after", "polish"),
    [
        ("2d", "faces", "", "brakuje liczby ścianek kości"),
        ("d20+", "term", "+", "po „+” brakuje liczby albo kości"),
        ("1d6 *", "term", "*", "po „*” brakuje liczby albo kości"),
        ("-", "term", "-", "po „-” brakuje liczby albo kości"),
        ("1d6>=", "number", ">=", "po „>=” brakuje liczby"),
        ("1d6r", "number", "r", "po „r” brakuje liczby"),
        ("4d10>=8f", "number", "f", "po „f” brakuje liczby"),
        ("1d6!>", "number", ">", "po „>” brakuje liczby"),
    ],
)
def test_an_early_end_says_what_is_missing(text, missing, after, polish):
    error = refused(text)
    assert error.code == "notation_incomplete"
    assert (error.params["missing"], error.params["after"]) == (missing, after)
    with translation.override("pl"):
        message = notation_error_message(error)
    assert polish in message and "czegoś brakuje" not in message


# ---------------------------------------------------------------------------
# A suggestion means what the text plainly meant, or is not made


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        # Letters glued between digits: dropping them would glue the digits into another die.
        ("2d6max3", None),
        ("10d6mi6", None),
        ("d6maxd6", None),
        ("4d6kh3max", None),
        # A comparison glued to a word belongs to the word, not to the dice.
        ("1d8cf<4", None),
        ("1d20adv", None),
        # A word standing apart is a label.
        ("hit 1d20", "1d20[hit]"),
        ("1d20 hit", "1d20[hit]"),
        ("2d6x2", "2d6*2"),
        ("1d6 1d6", "1d6 + 1d6"),
        ("1d6=>5", "1d6>=5"),
        ("1d6!=>5", "1d6!>=5"),
        ("1d6==5", "1d6=5"),
        ("(1d6, 1d6)kh1", "{1d6, 1d6}kh1"),
        ("{1d6, 1d6)kh1", "{1d6, 1d6}kh1"),
        ("1d6\t+1", "1d6+1"),
        # Every bracket closed, innermost first, and only a spelling that reads.
        ("((1d6", "((1d6))"),
        ("({1d6", "({1d6})"),
        ("{(1d6", "{(1d6)}"),
        ("(1d6[ogień", "(1d6[ogień])"),
        ("(1d6+", None),
        ("{1d6,", None),
    ],
)
def test_a_suggestion_means_what_was_meant(text, meant):
    error = refused(text)
    suggestion = error.params.get("suggestion", "")
    if meant is None:
        assert suggestion == ""
    else:
        assert parse_notation(suggestion).terms == parse_notation(meant).terms


_DIE = re.compile(r"(\d*)\s*[dk]\s*(\d+|%|f)", re.IGNORECASE)


def written_dice(text: str) -> list[tuple[str, str]]:
    """The dice as written in the text, (count, faces) as typed; a [label]'s words aside."""
    outside_labels = re.sub(r"\[[^\]]*\]?", " ", text)
    return [(count or "1", faces.lower()) for count, faces in _DIE.findall(outside_labels)]


TOKENS = ["1d6", "2d6", "d20", "4dF", "3", "10", "max", "mi", "cf", "hit", "x", "kh1", "!", ">=",
          "<", "4", "d6", " ", "+", "(", ")", "{", "}", ",", "[", "]", "=>", "\t", "e"]  # fmt: skip
# Words other rollers glue to the dice (rpg-dice-roller's min, max, cs, cf, sorting, unique).
GLUED = st.tuples(
    st.sampled_from(["2d6", "10d6", "d6", "1d8", "4d6kh3", "1d20"]),
    st.sampled_from(["max", "min", "mi", "cs", "cf", "sa", "sd", "u", "adv", "x", "maxd"]),
    st.sampled_from(["", "3", "6", "<4", ">=5", "d6", "=2", "!", " + 1"]),
).map("".join)


@settings(deadline=None, derandomize=True, max_examples=400)
@given(st.one_of(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=7).map("".join), GLUED))
def test_every_suggestion_keeps_the_dice_as_written(text):
    try:
        parse_notation(text)
    except RuleError as error:
        suggestion = error.params.get("suggestion", "")
        if suggestion:
            parsed = parse_notation(suggestion)
            as_rolled = [(str(t.count), "f" if t.fate else str(t.faces)) for t in parsed.dice_terms]
            assert as_rolled == written_dice(text), (text, suggestion)
            # Nothing glued to a refused word becomes a count, a keep or a trigger of the dice.
            for compare in re.findall(r"[a-z]+([<>=]+\d+)", text):
                assert compare not in suggestion, (text, suggestion)


# ---------------------------------------------------------------------------
# Rolls stored before version 2 recompute as they were read


# A record of `2d4!>=4` as the site stored it before (tests/rolls/vectors, before version 2).
OLD_RECORD = {
    "system": "free",
    "test": "notation",
    "input": {"expression": "2d4!>=4"},
    "notation": "2d4!>=4",
    "dice": [4, 2, 1],
    "terms": [
        {
            "kind": "dice", "sign": 1, "count": 2, "faces": 4, "explode": True,
            "selection": None, "selection_count": None,
            "success": {"compare": ">=", "value": 4},
            "dice": [
                {"face": 4, "kept": True, "exploded": True, "extra": False, "capped": False,
                 "success": True, "failure": False},
                {"face": 2, "kept": True, "exploded": False, "extra": True, "capped": False,
                 "success": False, "failure": False},
                {"face": 1, "kept": True, "exploded": False, "extra": False, "capped": False,
                 "success": False, "failure": False},
            ],
            "subtotal": 1,
        }
    ],
    "total": 1,
}  # fmt: skip


def test_a_roll_stored_before_version_2_recomputes_as_it_was_read():
    assert recompute.recompute_problem({"result": OLD_RECORD}, lambda r: False) is None
    forged = json.loads(json.dumps(OLD_RECORD))
    forged["input"]["version"] = notation.VERSION  # read as now, the same dice differ
    assert recompute.recompute_problem({"result": forged}, lambda r: False) is not None
    legacy = parse_notation("{4d10}kl1", version=1)
    assert roll_notation(legacy, ScriptedDice([3, 5, 1, 8])).total == 17
    assert legacy.to_input() == {"expression": "{4d10}kl1"}


@pytest.mark.parametrize("version", [0, 3, "2", True, None])
def test_an_unknown_version_is_refused(version):
    with pytest.raises(RuleError) as error:
        notation.parse_test("notation", {"expression": "1d6", "version": version})
    assert error.value.code == "invalid_input"


@pytest.mark.django_db
def test_a_session_with_rolls_of_both_versions_verifies(table, monkeypatch):
    from rolls.free import services as free_rolls
    from rolls.ledger import verify as ledger

    def roll(expression, faces):
        return free_rolls.roll_make_free(
            session=table.session,
            by=table.gm,
            free=free_rolls.FreeRoll(expression=expression, label="Łup"),
            token=uuid.uuid4(),
            dice=ScriptedDice(faces),
        ).roll

    with monkeypatch.context() as before:
        before.setattr(notation, "VERSION", 1)  # the site as it was
        old = roll("1d6!>=4", [6, 2])
        old_group = roll("{4d10}kl1", [3, 5, 1, 8])
    new = roll("1d6!>=4", [6, 2])
    assert (old.record["result"]["total"], new.record["result"]["total"]) == (1, 8)
    assert old_group.record["result"]["total"] == 17
    assert "version" not in old.record["result"]["input"]
    assert new.record["result"]["input"]["version"] == notation.VERSION
    assert ledger.verify_session(table.session.pk, recompute=True).ok
