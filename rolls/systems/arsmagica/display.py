"""Ars Magica rolls in words: the preview of a simple or stress die (Cecha + Umiejętność,
modifiers, the ease factor, the botch dice; the exact chance) and the lines of a stored
roll, read from its record alone."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext

from characters.numbers import signed_number, with_minus
from rolls.engine import arsmagica as ars
from rolls.plugins import Case, CaseDie, CaseLine, CasePreview, percent_text
from rolls.systems.arsmagica.forms import MODES, SOURCE_GM, SOURCE_NAMES

# ---------------------------------------------------------------------------
# Words shared by the preview and the roll line


def _modifier_term(modifier: dict[str, Any]) -> str:
    """ "Ostrożny (zdolność) +1", "modyfikator MG −2: ciemno"."""
    value = signed_number(modifier["value"])
    source = modifier.get("source")
    if source == SOURCE_GM or not modifier.get("label"):
        text = _("GM modifier %(value)s") % {"value": value}
        return f"{text}: {modifier['reason']}" if modifier.get("reason") else text
    kind = SOURCE_NAMES.get(source)
    name = f"{modifier['label']} ({kind})" if kind else modifier["label"]
    return f"{name} {value}"


def _base_terms(data: dict[str, Any]) -> list[str]:
    return [
        pgettext("arsmagica", "Characteristic %(value)s")
        % {"value": signed_number(data["characteristic"])},
        pgettext("arsmagica", "Ability %(value)s") % {"value": data["ability"]},
        *(_modifier_term(m) for m in data["modifiers"]),
    ]


def botch_chance(botch_dice: int) -> Fraction:
    """P(a botch): a first 0 on the stress die, then a 0 on any of the botch dice."""
    return ars.TENTH * (1 - Fraction(9, 10) ** botch_dice)


def preview(case: Case) -> CasePreview:
    """The exact chance of success and, for the stress die, of a botch, term by term."""
    test = case.engine_test()
    data = test.to_input()
    chance = case.probability()
    needed = test.ease_factor - test.base
    terms = _base_terms(data)
    terms.append(
        _("Without the die: %(base)s against ease factor %(ease)s")
        % {
            "base": with_minus(str(test.base)),
            "ease": test.ease_factor,
        }
    )
    notes = []
    if isinstance(test, ars.SimpleTest):
        terms.append(_("Simple die: 1 to 9 as rolled, 0 counts as 10."))
        if needed <= 1:
            notes.append(_("Any face of the die succeeds; the die is still rolled."))
        elif needed > ars.ZERO_AS:
            notes.append(
                _(
                    "Not even a 10 on the die reaches the ease factor: the roll fails "
                    "whatever it shows."
                )
            )
        else:
            terms.append(_("The die must show at least %(needed)s.") % {"needed": needed})
    else:
        terms.append(
            _(
                "Stress die: 2 to 9 as rolled; a 1 rolls again and doubles (each further 1 "
                "doubles again, a 0 there counts as 10); a first 0 counts as 0 and calls for "
                "the botch dice."
            )
        )
        if needed > 0:
            terms.append(
                _("The die must give at least %(needed)s (a doubling can reach any number).")
                % {"needed": needed}
            )
        botch_dice = test.botch_dice
        if botch_dice == 0:
            notes.append(_("No botch dice: a botch is not possible; a first 0 simply counts as 0."))
        else:
            terms.append(
                ngettext(
                    "Chance of a botch (a first 0, then a 0 on the %(count)s botch die): "
                    "%(chance)s%%",
                    "Chance of a botch (a first 0, then a 0 on any of the %(count)s botch "
                    "dice): %(chance)s%%",
                    botch_dice,
                )
                % {"count": botch_dice, "chance": percent_text(botch_chance(botch_dice))}
            )
            if needed <= 0:
                notes.append(_("Only a botch can make this roll fail."))
    return CasePreview(chance=chance, terms=[str(t) for t in terms], note=" ".join(notes))


# ---------------------------------------------------------------------------
# The stored roll, in words


OUTCOMES = {
    "success": gettext_lazy("Success"),
    "failure": gettext_lazy("Failure"),
    "botch": gettext_lazy("Botch"),
}


def _who(record: dict) -> str:
    people = record.get("characters") or {}
    if isinstance(people, dict):
        person = people.get("a") or next(iter(people.values()), None)
    else:
        person = people[0] if people else None
    if isinstance(person, dict):
        return person.get("name", "")
    return str(person or "")


def _zeros(count: int) -> str:
    return ngettext("%(count)s zero", "%(count)s zeros", count) % {"count": count}


def _die_text(result: dict) -> str:
    faces = result["die_faces"]
    if result["test"] == "simple":
        face = faces[0]
        if face == 0:
            return _("Simple die: 0, counts as 10")
        return _("Simple die: %(face)s") % {"face": face}
    first = faces[0]
    if first == 0:
        botch_faces = result.get("botch_faces") or []
        if not result["input"].get("botch_dice"):
            return _("Stress die: 0 — no botch dice (no botch possible): the die counts as 0")
        shown = ", ".join(str(f) for f in botch_faces)
        if result.get("botch"):
            return _("Stress die: 0 — botch dice: %(faces)s — botch! %(zeros)s") % {
                "faces": shown,
                "zeros": _zeros(result["botch_zeros"]),
            }
        return _(
            "Stress die: 0 — botch dice: %(faces)s — no zero, no botch: the die counts as 0"
        ) % {"faces": shown}
    if first == ars.DOUBLING_FACE:
        last = faces[-1]
        value = ars.simple_value(last)
        chain = " → ".join(str(f) for f in faces)
        text = _("Stress die: %(chain)s: %(value)s × %(multiplier)s = %(die)s") % {
            "chain": chain,
            "value": value,
            "multiplier": 2 ** result["doublings"],
            "die": result["die"],
        }
        if last == 0:
            text += " " + _("(a 0 after a 1 counts as 10)")
        return text
    return _("Stress die: %(face)s") % {"face": first}


def _dice(result: dict) -> list[CaseDie]:
    """Every face drawn as a die: the die itself (each doubling 1, then the face doubled) and
    every botch die, the zeros among them marked (they are what counts)."""
    faces = result["die_faces"]
    if result["test"] == "simple":
        note = _("counts as 10") if faces[0] == 0 else _("the die")
        return [CaseDie(faces[0], note=note)]
    if faces[0] == ars.DOUBLING_FACE:
        dice = [CaseDie(face, kept=False, note=_("doubles")) for face in faces[:-1]]
        last = faces[-1]
        note = _("× %(multiplier)s") % {"multiplier": 2 ** result["doublings"]}
        if last == 0:
            note = _("counts as 10, × %(multiplier)s") % {"multiplier": 2 ** result["doublings"]}
        return [*dice, CaseDie(last, note=note)]
    if faces[0] != 0:
        return [CaseDie(faces[0], note=_("the die"))]
    dice = [CaseDie(0, note=_("a first 0: botch check"))]
    for face in result.get("botch_faces") or []:
        note = _("botch die: zero") if face == 0 else _("botch die")
        dice.append(CaseDie(face, kept=face == 0, extra=True, note=note))
    return dice


def lines(record: dict) -> list[CaseLine]:
    """One line for the roll: what was tested, the outcome, the die, the sum, the margin."""
    result = record["result"]
    data = result["input"]
    outcome = str(OUTCOMES[result["outcome"]])
    details = [_die_text(result)]
    ease = result["ease_factor"]
    margin = signed_number(result["margin"])
    if result.get("botch"):
        details.append(
            _("A botch: the total is 0 (characteristic, ability and modifiers are lost)")
        )
        details.append(
            _("0 against ease factor %(ease)s: a botch always fails (margin %(margin)s)")
            % {"ease": ease, "margin": margin}
        )
    else:
        terms = [*_base_terms(data), _("die %(die)s") % {"die": result["die"]}]
        details.append(
            _("Total: %(terms)s = %(total)s")
            % {"terms": ", ".join(terms), "total": with_minus(str(result["total"]))}
        )
        compare = "≥" if result["success"] else "<"
        details.append(
            _("%(total)s %(compare)s ease factor %(ease)s: margin %(margin)s")
            % {
                "total": with_minus(str(result["total"])),
                "compare": compare,
                "ease": ease,
                "margin": margin,
            }
        )
    return [
        CaseLine(
            who=_who(record),
            what=record.get("what") or str(dict(MODES).get(result["test"], result["test"])),
            outcome=outcome,
            success=bool(result["success"]),
            details=[str(d) for d in details],
            dice=_dice(result),
        )
    ]


def summary(case: Case) -> str:
    """A player's request in words, without what the GM settles (ease factor, botch dice):
    "Zręczność + Skradanie (kość stresu) · Zwinne dłonie"."""
    data = case.input
    sources = [m["label"] for m in data["modifiers"] if m.get("source") != SOURCE_GM]
    return case.what + (f" · {', '.join(sources)}" if sources else "")
