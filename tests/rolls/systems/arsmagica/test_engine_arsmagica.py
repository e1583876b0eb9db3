"""arsmagica: simple and stress dice, botches, and the exact doubling series (RULES.md §4)."""

import math
from fractions import Fraction

import icepool
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rolls.engine import arsmagica as a
from rolls.engine.dice import RandomDice, ScriptedDice
from rolls.engine.errors import RuleError

PROPERTY = settings(deadline=None, derandomize=True, max_examples=300)
common = {
    "characteristic": st.integers(-3, 5),
    "ability": st.integers(0, 10),
    "ease_factor": st.integers(-5, 60),
    "modifiers": st.lists(st.integers(-5, 5), max_size=3).map(tuple),
}
simple_tests = st.builds(a.SimpleTest, **common)
stress_tests = st.builds(a.StressTest, **common, botch_dice=st.integers(0, 4))


# Stress dice, scripted: 0 (a botch check) and 1 (a doubling) as often as any other face;
# a few 5s at the end close any chain of 1s.
stress_faces = st.lists(
    st.one_of(st.sampled_from([0, 1]), st.integers(0, 9)), min_size=12, max_size=12
).map(lambda faces: [*faces, 5, 5, 5, 5, 5])


def rules_stress_die(faces: list[int]) -> int:
    """RULES §4's stress die, written out: 1s double the next reroll, on which 0 counts 10."""
    if faces[0] != 1:
        return faces[0]
    ones = 0
    while faces[ones] == 1:
        ones += 1
    last = faces[ones]
    return 2**ones * (10 if last == 0 else last)


def test_stress_dice_botches_and_doublings():
    seen = set()

    @PROPERTY
    @given(stress_tests, stress_faces)
    def run(test, faces):
        result = a.roll(test, ScriptedDice(faces))
        assert result.margin == result.total - test.ease_factor
        if faces[0] == 0:
            botch_faces = faces[1 : 1 + test.botch_dice]
            assert result.die == 0
            assert result.dice == (0,)
            assert result.botch_faces == tuple(botch_faces)
            assert result.botch == (0 in botch_faces)
            if result.botch:
                assert result.total == 0
                assert not result.success
                assert result.botch_zeros == botch_faces.count(0)
                seen.add(("botch zeros", min(result.botch_zeros, 2)))
                seen.add(
                    ("botch where the base meets the ease factor", test.base >= test.ease_factor)
                )
                return
            seen.add(("zero, no botch", test.botch_dice > 0))
        else:
            assert result.die == rules_stress_die(faces)
            seen.add(("doublings", min(result.doublings, 2)))
            if faces[0] == 1:
                seen.add(("chain ends in", "0" if faces[result.doublings] == 0 else "2..9"))
        assert result.total == test.base + result.die
        assert result.success == (result.total >= test.ease_factor)
        seen.add(("margin", max(-1, min(result.margin, 1))))

    run()
    assert {
        # A botch is a failure even where the base alone meets the ease factor; one zero or more.
        ("botch zeros", 1),
        ("botch zeros", 2),
        ("botch where the base meets the ease factor", True),
        ("botch where the base meets the ease factor", False),
        ("zero, no botch", True),
        ("zero, no botch", False),
        ("doublings", 0),
        ("doublings", 1),
        ("doublings", 2),
        ("chain ends in", "0"),
        ("chain ends in", "2..9"),
        ("margin", -1),
        ("margin", 0),
        ("margin", 1),
    } <= seen


@PROPERTY
@given(simple_tests, st.integers(0, 9))
def test_simple_die_reads_zero_as_ten(test, face):
    result = a.roll(test, ScriptedDice([face]))
    assert result.die == (10 if face == 0 else face)
    assert result.total == test.base + result.die


# ---------------------------------------------------------------------------
# Exact probability

HUGE = 10**12  # a doubling chain deeper than we model: wins whatever the ease factor
BOTCH = -(10**12)  # loses whatever the ease factor


def icepool_reroll(depth: int) -> icepool.Die:
    """A reroll after a 1: 0 counts 10, 1 doubles the next reroll, 2..9 as they are."""
    if depth == 0:
        return icepool.Die([HUGE])
    return icepool.Die([10, 2 * icepool_reroll(depth - 1), *range(2, 10)])


def icepool_stress_probability(test: a.StressTest) -> Fraction:
    needed = test.ease_factor - test.base
    depth = max(1, needed.bit_length() + 1)  # 2**depth·2 ≥ needed: cutting there is exact
    zero = icepool.Die({0: 9**test.botch_dice, BOTCH: 10**test.botch_dice - 9**test.botch_dice})
    stress = icepool.Die([zero, 2 * icepool_reroll(depth), *range(2, 10)])
    return Fraction((test.base + stress).probability(">=", test.ease_factor))


@pytest.mark.parametrize("ease_factor", [-3, 0, 3, 5, 7, 9, 12, 15, 20, 25, 39, 40, 41, 100, 1000])
@pytest.mark.parametrize("botch_dice", [0, 1, 3])
def test_stress_probability_matches_icepool(ease_factor, botch_dice):
    test = a.StressTest(2, 3, ease_factor, botch_dice=botch_dice)
    assert a.probability(test) == icepool_stress_probability(test)


@PROPERTY
@given(stress_tests)
def test_stress_probability_matches_icepool_everywhere(test):
    assert a.probability(test) == icepool_stress_probability(test)


@PROPERTY
@given(simple_tests)
def test_simple_probability_counts_faces(test):
    wins = sum(a.roll(test, ScriptedDice([face])).success for face in range(10))
    assert a.probability(test) == Fraction(wins, 10)


def test_stress_probability_by_hand():
    # base 5, ease factor 25: die ≥ 20 → 1,10 | 1,1,5..10 | 1,1,1,3..10 | four or more 1s
    expected = Fraction(1, 100) + Fraction(6, 1000) + Fraction(8, 10_000) + Fraction(1, 10_000)
    assert a.probability(a.StressTest(2, 3, 25)) == expected == Fraction(169, 10_000)
    # botch only: a first 0 and a 0 on one of two botch dice
    assert a.probability(a.StressTest(2, 3, 3, botch_dice=2)) == 1 - Fraction(1, 10) * Fraction(
        19, 100
    )


def test_stress_probability_sums_the_whole_tail():
    # Needing 2**40: 37 ones then 8..10 (3 faces), 38 ones then 4..10 (7 faces), or
    # 39 ones and anything after (the whole tail, 10**-39) — exact, not truncated.
    chance = a.probability(a.StressTest(0, 0, 2**40))
    assert chance == Fraction(3, 10**38) + Fraction(7, 10**39) + Fraction(1, 10**39)


@pytest.mark.parametrize(
    "test",
    [
        a.StressTest(2, 3, 9),
        a.StressTest(0, 0, 13, botch_dice=2),
        a.StressTest(3, 5, 6, botch_dice=3),
        a.SimpleTest(2, 3, 9),
    ],
)
def test_probability_agrees_with_a_seeded_simulation(test):
    p = float(a.probability(test))
    dice = RandomDice(33)
    n = 20_000
    successes = sum(a.roll(test, dice).success for _ in range(n))
    assert abs(successes / n - p) <= 4 * math.sqrt(p * (1 - p) / n)


# ---------------------------------------------------------------------------
# Errors and the ledger form


@pytest.mark.parametrize(
    ("build", "code"),
    [
        (lambda: a.StressTest(2, 3, 9, botch_dice=-1), "negative_botch_dice"),
        (lambda: a.SimpleTest(2, -1, 9), "negative_ability"),
        (lambda: a.SimpleTest("2", 1, 9), "invalid_input"),
        (lambda: a.StressTest(2, 1, 9, modifiers=(None,)), "invalid_input"),
    ],
)
def test_invalid_tests(build, code):
    with pytest.raises(RuleError) as caught:
        build()
    assert caught.value.code == code


@PROPERTY
@given(st.one_of(simple_tests, stress_tests), st.integers(0, 2**32))
def test_result_dict_replays(test, seed):
    data = a.roll(test, RandomDice(seed)).to_dict()
    rebuilt = a.parse_test(data["test"], data["input"])
    assert rebuilt == test
    dice = ScriptedDice(data["dice"])
    assert a.roll(rebuilt, dice).to_dict() == data
    assert dice.all_consumed
