"""The notification preferences form: the only place its input is parsed."""

from django import forms
from django.utils.translation import gettext_lazy as _

from diary.models import DigestChoice, NotificationKind


def kind_field(kind: str) -> str:
    return f"email_{kind}"


class NotificationPreferencesForm(forms.Form):
    email = forms.EmailField(
        label=_("E-mail address"),
        required=False,
        max_length=254,
        help_text=_("Where the e-mails go; only you and the site's staff see it."),
    )
    digest = forms.ChoiceField(
        label=_("How e-mails come"), choices=DigestChoice.choices, widget=forms.RadioSelect
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for kind in NotificationKind:
            self.fields[kind_field(kind.value)] = forms.BooleanField(
                label=kind.label, required=False
            )
        # The address and how mails come first, then one box per kind.
        self.order_fields(["email", "digest"])

    @property
    def kind_fields(self):
        return [self[kind_field(kind)] for kind in NotificationKind.values]

    @property
    def chosen_kinds(self) -> set[str]:
        return {kind for kind in NotificationKind.values if self.cleaned_data[kind_field(kind)]}

    def clean(self):
        data = super().clean()
        wants = any(data.get(kind_field(kind)) for kind in NotificationKind.values)
        if wants and "email" in data and not data["email"]:
            self.add_error(
                "email", _("Give the e-mail address the notifications should be sent to.")
            )
        return data
