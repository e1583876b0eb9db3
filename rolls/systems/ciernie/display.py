"""Ciernie i Gwiazdy rolls in words: the preview of a test (threshold, difficulty, the
sheet's and the GM's modifiers, the reroll; the exact chance) and the lines of a stored
roll, read from its record alone."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from characters.numbers import signed_number, with_minus
from rolls.engine import ciernie as engine
from rolls.plugins import Case, CaseLine, CasePreview, percent_text
from rolls.systems.ciernie.forms import DIFFICULTY_NAMES, KIND_LABELS, TIME_UNITS, unit_count
from rolls.systems.ciernie.rerolls import RerollOffer

# ---------------------------------------------------------------------------
# Words for the numbers: the preview and the roll lines share them


def _term_text(term: dict, first: bool) -> str:
    value = term["value"]
    shown = with_minus(str(value)) if first else signed_number(value)
    kind = term["kind"]
    if kind == "attribute":
        return _("attribute %(value)s") % {"value": shown}
    if kind == "mean":
        return _("mean of the attributes (%(values)s), rounded down: %(value)s") % {
            "values": ", ".join(with_minus(str(v)) for v in term["attributes"]),
            "value": shown,
        }
    if kind == "base":
        return _("base %(value)s") % {"value": shown}
    if kind == "own":
        return _("own value %(value)s") % {"value": shown}
    if kind == "opposing":
        return _("opposing value %(value)s") % {"value": with_minus(f"{value:+d}")}
    if kind in ("own_modifier", "opposing_modifier"):
        side = _("own side") if kind == "own_modifier" else _("opposing side")
        source = term.get("source") or ""
        if source == "skill":
            what = _("skill")
        else:
            what = {"ability": _("ability"), "flaw": _("flaw"), "item": _("item")}.get(source, "")
        label = term.get("label") or ""
        named = f"{label} ({what})" if what else label
        return f"{side}: {named} {signed_number(value)}".strip()
    if kind == "skill":
        return _("3 × (skill %(skill)s − factor %(factor)s) = %(value)s") % {
            "skill": term["skill"],
            "factor": term["factor"],
            "value": signed_number(value),
        }
    if kind == "reroll_sources":
        return _("reroll from %(sources)s source(s): %(value)s") % {
            "sources": term["sources"],
            "value": signed_number(value),
        }
    source = term.get("source") or ""
    label = term.get("label") or ""
    if source == "difficulty":
        name = DIFFICULTY_NAMES.get(value, label)
        return _("difficulty: %(name)s %(value)s") % {"name": name, "value": shown}
    if source == "gm":
        return _("GM modifier %(value)s (%(reason)s)") % {
            "value": shown,
            "reason": term.get("reason") or "",
        }
    if source in ("ability", "flaw", "item"):
        what = {"ability": _("ability"), "flaw": _("flaw"), "item": _("item")}[source]
        return f"{label} ({what}) {shown}"
    return f"{label} {shown}".strip()


def terms_text(breakdown: list[dict], threshold: int) -> str:
    """ "attribute 12 + difficulty: hard −6 + Refleks (ability) +2 = threshold 8"."""
    parts = [_term_text(term, index == 0) for index, term in enumerate(breakdown)]
    return _("threshold: %(terms)s → %(threshold)s") % {
        "terms": ", ".join(parts),
        "threshold": with_minus(str(threshold)),
    }


def _no_roll_reason(test: engine.BaseTest | dict, outcome: str) -> str:
    """Why no die is rolled, in words (a test or its stored input)."""
    data = test if isinstance(test, dict) else test.to_input()
    if "skill" in data and "factor" in data:
        numbers = {"skill": data["skill"], "factor": data["factor"]}
        if outcome == engine.Outcome.AUTOMATIC_SUCCESS:
            return (
                _(
                    "No roll: the skill (%(skill)s) is 3 or more levels above the factor "
                    "(%(factor)s), so the test succeeds automatically."
                )
                % numbers
            )
        return (
            _(
                "No roll: the skill (%(skill)s) is 3 or more levels below the factor (%(factor)s), "
                "so the test is impossible."
            )
            % numbers
        )
    return _("No roll: the threshold is below 1, so the test is impossible.")


def _effect_impossible() -> str:
    return _("The effect cannot be resisted: the GM sets how long it lasts.")


# ---------------------------------------------------------------------------
# Preview


def preview(case: Case) -> CasePreview:
    """The exact chance and the threshold's terms; when no die is rolled, why."""
    test = case.engine_test()
    base = test.base if isinstance(test, engine.RerollTest | engine.LinkedReroll) else test
    limit = engine.threshold(base)
    terms = [terms_text([dict(t) for t in limit.terms], limit.value)]
    decided = engine.roll_allowed(base, limit.value)
    if decided is not None:
        note = _no_roll_reason(base, decided)
        if isinstance(base, engine.EffectTest):
            note += " " + _effect_impossible()
        if isinstance(test, engine.RerollTest):
            note += " " + _("There is nothing to reroll.")
        return CasePreview(chance=None, terms=terms, note=note)
    if isinstance(test, engine.LinkedReroll):
        limit = engine.threshold(base, test.reroll_sources)
        terms = [terms_text([dict(t) for t in limit.terms], limit.value)]
    if isinstance(base, engine.SkillTest):
        terms.append(
            _(
                "1 is always a success, 20 always a failure; up to 3 above the threshold is a "
                "delay: the action succeeds but takes longer."
            )
        )
        terms.append(_("A critical success (1) takes only one turn, not the normal time."))
    else:
        terms.append(_("1 is always a success, 20 always a failure."))
    if isinstance(base, engine.EffectTest):
        terms.append(
            _("On a failure the effect lasts one unit (%(unit)s) per point missed, at least one.")
            % {"unit": TIME_UNITS.get(base.unit or "", base.unit or "")}
        )
    if isinstance(test, engine.RerollTest):
        second = engine.threshold(base, test.reroll_sources)
        terms.append(
            _("If the first roll fails (a delay is not a failure), the reroll decides: %(terms)s")
            % {"terms": terms_text([dict(t) for t in second.terms], second.value)}
        )
    offer = next((e for e in case.effects if isinstance(e, RerollOffer)), None)
    if offer is not None and not isinstance(test, engine.RerollTest | engine.LinkedReroll):
        sources = len(offer.sources)
        with_reroll = engine.probability(engine.RerollTest(base, sources))
        second = engine.threshold(base, sources)
        terms.append(
            _(
                "With a reroll after a failure (%(names)s: %(sources)s source(s), threshold "
                "%(threshold)s): %(chance)s%% in all. You choose it once the roll has failed."
            )
            % {
                "names": ", ".join(name for _key, name in offer.sources),
                "sources": sources,
                "threshold": with_minus(str(second.value)),
                "chance": percent_text(with_reroll),
            }
        )
    return CasePreview(chance=case.probability(), terms=terms)


# ---------------------------------------------------------------------------
# The roll lines

OUTCOMES = {
    "critical_success": gettext_lazy("Critical success"),
    "success": gettext_lazy("Success"),
    "delay": gettext_lazy("Delay"),
    "failure": gettext_lazy("Failure"),
    "critical_failure": gettext_lazy("Critical failure"),
    "automatic_success": gettext_lazy("Automatic success"),
    "impossible": gettext_lazy("Impossible"),
}


def _who(record: dict) -> str:
    people = record.get("characters") or {}
    if isinstance(people, dict):
        first = people.get("a") or next(iter(people.values()), None)
    else:
        first = people[0] if people else None
    return (first or {}).get("name", "")


def _base_details(result: dict, kind: str) -> list[str]:
    """The roll against the threshold, the band, and what it means, for one base result."""
    outcome = result["outcome"]
    roll = result["roll"]
    threshold = result["threshold"]
    details = []
    if roll is None:
        details.append(_no_roll_reason(result["input"], outcome))
    else:
        sign = "≤" if roll <= threshold else ">"
        details.append(
            _("roll %(roll)s %(sign)s threshold %(threshold)s")
            % {"roll": roll, "sign": sign, "threshold": with_minus(str(threshold))}
        )
        if roll == engine.CRITICAL_SUCCESS_FACE:
            details.append(_("a 1 always succeeds"))
        elif roll == engine.CRITICAL_FAILURE_FACE:
            details.append(_("a 20 always fails"))
    if kind == "skill" and outcome == engine.Outcome.CRITICAL_SUCCESS:
        # Seed 002: "zajmuje to jej jedynie turę (a nie kilka – jak w normalnych przypadkach)".
        details.append(_("done perfectly: it takes only one turn, not the normal time"))
    if kind == "skill" and outcome == engine.Outcome.DELAY:
        details.append(
            _("the action succeeds, but takes %(times)s× the normal time")
            % {"times": result["time_multiplier"]}
        )
    if kind == "effect":
        if outcome == engine.Outcome.IMPOSSIBLE:
            details.append(_effect_impossible())
        elif result["success"]:
            details.append(_("the effect is resisted: it does not take hold"))
        else:
            details.append(
                _("the effect lasts %(length)s")
                % {"length": unit_count(result.get("unit"), result["duration"])}
            )
    details.append(terms_text(result["breakdown"], threshold))
    return details


def _line(who: str, what: str, result: dict, kind: str) -> CaseLine:
    return CaseLine(
        who=who,
        what=what,
        outcome=str(OUTCOMES.get(result["outcome"], result["outcome"])),
        success=bool(result["success"]),
        details=_base_details(result, kind),
    )


def lines(record: dict) -> list[CaseLine]:
    """A stored ciernie roll in words; a reroll shows both rolls, the second deciding."""
    result = record["result"]
    who = _who(record)
    summary = record.get("what") or ""
    if result["test"] == engine.LinkedReroll.kind:
        return _linked_reroll_lines(record, who, summary)
    if result["test"] != "reroll":
        kind = result["test"]
        what = f"{KIND_LABELS.get(kind, kind)}: {summary}" if summary else str(KIND_LABELS[kind])
        return [_line(who, what, result, kind)]
    kind = result["input"]["base"]["test"]
    label = f"{KIND_LABELS.get(kind, kind)}: {summary}" if summary else str(KIND_LABELS[kind])
    first = result["first"]
    second = result.get("second")
    if second is None:
        line = _line(who, label, first, kind)
        if first["roll"] is None:
            note = _("no reroll: there was no roll to repeat")
        elif first["outcome"] == engine.Outcome.DELAY:
            note = _("no reroll: a delay is not a failure")
        else:
            note = _("no reroll needed: the first roll succeeded")
        return [CaseLine(line.who, line.what, line.outcome, line.success, [*line.details, note])]
    sources = result["input"]["reroll_sources"]
    first_line = _line(who, _("%(what)s — first roll") % {"what": label}, first, kind)
    second_line = _line(
        who,
        _("%(what)s — reroll (%(sources)s source(s)), which decides")
        % {"what": label, "sources": sources},
        second,
        kind,
    )
    return [first_line, second_line]


def _linked_reroll_lines(record: dict, who: str, summary: str) -> list[CaseLine]:
    """A reroll chosen after the failed roll #N: that roll as it fell, then this one, which
    decides (the final outcome)."""
    result = record["result"]
    kind = result["input"]["base"]["test"]
    label = f"{KIND_LABELS.get(kind, kind)}: {summary}" if summary else str(KIND_LABELS[kind])
    first_seq = (record.get("rerolls") or {}).get("seq")
    first_line = _line(
        who,
        _("%(what)s — first roll (#%(seq)s)") % {"what": label, "seq": first_seq},
        result["first"],
        kind,
    )
    second_line = _line(
        who,
        _("%(what)s — reroll (%(sources)s source(s)), which decides")
        % {"what": label, "sources": result["input"]["reroll_sources"]},
        result["second"],
        kind,
    )
    return [first_line, second_line]


def summary(case: Case) -> str:
    """A player's request in words: what is tested, without the factor the GM sets."""
    if case.mode == "skill":
        return case.what.rsplit(" vs ", 1)[0]
    return case.what
