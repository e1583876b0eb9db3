"""ciernie: d20 roll-under tests, skill bands, rerolls and their exact odds (RULES.md §3)."""

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rolls.engine import ciernie as c
from rolls.engine.dice import RandomDice, ScriptedDice
from rolls.engine.errors import RuleError

PROPERTY = settings(deadline=None, derandomize=True, max_examples=200)
modifier_lists = st.lists(st.integers(-12, 12), max_size=3).map(tuple)
attribute_values = st.integers(0, 25)

base_tests = st.one_of(
    st.builds(c.AttributeTest, attribute_values, modifier_lists),
    st.builds(c.CombinedTest, st.lists(attribute_values, min_size=2, max_size=3), modifier_lists),
    st.builds(c.ComparativeTest, st.integers(-5, 25), st.integers(-5, 25), modifier_lists),
    st.builds(c.EffectTest, attribute_values, modifier_lists),
    st.builds(
        c.SkillTest,
        skill=st.integers(0, 8),
        factor=st.integers(0, 8),
        modifiers=modifier_lists,
        attribute=attribute_values,
    ),
    st.builds(
        c.SkillTest,
        skill=st.integers(0, 8),
        factor=st.integers(0, 8),
        modifiers=modifier_lists,
        attributes=st.lists(attribute_values, min_size=2, max_size=3).map(tuple),
    ),
)
reroll_tests = st.builds(c.RerollTest, base_tests, st.integers(1, 4))
# The die's ends (1 and 20 decide whatever the threshold) and their neighbours, always drawn.
faces = st.one_of(st.sampled_from([1, 2, 19, 20]), st.integers(1, 20))


def faces_near(limit: int):
    """Faces at the bands' edges: the threshold, one above it, the last delay face (+3) and
    the first failure (+4), or any face."""
    edges = sorted({f for f in (limit, limit + 1, limit + 3, limit + 4) if 1 <= f <= 20})
    return st.one_of(st.sampled_from(edges), faces) if edges else faces


def expected_threshold(test: c.BaseTest) -> int:
    """RULES §3 written out on its own."""
    modifiers = sum(m.value for m in test.modifiers)
    if isinstance(test, c.AttributeTest | c.EffectTest):
        return test.attribute + modifiers
    if isinstance(test, c.CombinedTest):
        return sum(test.attributes) // len(test.attributes) + modifiers
    if isinstance(test, c.ComparativeTest):
        return 10 + (test.own - test.opposing) + modifiers
    tested = (
        test.attribute
        if test.attribute is not None
        else sum(test.attributes) // len(test.attributes)
    )
    return tested + 3 * (test.skill - test.factor) + modifiers


@PROPERTY
@given(base_tests)
def test_threshold_follows_the_rules(test):
    assert c.threshold(test).value == expected_threshold(test)


def test_one_never_fails_and_twenty_never_succeeds():
    seen = set()

    @PROPERTY
    @given(base_tests, faces)
    def run(test, face):
        result = c.roll(test, ScriptedDice([face]))
        if result.roll is None:
            assert result.outcome in {"impossible", "automatic_success"}
            return
        assert result.roll == face
        limit = c.threshold(test).value
        if face == 1:
            assert result.success
            assert result.outcome == "critical_success"
            seen.add(("1 against the threshold", limit < 1))
        if face == 20:
            assert not result.success
            assert result.outcome == "critical_failure"
            seen.add(("20 against the threshold", limit >= 20))

    run()
    # Each end was rolled where the threshold alone would have said the opposite (a skill
    # test rolls whatever its threshold), and where it agrees.
    assert seen == {
        (f"{end} against the threshold", against) for end in (1, 20) for against in (True, False)
    }


def test_outcome_bands():
    seen = set()

    @PROPERTY
    @given(base_tests, st.data())
    def run(test, data):
        limit = c.threshold(test).value
        face = data.draw(faces_near(limit))
        dice = ScriptedDice([face])
        result = c.roll(test, dice)
        seen.add(result.outcome)
        if isinstance(test, c.SkillTest):
            difference = test.skill - test.factor
            assert (result.outcome == "automatic_success") == (difference >= 3)
            assert (result.outcome == "impossible") == (difference <= -3)
            rolled = -3 < difference < 3
        else:
            assert (result.outcome == "impossible") == (limit < 1)
            rolled = limit >= 1
        assert dice.consumed == int(rolled)
        if not rolled or face in (1, 20):
            return
        if face <= limit:
            assert result.outcome == "success"
        elif isinstance(test, c.SkillTest) and face <= limit + 3:
            assert result.outcome == "delay"
            assert result.time_multiplier == 1 + face - limit
            seen.add(("delay", face - limit))
        else:
            assert result.outcome == "failure"
            if isinstance(test, c.SkillTest):
                seen.add(("skill failure", face - limit))
        if isinstance(test, c.EffectTest):
            assert result.duration == (0 if result.success else max(1, face - limit))

    run()
    assert {
        "critical_success",
        "success",
        "delay",
        "failure",
        "critical_failure",
        "impossible",
        "automatic_success",
    } <= seen
    # The delay band's both edges (the first face past it: test_skill_bands_at_their_edges).
    assert {("delay", 1), ("delay", 3)} <= seen


@pytest.mark.parametrize(
    ("face", "outcome", "multiplier"),
    [
        (1, "critical_success", None),
        (10, "success", None),
        (11, "delay", 2),
        (13, "delay", 4),
        (14, "failure", None),
        (19, "failure", None),
        (20, "critical_failure", None),
    ],
)
def test_skill_bands_at_their_edges(face, outcome, multiplier):
    test = c.SkillTest(skill=2, factor=2, modifiers=(), attribute=10)  # threshold 10
    result = c.roll(test, ScriptedDice([face]))
    assert result.outcome == outcome
    if multiplier is not None:
        assert result.time_multiplier == multiplier


@PROPERTY
@given(reroll_tests, faces, faces)
def test_reroll_only_after_a_failure_and_the_reroll_decides(test, first_face, second_face):
    dice = ScriptedDice([first_face, second_face])
    result = c.roll(test, dice)
    assert result.first.roll in (None, first_face)
    if result.first.outcome in {"failure", "critical_failure"}:
        assert result.second is not None
        assert result.second.roll == second_face
        assert result.second.threshold.value == result.first.threshold.value + 3 * (
            test.reroll_sources - 1
        )
        assert result.outcome == result.second.outcome
    else:
        assert result.second is None
        assert result.outcome == result.first.outcome
    data = result.to_dict()
    assert data["dice"] == [first_face, second_face][: dice.consumed]
    assert data["outcome"] == result.outcome


# ---------------------------------------------------------------------------
# Probabilities


def probability_by_enumeration(test: c.Test) -> Fraction:
    """Run the engine on every face (and pair of faces for a reroll) and count successes."""
    wins = 0
    for first in range(1, 21):
        for second in range(1, 21):
            wins += c.roll(test, ScriptedDice([first, second])).success
    return Fraction(wins, 400)


@PROPERTY
@given(st.one_of(base_tests, reroll_tests))
def test_probability_matches_enumeration(test):
    assert c.probability(test) == probability_by_enumeration(test)


@pytest.mark.parametrize(
    ("test", "chance"),
    [
        (c.AttributeTest(10), Fraction(1, 2)),
        (c.AttributeTest(25), Fraction(19, 20)),
        (c.AttributeTest(0, (c.Adjustment(1),)), Fraction(1, 20)),
        (c.SkillTest(2, 2, attribute=10), Fraction(13, 20)),
        (c.SkillTest(0, 2, attribute=5), Fraction(2, 20)),
        (c.RerollTest(c.AttributeTest(10), 2), Fraction(1, 2) + Fraction(1, 2) * Fraction(13, 20)),
        (c.RerollTest(c.SkillTest(2, 2, attribute=10), 1), Fraction(351, 400)),
    ],
)
def test_probability_examples(test, chance):
    assert c.probability(test) == chance


@pytest.mark.parametrize(
    "test",
    [
        c.RerollTest(c.SkillTest(2, 2, attribute=10), 1),
        c.RerollTest(c.ComparativeTest(10, 15), 3),
    ],
)
def test_reroll_probability_agrees_with_a_seeded_simulation(test):
    p = float(c.probability(test))
    dice = RandomDice(77)
    n = 20_000
    successes = sum(c.roll(test, dice).success for _ in range(n))
    assert abs(successes / n - p) <= 4 * math.sqrt(p * (1 - p) / n)


# ---------------------------------------------------------------------------
# Errors and the ledger form


@pytest.mark.parametrize(
    ("build", "code"),
    [
        (lambda: c.RerollTest(c.AttributeTest(10), 0), "no_reroll_sources"),
        (lambda: c.RerollTest(c.RerollTest(c.AttributeTest(10), 1), 1), "reroll_of_reroll"),
        (lambda: c.SkillTest(-1, 2, attribute=10), "negative_level"),
        (lambda: c.SkillTest(1, -2, attribute=10), "negative_factor"),
        (lambda: c.SkillTest(1, 2), "skill_attribute_shape"),
        (lambda: c.CombinedTest((10,)), "attribute_count"),
        (lambda: c.AttributeTest(-1), "negative_attribute"),
        (lambda: c.AttributeTest(10, (1.5,)), "invalid_input"),
    ],
)
def test_invalid_tests(build, code):
    with pytest.raises(RuleError) as caught:
        build()
    assert caught.value.code == code


@PROPERTY
@given(st.one_of(base_tests, reroll_tests), st.integers(0, 2**32))
def test_result_dict_replays(test, seed):
    data = c.roll(test, RandomDice(seed)).to_dict()
    rebuilt = c.parse_test(data["test"], data["input"])
    assert rebuilt == test
    dice = ScriptedDice(data["dice"])
    assert c.roll(rebuilt, dice).to_dict() == data
    assert dice.all_consumed
