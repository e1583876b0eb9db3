"""The polls' forms: a new poll (its options in words or, a scheduling poll, as dates and
times in the site's time zone) and a vote."""

import uuid
from datetime import timedelta

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from config.text import SingleLineCharField
from diary.forms import STALE_FORM_MESSAGE
from diary.models import (
    POLL_OPTION_MAX,
    POLL_OPTIONS_MAX,
    POLL_OPTIONS_MIN,
    POLL_QUESTION_MAX,
    PollKind,
)

# How far ahead a poll's dates (and its closing time) may lie.
POLL_HORIZON = timedelta(days=5 * 365)

_DATETIME = {
    "input_formats": ["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"],
    "widget": forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
    "error_messages": {"invalid": _("Enter a date and time, e.g. 2026-12-24 18:00.")},
}


def option_names() -> list[str]:
    return [f"option_{n}" for n in range(1, POLL_OPTIONS_MAX + 1)]


class PollForm(forms.Form):
    question = SingleLineCharField(
        label=_("Question"),
        max_length=POLL_QUESTION_MAX,
        error_messages={"required": _("Write the question.")},
    )
    kind = forms.ChoiceField(choices=PollKind.choices, widget=forms.HiddenInput)
    multiple = forms.BooleanField(label=_("Several choices allowed"), required=False)
    max_choices = forms.IntegerField(
        label=_("At most this many choices"),
        required=False,
        min_value=2,
        max_value=POLL_OPTIONS_MAX,
        help_text=_("With several choices; leave empty for any number."),
    )
    anonymous = forms.BooleanField(
        label=_("Anonymous"),
        required=False,
        help_text=_("Nobody sees who voted for what, not even the GM: only the counts."),
    )
    closes_at = forms.DateTimeField(
        label=_("Closes at"),
        required=False,
        help_text=_("Polish time. Leave empty to close it by hand."),
        **_DATETIME,
    )
    token = forms.UUIDField(
        widget=forms.HiddenInput,
        error_messages={"required": STALE_FORM_MESSAGE, "invalid": STALE_FORM_MESSAGE},
    )

    def __init__(self, *args, kind: str = PollKind.TEXT, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            self.initial.setdefault("token", uuid.uuid4())
            self.initial.setdefault("kind", kind)
        dates = (self.data.get("kind") if self.is_bound else kind) == PollKind.DATES
        for n, name in enumerate(option_names(), start=1):
            label = _("Date %(n)s") if dates else _("Option %(n)s")
            if dates:
                field = forms.DateTimeField(label=label % {"n": n}, required=False, **_DATETIME)
            else:
                field = SingleLineCharField(
                    label=label % {"n": n}, required=False, max_length=POLL_OPTION_MAX
                )
            self.fields[name] = field
        self.dates = dates

    def _options(self) -> list:
        """The options filled in, in order; an empty one is skipped, a repeated one refused."""
        options, seen = [], set()
        for name in option_names():
            value = self.cleaned_data.get(name)
            if value in (None, ""):
                continue
            if self.dates and not timezone.now() < value < timezone.now() + POLL_HORIZON:
                self.add_error(name, _("Choose a date and time in the next five years."))
                continue
            key = value if self.dates else value.casefold()
            if key in seen:
                self.add_error(name, _("This option is already in the poll."))
                continue
            seen.add(key)
            options.append(value)
        return options

    def clean(self):
        data = super().clean()
        options = self._options()
        if len(options) < POLL_OPTIONS_MIN and not set(self.errors) & set(option_names()):
            name = option_names()[len(options)]
            self.add_error(name, _("Give at least two options."))
        limit = data.get("max_choices")
        if limit is not None and not data.get("multiple"):
            self.add_error("max_choices", _("A limit needs several choices allowed."))
        elif limit is not None and limit > len(options) >= POLL_OPTIONS_MIN:
            self.add_error("max_choices", _("The limit is more than the options."))
        closes_at = data.get("closes_at")
        if closes_at is not None and not timezone.now() < closes_at < timezone.now() + POLL_HORIZON:
            self.add_error("closes_at", _("Choose a closing time in the next five years."))
        data["options"] = options
        return data

    def service_data(self) -> dict:
        data = self.cleaned_data
        multiple = data["multiple"]
        return {
            "question": data["question"],
            "kind": data["kind"],
            "options": data["options"],
            "max_choices": (data["max_choices"] if multiple else 1),
            "anonymous": data["anonymous"],
            "closes_at": data["closes_at"],
            "token": data["token"],
        }


class VoteForm(forms.Form):
    """The voter's choice among the poll's options (one, or several up to the limit)."""

    choices = forms.TypedMultipleChoiceField(
        coerce=int,
        error_messages={
            "required": _("Choose an option."),
            "invalid_choice": _("Choose among the poll's options."),
        },
    )

    def __init__(self, *args, option_ids: list[int], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["choices"].choices = [(pk, str(pk)) for pk in option_ids]
