"""The Q10 roll in words: the preview of a pool (how X, Y and the difficulty were reached,
and the exact chance) and the line of a stored roll, read from its record alone."""

from __future__ import annotations

from django.utils.translation import gettext as _

from characters.numbers import signed_number, with_minus
from rolls.engine import q10
from rolls.plugins import Case, CaseDie, CaseLine, CasePreview
from rolls.systems.q10 import forms
from rolls.systems.q10.forms import difficulty_text, modifier_text, pool_text


def _reason(item: dict) -> str:
    return f" «{item['reason']}»" if item.get("reason") else ""


def preview(case: Case) -> CasePreview:
    test = case.engine_test()
    pool = q10.effective_pool(test)
    data = case.input
    terms = [
        _("base pool %(pool)s: attribute %(a)s + skill %(s)s dice, keep the lower (%(y)s)")
        % {
            "pool": pool_text(pool.base_x, pool.base_y),
            "a": data["attribute"],
            "s": data["skill"],
            "y": pool.base_y,
        }
    ]
    for item in data["pool_modifiers"]:
        who = item.get("label") or _("GM")
        terms.append(f"{who} {modifier_text(item['dice'], item['keep'])}{_reason(item)}")
    if data["pool_modifiers"]:
        terms.append(
            _("after the modifiers %(pool)s")
            % {"pool": pool_text(pool.modified_x, pool.modified_y)}
        )
    if (pool.x, pool.y) != (pool.modified_x, pool.modified_y):
        terms.append(cap_text(pool))
    final = q10.final_difficulty(test)
    parts = [_("difficulty %(d)s") % {"d": difficulty_text(test.difficulty)}]
    for item in data["circumstances"]:
        parts.append(
            _("circumstance %(v)s") % {"v": with_minus(signed_number(item["value"]))}
            + _reason(item)
        )
    if test.raises:
        parts.append(
            _("%(n)s raise(s) × %(step)s = +%(v)s")
            % {"n": test.raises, "step": q10.RAISE_STEP, "v": q10.RAISE_STEP * test.raises}
        )
    terms.append(" + ".join(parts) + f" = {with_minus(str(final))}")
    terms.append(_("roll %(pool)s against %(d)s") % {"pool": pool_text(pool.x, pool.y), "d": final})
    return CasePreview(chance=case.probability(), terms=terms)


def cap_text(pool: q10.Pool) -> str:
    """ "12z3 → 10z3: never more than 10 dice" (RULES 2: X capped at 10, Y at X)."""
    before, after = pool_text(pool.modified_x, pool.modified_y), pool_text(pool.x, pool.y)
    if pool.modified_x > q10.MAX_DICE:
        return _("%(before)s → %(after)s: never more than %(max)s dice") % {
            "before": before,
            "after": after,
            "max": q10.MAX_DICE,
        }
    return _("%(before)s → %(after)s: no more dice kept than rolled") % {
        "before": before,
        "after": after,
    }


# -- the roll line ------------------------------------------------------------


def _kept_marks(faces: list[int], kept: list[int]) -> list[bool]:
    """Which of the faces (in rolling order) are kept: the highest, first come first."""
    left = list(kept)
    marks = []
    # The highest faces first, so ties mark the earliest die of a value.
    order = sorted(range(len(faces)), key=lambda i: (-faces[i], i))
    chosen = set()
    for index in order:
        if faces[index] in left:
            left.remove(faces[index])
            chosen.add(index)
    for index in range(len(faces)):
        marks.append(index in chosen)
    return marks


def lines(record: dict) -> list[CaseLine]:
    result = record["result"]
    who = record["characters"]["a"]["name"]
    faces, kept, extra = result["faces"], result["kept"], result["extra"]
    pool = result["pool"]
    dice = [
        CaseDie(face, kept=mark, note=_("kept") if mark else _("not kept"))
        for face, mark in zip(faces, _kept_marks(faces, kept), strict=True)
    ]
    dice += [CaseDie(face, kept=True, extra=True, note=_("extra die for a 10")) for face in extra]
    details = [
        _("dice: %(faces)s") % {"faces": ", ".join(map(str, faces)) or "—"},
        _("kept: %(kept)s") % {"kept": " + ".join(map(str, kept)) or _("none")},
    ]
    if extra:
        details.append(_("extra dice for tens: %(extra)s") % {"extra": " + ".join(map(str, extra))})
    if (pool["x"], pool["y"]) != (pool["modified_x"], pool["modified_y"]):
        details.append(cap_text(q10.Pool(**pool)))
    comparison = "≥" if result["success"] else "<"
    details.append(
        _("total %(total)s %(cmp)s difficulty %(difficulty)s")
        % {"total": result["total"], "cmp": comparison, "difficulty": result["difficulty"]}
    )
    details.append(_("margin %(margin)s") % {"margin": with_minus(signed_number(result["margin"]))})
    if q10.very_low(result["total"], result["difficulty"]):
        details.append(_("a very low result: the action is done exceptionally ineptly"))
    if result["raises"]:
        details.append(
            _("raises achieved: %(got)s of %(declared)s")
            % {"got": result["raises_achieved"], "declared": result["raises"]}
        )
    for number, purpose in enumerate(record.get("raise_purposes") or [], start=1):
        details.append(_("raise %(n)s: %(purpose)s") % {"n": number, "purpose": purpose})
    for item in result["input"]["pool_modifiers"] + result["input"]["circumstances"]:
        if item.get("reason"):
            value = (
                modifier_text(item["dice"], item["keep"])
                if "dice" in item
                else with_minus(signed_number(item["value"]))
            )
            details.append(
                _("GM %(value)s: %(reason)s") % {"value": value, "reason": item["reason"]}
            )
    what = f"{record.get('what') or _('Pool')} ({pool_text(result['x'], result['y'])})"
    return [
        CaseLine(
            who=who,
            what=what,
            outcome=_("Success") if result["success"] else _("Failure"),
            success=result["success"],
            details=details,
            dice=dice,
        )
    ]


def summary(case: Case) -> str:
    """A request in words: "Siła + Atletyka (5z2) · podbicia: 1"."""
    pool = q10.effective_pool(case.engine_test())
    text = f"{case.what} ({pool_text(pool.x, pool.y)})"
    raises = case.input.get("raises") or 0
    if raises:
        text += " · " + _("raises: %(n)s") % {"n": raises}
    fields = case.request_fields
    purposes = (fields.get("raise_purposes") or "").replace("\n", ";").split(";")
    purposes = [p.strip() for p in purposes]
    if any(purposes):
        text += f" ({'; '.join(p for p in purposes if p)})"
    # The circumstances a player's request proposes (the GM keeps or changes them).
    proposed = [
        f"{with_minus(signed_number(int(value)))} ({fields.get(f'circumstance_reason_{row}')})"
        for row in range(1, forms.CIRCUMSTANCE_ROWS + 1)
        if (value := fields.get(f"circumstance_{row}")) not in (None, "", "0")
    ]
    if proposed and not case.input.get("circumstances"):
        text += " · " + _("circumstances: %(list)s") % {"list": ", ".join(proposed)}
    return text
