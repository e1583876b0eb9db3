from django import forms
from django.utils.translation import gettext_lazy as _

QUERY_MAX_LENGTH = 200


class SearchForm(forms.Form):
    q = forms.CharField(
        label=_("Search"),
        max_length=QUERY_MAX_LENGTH,
        required=True,
        error_messages={"required": _("Type a word to search for.")},
    )
