"""What the systems' forms and words share: how a character and a chance are named, and the
refusals of a number a person types."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from django import forms
from django.utils import formats
from django.utils.translation import gettext_lazy

TYPED_MODIFIER_RANGE_MESSAGE = gettext_lazy(
    "A modifier you type lies between −%(limit)s and +%(limit)s."
)
TYPED_MODIFIER_REASON_MESSAGE = gettext_lazy(
    "A modifier you type needs a reason: the roll shows it to everyone."
)


def character_label(character) -> str:
    """A stand-in is named as the NPC it plays."""
    return f"{character.name} (NPC)" if character.is_stand_in else character.name


def percent_text(chance: Fraction) -> str:
    """The exact chance as a percent, rounded to two decimals, with the language's separator."""
    text = f"{round(float(chance * 100), 2):.2f}".rstrip("0").rstrip(".")
    return formats.number_format(Decimal(text), use_l10n=True)


def typed_modifier_field(label, limit: int) -> forms.IntegerField:
    """A modifier a person types (RULES 1.2): bounded by the system's limit, in the site's
    words."""
    range_error = TYPED_MODIFIER_RANGE_MESSAGE % {"limit": limit}
    return forms.IntegerField(
        label=label,
        required=False,
        initial=0,
        min_value=-limit,
        max_value=limit,
        error_messages={"min_value": range_error, "max_value": range_error},
    )
