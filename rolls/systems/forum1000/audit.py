"""The moderators' audit of a forum1000 session: per character, how its d1000 faces fell
(count, mean, successes, the critical faces), against what a fair die gives."""

from __future__ import annotations

from dataclasses import dataclass

from rolls.engine import forum1000 as f1000
from rolls.models import ENTRY_KINDS, Roll


@dataclass
class CharacterStats:
    """Per-character roll statistics for the moderators' audit (forum1000 single tests)."""

    character_id: int
    name: str
    count: int = 0
    roll_total: int = 0
    successes: int = 0
    critical_luck: int = 0
    critical_bad_luck: int = 0

    @property
    def mean_roll(self) -> float:
        return self.roll_total / self.count if self.count else 0.0

    @property
    def success_share(self) -> float:
        return self.successes / self.count if self.count else 0.0

    def add(self, result: dict) -> None:
        self.count += 1
        self.roll_total += result["roll"]
        self.successes += bool(result["success"])
        # Raw faces, counted even in simplified sessions: the audit looks at the dice.
        self.critical_luck += result["roll"] <= f1000.CRITICAL_LUCK_MAX
        self.critical_bad_luck += result["roll"] >= f1000.CRITICAL_BAD_LUCK_MIN


def _outcomes(record: dict):
    """(character id, name, single-test result) for every die of a roll record."""
    result, people = record["result"], record["characters"]
    kind = record["kind"]
    if kind == "opposed":
        yield people["a"]["id"], people["a"]["name"], result["a"]
        yield people["b"]["id"], people["b"]["name"], result["b"]
    elif kind == "initiative":
        for person, entry in zip(people["initiative"], result["entries"], strict=True):
            yield person["id"], person["name"], entry["result"]
    else:
        yield people["a"]["id"], people["a"]["name"], result


def character_stats(session) -> list[CharacterStats]:
    stats: dict[int, CharacterStats] = {}
    # A free-form roll (test "notation") is no d1000 test: it has no place here.
    rolls = Roll.objects.filter(session=session, system=f1000.SYSTEM).exclude(
        test__in=(*ENTRY_KINDS, "notation")
    )
    for record in rolls.values_list("record", flat=True):
        try:
            for character_id, name, result in list(_outcomes(record)):
                stats.setdefault(character_id, CharacterStats(character_id, name)).add(result)
        except (KeyError, TypeError, ValueError, AttributeError):
            continue  # a damaged record; the chain report above names it
    return sorted(stats.values(), key=lambda s: s.name)
