"""Invalid input anywhere, in any system: the engine's own error, before any die is rolled."""

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rolls.engine import systems
from rolls.engine.dice import DiceExhausted, ScriptedDice
from rolls.engine.errors import RuleError
from tests.rolls.engine.vector_folders import OWN_VECTORS, SHARED_VECTORS

FOLDERS = [SHARED_VECTORS, OWN_VECTORS]
FACES = {"forum1000": (1, 1000), "q10": (1, 10), "ciernie": (1, 20), "arsmagica": (0, 9)}


def roll_cases() -> list[dict]:
    found = []
    for folder in FOLDERS:
        for path in sorted(folder.glob("*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                case = json.loads(line)
                # The free-form system's faces depend on each expression's dice; its
                # text input has fuzz tests of its own (test_engine_notation.py).
                if case["system"] not in FACES:
                    continue
                if "dice" in case and case["expect"].get("error") is not True:
                    found.append(case)
    return found


CASES = roll_cases()


def test_there_are_cases_to_mutate():
    assert {case["system"] for case in CASES} == set(FACES)
    assert len(CASES) > 100


def paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from paths(item, (*prefix, index))


def _at(value, path):
    for step in path:
        value = value[step]
    return value


def replaced(value, path, new):
    if not path:
        return new
    value = copy.deepcopy(value)
    holder = value
    for step in path[:-1]:
        holder = holder[step]
    holder[path[-1]] = new
    return value


json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-2000, 2000),
        st.floats(allow_nan=False, allow_infinity=False),
        st.sampled_from(["", "Siła", "attribute", "action", "gm_bonus", "skill", "x"]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.sampled_from(["name", "value", "scope", "test", "x"]), inner, max_size=3
        ),
    ),
    max_leaves=6,
)


@st.composite
def mutated_cases(draw):
    case = draw(st.sampled_from(CASES))
    data = case["input"]
    numbers = [p for p in paths(data) if p and type(_at(data, p)) is int]
    if numbers and draw(st.booleans()):
        # Plausible numbers, often still valid: exercises the rules, not only the refusals.
        for path in draw(st.lists(st.sampled_from(numbers), min_size=1, max_size=3)):
            data = replaced(data, path, draw(st.integers(-60, 1100)))
    else:
        for _ in range(draw(st.integers(1, 2))):
            path = draw(st.sampled_from(list(paths(data))))
            data = replaced(data, path, draw(json_values))
    low, high = FACES[case["system"]]
    faces = draw(st.lists(st.integers(low, high), max_size=40))
    return case["system"], case["test"], data, faces


def parse_and_roll(system, kind, data, dice):
    """As the conformance runner does: a result, the engine's refusal, or None (out of dice)."""
    try:
        return systems.roll(system, systems.parse_test(system, kind, data), dice)
    except RuleError as error:
        return error
    except DiceExhausted:
        return None  # a valid test that needs more dice than were drawn


def check_one(system, kind, data, faces) -> str:
    """What became of one mutated case: "refused", "rolled" or "out_of_dice"."""
    dice = ScriptedDice(faces)
    outcome = parse_and_roll(system, kind, data, dice)
    if outcome is None:
        return "out_of_dice"
    if isinstance(outcome, RuleError):
        assert dice.consumed == 0
        assert outcome.code
        assert len(str(outcome)) > 5
        return "refused"
    result = outcome.to_dict()
    # Plain JSON, kept whole through the ledger's JSON column.
    assert json.loads(json.dumps(result)) == result
    # The record names exactly the dice the roll consumed, in order, and they replay it.
    assert result["dice"] == faces[: dice.consumed]
    test = systems.parse_test(system, kind, data)
    replay = ScriptedDice(result["dice"])
    assert systems.roll(system, test, replay).to_dict() == result
    assert replay.all_consumed
    if (system, kind) == ("forum1000", "initiative"):
        with pytest.raises(RuleError):
            systems.probability(system, test)
    else:
        assert 0 <= systems.probability(system, test) <= 1
    return "rolled"


def test_invalid_input_is_refused_before_any_die():
    seen = set()

    @settings(deadline=None, derandomize=True, max_examples=1500)
    @given(mutated_cases())
    def run(mutated):
        system, kind, data, faces = mutated
        seen.add((system, check_one(system, kind, data, faces)))

    run()
    # The mutations reach both the refusals and the rules, in every system.
    assert {(system, what) for system in FACES for what in ("refused", "rolled")} <= seen


@pytest.mark.parametrize(
    ("system", "kind", "data"),
    [
        ("forum1000", "attribute", {"attribute": {"name": "Siła", "value": 500}, "modifiers": {}}),
        ("forum1000", "opposed", {"a": [], "b": {}}),
        ("forum1000", "nonsense", {}),
        ("q10", "pool", {"x": 1, "y": 1, "difficulty": 5, "circumstances": [True]}),
        ("ciernie", "reroll", {"base": 3, "reroll_sources": 1}),
        ("arsmagica", "stress", []),
        ("tarot", "pool", {}),
    ],
)
def test_structural_garbage_is_a_rule_error(system, kind, data):
    with pytest.raises(RuleError):
        systems.parse_test(system, kind, data)
