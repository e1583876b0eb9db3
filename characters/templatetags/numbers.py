from django import template

from characters.numbers import signed_number

register = template.Library()


@register.filter(name="signed")
def signed(value: int) -> str:
    """{{ trait.modifier|signed }} → "+50" or "−50" (the one minus sign)."""
    return signed_number(value)
