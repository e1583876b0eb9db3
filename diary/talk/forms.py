"""Table talk's forms: a message (the OOC thread, a whisper) and a new whisper."""

import uuid

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _

from config.form_fields import ModelIdsField
from config.text import SingleLineCharField
from diary.forms import STALE_FORM_MESSAGE
from diary.models import TALK_MESSAGE_MAX, TALK_SUBJECT_MAX


class TalkMessageForm(forms.Form):
    text = forms.CharField(
        label=_("Message"),
        max_length=TALK_MESSAGE_MAX,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=_("Markdown, like posts. Never shown in the diary."),
        error_messages={"required": _("Write a message.")},
    )
    # One-time: the same form sent twice writes one message (diary.talk.services).
    token = forms.UUIDField(
        widget=forms.HiddenInput,
        error_messages={"required": STALE_FORM_MESSAGE, "invalid": STALE_FORM_MESSAGE},
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.is_bound and "token" not in self.initial:
            self.initial["token"] = uuid.uuid4()


class WhisperForm(TalkMessageForm):
    """The GM chooses the players (one or more); a player's whisper goes to the GM."""

    players = ModelIdsField(
        label=_("To the players"),
        queryset=get_user_model().objects.none(),
        widget=forms.CheckboxSelectMultiple,
        error_messages={
            "required": _("Choose at least one player."),
            "invalid_choice": _("Whisper only to players of this session."),
            "invalid_pk_value": _("Whisper only to players of this session."),
            "invalid_list": _("Whisper only to players of this session."),
        },
    )
    subject = SingleLineCharField(label=_("Subject"), max_length=TALK_SUBJECT_MAX, required=False)
    field_order = ["players", "subject", "text", "token"]

    def __init__(self, *args, recipients: list | None, **kwargs):
        super().__init__(*args, **kwargs)
        if recipients is None:
            del self.fields["players"]
        else:
            self.fields["players"].queryset = (
                get_user_model()
                .objects.filter(pk__in=[user.pk for user in recipients])
                .order_by("username")
            )
