"""Reads of free-form rolls: each roller's dice in the moderators' audit."""

from __future__ import annotations

from dataclasses import dataclass, field

from rolls.engine import notation as free_notation
from rolls.ledger.secret import REVEAL_TEST
from rolls.models import (
    Roll,
    is_player_free_roll,
)


@dataclass
class FreeRollStats:
    """One roller's free-form rolls in the moderators' audit, per die size: how many rolls,
    how many dice of each size and their mean face against a fair die's. Fate dice (faces
    "F": −1, 0, +1) are a size of their own, after the numbered ones."""

    username: str
    by_player: bool
    rolls: int = 0
    faces: dict[int | str, list[int]] = field(default_factory=dict)  # die size → every face

    @property
    def dice(self) -> list[tuple[int | str, int, float, float]]:
        """(die size, dice rolled, mean face, a fair die's mean), smallest die first."""
        return [
            (size, len(seen), sum(seen) / len(seen), 0.0 if size == "F" else (size + 1) / 2)
            for size, seen in sorted(self.faces.items(), key=lambda item: _die_order(item[0]))
        ]


def _die_order(size: int | str) -> tuple[bool, int]:
    return (size == "F", size if isinstance(size, int) else 0)


def _stored_dice_terms(terms):
    """Every stored dice term of a free roll's result, those inside products and groups too."""
    for term in terms:
        if term.get("kind") == "dice":
            yield term
        for part in (*term.get("factors", ()), *term.get("items", ())):
            yield from _stored_dice_terms(part["terms"])


def free_roll_stats(session) -> list[FreeRollStats]:
    """Every roller's free-form rolls (the GM's and, where allowed, each player's), read
    from the records in one query; a secret roll counts once revealed, as its reveal."""
    stats: dict[tuple[str, bool], FreeRollStats] = {}
    rows = Roll.objects.filter(session=session, test__in=(free_notation.TEST, REVEAL_TEST))
    for record in rows.values_list("record", flat=True):
        try:
            shown = record["reveals"]["record"] if "reveals" in record else record
            if shown.get("kind") != free_notation.TEST:
                continue
            faces: dict[int | str, list[int]] = {}
            for term in _stored_dice_terms(shown["result"]["terms"]):
                size = term["faces"]
                if not (size == "F" or type(size) is int):
                    raise TypeError(size)
                seen = [die["face"] for die in term["dice"]]
                if not all(type(face) is int for face in seen):
                    raise TypeError(seen)
                faces.setdefault(size, []).extend(seen)
            key = (record["rolled_by"]["username"], is_player_free_roll(shown))
            row = stats.setdefault(key, FreeRollStats(*key))
            row.rolls += 1
            for size, seen in faces.items():
                row.faces.setdefault(size, []).extend(seen)
        except (KeyError, TypeError, AttributeError):
            continue  # a damaged record; the chain report names it
    return sorted(stats.values(), key=lambda s: (not s.by_player, s.username))
