"""Dice sources: where faces come from.

The engine never draws randomness of its own; every test takes a `DiceSource`.
A face is written as the physical die shows it (d1000: 1..1000, Q10 d10: 1..10,
d20: 1..20, Ars Magica d10: 0..9), so a source is asked for one face in an
inclusive range `low..high`.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterable
from typing import Protocol


class DiceSource(Protocol):
    def roll(self, low: int, high: int) -> int:
        """One face, uniformly chosen from `low..high` inclusive."""
        ...


class DiceError(Exception):
    """A dice source could not deliver a face (never raised by `SystemDice`)."""


class DiceExhausted(DiceError):
    """A scripted source ran out of faces."""


class FaceOutOfRange(DiceError):
    """A scripted face is not on the die that was rolled."""


class SystemDice:
    """Production dice: the operating system's CSPRNG.

    `secrets.randbelow(n)` draws uniformly from 0..n-1 by rejection sampling,
    so there is no modulo bias.
    """

    def roll(self, low: int, high: int) -> int:
        return low + secrets.randbelow(high - low + 1)


class RandomDice:
    """Reproducible pseudo-random dice for simulations and benchmarks, never for real rolls."""

    def __init__(self, seed: int | random.Random = 0) -> None:
        self._rng = seed if isinstance(seed, random.Random) else random.Random(seed)

    def roll(self, low: int, high: int) -> int:
        return self._rng.randint(low, high)


class ScriptedDice:
    """Faces given in advance, consumed in rolling order (tests and conformance vectors)."""

    def __init__(self, faces: Iterable[int]) -> None:
        self._faces = tuple(faces)
        self._next = 0

    @property
    def consumed(self) -> int:
        return self._next

    @property
    def remaining(self) -> int:
        return len(self._faces) - self._next

    @property
    def all_consumed(self) -> bool:
        return self._next == len(self._faces)

    def roll(self, low: int, high: int) -> int:
        if self._next >= len(self._faces):
            raise DiceExhausted(
                f"ran out of scripted dice: die {self._next + 1} ({low}..{high}) was asked for "
                f"but only {len(self._faces)} faces were given"
            )
        face = self._faces[self._next]
        if type(face) is not int or not low <= face <= high:
            raise FaceOutOfRange(
                f"scripted face {face!r} at position {self._next} is not on a {low}..{high} die"
            )
        self._next += 1
        return face
