"""forum1000: thresholds, verdicts, initiative, healing, exact odds (RULES.md §1)."""

import json
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rolls.engine import forum1000 as f
from rolls.engine.dice import RandomDice, ScriptedDice
from rolls.engine.errors import RuleError

PROPERTY = settings(deadline=None, derandomize=True, max_examples=200)
NAMES = ["Siła", "Zręczność", "Szybkość", "Percepcja", "Charyzma", "Mądrość"]
faces = st.integers(1, 1000)


@st.composite
def modifiers_for(draw, tested: list[str]) -> tuple[f.Modifier, ...]:
    modifiers = [
        f.Modifier(
            draw(st.integers(-200, 200)), "attribute", attribute=draw(st.sampled_from(tested))
        )
        for _ in range(draw(st.integers(0, 2)))
    ]
    modifiers += [
        f.Modifier(v, "action") for v in draw(st.lists(st.integers(-300, 300), max_size=2))
    ]
    for scope, limit in f.GM_LIMITS.items():
        if draw(st.booleans()):
            steps = limit // f.GM_STEP
            modifiers.append(f.Modifier(f.GM_STEP * draw(st.integers(-steps, steps)), scope))
    return tuple(draw(st.permutations(modifiers)))


@st.composite
def single_tests(draw, criticals: bool | None = None) -> f.SingleTest:
    kind = draw(st.sampled_from(["attribute", "combined", "skill"]))
    names = draw(st.lists(st.sampled_from(NAMES), min_size=2, max_size=2, unique=True))
    names = names if kind == "combined" else names[:1]
    attributes = [f.Attribute(name, draw(st.integers(0, 1000))) for name in names]
    modifiers = draw(modifiers_for(names))
    crits = draw(st.booleans()) if criticals is None else criticals
    if kind == "attribute":
        return f.AttributeTest(attributes[0], modifiers, crits)
    if kind == "combined":
        return f.CombinedTest(tuple(attributes), modifiers, crits)
    return f.SkillTest(draw(st.integers(0, 25)), attributes[0], modifiers, crits)


def expected_exact_threshold(test: f.SingleTest) -> Fraction:
    """RULES 1.2's table, written out independently of the engine's term list."""
    attribute_mods = sum(m.value for m in test.modifiers if m.scope == "attribute")
    other_mods = sum(m.value for m in test.modifiers if m.scope != "attribute")
    if isinstance(test, f.AttributeTest):
        return Fraction(test.attribute.value + attribute_mods + other_mods)
    if isinstance(test, f.CombinedTest):
        a, b = (attribute.value for attribute in test.attributes)
        return Fraction(a + b, 2) + Fraction(attribute_mods, 2) + other_mods
    return 40 * test.level + Fraction(test.attribute.value + attribute_mods, 2) + other_mods


# ---------------------------------------------------------------------------
# Thresholds and the preview


@PROPERTY
@given(single_tests())
def test_threshold_follows_the_rules_table_and_is_floored(test):
    limit = f.threshold(test)
    assert limit.exact == expected_exact_threshold(test)
    assert limit.value == math.floor(limit.exact)
    assert sum(term.contribution for term in limit.terms) == limit.exact


def test_threshold_preview_breakdown():
    test = f.SkillTest(
        3,
        f.Attribute("Zręczność", 501),
        (
            f.Modifier(50, "attribute", attribute="Zręczność", label="Precyzyjny"),
            f.Modifier(-50, "gm_difficulty", reason="ciemno"),
        ),
        skill="Otwieranie zamków",
    )
    preview = f.threshold(test).to_dict()
    assert preview["value"] == 345
    assert preview["exact"] == "345.5"
    assert [(t["kind"], t["weight"], t["contribution"]) for t in preview["terms"]] == [
        ("skill_level", "1", "120"),
        ("attribute", "1/2", "250.5"),
        ("modifier", "1/2", "25"),
        ("modifier", "1", "-50"),
    ]
    assert preview["terms"][2]["label"] == "Precyzyjny"
    assert preview["terms"][3]["reason"] == "ciemno"
    assert f.evaluate(test, 300).threshold == f.threshold(test)


def test_sheet_helpers():
    assert f.skill_base_threshold(3, 501) == 370
    assert f.skill_base_threshold(0, 601) == 300
    assert f.movement_metres(230) == (11, 23)


@pytest.mark.parametrize(
    ("metres", "speed", "mounted", "actions"),
    [
        (0, 230, False, 0),
        (1, 230, False, 1),
        (11, 230, False, 1),  # Szybkość 230 on foot: 11 m per action
        (12, 230, False, 2),
        (22, 230, False, 2),
        (23, 230, False, 3),  # more than a turn allows: the caller refuses it
        (23, 230, True, 1),  # mounted: 23 m per action
        (24, 230, True, 2),
    ],
)
def test_move_actions_cover_the_metres(metres, speed, mounted, actions):
    assert f.move_actions(metres, speed, mounted) == actions


@pytest.mark.parametrize(
    ("metres", "speed", "mounted"), [(1, 19, False), (1, 9, True), (-1, 300, False)]
)
def test_move_actions_refuse_what_cannot_be_walked(metres, speed, mounted):
    with pytest.raises(ValueError, match=r"negative|no movement"):
        f.move_actions(metres, speed, mounted)


@pytest.mark.parametrize(
    ("threshold", "roll", "percent"),
    [(650, 1, 100), (650, 650, 0), (650, 1000, 100), (650, 651, 0), (600, 597, 1), (8, 7, 13)],
)
def test_percent_examples(threshold, roll, percent):
    assert f.percent(threshold, roll) == percent


def test_percent_rounds_half_up():
    # 100·1/8 = 12.5 → 13 (success side); 100·1/200 = 0.5 → 1 (failure side)
    assert f.percent(8, 7) == 13
    assert f.percent(800, 801) == 1


@PROPERTY
@given(single_tests(), faces)
def test_success_iff_roll_at_most_threshold(test, roll):
    result = f.evaluate(test, roll)
    assert result.success == (roll <= result.threshold.value)
    assert result.distance == result.threshold.value - roll
    assert 0 <= result.percent <= 100
    if not test.criticals:
        assert result.critical is None
    else:
        assert (result.critical == "luck") == (roll <= 50)
        assert (result.critical == "bad_luck") == (roll >= 950)


# ---------------------------------------------------------------------------
# Opposed rolls

SWAPPED = {"a": "b", "b": "a", "draw": "draw", "none": "none"}


@PROPERTY
@given(single_tests(), single_tests(), faces, faces)
def test_swapping_opposed_sides_swaps_the_winner(a, b, roll_a, roll_b):
    forward = f.roll(f.OpposedTest(a, b), ScriptedDice([roll_a, roll_b]))
    backward = f.roll(f.OpposedTest(b, a), ScriptedDice([roll_b, roll_a]))
    assert backward.winner == SWAPPED[forward.winner]
    assert forward.a.roll == roll_a
    assert forward.b.roll == roll_b


def _odds_by_counting(threshold_a: int, threshold_b: int) -> f.OpposedOdds:
    """All 10**6 pairs of faces, judged by the engine's own verdict."""
    a_results = [(r <= threshold_a, threshold_a - r) for r in range(1, 1001)]
    b_results = [(r <= threshold_b, threshold_b - r) for r in range(1, 1001)]
    counts = {"a": 0, "b": 0, "draw": 0, "none": 0}
    for a_success, a_distance in a_results:
        for b_success, b_distance in b_results:
            if a_success and b_success:
                key = (
                    "draw" if a_distance == b_distance else "a" if a_distance > b_distance else "b"
                )
            else:
                key = "a" if a_success else "b" if b_success else "none"
            counts[key] += 1
    total = 1000 * 1000
    return f.OpposedOdds(*(Fraction(counts[k], total) for k in ("a", "draw", "b", "none")))


def _opposed(threshold_a: int, threshold_b: int) -> f.OpposedTest:
    # An attribute test with only an action modifier has exactly the wanted threshold.
    def side(limit: int) -> f.AttributeTest:
        return f.AttributeTest(f.Attribute("Siła", 0), (f.Modifier(limit, "action"),))

    return f.OpposedTest(side(threshold_a), side(threshold_b))


@pytest.mark.parametrize(("threshold_a", "threshold_b"), [(650, 420), (1200, -30)])
def test_opposed_odds_match_counting_every_pair(threshold_a, threshold_b):
    assert f.opposed_odds(_opposed(threshold_a, threshold_b)) == _odds_by_counting(
        threshold_a, threshold_b
    )


@PROPERTY
@given(st.integers(-100, 1100), st.integers(-100, 1100))
def test_opposed_odds_per_face_of_a(threshold_a, threshold_b):
    odds = f.opposed_odds(_opposed(threshold_a, threshold_b))
    assert odds.a + odds.draw + odds.b + odds.none == 1
    # Walk a's successful faces; b's success distances are threshold_b − r, r in 1..b_successes.
    b_successes = min(max(threshold_b, 0), 1000)
    a_wins = draws = 0
    for roll_a in range(1, min(max(threshold_a, 0), 1000) + 1):
        distance = threshold_a - roll_a
        smaller = b_successes - min(max(threshold_b - distance, 0), b_successes)  # r > tb − d
        a_wins += (1000 - b_successes) + smaller
        draws += 1 if 0 <= threshold_b - distance - 1 < b_successes else 0
    assert odds.a == Fraction(a_wins, 10**6)
    assert odds.draw == Fraction(draws, 10**6)
    assert f.probability(_opposed(threshold_a, threshold_b)) == odds.a
    assert f.opposed_odds(_opposed(threshold_b, threshold_a)).b == odds.a


def test_opposed_odds_agree_with_a_seeded_simulation():
    test = f.OpposedTest(
        f.SkillTest(3, f.Attribute("Charyzma", 500), ()),
        f.SkillTest(0, f.Attribute("Inteligencja", 800), ()),
    )
    odds = f.opposed_odds(test)
    dice = RandomDice(1000)
    n = 20_000
    counts = {"a": 0, "b": 0, "draw": 0, "none": 0}
    for _ in range(n):
        counts[f.roll(test, dice).winner] += 1
    for key, exact in [("a", odds.a), ("b", odds.b), ("draw", odds.draw), ("none", odds.none)]:
        p = float(exact)
        assert abs(counts[key] / n - p) <= 4 * math.sqrt(p * (1 - p) / n) + 1e-12, key


# ---------------------------------------------------------------------------
# Initiative


@st.composite
def initiative_tests(draw) -> f.InitiativeTest:
    names = draw(
        st.lists(
            st.sampled_from(["Arin", "Bela", "Ćma", "Dorota", "Łucja", "Lena", "Zed", "ala"]),
            min_size=1,
            max_size=6,
            unique=True,
        )
    )
    entries = tuple(
        f.InitiativeEntry(
            name,
            draw(st.sampled_from([300, 500, 600])),
            draw(modifiers_for([f.SPEED_ATTRIBUTE])),
        )
        for name in names
    )
    return f.InitiativeTest(entries, draw(st.booleans()))


@PROPERTY
@given(initiative_tests(), st.lists(st.sampled_from([100, 300, 500, 950]), min_size=6, max_size=6))
def test_initiative_order_is_a_permutation_sorted_by_score(test, rolls):
    result = f.roll(test, ScriptedDice(rolls[: len(test.characters)]))
    names = [c.name for c in test.characters]
    assert sorted(result.order) == sorted(names)
    speed = {c.name: c.speed for c in test.characters}
    keys = [(-result.scores[n], -speed[n], f.polish_sort_key(n)) for n in result.order]
    assert keys == sorted(keys)
    for entry, roll in zip(result.rolls, rolls, strict=False):
        assert entry.result.roll == roll
        assert entry.score == entry.result.threshold.value - roll


def test_polish_name_order():
    names = ["Żaneta", "Zofia", "łukasz", "Lena", "Ćma", "Celina", "Óla", "Ola", "Źrebak"]
    assert sorted(names, key=f.polish_sort_key) == [
        "Celina",
        "Ćma",
        "Lena",
        "łukasz",
        "Ola",
        "Óla",
        "Zofia",
        "Źrebak",
        "Żaneta",
    ]


def test_initiative_without_probability():
    test = f.InitiativeTest((f.InitiativeEntry("Arin", 500),))
    with pytest.raises(RuleError) as error:
        f.probability(test)
    assert error.value.code == "no_probability"


# ---------------------------------------------------------------------------
# Healing


@PROPERTY
@given(
    single_tests(criticals=None).filter(lambda t: isinstance(t, f.SkillTest)),
    st.integers(1, 500),
    st.data(),
)
def test_healing_stays_within_zero_and_max(skill, max_hp, data):
    hp = data.draw(st.integers(0, max_hp))
    roll = data.draw(faces)
    result = f.roll(f.HealingTest(skill, hp, max_hp), ScriptedDice([roll]))
    assert 0 <= result.effect.hp_after <= max_hp
    assert result.effect.frees_effect == result.result.success
    if not result.result.success:
        assert result.effect.hp_after <= hp
    if result.result.critical is None:
        expected = min(max_hp, hp + result.result.distance) if result.result.success else hp
        assert result.effect.hp_after == expected


def test_healing_critical_luck_uses_hp_before_the_action():
    test = f.HealingTest(f.SkillTest(0, f.Attribute("Mądrość", 100)), hp=35, max_hp=100)
    result = f.roll(test, ScriptedDice([45]))  # threshold 50: distance 5, luck +3
    assert (result.effect.restored, result.effect.critical_bonus) == (5, 3)
    assert result.to_dict()["hp_after"] == 43
    assert result.to_dict()["hp_change"] == 8


# ---------------------------------------------------------------------------
# Probability


@PROPERTY
@given(single_tests())
def test_probability_counts_the_winning_faces(test):
    limit = f.threshold(test).value
    winning = sum(1 for roll in range(1, 1001) if roll <= limit)
    assert f.probability(test) == Fraction(winning, 1000)


def test_probability_agrees_with_a_seeded_simulation():
    test = f.CombinedTest(
        (f.Attribute("Zręczność", 501), f.Attribute("Szybkość", 700)),
        (f.Modifier(50, "attribute", attribute="Zręczność"), f.Modifier(-100, "gm_difficulty")),
    )
    p = float(f.probability(test))
    assert p == 0.525
    dice = RandomDice(2024)
    n = 20_000
    successes = sum(f.roll(test, dice).success for _ in range(n))
    assert abs(successes / n - p) <= 4 * math.sqrt(p * (1 - p) / n)


# ---------------------------------------------------------------------------
# Errors


@pytest.mark.parametrize(
    ("build", "code", "params"),
    [
        (
            lambda: f.Modifier(75, "gm_difficulty"),
            "gm_modifier_step",
            {"scope": "gm_difficulty", "value": 75, "step": 50},
        ),
        (
            lambda: f.Modifier(-350, "gm_bonus"),
            "gm_modifier_range",
            {"scope": "gm_bonus", "value": -350, "min": -300, "max": 300},
        ),
        (
            lambda: f.SkillTest(
                2,
                f.Attribute("Zręczność", 500),
                (f.Modifier(50, "attribute", attribute="Mądrość"),),
            ),
            "foreign_attribute_modifier",
            {"modifier_attribute": "Mądrość", "tested_attributes": ["Zręczność"]},
        ),
        (
            lambda: f.CombinedTest(
                (f.Attribute("Siła", 500), f.Attribute("Zręczność", 500)),
                (f.Modifier(50, "attribute", attribute="Charyzma"),),
            ),
            "foreign_attribute_modifier",
            {"modifier_attribute": "Charyzma", "tested_attributes": ["Siła", "Zręczność"]},
        ),
        (
            lambda: f.CombinedTest((f.Attribute("Siła", 500), f.Attribute("Siła", 400))),
            "same_attribute_twice",
            {"attribute": "Siła"},
        ),
        (lambda: f.SkillTest(-1, f.Attribute("Siła", 500)), "negative_level", {"level": -1}),
        (
            lambda: f.HealingTest(f.SkillTest(1, f.Attribute("Mądrość", 500)), 120, 100),
            "hp_above_max",
            {"hp": 120, "max_hp": 100},
        ),
        (lambda: f.Modifier(50, "bonus"), "unknown_scope", {"scope": "bonus"}),
        (
            lambda: f.Modifier(50, "action", attribute="Siła"),
            "unexpected_modifier_attribute",
            {"scope": "action", "attribute": "Siła"},
        ),
        (
            lambda: f.Attribute("Siła", True),
            "invalid_input",
            {"field": "attribute value", "expected": "integer"},
        ),
    ],
)
def test_errors_carry_code_params_and_a_readable_message(build, code, params):
    with pytest.raises(RuleError) as caught:
        build()
    assert caught.value.code == code
    assert caught.value.params == params
    assert isinstance(caught.value, ValueError)
    assert len(str(caught.value)) > 20
    assert caught.value.to_dict()["code"] == code


def test_foreign_modifier_message_names_both_attributes():
    with pytest.raises(RuleError, match=r"Mądrość.*Zręczność"):
        f.SkillTest(
            2, f.Attribute("Zręczność", 500), (f.Modifier(50, "attribute", attribute="Mądrość"),)
        )


# ---------------------------------------------------------------------------
# The ledger form


def _only_json_types(value) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and _only_json_types(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_only_json_types(v) for v in value)
    return value is None or isinstance(value, bool | int | str)


@st.composite
def any_tests(draw) -> f.Test:
    kind = draw(st.sampled_from(["single", "opposed", "initiative", "healing"]))
    if kind == "single":
        return draw(single_tests())
    if kind == "opposed":
        return f.OpposedTest(draw(single_tests()), draw(single_tests()))
    if kind == "initiative":
        return draw(initiative_tests())
    skill = draw(single_tests().filter(lambda t: isinstance(t, f.SkillTest)))
    max_hp = draw(st.integers(1, 300))
    return f.HealingTest(skill, draw(st.integers(0, max_hp)), max_hp)


@PROPERTY
@given(any_tests(), st.integers(0, 2**32))
def test_result_dict_is_plain_json_deterministic_and_replayable(test, seed):
    result = f.roll(test, RandomDice(seed))
    data = result.to_dict()
    assert _only_json_types(data)
    assert json.dumps(data, ensure_ascii=False) == json.dumps(result.to_dict(), ensure_ascii=False)
    # The stored input rebuilds the same test; its dice replay the same result.
    rebuilt = f.parse_test(data["test"], json.loads(json.dumps(data["input"])))
    assert rebuilt == test
    dice = ScriptedDice(data["dice"])
    assert f.roll(rebuilt, dice).to_dict() == data
    assert dice.all_consumed
