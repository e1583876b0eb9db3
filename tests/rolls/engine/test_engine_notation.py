"""Free-form dice notation: parsing, limits, every die shown, replay from the dice."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rolls.engine import notation, systems
from rolls.engine.conformance import run_case
from rolls.engine.dice import DiceExhausted, FaceOutOfRange, RandomDice, ScriptedDice
from rolls.engine.errors import RuleError
from rolls.engine.notation import (
    EXPLOSION_CAP,
    MAX_CONSTANT,
    MAX_DICE,
    MAX_FACES,
    MAX_LENGTH,
    parse_notation,
    roll_notation,
)
from rolls.ledger import recompute

PROPERTY = settings(deadline=None, derandomize=True, max_examples=200)


def rolled(text, faces):
    dice = ScriptedDice(faces)
    result = roll_notation(parse_notation(text), dice)
    assert dice.all_consumed, "every scripted face is used"
    return result


def dice_of(result, term=0):
    return result.to_dict()["terms"][term]["dice"]


def refused(text) -> RuleError:
    with pytest.raises(RuleError) as error:
        parse_notation(text)
    return error.value


# ---------------------------------------------------------------------------
# Exact results with fixed dice, every operator


@pytest.mark.parametrize(
    ("text", "faces", "total", "canonical"),
    [
        ("2d6", [3, 5], 8, "2d6"),
        ("d20", [17], 17, "1d20"),
        ("D20", [17], 17, "1d20"),
        ("2k6+1", [6, 2], 9, "2d6 + 1"),  # Polish: k(ość) for the die
        ("k100", [42], 42, "1d100"),
        ("d%", [100], 100, "1d100"),
        ("1d8+3", [4], 7, "1d8 + 3"),
        ("1d8-3", [2], -1, "1d8 - 3"),
        ("-1d4+10", [3], 7, "-1d4 + 10"),
        ("+1d4", [3], 3, "1d4"),
        ("1d6--1", [3], 4, "1d6 + 1"),
        ("1d20 + 1d6 - 1d4", [11, 6, 4], 13, "1d20 + 1d6 - 1d4"),
        ("2d10-(1d4+1)", [7, 8, 3], 11, "2d10 - 1d4 - 1"),
        ("-(1d6-2)", [5], -3, "-1d6 + 2"),
        ("((1d6))", [5], 5, "1d6"),
        ("  3 d 6 + 2  ", [1, 2, 3], 8, "3d6 + 2"),
        ("3 + 1d6", [2], 5, "3 + 1d6"),
        ("4d6kh3", [3, 6, 1, 5], 14, "4d6kh3"),
        ("4d6kl1", [3, 6, 1, 5], 1, "4d6kl1"),
        ("4d6dh1", [3, 6, 1, 5], 9, "4d6dh1"),
        ("4d6dl1", [3, 6, 1, 5], 14, "4d6dl1"),
        ("2d20kh1+5", [4, 18], 23, "2d20kh1 + 5"),
        ("2d20KL1", [4, 18], 4, "2d20kl1"),
        ("1d6!", [6, 6, 2], 14, "1d6!"),
        ("2d6!", [6, 1, 3], 10, "2d6!"),
        ("3d6!kh2", [6, 4, 2, 5], 11, "3d6!kh2"),
    ],
)
def test_exact_results(text, faces, total, canonical):
    result = rolled(text, faces)
    data = result.to_dict()
    assert data["total"] == total == result.total
    assert data["notation"] == canonical
    assert data["dice"] == faces
    assert data["system"] == "free" and data["test"] == "notation"
    assert data["input"] == {"expression": text.strip(), "version": notation.VERSION}


def test_every_die_is_marked_kept_or_dropped():
    result = rolled("4d6kh3", [3, 6, 1, 5])
    assert [(d["face"], d["kept"]) for d in dice_of(result)] == [
        (3, True),
        (6, True),
        (1, False),
        (5, True),
    ]
    assert result.to_dict()["terms"][0]["subtotal"] == 14


def test_ties_keep_the_die_rolled_first():
    assert [d["kept"] for d in dice_of(rolled("3d6kh1", [5, 5, 2]))] == [True, False, False]
    assert [d["kept"] for d in dice_of(rolled("3d6dl1", [2, 5, 2]))] == [False, True, True]


def test_explosion_marks_the_chain():
    result = rolled("1d6!+1", [6, 6, 3])
    assert dice_of(result) == [
        {"face": 6, "kept": True, "exploded": True, "extra": False, "capped": False},
        {"face": 6, "kept": True, "exploded": True, "extra": True, "capped": False},
        {"face": 3, "kept": True, "exploded": False, "extra": True, "capped": False},
    ]
    assert result.to_dict()["terms"][1] == {
        "kind": "constant",
        "sign": 1,
        "value": 1,
        "subtotal": 1,
    }
    assert result.total == 16


def test_keep_applies_to_the_exploded_dice_too():
    # 2d6!: 6 explodes into 4; the pool is 6, 4, 2 and kh2 keeps 6 and 4.
    result = rolled("2d6!kh2", [6, 4, 2])
    assert [(d["face"], d["kept"], d["extra"]) for d in dice_of(result)] == [
        (6, True, False),
        (4, True, True),
        (2, False, False),
    ]
    assert result.total == 10


def test_explosion_chain_stops_at_the_cap():
    faces = [2] * (EXPLOSION_CAP + 1)
    result = rolled("1d2!", faces)
    chain = dice_of(result)
    assert len(chain) == EXPLOSION_CAP + 1
    assert all(d["exploded"] for d in chain[:-1])
    assert chain[-1] == {"face": 2, "kept": True, "exploded": False, "extra": True, "capped": True}
    assert result.total == 2 * (EXPLOSION_CAP + 1)
    # The cap is per die: the next die starts a chain of its own.
    result = rolled("2d2!", [*faces, 1])
    assert len(dice_of(result)) == EXPLOSION_CAP + 2


def test_a_die_without_explosion_is_never_capped():
    assert dice_of(rolled("1d6", [6]))[0]["capped"] is False


def test_dice_are_drawn_from_the_source_with_their_range():
    with pytest.raises(FaceOutOfRange):
        roll_notation(parse_notation("1d6"), ScriptedDice([7]))
    with pytest.raises(DiceExhausted):
        roll_notation(parse_notation("2d6"), ScriptedDice([1]))
    asked = []

    class Recording:
        def roll(self, low, high):
            asked.append((low, high))
            return high

    roll_notation(parse_notation("1d20+2d%+d1000"), Recording())
    assert asked == [(1, 20), (1, 100), (1, 100), (1, 1000)]


def test_canonical_text_reparses_to_the_same_terms():
    for text in ["2k10-(1d4+1)", "-(1d6-2)", "3d6!kh2 - 1", "D%+0"]:
        first = parse_notation(text)
        assert parse_notation(first.canonical).terms == first.terms


# ---------------------------------------------------------------------------
# The ledger: systems entry points, recompute, conformance runner


def test_systems_entry_points_and_replay():
    test = systems.parse_test("free", "notation", {"expression": "4d6kh3+2"})
    result = systems.roll("free", test, ScriptedDice([1, 2, 3, 4])).to_dict()
    assert json.loads(json.dumps(result)) == result
    again = systems.roll(
        "free",
        systems.parse_test("free", result["test"], result["input"]),
        ScriptedDice(result["dice"]),
    )
    assert again.to_dict() == result
    with pytest.raises(RuleError) as error:
        systems.probability("free", test)
    assert error.value.code == "no_probability"


@pytest.mark.parametrize(
    ("kind", "data", "code"),
    [
        ("pool", {"expression": "1d6"}, "unknown_test"),
        ("notation", {}, "invalid_input"),
        ("notation", {"expression": 6}, "invalid_input"),
        ("notation", {"expression": ["1d6"]}, "invalid_input"),
        ("notation", [], "invalid_input"),
    ],
)
def test_structural_garbage(kind, data, code):
    with pytest.raises(RuleError) as error:
        systems.parse_test("free", kind, data)
    assert error.value.code == code


def test_recompute_checks_a_stored_free_roll():
    result = roll_notation(parse_notation("2d6!+1"), ScriptedDice([6, 2, 5])).to_dict()
    record = {"result": json.loads(json.dumps(result))}
    assert recompute.recompute_problem(record, lambda _: False) is None
    forged = json.loads(json.dumps(record))
    forged["result"]["total"] = 99
    assert recompute.recompute_problem(forged, lambda _: False) == (
        "the stored result differs from the engine's"
    )
    extra = json.loads(json.dumps(record))
    extra["result"]["dice"].append(3)
    assert recompute.recompute_problem(extra, lambda _: False) == "1 stored dice left over"


def test_conformance_cases():
    case = {
        "system": "free",
        "test": "notation",
        "input": {"expression": "4d6dl1"},
        "dice": [2, 6, 3, 1],
        "expect": {"total": 11, "dice": [2, 6, 3, 1]},
    }
    assert run_case(case) == []
    error = {
        "system": "free",
        "test": "notation",
        "input": {"expression": "101d6"},
        "dice": [],
        "expect": {"error": True, "code": "notation_too_many_dice"},
    }
    assert run_case(error) == []


# ---------------------------------------------------------------------------
# Limits and refusals: all before any die


@pytest.mark.parametrize(
    ("text", "code", "params"),
    [
        ("1d6+" + "1+" * 48 + "1", "notation_too_long", {"length": 101, "max": MAX_LENGTH}),
        ("1d6" + " " * 200, None, None),  # surrounding spaces do not count
        (f"{MAX_DICE + 1}d6", "notation_too_many_dice", {"count": 101, "max": 100}),
        ("60d6+41d6", "notation_too_many_dice", {"count": 101, "max": 100}),
        ("99999999999999999999d6", "notation_too_many_dice", None),
        ("1d0", "notation_faces", {"faces": 0, "min": 2, "max": MAX_FACES}),
        ("1d1", "notation_faces", {"faces": 1, "min": 2, "max": MAX_FACES}),
        ("1d1001", "notation_faces", {"faces": 1001, "min": 2, "max": MAX_FACES}),
        ("1d99999999999999999999", "notation_faces", None),
        ("0d6", "notation_no_dice", None),
        ("5", "notation_no_dice", None),
        ("(3+4)", "notation_no_dice", None),
        ("1d6+1001", "notation_constant_range", {"value": 1001, "max": MAX_CONSTANT}),
        ("1d6-99999999999999999999", "notation_constant_range", None),
        ("4d6kh5", "notation_selection", {"selection": "kh", "selection_count": 5, "count": 4}),
        ("4d6kh0", "notation_selection", None),
        ("4d6dl4", "notation_selection", None),
        ("1d6dh1", "notation_selection", None),
        ("", "notation_empty", None),
        ("   ", "notation_empty", None),
        ("1d6+", "notation_incomplete", None),
        ("(1d6", "notation_unclosed", {"opened": 1, "closing": ")", "suggestion": "(1d6)"}),
        ("4d6kh", "notation_syntax", {"hint": "keep"}),
    ],
)
def test_limits(text, code, params):
    if code is None:
        assert parse_notation(text).dice_count == 1
        return
    error = refused(text)
    assert error.code == code
    assert len(str(error)) > 10
    for key, value in (params or {}).items():
        assert error.params[key] == value


def test_the_longest_expression_is_accepted():
    text = "1d6+" + "1+" * 47 + "10"
    assert len(text) == MAX_LENGTH
    assert parse_notation(text).dice_count == 1
    assert parse_notation(f"{MAX_DICE}d{MAX_FACES}+{MAX_CONSTANT}").dice_count == MAX_DICE


@pytest.mark.parametrize(
    ("text", "hint", "words"),
    [
        ("2d6x2", "multiplication", "multiply with *"),
        ("1.5d6", "decimal", "whole numbers"),
        ("1d20e20", "explode", "explode with !"),
        ("4d6h3", "keep", "kh or kl"),
        ("4d6pl1", "drop", "dl or dh"),
        ("1d20+1>10", "compare_total", "only dice are compared"),
        ("6%", "modulo", "no modulo"),
        ("2d6^2", "", "character 4"),
        ("4d6kh1kh1", "twice", "at most once"),
        ("1d6!!!", "twice", "at most once"),
    ],
)
def test_unsupported_operators_say_what_to_write(text, hint, words):
    error = refused(text)
    assert error.code == "notation_syntax"
    assert error.params["hint"] == hint
    assert words in str(error)


@pytest.mark.parametrize(
    "text",
    [
        "abc",
        "1d6 1d6",
        "4d6kh1kh1",
        "1d6!!!",
        "d",
        "1d",
        "()",
        "1d6 # comment",
        "<script>alert(1)</script>",
        "<b>2d6</b>",
        "'; DROP TABLE rolls_roll; --",
        "1d6; DELETE FROM rolls_roll",
        "1d6' OR '1'='1",
        "{{ 7*7 }}",
        "${7*7}",
        "1d6\x00",
        "1d6\n+1",
        "1d6\t+1",
        "2d６",  # a full-width digit
        "2к6",  # Cyrillic ka
        "1d6\u202e",
        "１d6",
    ],
)
def test_garbage_is_refused_with_a_position(text):
    error = refused(text)
    assert error.code in (
        "notation_syntax",
        "notation_incomplete",
        "notation_unclosed",
        "notation_no_dice",
    )
    if error.code == "notation_syntax":
        # Counted in the text as typed; a word is named whole.
        position, found = error.params["position"], error.params["found"]
        assert 1 <= position <= len(text)
        assert text[position - 1 : position - 1 + len(found)] == found
    assert json.loads(json.dumps(error.to_dict())) == error.to_dict()


def test_refusals_carry_plain_json_params():
    for text in ["101d6", "1d1", "1d6+5000", "4d6kh9", "2d6x2", "x" * 200, ""]:
        error = refused(text)
        assert json.loads(json.dumps(error.params)) == error.params


@pytest.mark.parametrize("value", [None, 6, 1.5, b"1d6", ["1d6"], True])
def test_only_text_is_parsed(value):
    assert refused(value).code == "invalid_input"


# ---------------------------------------------------------------------------
# Properties with seeded pseudo-random dice


@st.composite
def expressions(draw) -> str:
    parts = []
    for index in range(draw(st.integers(1, 4))):
        sign = draw(st.sampled_from(["+", "-"])) if index else draw(st.sampled_from(["", "-"]))
        if draw(st.booleans()) or index == 0:
            count = draw(st.integers(1, 8))
            faces = draw(st.sampled_from([2, 3, 4, 6, 8, 10, 12, 20, 100]))
            explode = "!" if draw(st.integers(0, 3)) == 0 else ""
            selection = ""
            if count > 1 and draw(st.booleans()):
                op = draw(st.sampled_from(["kh", "kl", "dh", "dl"]))
                n = draw(st.integers(1, count if op[0] == "k" else count - 1))
                selection = f"{op}{n}"
            term = f"{count}{draw(st.sampled_from('dDkK'))}{faces}{explode}{selection}"
        else:
            term = str(draw(st.integers(0, MAX_CONSTANT)))
        parts.append(f"{sign}{term}")
    return " ".join(parts)


@PROPERTY
@given(expressions(), st.integers(0, 2**32))
def test_total_is_the_kept_dice_plus_the_constants(text, seed):
    result = roll_notation(parse_notation(text), RandomDice(seed))
    data = result.to_dict()
    expected = 0
    for term in data["terms"]:
        if term["kind"] == "constant":
            assert term["subtotal"] == term["sign"] * term["value"]
            expected += term["subtotal"]
            continue
        kept = [d["face"] for d in term["dice"] if d["kept"]]
        assert term["subtotal"] == term["sign"] * sum(kept)
        expected += term["subtotal"]
        assert all(1 <= d["face"] <= term["faces"] for d in term["dice"])
        # Written dice are the ones not added by an explosion.
        assert sum(not d["extra"] for d in term["dice"]) == term["count"]
        if term["selection"] in ("kh", "kl"):
            assert len(kept) == term["selection_count"]
        elif term["selection"] in ("dh", "dl"):
            assert len(kept) == len(term["dice"]) - term["selection_count"]
        else:
            assert len(kept) == len(term["dice"])
        if term["selection"] in ("kh", "dl"):  # the kept dice are the highest ones
            dropped = [d["face"] for d in term["dice"] if not d["kept"]]
            assert not dropped or max(dropped) <= min(kept)
        if term["selection"] in ("kl", "dh"):
            dropped = [d["face"] for d in term["dice"] if not d["kept"]]
            assert not dropped or min(dropped) >= max(kept)
        for die in term["dice"]:
            assert (
                die["exploded"] == (term["explode"] and die["face"] == term["faces"])
                or (die["capped"])
            )
    assert data["total"] == expected
    # Replay from the stored dice gives the same record.
    replay = ScriptedDice(data["dice"])
    again = notation.roll(notation.parse_test("notation", data["input"]), replay)
    assert again.to_dict() == data and replay.all_consumed


@PROPERTY
@given(st.text(max_size=MAX_LENGTH + 20))
def test_any_text_is_a_notation_or_a_rule_error(text):
    try:
        parsed = parse_notation(text)
    except RuleError as error:
        code = error.code
    else:
        code = None
        assert 1 <= parsed.dice_count <= MAX_DICE
        assert len(parsed.text) <= MAX_LENGTH
    assert code is None or code.startswith("notation_") or code == "invalid_input"


@PROPERTY
@given(st.text(alphabet="0123456789dkhl!+-() %", max_size=30))
def test_near_miss_notation_is_a_notation_or_a_rule_error(text):
    try:
        parsed = parse_notation(text)
    except RuleError:
        return
    result = roll_notation(parsed, RandomDice(1))
    assert json.loads(json.dumps(result.to_dict())) == result.to_dict()


def test_a_notation_is_its_text():
    assert notation.Notation(" 2k6+1 ") == parse_notation("2k6+1")
    assert notation.Notation("2d6").terms == (notation.DiceTerm(sign=1, count=2, faces=6),)
    with pytest.raises(TypeError):
        notation.Notation("1d6", terms=())
    with pytest.raises(RuleError):
        notation.Notation("1d1")
