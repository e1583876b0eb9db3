"""The GM's form for a session's webhook (diary/notifications/webhook_services.py writes it)."""

from urllib.parse import urlsplit

from django import forms
from django.utils.translation import gettext_lazy as _

from diary.models import SessionWebhook
from diary.notifications.webhook_delivery import url_problem

EVENT_FIELDS = ("on_turn", "on_post", "on_roll", "on_deadline", "on_nudge")


def masked(url: str) -> str:
    """Enough of a saved URL to recognise it, not enough to post with it."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/…{url[-4:]}"


class WebhookForm(forms.ModelForm):
    url = forms.URLField(
        label=_("Webhook URL"),
        max_length=500,
        required=False,
        assume_scheme="https",
        help_text=_(
            "In Discord: channel settings → Integrations → Webhooks → Copy webhook URL. "
            "Anyone holding it can post to the channel: players never see it."
        ),
        error_messages={"invalid": _("Enter the whole webhook address, starting with https://.")},
    )

    class Meta:
        model = SessionWebhook
        fields = ("url", *EVENT_FIELDS)
        labels = {
            "on_turn": _("A new turn"),
            "on_post": _("A new post"),
            "on_roll": _("A roll or a diary entry"),
            "on_deadline": _("A turn's deadline is near"),
            "on_nudge": _("The GM nudges a player to post"),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.initial["url"] = ""  # the saved URL never goes back into the page
        if self.instance.pk:
            self.fields["url"].help_text = _(
                "Saved: %(masked)s. Leave empty to keep it; paste a new one to replace it."
            ) % {"masked": masked(self.instance.url)}

    def clean_url(self):
        url = self.cleaned_data["url"].strip()
        if not url:
            if self.instance.pk:
                return self.instance.url
            raise forms.ValidationError(_("Paste the webhook URL from your chat's settings."))
        problem = url_problem(url)
        if problem:
            raise forms.ValidationError(problem)
        return url
