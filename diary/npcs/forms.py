"""The NPC roster's forms: the only place their input is parsed."""

from django import forms
from django.utils.translation import gettext_lazy as _

from characters.systems import NPC_MODIFIER_LIMIT, NPC_MODIFIER_STEP
from config.text import SingleLineCharField
from diary.models import (
    NPC_DESCRIPTION_MAX,
    NPC_INTERACTION_MAX,
    NPC_NAME_MAX,
    NPC_REASON_MAX,
    Npc,
    NpcModifier,
)

NPC_VALUE_MESSAGE = _(
    "An NPC modifier is a GM difficulty modifier: a multiple of %(step)s between "
    "−%(limit)s and +%(limit)s, not 0."
)


def npc_value_error() -> str:
    return NPC_VALUE_MESSAGE % {"step": NPC_MODIFIER_STEP, "limit": NPC_MODIFIER_LIMIT}


class NpcForm(forms.ModelForm):
    name = SingleLineCharField(label=_("Name"), max_length=NPC_NAME_MAX)
    description = forms.CharField(
        label=_("Description"),
        required=False,
        max_length=NPC_DESCRIPTION_MAX,
        widget=forms.Textarea(attrs={"rows": 3}),
    )

    class Meta:
        model = Npc
        fields = ["name", "description", "visible_to_players"]

    def clean_name(self):
        return self.cleaned_data["name"].strip()


class NpcModifierForm(forms.ModelForm):
    interaction = forms.CharField(
        label=_("Interaction"),
        max_length=NPC_INTERACTION_MAX,
        help_text=_("E.g. perswazja, zastraszanie, handel."),
    )
    value = forms.IntegerField(label=_("Modifier"))
    reason = forms.CharField(
        label=_("Reason"),
        max_length=NPC_REASON_MAX,
        help_text=_("Shown with every roll against this NPC, e.g. łatwowierny."),
        error_messages={
            "required": _("An NPC modifier needs a reason: the roll shows it to everyone.")
        },
    )

    class Meta:
        model = NpcModifier
        fields = ["interaction", "value", "reason"]

    def clean_interaction(self):
        return self.cleaned_data["interaction"].strip()

    def clean_reason(self):
        reason = self.cleaned_data["reason"].strip()
        if not reason:
            raise forms.ValidationError(
                _("An NPC modifier needs a reason: the roll shows it to everyone.")
            )
        return reason

    def clean_value(self):
        value = self.cleaned_data["value"]
        if value == 0 or abs(value) > NPC_MODIFIER_LIMIT or value % NPC_MODIFIER_STEP:
            raise forms.ValidationError(npc_value_error())
        return value


class NpcModifierEditForm(NpcModifierForm):
    """The GM changes a modifier no roll has used yet (its interaction stays)."""

    class Meta(NpcModifierForm.Meta):
        fields = ["value", "reason"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        del self.fields["interaction"]


class NpcModifierCorrectionForm(NpcModifierEditForm):
    """A moderator's correction: the new value and reason, and why (kept in the history)."""

    note = forms.CharField(
        label=_("Reason for the correction"),
        max_length=NPC_REASON_MAX,
        error_messages={"required": _("A correction needs its reason: it stays in the history.")},
    )

    def clean_note(self):
        note = self.cleaned_data["note"].strip()
        if not note:
            raise forms.ValidationError(
                _("A correction needs its reason: it stays in the history.")
            )
        return note


class StandInForm(forms.Form):
    character = forms.TypedChoiceField(label=_("The GM's sheet"), coerce=int)

    def __init__(self, *args, candidates=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.candidates = {c.pk: c for c in candidates}
        self.fields["character"].choices = [(c.pk, c.name) for c in candidates]

    def clean_character(self):
        return self.candidates[self.cleaned_data["character"]]
