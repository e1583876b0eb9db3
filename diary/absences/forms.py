"""The absence form: the only place its input is parsed."""

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from config.text import SingleLineCharField
from diary.absences.selectors import today
from diary.absences.services import check_absence_dates
from diary.models import ABSENCE_NOTE_MAX


class DayInput(forms.DateInput):
    input_type = "date"

    def __init__(self):
        super().__init__(format="%Y-%m-%d")


class AbsenceForm(forms.Form):
    session = forms.TypedChoiceField(
        label=_("Where"),
        coerce=int,
        empty_value=None,
        required=False,
        error_messages={"invalid_choice": _("Choose a session you run or play in.")},
    )
    starts_on = forms.DateField(
        label=_("From"),
        widget=DayInput(),
        error_messages={"required": _("Give the first day of the absence.")},
    )
    ends_on = forms.DateField(
        label=_("Until (the last day away)"),
        widget=DayInput(),
        error_messages={"required": _("Give the last day of the absence.")},
    )
    note = SingleLineCharField(
        label=_("Note"),
        max_length=ABSENCE_NOTE_MAX,
        required=False,
        help_text=_("Optional, e.g. “a trip, no internet”. The GM and players see it."),
    )

    def __init__(self, *args, sessions=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.sessions = {s.pk: s for s in sessions}
        self.fields["session"].choices = [
            ("", _("All my sessions")),
            *((s.pk, s.title) for s in sessions),
        ]

    def clean(self):
        data = super().clean()
        starts_on, ends_on = data.get("starts_on"), data.get("ends_on")
        if starts_on and ends_on:
            try:
                check_absence_dates(starts_on, ends_on, today())
            except ValidationError as error:
                for field, errors in error.error_dict.items():
                    self.add_error(field, errors)
        return data

    @property
    def chosen_session(self):
        return self.sessions.get(self.cleaned_data.get("session"))
