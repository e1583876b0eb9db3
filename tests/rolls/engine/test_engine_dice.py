"""Dice sources: scripted faces for tests, the CSPRNG for production."""

import math
from collections import Counter

import pytest

from rolls.engine.dice import (
    DiceExhausted,
    FaceOutOfRange,
    RandomDice,
    ScriptedDice,
    SystemDice,
)

P_VALUE_FLOOR = 1e-6  # loose enough never to flake, tight enough to catch a biased die


def chi_square_p_value(observed: Counter, low: int, high: int) -> float:
    """Upper-tail p-value of Pearson's χ² against a uniform die, Wilson–Hilferty approximation.

    (χ²/k)^(1/3) is close to normal with mean 1 − 2/(9k) and variance 2/(9k), which is
    very accurate for the hundreds of degrees of freedom used here.
    """
    faces = range(low, high + 1)
    rolls = sum(observed.values())
    expected = rolls / len(faces)
    statistic = sum((observed.get(face, 0) - expected) ** 2 / expected for face in faces)
    k = len(faces) - 1
    z = ((statistic / k) ** (1 / 3) - (1 - 2 / (9 * k))) / math.sqrt(2 / (9 * k))
    return 0.5 * math.erfc(z / math.sqrt(2))


def test_scripted_dice_give_faces_in_order():
    dice = ScriptedDice([3, 1000, 0])
    assert dice.roll(1, 10) == 3
    assert dice.roll(1, 1000) == 1000
    assert not dice.all_consumed
    assert dice.roll(0, 9) == 0
    assert dice.all_consumed
    assert (dice.consumed, dice.remaining) == (3, 0)


def test_scripted_dice_refuse_a_face_off_the_die_without_consuming_it():
    dice = ScriptedDice([11])
    with pytest.raises(FaceOutOfRange, match=r"11 at position 0 is not on a 1\.\.10 die"):
        dice.roll(1, 10)
    assert dice.consumed == 0


@pytest.mark.parametrize("face", [True, 2.0, "2"])
def test_scripted_dice_refuse_non_integer_faces(face):
    with pytest.raises(FaceOutOfRange):
        ScriptedDice([face]).roll(1, 20)


def test_scripted_dice_say_when_they_run_out():
    dice = ScriptedDice([5])
    dice.roll(1, 20)
    with pytest.raises(DiceExhausted, match="ran out of scripted dice: die 2"):
        dice.roll(1, 20)


def test_random_dice_are_reproducible_and_in_range():
    a, b = RandomDice(7), RandomDice(7)
    sequence = [a.roll(1, 20) for _ in range(200)]
    assert sequence == [b.roll(1, 20) for _ in range(200)]
    assert set(sequence) <= set(range(1, 21))
    assert len(set(sequence)) > 10


def test_system_dice_stay_on_the_die():
    dice = SystemDice()
    assert {dice.roll(4, 4) for _ in range(20)} == {4}
    faces = {dice.roll(0, 9) for _ in range(2000)}
    assert faces == set(range(10))


def test_chi_square_helper_rejects_a_biased_die():
    fair = Counter(dict.fromkeys(range(1, 21), 1000))
    assert chi_square_p_value(fair, 1, 20) > 0.99
    loaded = Counter(dict.fromkeys(range(1, 21), 1000))
    loaded[20] += 300  # 20 shows 30 % more often than it should
    assert chi_square_p_value(loaded, 1, 20) < P_VALUE_FLOOR
    # A 10-bit source taken modulo 1000: faces 1..24 come up twice as often.
    modulo_bias = Counter(value % 1024 % 1000 + 1 for value in range(1024 * 300))
    assert chi_square_p_value(modulo_bias, 1, 1000) < P_VALUE_FLOOR


@pytest.mark.parametrize(
    ("low", "high", "rolls"),
    [(1, 1000, 300_000), (1, 20, 200_000), (1, 10, 200_000), (0, 9, 200_000)],
    ids=["d1000", "d20", "q10-d10", "ars-d10"],
)
def test_system_dice_are_uniform(low, high, rolls):
    dice = SystemDice()
    observed = Counter(dice.roll(low, high) for _ in range(rolls))
    assert set(observed) <= set(range(low, high + 1))
    assert chi_square_p_value(observed, low, high) > P_VALUE_FLOOR
