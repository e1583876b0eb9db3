"""The GM handover's forms: naming a co-GM, handing a session over, a removal's reason."""

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _

USERNAME_MAX_LENGTH = 150
REASON_MAX_LENGTH = 2000


def user_by_name(username: str):
    """The active user of this username (the exact spelling first, else the one that
    differs only in case); None when there is none."""
    users = get_user_model().objects.filter(username__iexact=username.strip(), is_active=True)
    return users.filter(username=username.strip()).first() or (
        users.first() if len(users[:2]) == 1 else None
    )


class UsernameField(forms.CharField):
    """A user named by their username; cleans to the user."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", USERNAME_MAX_LENGTH)
        super().__init__(**kwargs)

    def clean(self, value):
        value = super().clean(value)
        if not value:
            return None
        user = user_by_name(value)
        if user is None:
            raise forms.ValidationError(_("There is no user with this username."))
        return user


class CoGmForm(forms.Form):
    """The GM names a co-GM by their username."""

    username = UsernameField(
        label=_("Co-GM's username"),
        help_text=_("A user who plays no character in this session."),
    )


def reason_field(label, help_text="") -> forms.CharField:
    return forms.CharField(
        label=label,
        max_length=REASON_MAX_LENGTH,
        help_text=help_text,
        widget=forms.Textarea(attrs={"rows": 3}),
        error_messages={"required": _("Give the reason: it stays in the session's history.")},
    )


class HandoverForm(forms.Form):
    """A moderator (or the GM stepping down) names the new GM and says why."""

    username = UsernameField(label=_("New GM's username"))
    reason = reason_field(
        _("Reason"),
        _("Everyone in the session reads it, and it stays in the session's history."),
    )

    def clean_reason(self) -> str:
        reason = self.cleaned_data["reason"].strip()
        if not reason:
            raise forms.ValidationError(_("Give the reason: it stays in the session's history."))
        return reason


class RemovalForm(forms.Form):
    """The GM's reason for removing a player's character; the player reads it."""

    reason = forms.CharField(
        label=_("Reason (the player reads it)"),
        max_length=REASON_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3}),
        error_messages={"required": _("Give the player the reason for the removal.")},
    )

    def clean_reason(self) -> str:
        reason = self.cleaned_data["reason"].strip()
        if not reason:
            raise forms.ValidationError(_("Give the player the reason for the removal."))
        return reason
