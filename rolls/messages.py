"""Refusals of the shared roll path (action limits, free-form dice notation) as Polish (or
English) messages, placed next to a field; a system words its own (RollSystem.refusal)."""

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from rolls.engine.errors import RuleError
from rolls.engine.notation import ODDS_WORK_LIMIT, character_name
from rolls.plugins import RequestError

NOTATION_HINTS = {
    "multiplication": gettext_lazy("Multiply with * (2d6*2)."),
    "division": gettext_lazy("Divide by a whole number (1d6/2)."),
    "decimal": gettext_lazy("Only whole numbers."),
    "explode": gettext_lazy("Mark exploding dice with ! after the dice (1d6!)."),
    "explode_dice": gettext_lazy("Only dice explode: write ! after the dice (2d6!)."),
    "keep": gettext_lazy("Keep dice with k, kh or kl and a count (4d6k3, 2d20kl1)."),
    "drop": gettext_lazy("Drop dice with d, dl or dh and a count (4d6d1, 4d6dh1)."),
    "not_equal": gettext_lazy("There is no “not equal”: compare with =, <, <=, > or >=."),
    "compare_total": gettext_lazy(
        "Only single dice are compared (10d10>=8 counts the dice of 8 or more); for the "
        "chance of a total of at least N, type N in the field below."
    ),
    "compare": gettext_lazy("A comparison is one of =, <, <=, >, >= and a number (10d10>=8)."),
    "modulo": gettext_lazy("% only stands for the percentile die (d%); there is no modulo."),
    "comma": gettext_lazy(
        "A comma separates the parts of a group in braces: {1d20, 1d20}kh1 keeps the better one."
    ),
    "word": gettext_lazy(
        "Words are not dice notation: a label goes in square brackets after the dice "
        "(1d20[atak]), or in “What it is for”."
    ),
    "operator": gettext_lazy("An operator (+, -, *, /) is missing between two terms."),
    "whitespace": gettext_lazy("Only ordinary spaces may separate the parts of a roll."),
    "twice": gettext_lazy("Each modifier at most once per dice."),
    "failure": gettext_lazy("Failures (f) follow a success count: 10d10>=8f1."),
    "unopened": gettext_lazy("This bracket closes nothing."),
    "faces": gettext_lazy("The die's faces are missing: 1d6, d%, 4dF."),
}

# Characters one cannot see, by name (rolls.engine.notation.CHARACTER_NAMES).
CHARACTER_NAMES = {
    "tab": gettext_lazy("a tab"),
    "newline": gettext_lazy("a new line"),
    "carriage return": gettext_lazy("a carriage return"),
    "no-break space": gettext_lazy("a no-break space"),
    "thin space": gettext_lazy("a thin space"),
    "narrow no-break space": gettext_lazy("a narrow no-break space"),
    "zero-width space": gettext_lazy("a zero-width space"),
    "NUL": gettext_lazy("a NUL character"),
}


def _shown(found: str) -> str:
    name = character_name(found) if len(found) == 1 else found
    return str(CHARACTER_NAMES.get(name, name))


def _with_suggestion(message: str, suggestion: str) -> str:
    if not suggestion:
        return message
    return f"{message} " + _("Perhaps: %(suggestion)s") % {"suggestion": suggestion}


# The notation's refusals that their parameters word alone (`%(name)s` from the error's).
NOTATION_REFUSALS = {
    "notation_empty": gettext_lazy("Write a roll in dice notation, e.g. 2d6+3 or 4d6kh3."),
    "notation_too_long": gettext_lazy(
        "A roll has at most %(max)s characters (this one has %(length)s)."
    ),
    "notation_too_many_dice": gettext_lazy(
        "A roll has at most %(max)s dice (this one asks for %(count)s)."
    ),
    "notation_faces": gettext_lazy("A die has %(min)s to %(max)s faces (not %(faces)s)."),
    "notation_constant_range": gettext_lazy(
        "A number in a roll is at most %(max)s (not %(value)s)."
    ),
    "notation_no_dice": gettext_lazy("This roll has no dice: add some, e.g. 1d6."),
    "notation_division": gettext_lazy(
        "Divide only by a whole number above 0, not by dice (character %(position)s): "
        "1d6/2 halves and rounds down."
    ),
    "notation_reroll_all": gettext_lazy(
        "%(reroll)s (character %(position)s) would reroll every face of the die: nothing "
        "would stay."
    ),
    "notation_explode_all": gettext_lazy(
        "%(explode)s (character %(position)s) would explode on every face a die can "
        "keep: the chain would never end."
    ),
    "notation_explode_none": gettext_lazy(
        "%(explode)s (character %(position)s) matches no face of the die: nothing would explode."
    ),
    "notation_group_one_part": gettext_lazy(
        "%(selection)s (character %(position)s) after a group of one part keeps from "
        "its dice, and only when that part is one term of dice: keep from the dice "
        "themselves (4d10kl1), or list the parts to choose from ({1d20, 1d20}kh1)."
    ),
    "notation_fate_explode": gettext_lazy(
        "Fate dice (dF) do not explode (character %(position)s)."
    ),
    "notation_label": gettext_lazy(
        "A label in square brackets has 1 to %(max)s characters (character %(position)s)."
    ),
    "notation_selection_success": gettext_lazy(
        "Keeping or dropping dice and counting successes cannot be combined on the same "
        "dice (character %(position)s)."
    ),
}

# What an expression that ends too early lacks (its error's `missing`; "" when unknown).
NOTATION_MISSING = {
    "faces": gettext_lazy(
        "The roll ends too early (character %(position)s): the die's faces are "
        "missing (1d6, d%%, 4dF)."
    ),
    "term": gettext_lazy(
        "The roll ends too early (character %(position)s): a number or dice is "
        "missing after “%(after)s”."
    ),
    "number": gettext_lazy(
        "The roll ends too early (character %(position)s): a number is missing after “%(after)s”."
    ),
    "": gettext_lazy("The roll ends too early (character %(position)s): something is missing."),
}


def notation_error_message(error: RuleError) -> str:
    """A free-form roll's refusal (rolls.engine.notation, codes `notation_*`) in words."""
    p = error.params
    code = error.code
    if code in NOTATION_REFUSALS:
        return str(NOTATION_REFUSALS[code]) % p
    if code == "notation_selection":
        return _selection_message(p)
    if code == "notation_incomplete":
        missing = NOTATION_MISSING.get(p.get("missing", ""), NOTATION_MISSING[""])
        return str(missing) % p
    if code == "notation_unclosed":
        message = (
            _(
                "The %(bracket)s at character %(opened)s is never closed: add %(closing)s at "
                "character %(position)s."
            )
            % p
        )
        return _with_suggestion(message, p.get("suggestion", ""))
    if code == "notation_syntax":
        return _syntax_message(p)
    if code == "odds_too_large":
        return odds_too_large_message()
    return _("The rules do not allow this roll (%(reason)s).") % {"reason": str(error)}


def _selection_message(p: dict) -> str:
    if p["most"] < 1:
        return _("A single die leaves nothing to drop.")
    if p["selection"].startswith("k"):
        return _("Keep (kh, kl) 1 to %(most)s of the %(count)s dice rolled.") % p
    return _("Drop (dh, dl) 1 to %(most)s of the %(count)s dice rolled.") % p


def _syntax_message(p: dict) -> str:
    """The character that cannot be read, what was most likely meant, and a spelling that
    reads, where there is one."""
    message = _("The roll cannot be read at character %(position)s (%(found)s).") % {
        "position": p["position"],
        "found": _shown(p["found"]),
    }
    hint = NOTATION_HINTS.get(p.get("hint", ""))
    message = f"{message} {hint}" if hint else message
    return _with_suggestion(message, p.get("suggestion", ""))


def odds_too_large_message() -> str:
    return _(
        "Too large to compute exactly here (more than %(limit)s steps); the range above holds."
    ) % {"limit": ODDS_WORK_LIMIT}


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
