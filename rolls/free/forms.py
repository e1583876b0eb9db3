"""The free-form roll form (the GM's, and a player's where the GM allows it): an expression
in dice notation, what it is for, optionally whom it concerns, and the post it lands in.
Every refusal of the engine becomes its Polish sentence next to the expression
(rolls.messages.notation_error_message)."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from rolls.engine import notation as free_notation
from rolls.engine.errors import RuleError
from rolls.forms import SignedTokenForm, client_seed_field, post_target_choices, secret_field
from rolls.free.services import LABEL_MAX_LENGTH, FreeRoll
from rolls.messages import notation_error_message


def parsed_expression(text: str) -> tuple[free_notation.Notation | None, str]:
    """The checked notation and no error, or None and the refusal in words."""
    try:
        return free_notation.parse_notation(text), ""
    except RuleError as error:
        return None, notation_error_message(error)


class FreeRollForm(SignedTokenForm):
    client_seed = client_seed_field()
    expression = forms.CharField(
        label=_("Dice expression"),
        # Not stripped: a refusal counts the character position in the text as typed.
        strip=False,
        # No max_length: the engine's limit answers with its own sentence (and the count).
        help_text=_(
            "E.g. 2k6+3, 4k6k3 (keep the 3 highest), 1k6! (exploding), 1k6!>=5 (exploding on "
            "5 and 6), 10k10>=8 (count the dice of 8 or more), {1k20, 1k20}kh1, "
            "1k8[cięcie]+2, (1k6+2)*2, 4kF. At most 100 characters and 100 dice."
        ),
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
    )
    label = forms.CharField(
        label=_("What it is for"),
        max_length=LABEL_MAX_LENGTH,
        strip=True,
        help_text=_("E.g. “Obrażenia od topora”, “Tabela spotkań”: the post shows it."),
    )
    character = forms.TypedChoiceField(
        label=_("Concerns the character"), coerce=int, required=False, empty_value=None
    )
    post = forms.TypedChoiceField(
        label=_("Into the post"), coerce=int, required=False, empty_value=None
    )

    def __init__(self, *args, characters=(), posts=(), secret=True, **kwargs):
        super().__init__(*args, **kwargs)
        self.notation: free_notation.Notation | None = None
        self.fields["character"].choices = [("", _("nobody in particular"))] + [
            (c.pk, c.name) for c in characters
        ]
        # The GM's roll resolves at the bottom unless a post is chosen; a player's goes
        # into the action they described.
        self.fields["post"].choices = post_target_choices(posts, resolves=secret)
        # Only the GM rolls in secret: a player's form has no "Rzut tajny" box.
        if secret:
            self.fields["secret"] = secret_field()

    def clean_expression(self) -> str:
        text = self.cleaned_data["expression"]
        if not text.strip():
            raise forms.ValidationError(
                self.fields["expression"].error_messages["required"], code="required"
            )
        self.notation, error = parsed_expression(text)
        if error:
            raise forms.ValidationError(error, code="notation")
        return text

    def free_roll(self) -> FreeRoll:
        data = self.cleaned_data
        return FreeRoll(
            expression=data["expression"],
            label=data["label"],
            character_id=data["character"],
            secret=bool(data.get("secret")),
        )
