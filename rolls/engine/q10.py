"""q10: Q10 "XzY" pools (RULES.md §2).

Roll X d10, keep the Y highest, and for every 10 among the X dice (kept or not)
roll one extra d10 and add it; an extra 10 grants another extra die. Success iff
total ≥ difficulty + circumstances + 5·raises.

The exact probability is a finite computation although the extra dice make the
sample space infinite; see `pool_probability`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any, ClassVar

from rolls.engine.common import (
    Adjustment,
    adjustments,
    notes_dict,
    read,
    read_adjustments,
    require_instances,
    require_int,
    require_notes,
    require_tuple,
)
from rolls.engine.dice import DiceSource
from rolls.engine.errors import RuleError

SYSTEM = "q10"
DIE_FACES = (1, 10)
TEN = 10
MAX_DICE = 10  # "never more than 10 dice"
RAISE_STEP = 5

# Named difficulty levels (seed 001); any whole number ≥ 0 is accepted.
DIFFICULTY_LEVELS = {
    5: "trywialny",
    10: "łatwy",
    15: "przeciętny",
    20: "niełatwy",
    25: "trudny",
    30: "bardzo trudny",
    35: "niezmiernie trudny",
    40: "koszmarnie trudny",
    50: "niewyobrażalny",
}


@dataclass(frozen=True)
class PoolModifier:
    """A pool modifier `±dice z ±keep`, e.g. 1z1 or −3z3."""

    dice: int
    keep: int
    label: str | None = None
    reason: str | None = None
    source: str | None = None

    def __post_init__(self) -> None:
        require_int(self.dice, "pool modifier dice")
        require_int(self.keep, "pool modifier keep")
        require_notes(self)

    def to_dict(self) -> dict[str, Any]:
        return {"dice": self.dice, "keep": self.keep, **notes_dict(self)}


def _require_non_negative(value: object, name: str, code: str) -> None:
    require_int(value, name)
    if value < 0:  # type: ignore[operator]
        raise RuleError(code, f"{name} cannot be negative (got {value})", field=name, value=value)


@dataclass(frozen=True)
class PoolTest:
    """A Q10 test. Give the pool either as `x`, `y` or as `attribute`, `skill`."""

    kind: ClassVar[str] = "pool"
    difficulty: int
    x: int | None = None
    y: int | None = None
    attribute: int | None = None
    skill: int | None = None
    pool_modifiers: tuple[PoolModifier, ...] = ()
    circumstances: tuple[Adjustment, ...] = ()
    raises: int = 0

    def __post_init__(self) -> None:
        as_dice = (self.x, self.y)
        as_stats = (self.attribute, self.skill)
        # Exactly one of the two pairs, and that one complete.
        if sorted(pair.count(None) for pair in (as_dice, as_stats)) != [0, 2]:
            raise RuleError(
                "pool_shape",
                "give the pool either as x and y or as attribute and skill",
            )
        for name in ("x", "y", "attribute", "skill"):
            if getattr(self, name) is not None:
                _require_non_negative(getattr(self, name), name, "negative_pool")
        modifiers = require_tuple(self.pool_modifiers, "pool_modifiers")
        require_instances(modifiers, PoolModifier, "pool_modifiers")
        object.__setattr__(self, "pool_modifiers", modifiers)
        object.__setattr__(self, "circumstances", adjustments(self.circumstances, "circumstances"))
        require_int(self.difficulty, "difficulty")
        if self.difficulty < 0:
            raise RuleError(
                "negative_difficulty",
                f"the difficulty cannot be negative (got {self.difficulty})",
                difficulty=self.difficulty,
            )
        require_int(self.raises, "raises")
        if self.raises < 0:
            raise RuleError(
                "negative_raises",
                f"the number of raises cannot be negative (got {self.raises})",
                raises=self.raises,
            )

    def to_input(self) -> dict[str, Any]:
        pool = (
            {"x": self.x, "y": self.y}
            if self.x is not None
            else {"attribute": self.attribute, "skill": self.skill}
        )
        return {
            **pool,
            "pool_modifiers": [m.to_dict() for m in self.pool_modifiers],
            "difficulty": self.difficulty,
            "circumstances": [c.to_dict() for c in self.circumstances],
            "raises": self.raises,
        }


@dataclass(frozen=True)
class Pool:
    """How XzY came about: base pool, after modifiers (floored at 0), after the caps."""

    base_x: int
    base_y: int
    modified_x: int
    modified_y: int
    x: int
    y: int

    def to_dict(self) -> dict[str, int]:
        return {
            "base_x": self.base_x,
            "base_y": self.base_y,
            "modified_x": self.modified_x,
            "modified_y": self.modified_y,
            "x": self.x,
            "y": self.y,
        }


def effective_pool(test: PoolTest) -> Pool:
    """Base pool + Σ modifiers, each side floored at 0, then X capped at 10 and Y at X."""
    if test.x is not None and test.y is not None:
        base_x, base_y = test.x, test.y
    else:
        assert test.attribute is not None
        assert test.skill is not None
        base_x, base_y = test.attribute + test.skill, min(test.attribute, test.skill)
    modified_x = max(0, base_x + sum(m.dice for m in test.pool_modifiers))
    modified_y = max(0, base_y + sum(m.keep for m in test.pool_modifiers))
    x = min(modified_x, MAX_DICE)
    return Pool(base_x, base_y, modified_x, modified_y, x, min(modified_y, x))


def very_low(total: int, difficulty: int) -> bool:
    """Seed 001: "bardzo niski wynik" means the action was done "w sposób wyjątkowo
    nieudolny". The seed names no number; its example (9 against 30) fits the rule taken
    here: a failure whose total is at most half the difficulty (docs/decisions.md, Q10)."""
    return total < difficulty and 2 * total <= difficulty


def final_difficulty(test: PoolTest) -> int:
    """Difficulty + circumstances + 5 per declared raise (not floored: circumstances just add)."""
    return test.difficulty + sum(c.value for c in test.circumstances) + RAISE_STEP * test.raises


@dataclass(frozen=True)
class PoolResult:
    test: PoolTest
    pool: Pool
    faces: tuple[int, ...]  # the X dice in rolling order
    kept: tuple[int, ...]  # high to low
    extra: tuple[int, ...]  # extra dice in rolling order
    difficulty: int

    @property
    def tens(self) -> int:
        return self.faces.count(TEN)

    @property
    def total(self) -> int:
        return sum(self.kept) + sum(self.extra)

    @property
    def success(self) -> bool:
        return self.total >= self.difficulty

    @property
    def margin(self) -> int:
        return self.total - self.difficulty

    @property
    def raises_achieved(self) -> int:
        return self.test.raises if self.success else 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": SYSTEM,
            "test": PoolTest.kind,
            "input": self.test.to_input(),
            "pool": self.pool.to_dict(),
            "x": self.pool.x,
            "y": self.pool.y,
            "dice": [*self.faces, *self.extra],
            "faces": list(self.faces),
            "kept": list(self.kept),
            "tens": self.tens,
            "extra": list(self.extra),
            "total": self.total,
            "base_difficulty": self.test.difficulty,
            "circumstances_total": sum(c.value for c in self.test.circumstances),
            "raises": self.test.raises,
            "difficulty": self.difficulty,
            "success": self.success,
            "outcome": "success" if self.success else "failure",
            "margin": self.margin,
            "raises_achieved": self.raises_achieved,
        }


def evaluate(test: PoolTest, faces: tuple[int, ...], extra: tuple[int, ...]) -> PoolResult:
    pool = effective_pool(test)
    kept = tuple(sorted(faces, reverse=True)[: pool.y])
    return PoolResult(test, pool, faces, kept, extra, final_difficulty(test))


def roll(test: PoolTest, dice: DiceSource) -> PoolResult:
    """All X dice first, then the extra dice one by one while tens keep granting more."""
    pool = effective_pool(test)
    faces = tuple(dice.roll(*DIE_FACES) for _ in range(pool.x))
    owed = faces.count(TEN)
    extra: list[int] = []
    while owed:
        face = dice.roll(*DIE_FACES)
        extra.append(face)
        owed += (face == TEN) - 1
    return evaluate(test, faces, tuple(extra))


# ---------------------------------------------------------------------------
# Exact probability
#
# Write the total as  u + 10·K  where
#   u = (sum of the Y highest of the X dice) + (the last, non-10 face of each of
#       the T chains of extra dice; T = number of tens among the X dice), and
#   K = the number of 10s rolled on extra dice.
# A particular sequence of extra dice with k tens and final faces f1..fT has
# chance 10**−(k+T), and the k tens can be spread over the T chains in
# C(k+T−1, k) ways. With P(T, u) counting the final faces at 1/10 each,
#   P(total < D) = Σ_{T, u<D} P(T, u) · H_T(⌊(D−1−u)/10⌋),
#   H_T(J) = Σ_{k≤J} C(k+T−1, k)·10**−k.
# Every term is an integer over a power of 10, so the result is exact and finite.


@cache
def _sums_above(lowest: int, dice: int) -> tuple[int, ...]:
    """ways[s]: outcomes of `dice` dice, each showing a face in lowest+1..9, adding up to s."""
    if dice == 0:
        return (1,)
    return _add_die(_sums_above(lowest, dice - 1), lowest + 1, 9)


@cache
def _kept_sums_without_tens(dice: int, keep: int) -> tuple[int, ...]:
    """ways[s]: outcomes of `dice` dice showing 1..9 whose `keep` highest faces add up to s."""
    if keep == 0:
        return (9**dice,)
    sums = [0] * (9 * keep + 1)
    # Split by the lowest kept face v: `above` dice show more than v (all kept),
    # `equal` dice show v (keep − above of them kept), the rest show less than v.
    for lowest in range(1, 10):
        for above in range(keep):
            placements = sum(
                math.factorial(dice)
                // (math.factorial(above) * math.factorial(equal) * math.factorial(rest))
                * (lowest - 1) ** rest
                for equal in range(keep - above, dice - above + 1)
                for rest in [dice - above - equal]
            )
            shift = (keep - above) * lowest
            for extra, ways in enumerate(_sums_above(lowest, above)):
                if ways:
                    sums[shift + extra] += placements * ways
    return tuple(sums)


@cache
def _chain_end_sums(chains: int) -> tuple[int, ...]:
    """ways[f]: ordered ways for `chains` faces in 1..9 to add up to f."""
    return (1,) if chains == 0 else _add_die(_chain_end_sums(chains - 1), 1, 9)


def _add_die(ways: tuple[int, ...], low: int, high: int) -> tuple[int, ...]:
    """The sums after one more die showing any face in low..high (a sliding window sum)."""
    result = [0] * (len(ways) + high)
    window = 0
    for total in range(len(result)):
        if 0 <= total - low < len(ways):  # sum − low enters the window
            window += ways[total - low]
        if 0 <= total - high - 1 < len(ways):  # sum − high − 1 leaves it
            window -= ways[total - high - 1]
        result[total] = window
    return tuple(result)


def _convolve(first: tuple[int, ...], second: tuple[int, ...]) -> tuple[int, ...]:
    result = [0] * (len(first) + len(second) - 1)
    for i, a in enumerate(first):
        if a:
            for j, b in enumerate(second):
                result[i + j] += a * b
    return tuple(result)


@cache
def _outcome_table(dice: int, keep: int) -> tuple[tuple[int, ...], ...]:
    """prefix[T][u] = Σ_{v<u} ways(T, v): ways out of 10**(dice+T) to have T tens and u = v.

    u is the kept sum plus the final faces of the T chains of extra dice. With T
    tens among the X dice, the tens take min(T, Y) of the kept places and the
    other X−T dice (faces 1..9) fill the rest.
    """
    table = []
    for tens in range(dice + 1):
        placements = math.comb(dice, tens)
        rest = _convolve(
            _kept_sums_without_tens(dice - tens, max(0, keep - tens)), _chain_end_sums(tens)
        )
        prefix = [0] * (TEN * min(tens, keep) + 1)  # u below the tens' own kept sum: none
        for ways in rest:
            prefix.append(prefix[-1] + placements * ways)
        table.append(tuple(prefix))
    return tuple(table)


def _extra_tens_weight(chains: int, limit: int) -> tuple[int, int]:
    """H_T(J) = Σ_{k≤J} C(k+T−1, k)·10**−k as (numerator, exponent of the denominator 10**J).

    H_T(J)·(9/10)**T = P(K_T ≤ J) = 1 − P(fewer than T non-tens among the first J+T
    dice), a T-term binomial sum, so the J+1 terms never need adding up one by one;
    the division by 9**T is exact because H_T(J)·10**J is an integer.
    """
    if chains == 0:
        return 1, 0
    dice = limit + chains
    fewer_non_tens = sum(math.comb(dice, i) * 9**i for i in range(chains))
    numerator, remainder = divmod(10**dice - fewer_non_tens, 9**chains)
    assert remainder == 0
    return numerator, limit


@cache
def pool_probability(dice: int, keep: int, difficulty: int) -> Fraction:
    """Exact P(total ≥ difficulty) for an effective pool `dice`z`keep` (0 ≤ keep ≤ dice ≤ 10)."""
    if difficulty <= 0:
        return Fraction(1)
    table = _outcome_table(dice, keep)
    terms: list[tuple[int, int]] = []  # (numerator, power of ten of the denominator)
    for tens, prefix in enumerate(table):
        below = min(difficulty, len(prefix) - 1)  # u ranges over 0..below-1
        # u with the same J = ⌊(D−1−u)/10⌋ share one factor: walk blocks of 10.
        high = below
        while high > 0:
            limit = (difficulty - high) // 10  # J for u = high − 1
            low = max(0, difficulty - 10 * (limit + 1))
            ways = prefix[high] - prefix[low]
            if ways:
                numerator, exponent = _extra_tens_weight(tens, limit)
                terms.append((ways * numerator, dice + tens + exponent))
            high = low
    if not terms:
        return Fraction(1)
    top = max(exponent for _, exponent in terms)
    failure = sum(numerator * 10 ** (top - exponent) for numerator, exponent in terms)
    return 1 - Fraction(failure, 10**top)


def probability(test: PoolTest) -> Fraction:
    pool = effective_pool(test)
    return pool_probability(pool.x, pool.y, final_difficulty(test))


def warm() -> int:
    """Build the outcome table of every pool 0 ≤ Y ≤ X ≤ MAX_DICE (66 of them, ~25 ms).

    The app calls this at start (rolls.apps), so no request pays for building one:
    a cold 10z10 odds call costs ~6 ms with its table still to build, ~0.1 ms without.
    Returns how many pool tables are built.
    """
    for dice in range(MAX_DICE + 1):
        for keep in range(dice + 1):
            _outcome_table(dice, keep)
    return built_pools()


def built_pools() -> int:
    """How many pools' outcome tables are built (66 after `warm()`)."""
    return _outcome_table.cache_info().currsize


def clear_caches() -> None:
    """Forget every cached table (used by the cold-cache benchmark)."""
    pool_probability.cache_clear()
    _outcome_table.cache_clear()
    _kept_sums_without_tens.cache_clear()
    _sums_above.cache_clear()
    _chain_end_sums.cache_clear()


# ---------------------------------------------------------------------------
# Reading the vector / ledger input format


def _read_pool_modifier(item: object) -> PoolModifier:
    if isinstance(item, Mapping):
        return PoolModifier(
            read(item, "dice"),
            read(item, "keep"),
            label=item.get("label"),
            reason=item.get("reason"),
            source=item.get("source"),
        )
    pair = require_tuple(item, "pool_modifiers")
    if len(pair) != 2:
        raise RuleError(
            "invalid_input",
            f"a pool modifier is a pair [dx, dy], got {item!r}",
            field="pool_modifiers",
            expected="pair",
        )
    return PoolModifier(*pair)


def parse_test(kind: str, data: Mapping[str, Any]) -> PoolTest:
    if kind != PoolTest.kind:
        raise RuleError("unknown_test", f"q10 has no {kind!r} test", system=SYSTEM, test=str(kind))
    modifiers = require_tuple(read(data, "pool_modifiers", []), "pool_modifiers")
    # The pool may also come nested as {"pool": {"x": 5, "y": 2}}.
    pool = data.get("pool")
    pool = pool if isinstance(pool, Mapping) else data
    return PoolTest(
        difficulty=read(data, "difficulty"),
        x=pool.get("x"),
        y=pool.get("y"),
        attribute=pool.get("attribute"),
        skill=pool.get("skill"),
        pool_modifiers=tuple(_read_pool_modifier(item) for item in modifiers),
        circumstances=read_adjustments(data, "circumstances"),
        raises=read(data, "raises", 0),
    )
