from django import forms
from django.utils.translation import gettext_lazy as _

from diary.search.selectors import parse_query, sessions_readable_by

QUERY_MAX_LENGTH = 200


class SearchForm(forms.Form):
    """What to look for, and where: every session the user may read, or one of them."""

    q = forms.CharField(
        label=_("Search"),
        max_length=QUERY_MAX_LENGTH,
        widget=forms.SearchInput,
        error_messages={
            "required": _("Type a word to search for."),
            "max_length": _("Keep the search to %(limit_value)d characters at most."),
        },
    )
    session = forms.ModelChoiceField(
        label=_("Where"),
        queryset=None,
        required=False,
        empty_label=_("All my sessions"),
        error_messages={"invalid_choice": _("Choose one of your sessions.")},
    )

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["session"].queryset = sessions_readable_by(user).order_by("title", "pk")

    def clean_q(self):
        query = self.cleaned_data["q"]
        if not parse_query(query).wanted:
            raise forms.ValidationError(_("Search for at least one word of letters or digits."))
        return query
