"""q10: XzY pools with open-ended tens, and their exact odds (RULES.md §2)."""

import math
from dataclasses import replace
from fractions import Fraction

import icepool
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rolls.engine import q10
from rolls.engine.dice import RandomDice, ScriptedDice
from rolls.engine.errors import RuleError

PROPERTY = settings(deadline=None, derandomize=True, max_examples=200)


@st.composite
def pool_tests(draw) -> q10.PoolTest:
    modifiers = tuple(
        q10.PoolModifier(draw(st.integers(-4, 4)), draw(st.integers(-4, 4)))
        for _ in range(draw(st.integers(0, 2)))
    )
    common = {
        "difficulty": draw(st.integers(0, 60)),
        "pool_modifiers": modifiers,
        "circumstances": tuple(draw(st.lists(st.sampled_from([-10, -5, 5, 10]), max_size=2))),
        "raises": draw(st.integers(0, 3)),
    }
    if draw(st.booleans()):
        return q10.PoolTest(x=draw(st.integers(0, 12)), y=draw(st.integers(0, 12)), **common)
    return q10.PoolTest(attribute=draw(st.integers(0, 7)), skill=draw(st.integers(0, 7)), **common)


# ---------------------------------------------------------------------------
# Rolling


@PROPERTY
@given(pool_tests(), st.integers(0, 2**32))
def test_roll_invariants(test, seed):
    result = q10.roll(test, RandomDice(seed))
    assert len(result.faces) == result.pool.x <= 10
    assert result.pool.y <= result.pool.x
    assert list(result.kept) == sorted(result.faces, reverse=True)[: result.pool.y]
    assert result.total == sum(result.kept) + sum(result.extra)
    # every 10 among the X dice starts one chain; every chain ends in one face that is not 10
    assert sum(1 for face in result.extra if face != 10) == result.faces.count(10)
    assert result.difficulty == (
        test.difficulty + sum(c.value for c in test.circumstances) + 5 * test.raises
    )
    assert result.success == (result.total >= result.difficulty)
    assert result.margin == result.total - result.difficulty
    assert result.raises_achieved == (test.raises if result.success else 0)
    assert result.to_dict()["dice"] == [*result.faces, *result.extra]


# Faces with tens (and so open-ended chains of them) as often as any other face.
q10_faces = st.lists(st.one_of(st.just(10), st.integers(1, 10)), min_size=30, max_size=30).map(
    lambda faces: [*faces, *[3] * 30]
)  # a chain of tens always ends


def test_success_at_the_difficulty_and_open_ended_tens():
    """The total against a final difficulty set exactly at it (success, margin 0) or one
    above (failure), on faces rich in tens; every ten among the X adds a die, a ten on an
    extra die one more."""
    seen = set()

    @PROPERTY
    @given(pool_tests(), q10_faces, st.sampled_from([0, 1]))
    def run(test, faces, above):
        total = q10.roll(test, ScriptedDice(faces)).total
        pool = q10.effective_pool(test)
        shown, kept = faces[: pool.x], sorted(faces[: pool.x], reverse=True)[: pool.y]
        extra, pending, at = [], shown.count(10), pool.x
        while pending:  # RULES 2, written out: each 10 among the X and every extra 10 adds a die
            face, at, pending = faces[at], at + 1, pending - 1
            extra.append(face)
            pending += face == 10
        assert total == sum(kept) + sum(extra)
        adjustments = sum(c.value for c in test.circumstances) + 5 * test.raises
        difficulty = total + above - adjustments
        if difficulty < 0:
            return
        exact = q10.roll(replace(test, difficulty=difficulty), ScriptedDice(faces))
        assert exact.difficulty == total + above
        assert exact.success == (above == 0)
        assert exact.margin == -above
        assert exact.raises_achieved == (test.raises if above == 0 else 0)
        seen.add(("at the difficulty" if above == 0 else "one short", test.raises > 0))
        seen.add(("tens among the X", min(shown.count(10), 2)))
        seen.add(("an extra ten", 10 in extra))
        seen.add(("dice capped at 10", pool.modified_x > 10))

    run()
    assert {
        ("at the difficulty", True),
        ("at the difficulty", False),
        ("one short", True),
        ("one short", False),
        ("tens among the X", 0),
        ("tens among the X", 1),
        ("tens among the X", 2),
        ("an extra ten", True),
        ("an extra ten", False),
        ("dice capped at 10", True),
        ("dice capped at 10", False),
    } <= seen


def test_extra_dice_come_after_all_pool_dice():
    test = q10.PoolTest(x=3, y=1, difficulty=20)
    result = q10.roll(test, ScriptedDice([10, 10, 1, 10, 4, 3]))
    assert result.faces == (10, 10, 1)
    assert result.extra == (10, 4, 3)
    assert result.total == 10 + 17


@pytest.mark.parametrize(
    ("kwargs", "pool"),
    [
        ({"x": 5, "y": 2}, (5, 2)),
        ({"attribute": 3, "skill": 2}, (5, 2)),
        ({"attribute": 4, "skill": 1, "pool_modifiers": (q10.PoolModifier(1, 1),)}, (6, 2)),
        ({"x": 5, "y": 2, "pool_modifiers": (q10.PoolModifier(-3, -3),)}, (2, 0)),
        ({"attribute": 6, "skill": 5}, (10, 5)),
        ({"x": 3, "y": 7}, (3, 3)),
        (
            {
                "x": 2,
                "y": 1,
                "pool_modifiers": (q10.PoolModifier(-3, 0), q10.PoolModifier(2, 0)),
            },
            (1, 1),
        ),
    ],
)
def test_effective_pool(kwargs, pool):
    effective = q10.effective_pool(q10.PoolTest(difficulty=10, **kwargs))
    assert (effective.x, effective.y) == pool


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"x": 5, "y": 2, "raises": -1}, "negative_raises"),
        ({"x": 5, "y": 2, "difficulty": -1}, "negative_difficulty"),
        ({"x": -1, "y": 0}, "negative_pool"),
        ({"x": 5, "y": 2, "attribute": 3, "skill": 2}, "pool_shape"),
        ({"attribute": 3}, "pool_shape"),
        ({}, "pool_shape"),
        ({"x": 5, "y": 2.0}, "invalid_input"),
    ],
)
def test_invalid_pools(kwargs, code):
    kwargs = {"difficulty": 10, **kwargs}
    with pytest.raises(RuleError) as caught:
        q10.PoolTest(**kwargs)
    assert caught.value.code == code


# ---------------------------------------------------------------------------
# Exact probability


class KeptSumAndTens(icepool.MultisetEvaluator):
    """icepool's view of the X dice: (sum of the `keep` highest, number of tens among all X)."""

    def __init__(self, keep: int) -> None:
        self.keep = keep

    def initial_state(self, order, outcomes, *sizes, **kwargs):
        if order != icepool.Order.Descending:
            raise icepool.UnsupportedOrder()
        return (0, 0, 0)

    def next_state(self, state, order, outcome, count):
        kept, kept_sum, tens = state
        take = min(count, self.keep - kept)
        return (kept + take, kept_sum + take * outcome, tens + (count if outcome == 10 else 0))

    def final_outcome(self, final_state, order, outcomes, *sizes, **kwargs):
        return final_state[1], final_state[2]


def icepool_probability(dice: int, keep: int, difficulty: int) -> Fraction:
    """P(total ≥ difficulty) from icepool: keep-highest plus one exploding d10 per ten.

    An explosion depth d is exact here: a chain cut short has exploded more than d
    times, so both its true and its cut value are ≥ 10·(d+1) > difficulty.
    """
    chain = icepool.d10.explode(depth=difficulty // 10 + 1)
    joint = KeptSumAndTens(keep).evaluate(icepool.d10.pool(dice))
    total = icepool.map(
        lambda state: state[0] + (state[1] @ chain) if state[1] else state[0], joint, star=False
    )
    return Fraction(total.probability(">=", difficulty))


ICEPOOL_CASES = [
    (x, y, d) for x in range(1, 6) for y in range(x + 1) for d in (1, 10, 17, 25, 31, 42)
] + [(x, y, 33) for x in range(6, 11) for y in sorted({0, 1, x // 2, x})]


@pytest.mark.parametrize(("dice", "keep", "difficulty"), ICEPOOL_CASES)
def test_probability_matches_icepool(dice, keep, difficulty):
    assert q10.pool_probability(dice, keep, difficulty) == icepool_probability(
        dice, keep, difficulty
    )


@pytest.mark.parametrize(
    ("dice", "keep", "difficulty"), [(5, 2, 15), (3, 1, 10), (10, 3, 30), (4, 0, 8), (6, 6, 40)]
)
def test_probability_agrees_with_a_seeded_simulation(dice, keep, difficulty):
    test = q10.PoolTest(x=dice, y=keep, difficulty=difficulty)
    p = float(q10.probability(test))
    roller = RandomDice(dice * 1000 + keep * 100 + difficulty)
    n = 20_000
    successes = sum(q10.roll(test, roller).success for _ in range(n))
    assert abs(successes / n - p) <= 4 * math.sqrt(p * (1 - p) / n)


@PROPERTY
@given(pool_tests())
def test_probability_uses_the_effective_pool_and_final_difficulty(test):
    pool = q10.effective_pool(test)
    chance = q10.probability(test)
    assert chance == q10.pool_probability(pool.x, pool.y, q10.final_difficulty(test))
    assert 0 <= chance <= 1


@PROPERTY
@given(st.integers(0, 10), st.data())
def test_probability_falls_with_difficulty_and_rises_with_keep(dice, data):
    keep = data.draw(st.integers(0, dice))
    difficulty = data.draw(st.integers(0, 80))
    here = q10.pool_probability(dice, keep, difficulty)
    assert q10.pool_probability(dice, keep, difficulty + 1) <= here
    if keep < dice:
        assert q10.pool_probability(dice, keep + 1, difficulty) >= here
    # Every path to a result is a finite run of d10s: the denominator divides a power of 10.
    denominator = here.denominator
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
    assert denominator == 1


def test_probability_of_a_tiny_pool_by_hand():
    # 1z1: a 10 (1/10) then an extra die; ≥ 12 needs the extra die ≥ 2 (9/10).
    assert q10.pool_probability(1, 1, 12) == Fraction(9, 100)
    # 2z2 ≥ 20: both tens (1/100), or one ten and b + chain ≥ 10 (2 · Σ_b (1+b)/100 = 108/1000)
    assert q10.pool_probability(2, 2, 20) == Fraction(118, 1000)
    assert q10.pool_probability(0, 0, 0) == 1
    assert q10.pool_probability(0, 0, 1) == 0


def test_huge_difficulties_are_exact_and_quick():
    chance = q10.pool_probability(10, 5, 10_000)
    assert 0 < chance < Fraction(1, 10**900)


def test_cache_can_be_cleared():
    first = q10.pool_probability(6, 3, 27)
    q10.clear_caches()
    assert q10.pool_probability.cache_info().currsize == 0
    assert q10.pool_probability(6, 3, 27) == first
