"""forum1000's rolls in words: the preview of a test (each side's threshold, its
breakdown and the exact chance; an opposed roll's odds) and a stored roll as RULES 1.1's
line, read from its record alone, in the current language."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from django.utils import formats
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from characters.numbers import signed_text, with_minus
from rolls.engine import forum1000 as f1000
from rolls.plugins import Case, percent_text

OUTCOMES = {"success": gettext_lazy("Success"), "failure": gettext_lazy("Failure")}
CRITICALS = {"luck": gettext_lazy("critical luck"), "bad_luck": gettext_lazy("critical bad luck")}
WINNERS = {
    "a": gettext_lazy("%(a)s wins"),
    "b": gettext_lazy("%(b)s wins"),
    "draw": gettext_lazy("Draw"),
    "none": gettext_lazy("Nobody wins: both failed, the attempt is annulled"),
}
SCOPES = {
    "action": gettext_lazy("action"),
    "gm_difficulty": gettext_lazy("GM difficulty"),
    "gm_bonus": gettext_lazy("GM bonus/penalty"),
}


# A GM difficulty modifier is added to the threshold: a plus makes the test easier.
DIFFICULTY_BY_SIGN = {
    True: gettext_lazy("easier test (GM)"),
    False: gettext_lazy("harder test (GM)"),
}


def _scope_name(scope: str, value: int):
    if scope == "gm_difficulty":
        return DIFFICULTY_BY_SIGN[value >= 0]
    return SCOPES[scope]


@dataclass
class Term:
    text: str  # e.g. "Zręczność 500 ÷ 2 = 250", "Precyzyjny +50 ÷ 2 = +25"
    reason: str = ""


@dataclass
class TestLine:
    who: str
    what: str
    outcome: str
    success: bool
    percent: int
    roll: int
    threshold: int
    distance: int
    critical: str
    terms: list[Term] = field(default_factory=list)

    # RULES 1.1's numbers as shown, each with the one minus sign (U+2212).
    @property
    def threshold_text(self) -> str:
        return with_minus(str(self.threshold))

    @property
    def distance_text(self) -> str:
        return with_minus(signed_text(self.distance))

    @property
    def comparison(self) -> str:
        """Success is roll ≤ threshold (RULES 1.1)."""
        return "≤" if self.roll <= self.threshold else ">"


def _what(result: dict) -> str:
    data = result["input"]
    kind = result["test"]
    if kind == "combined":
        first, second = data["attributes"]
        return _("Combined: %(a)s + %(b)s") % {"a": first["name"], "b": second["name"]}
    if kind in ("skill", "healing") and not data.get("skill"):
        return _("No fitting skill: %(attribute)s ÷ 2") % {"attribute": data["attribute"]["name"]}
    if kind in ("skill", "healing"):
        return _("%(skill)s (level %(level)s, %(attribute)s)") % {
            "skill": data.get("skill") or _("Skill"),
            "level": data["level"],
            "attribute": data["attribute"]["name"],
        }
    return _("Attribute: %(name)s") % {"name": data["attribute"]["name"]}


def threshold_terms(breakdown: list[dict]) -> list[Term]:
    """Each threshold term as written on a forum: what it is, its value, what it adds."""
    terms = []
    for index, term in enumerate(breakdown):
        halved = term["weight"] == "1/2"
        contribution = term["contribution"]
        # The first term starts the sum; the others add to it, so they carry a sign.
        adds = with_minus(contribution if index == 0 else signed_text(contribution))
        if term["kind"] == "attribute":
            text = f"{term['name']} {term['value']}"
            text += f" ÷ 2 = {adds}" if halved else ""
        elif term["kind"] == "skill_level":
            text = _("level %(level)s × %(points)s = %(adds)s") % {
                "level": term["level"],
                "points": term["points_per_level"],
                "adds": adds,
            }
        else:
            value = with_minus(signed_text(term["value"]))
            if term["scope"] == "attribute":
                name = term.get("label") or term["attribute"]
                text = f"{name} ({term['attribute']}) {value}"
                text += f" ÷ 2 = {adds}" if halved else ""
            else:
                scope = str(_scope_name(term["scope"], term["value"]))
                label = term.get("label")
                text = f"{scope}: {label} {value}" if label else f"{scope} {value}"
        terms.append(Term(text=text, reason=term.get("reason") or ""))
    return terms


def test_line(who: str, result: dict) -> TestLine:
    critical = result.get("critical")
    return TestLine(
        who=who,
        what=_what(result),
        outcome=str(OUTCOMES[result["outcome"]]),
        success=result["success"],
        percent=result["percent"],
        roll=result["roll"],
        threshold=result["threshold"],
        distance=result["distance"],
        critical=str(CRITICALS[critical]) if critical else "",
        terms=threshold_terms(result["breakdown"]),
    )


@dataclass(frozen=True)
class Legend:
    """What the legend under a roll needs from the engine (its numbers, not typed again)."""

    critical_luck_max: int = f1000.CRITICAL_LUCK_MAX
    critical_bad_luck_min: int = f1000.CRITICAL_BAD_LUCK_MIN

    @property
    def faces(self) -> int:
        low, high = f1000.DIE_FACES
        return high - low + 1

    @property
    def fair_mean(self) -> str:
        """What a fair die averages, e.g. "500,5" (the audit compares with it)."""
        low, high = f1000.DIE_FACES
        return formats.number_format(Decimal(low + high) / 2, decimal_pos=1, use_l10n=True)

    @property
    def luck_share(self) -> str:
        """The percent of faces that are critical luck on a fair die."""
        low, _high = f1000.DIE_FACES
        return _share(self.critical_luck_max - low + 1, self.faces)

    @property
    def bad_luck_share(self) -> str:
        _low, high = f1000.DIE_FACES
        return _share(high - self.critical_bad_luck_min + 1, self.faces)


def _share(count: int, faces: int) -> str:
    percent = (Decimal(count) * 100 / faces).normalize()
    return formats.number_format(percent, use_l10n=True)


LEGEND = Legend()


def npc_text(npc: dict) -> str:
    """The NPC a roll targeted: "NPC Stary kupiec, perswazja: +100 (łatwowierny)"."""
    value = with_minus(signed_text(npc["value"]))
    return f"NPC {npc['name']}, {npc['interaction']}: {value} ({npc['reason']})"


# ---------------------------------------------------------------------------
# A stored roll


KINDS = {
    "attribute": gettext_lazy("Attribute"),
    "combined": gettext_lazy("Combined roll"),
    "skill": gettext_lazy("Skill"),
    "opposed": gettext_lazy("Opposed roll"),
    "healing": gettext_lazy("Healing"),
    "initiative": gettext_lazy("Initiative"),
}


@dataclass
class RollLines:
    """What rolls/systems/forum1000/lines.html draws of a stored roll."""

    lines: list[TestLine] = field(default_factory=list)
    verdict: str = ""
    initiative: list[tuple[int, str, str]] = field(default_factory=list)  # (place, name, score)
    healing: str = ""
    npc: str = ""  # e.g. "NPC Stary kupiec, perswazja: +100 (łatwowierny)"

    def __bool__(self) -> bool:
        return bool(self.lines)


def lines(record: dict) -> RollLines:
    """The roll's lines from its record alone."""
    result = record["result"]
    people = record["characters"]
    kind = record["kind"]
    shown = RollLines()
    if kind == "opposed":
        a, b = people["a"]["name"], people["b"]["name"]
        shown.lines = [test_line(a, result["a"]), test_line(b, result["b"])]
        shown.verdict = str(WINNERS[result["winner"]]) % {"a": a, "b": b}
    elif kind == "initiative":
        scores = result["scores"]
        shown.initiative = [
            (place, name, with_minus(str(scores[name])))
            for place, name in enumerate(result["order"], start=1)
        ]
        shown.lines = [test_line(entry["name"], entry["result"]) for entry in result["entries"]]
    else:
        shown.lines = [test_line(people["a"]["name"], result)]
    if record.get("npc"):
        shown.npc = npc_text(record["npc"])
    if kind == "healing":
        healing = record["healing"]
        text = _("%(patient)s: HP %(before)s → %(after)s") % {
            "patient": people["patient"]["name"],
            "before": healing["hp_before"],
            "after": healing["hp_after"],
        }
        if healing["freed_effect"]:
            text += "; " + _("freed: %(effect)s") % {
                "effect": healing["freed_effect"]["description"]
            }
        shown.healing = text
    return shown


# ---------------------------------------------------------------------------
# The preview


@dataclass
class SidePreview:
    name: str
    threshold: int
    exact: str  # as shown: U+2212 for a minus
    threshold_text: str  # the threshold as shown
    chance: str  # percent, e.g. "37,5"
    terms: list = field(default_factory=list)


@dataclass
class Preview:
    """What rolls/systems/forum1000/preview.html draws before the roll."""

    sides: list[SidePreview] = field(default_factory=list)
    odds: dict[str, str] | None = None  # opposed: a / draw / b / none, as percents


def _side(name: str, test) -> SidePreview:
    limit = f1000.threshold(test)
    return SidePreview(
        name=name,
        threshold=limit.value,
        threshold_text=with_minus(str(limit.value)),
        exact=with_minus(limit.to_dict()["exact"]),
        chance=percent_text(f1000.success_probability(limit.value)),
        terms=threshold_terms([t.to_dict() for t in limit.terms]),
    )


def preview(case: Case) -> Preview:
    test = case.engine_test()
    names = case.names
    if isinstance(test, f1000.InitiativeTest):
        return Preview(
            sides=[
                _side(entry.name, single)
                for entry, single in zip(test.characters, test.tests, strict=True)
            ]
        )
    if isinstance(test, f1000.OpposedTest):
        odds = f1000.opposed_odds(test)
        return Preview(
            sides=[_side(names.get("a", ""), test.a), _side(names.get("b", ""), test.b)],
            odds={k: percent_text(getattr(odds, k)) for k in ("a", "draw", "b", "none")},
        )
    single = test.skill if isinstance(test, f1000.HealingTest) else test
    return Preview(sides=[_side(names.get("a", ""), single)])
