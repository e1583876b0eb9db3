"""The notation players type (products, rerolls, success counts, groups, Fate dice, short
keep/drop, labels, compounding): each rolled with fixed dice, and its exact odds checked
against a brute-force enumeration of every way its dice can fall (the roller itself, driven
over the whole tree of draws)."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction

import pytest

from rolls.engine import notation
from rolls.engine.dice import ScriptedDice
from rolls.engine.errors import RuleError
from rolls.engine.notation import OddsTooLarge, exact_odds, parse_notation, roll_notation
from rolls.ledger import recompute


class _Branch(Exception):
    def __init__(self, low: int, high: int) -> None:
        self.low, self.high = low, high


class _Prefix:
    """Replays `faces`, then stops at the first draw not yet chosen."""

    def __init__(self, faces: tuple[int, ...]) -> None:
        self.faces, self.next, self.chance = faces, 0, Fraction(1)

    def roll(self, low: int, high: int) -> int:
        if self.next == len(self.faces):
            raise _Branch(low, high)
        face = self.faces[self.next]
        self.next += 1
        self.chance /= high - low + 1
        return face


def enumerated(text: str) -> dict[int, Fraction]:
    """Every sequence of draws the roller can make, with its chance: the distribution."""
    parsed = parse_notation(text)
    found: Counter = Counter()
    stack: list[tuple[int, ...]] = [()]
    while stack:
        prefix = stack.pop()
        source = _Prefix(prefix)
        try:
            result = roll_notation(parsed, source)
        except _Branch as branch:
            stack.extend((*prefix, face) for face in range(branch.low, branch.high + 1))
            continue
        found[result.total] += source.chance
    return dict(sorted(found.items()))


@pytest.fixture
def small_caps(monkeypatch):
    """Caps of 2 keep the enumeration small; the engine reads them when it rolls and counts."""
    monkeypatch.setattr(notation, "EXPLOSION_CAP", 2)
    monkeypatch.setattr(notation, "REROLL_CAP", 2)


def rolled(text, faces):
    dice = ScriptedDice(faces)
    result = roll_notation(parse_notation(text), dice)
    assert dice.all_consumed, "every scripted face is used"
    data = result.to_dict()
    # Stored and recomputed like a ledger record: the same result from the same dice.
    assert recompute.recompute_problem({"result": data}, lambda r: False) is None
    assert json.loads(json.dumps(data)) == data
    return data


# ---------------------------------------------------------------------------
# Exact distributions against brute force


@pytest.mark.parametrize(
    "text",
    [
        "(1d6+2)*2",
        "1d6/2",
        "-1d6/2",  # rounds down, towards minus infinity
        "(2d4+1)/3",
        "1d4*1d4",
        "2d6r1",
        "2d4ro<2",
        "1d6r>=5",
        "4d6>=5",
        "4d4>=3f1",
        "4d4=4",
        "{1d20, 1d20}kh1",
        "{1d6+1, 2d4, 1d8}kl2",
        "{1d4, 1d6}dh1",
        "4dF",
        "3dF+1",
        "2dFr<0",
        "4d6k3",
        "4d6d1",
        "4d6kh3",
        "3d6kl1",
        "5d4dh2",
        "1d8[cięcie] + 2d4[ogień]",
        "2d4!!",
        "2d4!",
        "3d4!kh2",
        "3d4!kl2",
        "2d4!dh1",
        "2d4!dl1",
        "3d4!!k2",
        "2d4!>=4",  # explodes on 4 (as 2d4!)
        "2d4>=4!",  # counts the 4s of exploding dice
        "2d4!!>=4>=5",  # counts the chains of 5 or more
        "2d3!r1",
        "2d4r1k1",
        "d%",
        "2d8+1d10",  # dense: the big-integer convolution
        "3d6-2d4",
    ],
)
def test_exact_odds_equal_brute_force(small_caps, text):
    odds = exact_odds(parse_notation(text))
    assert odds.distribution == enumerated(text)
    assert sum(odds.distribution.values()) == 1
    assert odds.mean == sum(v * p for v, p in odds.distribution.items())


def test_odds_use_the_real_caps_too():
    # 1d4! with the engine's cap of 10: the chain sum 4k + v, the cap's chain counted too.
    odds = exact_odds(parse_notation("1d4!"))
    cap = notation.EXPLOSION_CAP
    assert odds.chance(1) == Fraction(1, 4)
    assert odds.chance(4 * cap + 4) == Fraction(1, 4 ** (cap + 1))
    assert odds.chance(4 * cap + 1) == Fraction(1, 4 ** (cap + 1))
    assert odds.high == 4 * (cap + 1)


@pytest.mark.parametrize(
    ("text", "mean", "at_least"),
    [
        # AnyDice, "output [highest 3 of 4d6]": mean 12.24; 15 to 18: 10.11%, 7.25%, 4.17%, 1.62%.
        ("4d6k3", Fraction(15869, 1296), (15, Fraction(131 + 94 + 54 + 21, 1296))),
        # 10d10>=8: binomial(10, 3/10), mean 3.
        ("10d10>=8", Fraction(3), (3, 1 - Fraction(7**10 + 10 * 3 * 7**9 + 45 * 9 * 7**8, 10**10))),
        # {1d20, 1d20}kh1: advantage, mean 13.825.
        ("{1d20, 1d20}kh1", Fraction(553, 40), (11, Fraction(300, 400))),
        ("4dF", Fraction(0), (4, Fraction(1, 81))),
    ],
)
def test_reference_numbers(text, mean, at_least):
    odds = exact_odds(parse_notation(text))
    assert odds.mean == mean
    target, chance = at_least
    assert odds.at_least(target) == chance


def test_the_packed_convolution_is_the_plain_one():
    budget = notation._Budget(10**9)
    a = notation._power((dict.fromkeys(range(1, 21), 1), 20), 3, budget)
    b = ({v: v * v for v in range(-5, 30)}, sum(v * v for v in range(-5, 30)))
    packed = notation._convolve_packed(a, b, budget)
    plain = notation._convolve(a, b, budget, op=lambda x, y: x + y)
    assert packed == plain


def test_too_large_is_said_not_guessed():
    with pytest.raises(OddsTooLarge) as error:
        exact_odds(parse_notation("100d1000"))
    assert error.value.code == "odds_too_large"
    assert error.value.params["limit"] == notation.ODDS_WORK_LIMIT


# ---------------------------------------------------------------------------
# Rolls with fixed dice: every die shown, in rolling order


def test_product_and_division_round_down():
    data = rolled("(1d6+2)*2", [5])
    assert data["total"] == 14
    assert data["terms"][0]["kind"] == "product"
    assert data["terms"][0]["factors"][0]["total"] == 7
    assert rolled("1d6/2", [5])["total"] == 2
    assert rolled("-1d6/2", [5])["total"] == -3
    assert rolled("1d4*1d4", [3, 4])["total"] == 12


def test_reroll_until_not_matching_and_once():
    data = rolled("2d6r1", [1, 1, 4, 6])
    dice = data["terms"][0]["dice"]
    assert [(d["face"], d["rerolled"], d["kept"]) for d in dice] == [
        (1, True, False),
        (1, True, False),
        (4, False, True),
        (6, False, True),
    ]
    assert data["total"] == 10
    # `ro` rerolls once: the second 1 stays.
    assert rolled("1d6ro<3", [1, 2])["total"] == 2
    # The cap: a die rerolled REROLL_CAP times stays as it fell.
    cap = notation.REROLL_CAP
    assert rolled("1d6r1", [1] * (cap + 1))["total"] == 1


def test_success_count_and_failures():
    data = rolled("5d10>=8f1", [8, 1, 10, 3, 7])
    assert data["total"] == 1  # two successes, one failure
    dice = data["terms"][0]["dice"]
    assert [d["success"] for d in dice] == [True, False, True, False, False]
    assert [d["failure"] for d in dice] == [False, True, False, False, False]


def test_group_keeps_the_best_part():
    data = rolled("{1d20, 1d20}kh1 + 3", [7, 15])
    group = data["terms"][0]
    assert [item["kept"] for item in group["items"]] == [False, True]
    assert data["total"] == 18


def test_fate_dice_and_short_forms():
    assert rolled("4dF", [-1, 0, 1, 1])["total"] == 1
    assert rolled("4dF", [-1, 0, 1, 1])["terms"][0]["faces"] == "F"
    assert rolled("4d6k3", [3, 6, 1, 5])["total"] == 14
    assert rolled("4d6d1", [3, 6, 1, 5])["total"] == 14
    assert parse_notation("4d6k3").canonical == "4d6kh3"
    assert parse_notation("4d6d1").canonical == "4d6dl1"


def test_labels_are_kept_and_shown():
    data = rolled("1d8[cięcie] + 2d6[Ogień]", [5, 2, 6])
    assert [t.get("label") for t in data["terms"]] == ["cięcie", "Ogień"]
    assert data["notation"] == "1d8[cięcie] + 2d6[Ogień]"


def test_compounding_adds_into_one_die():
    data = rolled("2d6!!kh1", [6, 6, 2, 5])
    dice = data["terms"][0]["dice"]
    assert [d["kept"] for d in dice] == [True, True, True, False]
    assert data["total"] == 14
    assert data["terms"][0]["compound"] is True


def test_a_stored_roll_of_the_first_notation_recomputes_unchanged():
    # The record of `4d6!kh3` as the first notation stored it (no new keys).
    data = rolled("4d6!kh3", [6, 2, 3, 4, 5])
    assert set(data["terms"][0]) == {
        "kind", "sign", "count", "faces", "explode", "selection", "selection_count",
        "dice", "subtotal",
    }  # fmt: skip
    assert set(data["terms"][0]["dice"][0]) == {"face", "kept", "exploded", "extra", "capped"}


# ---------------------------------------------------------------------------
# Refusals: position in the text as typed, the spelling that would work


def refused(text) -> RuleError:
    with pytest.raises(RuleError) as error:
        parse_notation(text)
    return error.value


@pytest.mark.parametrize(
    ("text", "code", "position", "hint", "suggestion"),
    [
        ("1d20+5 < 15", "notation_syntax", 8, "compare_total", ""),
        ("1d20+5 <= 15", "notation_syntax", 8, "compare_total", ""),
        ("1d6<>3", "notation_syntax", 4, "not_equal", ""),
        ("1d6=>5", "notation_syntax", 4, "compare", "1d6>=5"),
        ("(1d6, 1d6)kh1", "notation_syntax", 5, "comma", "{1d6, 1d6}kh1"),
        ("1d6, 1d6", "notation_syntax", 4, "comma", ""),
        ("1,5d6", "notation_syntax", 2, "decimal", ""),
        ("1d20%3", "notation_syntax", 5, "modulo", ""),
        ("2!", "notation_syntax", 2, "explode_dice", ""),
        ("1 != 1", "notation_syntax", 3, "not_equal", ""),
        ("hello", "notation_syntax", 1, "word", ""),
        ("hit 1d20", "notation_syntax", 1, "word", "1d20[hit]"),
        ("1d20 hit", "notation_syntax", 6, "word", "1d20[hit]"),
        ("1d6\t+1", "notation_syntax", 4, "whitespace", "1d6 +1"),
        ("1d6\n+1", "notation_syntax", 4, "whitespace", "1d6 +1"),
        ("1d6\xa0+1", "notation_syntax", 4, "whitespace", "1d6 +1"),
        ("   1d6*2x", "notation_syntax", 9, "multiplication", ""),
        ("2d6x2", "notation_syntax", 4, "multiplication", "2d6*2"),
        ("1d6 1d6", "notation_syntax", 5, "operator", "1d6 + 1d6"),
        ("1d6 (1d4)", "notation_syntax", 5, "operator", "1d6 + (1d4)"),
        ("1d6)", "notation_syntax", 4, "unopened", ""),
        ("1d6f1", "notation_syntax", 4, "failure", ""),
        ("4d6kh3kh3", "notation_syntax", 7, "twice", ""),
        ("1d", "notation_incomplete", 3, None, None),
        ("  1d6+", "notation_incomplete", 7, None, None),
    ],
)
def test_refusals_name_the_position_and_the_fix(text, code, position, hint, suggestion):
    error = refused(text)
    assert error.code == code
    assert error.params["position"] == position
    if hint is not None:
        assert error.params["hint"] == hint
        assert error.params["suggestion"] == suggestion
        if suggestion:
            parse_notation(suggestion)  # the suggested spelling is accepted


def test_unclosed_brackets_name_the_missing_one():
    error = refused("((1d6)")
    assert error.code == "notation_unclosed"
    assert error.params["opened"] == 1
    assert error.params["closing"] == ")"
    assert error.params["position"] == 7
    assert error.params["suggestion"] == "((1d6))"
    assert refused("{1d6, 1d6").params["closing"] == "}"
    assert refused("1d6[ogień").params["closing"] == "]"


def test_minus_look_alikes_are_minus():
    assert parse_notation("1d6 − 1").canonical == "1d6 - 1"
    assert parse_notation("1d6 – 1").canonical == "1d6 - 1"
    assert parse_notation("−1d6").canonical == "-1d6"


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("1d6/1d4", "notation_division"),
        ("1d6/0", "notation_division"),
        ("1d6r<7", "notation_reroll_all"),
        ("4dF!", "notation_fate_explode"),
        ("1d6[]", "notation_label"),
        ("1d6[" + "x" * 41 + "]", "notation_label"),
        ("4d6kh3>=4", "notation_selection_success"),
        ("{1d6, 1d6}kh3", "notation_selection"),
        ("60d6+{41d6}", "notation_too_many_dice"),
    ],
)
def test_new_limits(text, code):
    assert refused(text).code == code


@pytest.mark.parametrize(
    "text",
    [
        "(1d6+2)*2",
        "-1d6/2",
        "1d4*1d4",
        "2d4!!",
        "3d4!kh2",
        "3d4!dh1",
        "4dF",
        "3dFkh1",
        "4d4>=3f1",
        "2d4!>=4",
        "{1d6+1, 2d4, 1d8}kl2",
        "{1d4, -1d6}",
        "2d4r1k1",
        "1d4*-1d4",
    ],
)
def test_the_range_is_the_odds_span(small_caps, text):
    odds = exact_odds(parse_notation(text))
    assert notation.value_range(parse_notation(text)) == (odds.low, odds.high)


def test_conformance_compares_the_exact_distribution():
    from rolls.engine.conformance import run_case

    case = {
        "id": "d4",
        "system": "free",
        "test": "notation",
        "input": {"expression": "1d4"},
        "distribution": {"1": "1/4", "2": "1/4", "3": "1/4", "4": "1/4"},
    }
    assert run_case(case) == []
    case["distribution"] = {"1": "1/4", "2": "1/4", "3": "1/4", "4": "1/5"}
    assert run_case(case) != []
    case["dice"], case["expect"] = [3], {"total": 3}
    assert run_case(case) != []  # the roll passes, the distribution still fails
