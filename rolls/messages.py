"""Engine and request refusals as Polish (or English) messages, placed next to a field."""

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from rolls.engine import forum1000 as f1000
from rolls.engine.errors import RuleError
from rolls.requests import RequestError

SCOPE_NAMES = {"gm_difficulty": "gm_difficulty", "gm_bonus": "gm_bonus"}
TYPED_MODIFIER_RANGE_MESSAGE = gettext_lazy(
    "A modifier you type lies between −%(limit)s and +%(limit)s."
)
TYPED_MODIFIER_REASON_MESSAGE = gettext_lazy(
    "A modifier you type needs a reason: the roll shows it to everyone."
)


def rule_error_message(error: RuleError) -> tuple[str | None, str]:
    """(field name or None, message) for an engine refusal, on the side that caused it."""
    prefix = getattr(error, "field_prefix", "a-")
    p = error.params
    code = error.code
    if code == "foreign_attribute_modifier":
        return f"{prefix}sources", _(
            "A modifier of %(modifier)s cannot be used in a test of %(tested)s "
            "(an ability, flaw or item counts only for its own attribute)."
        ) % {"modifier": p["modifier_attribute"], "tested": ", ".join(p["tested_attributes"])}
    if code in ("gm_modifier_step", "gm_modifier_range", "gm_modifier_total_range"):
        scope = p.get("scope")
        limit = f1000.GM_LIMITS.get(scope, f1000.GM_LIMITS[f1000.Scope.GM_BONUS])
        return f"{prefix}{p.get('scope', 'gm_bonus')}", _(
            "A GM modifier is a multiple of %(step)s between −%(limit)s and +%(limit)s."
        ) % {"step": f1000.GM_STEP, "limit": limit}
    if code == "same_attribute_twice":
        return f"{prefix}attribute_2", _("A combined roll needs two different attributes.")
    if code == "negative_level":
        return f"{prefix}skill", _("A skill level cannot be negative.")
    if code == "hp_above_max":
        return "patient", _("The patient's HP (%(hp)s) is above the maximum (%(max_hp)s).") % {
            "hp": p["hp"],
            "max_hp": p["max_hp"],
        }
    if code == "duplicate_character":
        return "initiative", _("Two characters are called %(name)s; rename one first.") % {
            "name": p["name"]
        }
    if code.startswith("notation_"):
        return "expression", notation_error_message(error)
    if code == "no_speed":
        return "initiative", _("%(name)s has no %(attribute)s on the sheet.") % {
            "name": p["name"],
            "attribute": f1000.SPEED_ATTRIBUTE,
        }
    return None, _("The rules do not allow this roll (%(reason)s).") % {"reason": str(error)}


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


def request_error_message(error: RequestError) -> tuple[str | None, str]:
    messages = {
        "not_in_session": _("This character does not play in the session."),
        "not_on_sheet": _("This is not on the character's sheet."),
        "required": _("This field is required."),
        "unknown_attribute": _("The character has no such attribute."),
        "no_characters": _("The session has no characters to roll for."),
        "not_a_healing_skill": _("Healing needs a healing skill (Leczenie ran, Leczenie chorób)."),
        "wrong_effect_kind": _("This skill cannot free an effect of this kind (%(kind)s)."),
        "typed_modifier_range": TYPED_MODIFIER_RANGE_MESSAGE,
        "typed_modifier_reason": TYPED_MODIFIER_REASON_MESSAGE,
        "gm_modifier_reason": _("A GM modifier needs a reason: the roll shows it to everyone."),
        "no_action_left": _(
            "%(name)s has used both actions of this turn moving. Outside combat a turn has two "
            "actions: a third one only if the GM allows it, with a reason."
        ),
        "no_action_left_items": _(
            "%(name)s has used both actions of this turn (moving or using items). Outside "
            "combat a turn has two actions: a third one only if the GM allows it, with a reason."
        ),
        "second_action_roll": _(
            "%(name)s already has an action roll in this turn (#%(seq)s). Outside combat one "
            "action per turn may have a roll: a second one only if the GM allows it, with a "
            "reason."
        ),
        "event_running": _(
            "An initiative event is running (%(name)s): its order holds until the GM ends "
            "it. End it first; then a new initiative roll opens the next one."
        ),
        "no_one_joins": _("Choose at least one character to take part."),
        "npc_mode": _(
            "This session plays NPCs through the GM's stand-in characters: "
            "there are no fixed NPC modifiers to apply."
        ),
        "stand_in_items": _("An NPC's stand-in sheet carries no items: roll without them."),
        "npc_unknown": _("This NPC modifier is not on the session's roster."),
        "npc_kind": _(
            "An NPC's fixed modifier applies to a single, combined or skill roll only "
            "(no defence roll for the NPC)."
        ),
    }
    message = str(messages.get(error.code, _("This roll cannot be made.")))
    return error.field, message % error.params if error.params else message
