"""The GM's nudge buttons: the only place their input is parsed."""

from django import forms
from django.utils.translation import gettext_lazy as _


class NudgeForm(forms.Form):
    """One character's button sends `character`; "Ponagl wszystkich" sends `everyone`."""

    character = forms.IntegerField(required=False, min_value=1, max_value=2**63 - 1)
    everyone = forms.BooleanField(required=False)

    def clean(self):
        data = super().clean()
        if not self.errors and not data.get("character") and not data.get("everyone"):
            raise forms.ValidationError(_("Choose whom to nudge."))
        return data
