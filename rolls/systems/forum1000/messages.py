"""forum1000's refusals (its engine's codes and its requests') as Polish (or English)
messages, placed next to a field."""

from django.utils.translation import gettext as _

from rolls.engine import forum1000 as f1000
from rolls.engine.errors import RuleError
from rolls.plugins import TYPED_MODIFIER_RANGE_MESSAGE, TYPED_MODIFIER_REASON_MESSAGE, RequestError


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
    if code == "no_speed":
        return "initiative", _("%(name)s has no %(attribute)s on the sheet.") % {
            "name": p["name"],
            "attribute": f1000.SPEED_ATTRIBUTE,
        }
    return None, _("The rules do not allow this roll (%(reason)s).") % {"reason": str(error)}


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


def error_message(error: RuleError) -> tuple[str | None, str]:
    """(field or None, message) of any refusal of forum1000's forms and engine."""
    if isinstance(error, RequestError):
        return request_error_message(error)
    return rule_error_message(error)
