"""A draft as the composer's script sends it: the text, the OOC note, a post's character."""

from django import forms
from django.core.validators import MaxLengthValidator
from django.utils.translation import gettext_lazy as _

from characters.models import Character
from diary.forms import NARRATION_MAX_LENGTH, NC_NOTE_MAX_LENGTH, SCENARIO_MAX_LENGTH
from diary.models import TALK_MESSAGE_MAX, DraftPlace

# A draft is as long as what its place takes, so whatever fits the form fits its draft.
TEXT_MAX = {
    DraftPlace.POST: NARRATION_MAX_LENGTH,
    DraftPlace.OOC: TALK_MESSAGE_MAX,
    DraftPlace.WHISPER: TALK_MESSAGE_MAX,
    DraftPlace.PLAN: SCENARIO_MAX_LENGTH,
}
TOO_LONG = _(
    "The draft is too long to keep: at most %(limit_value)d characters (now %(show_value)d)."
)


class DraftForm(forms.Form):
    text = forms.CharField(required=False, strip=False)
    note = forms.CharField(required=False, strip=False)
    # Any character: the service keeps only the author's own (diary.drafts.services).
    character = forms.ModelChoiceField(
        queryset=Character.objects.all(),
        required=False,
        error_messages={"invalid_choice": _("Choose one of your characters.")},
    )

    def __init__(self, *args, place: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["text"].validators.append(MaxLengthValidator(TEXT_MAX[place], TOO_LONG))
        self.fields["note"].validators.append(MaxLengthValidator(NC_NOTE_MAX_LENGTH, TOO_LONG))

    def first_error(self) -> str:
        return next(str(message) for errors in self.errors.values() for message in errors)
