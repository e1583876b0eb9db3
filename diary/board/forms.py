"""The notice board's form: an announcement's title and text."""

import uuid

from django import forms
from django.utils.translation import gettext_lazy as _

from config.text import SingleLineCharField
from diary.forms import STALE_FORM_MESSAGE
from diary.models import ANNOUNCEMENT_TEXT_MAX, ANNOUNCEMENT_TITLE_MAX


class AnnouncementForm(forms.Form):
    title = SingleLineCharField(
        label=_("Title"),
        max_length=ANNOUNCEMENT_TITLE_MAX,
        error_messages={"required": _("Give the announcement a title.")},
        help_text=_("E.g. “Schedule”, “House rules”, “The deadline”."),
    )
    text = forms.CharField(
        label=_("Text"),
        max_length=ANNOUNCEMENT_TEXT_MAX,
        required=False,
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text=_("Markdown, like posts. Pinned above the diary and the out-of-character talk."),
    )


class NewAnnouncementForm(AnnouncementForm):
    # One-time: the same form sent twice writes one announcement (diary.board.services).
    token = forms.UUIDField(
        widget=forms.HiddenInput,
        error_messages={"required": STALE_FORM_MESSAGE, "invalid": STALE_FORM_MESSAGE},
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.is_bound and "token" not in self.initial:
            self.initial["token"] = uuid.uuid4()


class PinForm(forms.Form):
    """Take down (`off`) or pin again (`on`): a state, so a repeated button sets it again."""

    pinned = forms.ChoiceField(choices=[("on", "on"), ("off", "off")])
