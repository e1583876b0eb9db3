from django import template

from characters.numbers import signed_number, with_minus

register = template.Library()


@register.filter(name="signed")
def signed(value: int) -> str:
    """{{ trait.modifier|signed }} → "+50" or "−50" (the one minus sign)."""
    return signed_number(value)


@register.filter(name="rule_summary")
def rule_summary(entry) -> str:
    """{{ trait|rule_summary }} → "+50 Percepcja", q10 "+1z1 Siła", "reroll source"…"""
    from characters.forms import rule_summary as summary

    return summary(entry)


@register.filter(name="minus")
def minus(value) -> str:
    """{{ mean|floatformat:2|minus }} → "−0,75": a number already written out, its minus the
    minus sign."""
    return with_minus(str(value))
