"""The running order of an initiative event (RULES 1.4; seed 000 lines 107-121): pure Python.

The order is never stored: it is computed, every time it is shown, from the scores the
initiative roll gave (fixed until the event ends) and the event's recorded changes:

1. each entry's score plus the order modifiers active in this turn (spells, items: a
   modifier given in turn t0 for N turns counts in turns t0 .. t0+N-1 and ends by itself
   in turn t0+N); highest first; ties: higher raw Szybkość, then the name in Polish order
   (the same rule as the roll's own order, forum1000.initiative_order);
2. handovers (handing over / taking over initiative), in the order they were recorded:
   each puts its character at the position the GM stated (1 = first), the others keep
   their relative order; a handover lasts until the event ends or a later one moves
   the same character;
3. characters held by a stun or an immobilisation drop to the end while held, keeping
   their relative order; they return to their place when freed.
"""

from __future__ import annotations

from dataclasses import dataclass

from rolls.engine.forum1000 import polish_sort_key


@dataclass(frozen=True)
class Entry:
    """One participant as the initiative roll left it."""

    character_id: int
    name: str
    speed: int  # raw Szybkość, the first tie-break
    score: int  # the roll's distance (RULES 1.4)


@dataclass(frozen=True)
class OrderModifier:
    """A speed or initiative modifier for a number of turns (a spell, an item)."""

    character_id: int
    value: int
    from_turn: int
    turns: int

    def active_in(self, turn: int) -> bool:
        return self.from_turn <= turn < self.from_turn + self.turns

    @property
    def last_turn(self) -> int:
        return self.from_turn + self.turns - 1


@dataclass(frozen=True)
class Handover:
    """The GM's record that a character hands over or takes over initiative: its new place."""

    character_id: int
    position: int  # 1-based; clamped to the list


@dataclass(frozen=True)
class Place:
    character_id: int
    name: str
    base_score: int
    modifier: int  # the sum of the modifiers active in this turn
    held: bool
    moved: bool  # placed by a handover

    @property
    def score(self) -> int:
        return self.base_score + self.modifier


def current_order(
    entries: tuple[Entry, ...] | list[Entry],
    *,
    turn: int,
    modifiers: tuple[OrderModifier, ...] | list[OrderModifier] = (),
    handovers: tuple[Handover, ...] | list[Handover] = (),
    held: frozenset[int] | set[int] = frozenset(),
) -> tuple[Place, ...]:
    """The order in `turn`, first to act first (see the module's docstring for the rule)."""
    bonus: dict[int, int] = {}
    for modifier in modifiers:
        if modifier.active_in(turn):
            bonus[modifier.character_id] = bonus.get(modifier.character_id, 0) + modifier.value
    ranked = sorted(
        entries,
        key=lambda e: (
            -(e.score + bonus.get(e.character_id, 0)),
            -e.speed,
            polish_sort_key(e.name),
        ),
    )
    ids = [e.character_id for e in ranked]
    moved: set[int] = set()
    for handover in handovers:
        if handover.character_id not in ids:
            continue
        ids.remove(handover.character_id)
        index = min(max(handover.position, 1), len(ids) + 1) - 1
        ids.insert(index, handover.character_id)
        moved.add(handover.character_id)
    ids = [i for i in ids if i not in held] + [i for i in ids if i in held]
    by_id = {e.character_id: e for e in entries}
    return tuple(
        Place(
            character_id=i,
            name=by_id[i].name,
            base_score=by_id[i].score,
            modifier=bonus.get(i, 0),
            held=i in held,
            moved=i in moved,
        )
        for i in ids
    )


def next_after(order: tuple[Place, ...], marked: int | None) -> int | None:
    """The one resolved after `marked`: the next in the order, from the top after the last."""
    if not order:
        return None
    ids = [p.character_id for p in order]
    if marked not in ids:
        return ids[0]
    return ids[(ids.index(marked) + 1) % len(ids)]
