"""Refusals of the shared roll path (action limits, free-form dice notation) as Polish (or
English) messages, placed next to a field; a system words its own (RollSystem.refusal)."""

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from rolls.engine.errors import RuleError
from rolls.plugins import RequestError

NOTATION_HINTS = {
    "multiplication": gettext_lazy("Multiplication is not supported."),
    "division": gettext_lazy("Division is not supported."),
    "decimal": gettext_lazy("Only whole numbers."),
    "reroll": gettext_lazy("Rerolls are not supported."),
    "explode": gettext_lazy("Mark exploding dice with ! after the dice (1d6!)."),
    "keep": gettext_lazy("Keep dice with kh or kl and a count (4d6kh3)."),
    "drop": gettext_lazy("Drop dice with dh or dl and a count (4d6dl1)."),
    "comparison": gettext_lazy("Comparisons are not supported."),
    "annotation": gettext_lazy("Notes in square brackets are not supported."),
    "percent": gettext_lazy("Write d100 for a percentile die."),
    "order": gettext_lazy("After the dice: at most one !, then at most one of kh, kl, dh, dl."),
}


def notation_error_message(error: RuleError) -> str:
    """A free-form roll's refusal (rolls.engine.notation, codes `notation_*`) in words."""
    p = error.params
    code = error.code
    if code == "notation_empty":
        return _("Write a roll in dice notation, e.g. 2d6+3 or 4d6kh3.")
    if code == "notation_too_long":
        return _("A roll has at most %(max)s characters (this one has %(length)s).") % p
    if code == "notation_too_many_dice":
        return _("A roll has at most %(max)s dice (this one asks for %(count)s).") % p
    if code == "notation_faces":
        return _("A die has %(min)s to %(max)s faces (not %(faces)s).") % p
    if code == "notation_constant_range":
        return _("A number in a roll is at most %(max)s (not %(value)s).") % p
    if code == "notation_no_dice":
        return _("This roll has no dice: add some, e.g. 1d6.")
    if code == "notation_selection":
        if p["most"] < 1:
            return _("A single die leaves nothing to drop.")
        if p["selection"].startswith("k"):
            return _("Keep (kh, kl) 1 to %(most)s of the %(count)s dice rolled.") % p
        return _("Drop (dh, dl) 1 to %(most)s of the %(count)s dice rolled.") % p
    if code == "notation_incomplete":
        return _("The roll ends too early: something is missing at the end.")
    if code == "notation_syntax":
        found = p["found"]
        shown = found if found.isprintable() else f"U+{ord(found):04X}" if found else ""
        message = _("The roll cannot be read at character %(position)s (%(found)s).") % {
            "position": p["position"],
            "found": shown,
        }
        hint = NOTATION_HINTS.get(p.get("hint", ""))
        return f"{message} {hint}" if hint else message
    return _("The rules do not allow this roll (%(reason)s).") % {"reason": str(error)}


# What the shared roll path refuses itself, whatever the system.
SHARED_REFUSALS = {
    "no_action_left": gettext_lazy(
        "%(name)s has used both actions of this turn moving. Outside combat a turn has two "
        "actions: a third one only if the GM allows it, with a reason."
    ),
    "item_used": gettext_lazy(
        "%(name)s has already used a potion, an item, or a spell or ability without a roll in "
        "this turn, which is its action. Outside combat a turn is one action and one move, or "
        "two moves: another action only if the GM allows it, with a reason."
    ),
    "second_action_roll": gettext_lazy(
        "%(name)s already has an action roll in this turn (#%(seq)s). Outside combat one "
        "action per turn may have a roll: a second one only if the GM allows it, with a "
        "reason."
    ),
}


def refusal_message(system, error: RuleError) -> tuple[str | None, str]:
    """(field or None, message) of a refusal on the roll path: the shared path's own, else
    the system's words for its forms' and engine's."""
    if isinstance(error, RequestError) and error.code in SHARED_REFUSALS:
        return error.field, str(SHARED_REFUSALS[error.code]) % error.params
    if system is None:
        return None, _("The rules do not allow this roll (%(reason)s).") % {"reason": str(error)}
    return system.refusal(error)
