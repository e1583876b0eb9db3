"""Behaviour of the notation no other test pinned (each found by mutation testing: a change
of the engine that every test let through): `>` in counts and rerolls, the odds of a group
without keep/drop, a group's range, rerolls covering every face, the odds at the explosion
cap with keep/drop, the position of a refused division, and where the exact odds give up."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from rolls.engine import notation
from rolls.engine.dice import ScriptedDice
from rolls.engine.errors import RuleError
from rolls.engine.notation import OddsTooLarge, exact_odds, parse_notation, roll_notation
from tests.rolls.engine.test_notation_features import enumerated


def refused(text) -> RuleError:
    with pytest.raises(RuleError) as error:
        parse_notation(text)
    return error.value


# ---------------------------------------------------------------------------
# `>` is strictly greater, in success counts and in rerolls


def test_greater_than_counts_the_faces_above_only():
    result = roll_notation(parse_notation("10d10>7"), ScriptedDice([7, 8, 9, 10, 1, 2, 3, 4, 5, 6]))
    assert result.total == 3
    assert [d.success for d in result.terms[0].dice] == [False, True, True, True] + [False] * 6
    assert exact_odds(parse_notation("10d10>7")) == exact_odds(parse_notation("10d10>=8"))
    half = Fraction(1, 2)
    assert exact_odds(parse_notation("1d6>3")).distribution == {0: half, 1: half}


def test_greater_than_rerolls_the_faces_above_only():
    dice = ScriptedDice([5, 6, 4])
    result = roll_notation(parse_notation("1d6r>4"), dice)
    assert dice.all_consumed and result.total == 4
    assert [d.rerolled for d in result.terms[0].dice] == [True, True, False]
    assert roll_notation(parse_notation("1d6r>4"), ScriptedDice([4])).total == 4
    odds = exact_odds(parse_notation("1d6ro>4"))
    # 4 stays at once (1/6) or comes after a reroll of 5 or 6 (2/6 · 1/6).
    assert odds.chance(4) == Fraction(1, 6) + Fraction(2, 36)
    assert odds.chance(6) == Fraction(2, 36)


# ---------------------------------------------------------------------------
# Groups


def test_the_odds_of_a_group_without_keep_are_its_parts_summed():
    group = exact_odds(parse_notation("{1d6, 1d4}"))
    assert group == exact_odds(parse_notation("1d6+1d4"))
    assert group.distribution == enumerated("{1d6, 1d4}")
    assert group.chance(5) == Fraction(4, 24) and group.mean == Fraction(6)
    assert exact_odds(parse_notation("{1d4, -1d6}")).distribution == enumerated("{1d4, -1d6}")


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("{1d6+5, 1d4}kh1", (6, 11)),
        ("{1d6+5, 1d4}kl1", (1, 4)),
        ("{1d6+5, 1d4}dh1", (1, 4)),
        ("{1d6+5, 1d4}dl1", (6, 11)),
        ("{1d6+5, 1d4}", (7, 15)),
        ("{1d4, 1d6, 1d8}kh2", (2, 14)),
        ("-{1d6+5, 1d4}kh1", (-11, -6)),
    ],
)
def test_a_groups_range(text, span):
    assert notation.value_range(parse_notation(text)) == span
    odds = exact_odds(parse_notation(text))
    assert (odds.low, odds.high) == span


# ---------------------------------------------------------------------------
# A reroll that covers every face


@pytest.mark.parametrize(
    ("text", "position", "reroll"),
    [
        ("1d6r<8", 4, "r<8"),
        ("1d6r<7", 4, "r<7"),
        ("1d6r<=6", 4, "r<=6"),
        ("1d6r>0", 4, "r>0"),
        ("1d6ro>=1", 4, "ro>=1"),
        ("4dFr<2", 4, "r<2"),
        ("1d2r<3", 4, "r<3"),
        ("2d6!r<8", 5, "r<8"),
    ],
)
def test_a_reroll_of_every_face_is_refused(text, position, reroll):
    error = refused(text)
    assert error.code == "notation_reroll_all"
    assert (error.params["position"], error.params["reroll"]) == (position, reroll)


@pytest.mark.parametrize("text", ["1d6r<6", "1d6r>1", "1d2r1", "1d6r<=5", "4dFr<1"])
def test_a_reroll_that_leaves_a_face_is_accepted(text):
    parse_notation(text)


# ---------------------------------------------------------------------------
# The odds at the explosion cap (10), with keep/drop


def _chains(faces: int):
    """Every explosion chain of one d`faces` at the engine's cap: (its faces, its chance)."""
    cap = notation.EXPLOSION_CAP
    for k in range(cap + 1):
        for last in range(1, faces):
            yield [faces] * k + [last], Fraction(1, faces) ** (k + 1)
    yield [faces] * (cap + 1), Fraction(1, faces) ** (cap + 1)


def _kept_by_chains(count: int, faces: int, selection: str, n: int) -> dict[int, Fraction]:
    """Keep/drop over every die of `count` exploding dice, chain by chain (no engine code)."""
    found: dict[int, Fraction] = {}
    for chains in itertools.product(list(_chains(faces)), repeat=count):
        pool = sorted((f for chain, _ in chains for f in chain), reverse=True)
        kept = {
            "kh": pool[:n],
            "kl": pool[-n:],
            "dh": pool[n:],
            "dl": pool[: len(pool) - n],
        }[selection]
        chance = Fraction(1)
        for _, p in chains:
            chance *= p
        found[sum(kept)] = found.get(sum(kept), 0) + chance
    return dict(sorted(found.items()))


@pytest.mark.parametrize(
    ("text", "count", "faces", "selection", "n"),
    [
        ("2d3!kh1", 2, 3, "kh", 1),
        ("2d3!kl1", 2, 3, "kl", 1),
        ("2d2!dh1", 2, 2, "dh", 1),
        ("3d2!dl1", 3, 2, "dl", 1),
        ("2d4!kh2", 2, 4, "kh", 2),
    ],
)
def test_keep_over_exploding_dice_at_the_real_cap(text, count, faces, selection, n):
    odds = exact_odds(parse_notation(text))
    assert odds.distribution == _kept_by_chains(count, faces, selection, n)


def test_the_capped_chains_own_total_at_the_real_cap():
    cap = notation.EXPLOSION_CAP
    # The highest total keeps 2 · (cap + 1) − 1 twos: both chains capped (every face a 2),
    # or one capped and the other a full run of 2s ending on a 1 (the 1 dropped), 3 ways.
    odds = exact_odds(parse_notation("2d2!dl1"))
    assert odds.high == 2 * (2 * (cap + 1) - 1)
    assert odds.chance(odds.high) == Fraction(3, 2 ** (2 * (cap + 1)))


# ---------------------------------------------------------------------------
# The position of a refused division


@pytest.mark.parametrize(
    ("text", "position"),
    [
        ("1d6/0", 5),  # the 0
        ("1d6 / 0", 7),
        ("(1d6+1)/ 0", 10),
        ("1d6/-2", 5),  # the sign
        ("1d6/1d6", 4),  # the /
        ("1d6 / 1d4", 5),
        ("2*1d6/(1d4)", 6),
    ],
)
def test_a_refused_division_names_its_position(text, position):
    error = refused(text)
    assert error.code == "notation_division"
    assert error.params["position"] == position


# ---------------------------------------------------------------------------
# Where the exact odds give up: each way of counting costs exactly these steps


@pytest.mark.parametrize(
    ("text", "steps"),
    [
        ("1d4*1d4", 41),  # a product, pairwise
        ("{1d6, 1d4}", 59),  # a group without keep
        ("2d6r1", 88),
        ("10d10>=8f1", 310),  # a success count
        ("{1d20, 1d20}kh1", 520),  # a group's best parts
        ("8d6", 616),  # a dense sum, one big-integer product
        ("4d6kh3", 841),  # keep over plain dice
        ("3d6!kh2", 3197),  # keep over exploding dice
        ("2d6!>=5kh1", 3646),  # keep over dice exploding on a trigger
        ("2d4!=2kl1", 18259),  # ... whose faces lie among the others
        ("6d6!kh3", 24042),
    ],
)
def test_the_odds_cost_exactly_their_steps(text, steps):
    parsed = parse_notation(text)
    exact_odds(parsed, limit=steps)
    with pytest.raises(OddsTooLarge):
        exact_odds(parsed, limit=steps - 1)
    if steps <= notation.ODDS_WORK_LIMIT:
        exact_odds(parsed)
    else:
        with pytest.raises(OddsTooLarge):
            exact_odds(parsed)


@pytest.mark.parametrize("text", ["100d1000", "50d100", "10d6!kh3", "8d10!kh4", "3d6!!kh2"])
def test_too_large_for_the_default_limit(text):
    with pytest.raises(OddsTooLarge) as error:
        exact_odds(parse_notation(text))
    assert error.value.params == {"limit": notation.ODDS_WORK_LIMIT}
