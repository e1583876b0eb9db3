"""The recruiting board's input: its filters, a session's tags, a player's ad and a GM's
invitation from one. Every refusal is a Polish message next to its field."""

import re

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from characters.systems import ATTRIBUTE_RANGE, RuleSystem
from config.text import SingleLineCharField, refuse_control_characters
from diary.models import (
    AD_TEXT_MAX_LENGTH,
    MAX_PLAYER_SLOTS,
    MAX_TAGS,
    TAG_MAX_LENGTH,
    TAG_SEPARATOR,
    GameSession,
    PlayerAd,
    PlayLanguage,
    PostingPace,
)

SESSION_NOTE_MAX_LENGTH = 300


def normalise_tag(tag: str) -> str:
    """One tag as stored and compared: lower case, runs of spaces one space."""
    return re.sub(r"\s+", " ", tag).strip().lower()


def parse_tags(text: str) -> list[str]:
    """The GM's tags typed as "horror, dla początkujących": each normalised, repeats and
    empty ones dropped, in the GM's order. Too many or too long: refused."""
    refuse_control_characters(text)
    tags: list[str] = []
    for part in text.split(TAG_SEPARATOR):
        tag = normalise_tag(part)
        if tag and tag not in tags:
            tags.append(tag)
    too_long = [tag for tag in tags if len(tag) > TAG_MAX_LENGTH]
    if too_long:
        raise ValidationError(
            _("A tag may have at most %(max)s characters: “%(tag)s” is longer."),
            params={"max": TAG_MAX_LENGTH, "tag": too_long[0]},
            code="tag_too_long",
        )
    if len(tags) > MAX_TAGS:
        raise ValidationError(
            ngettext_lazy(
                "At most %(max)s tag, separated by commas.",
                "At most %(max)s tags, separated by commas.",
                "max",
            ),
            params={"max": MAX_TAGS},
            code="too_many_tags",
        )
    return tags


def _system_choices(any_label) -> list[tuple[str, str]]:
    return [("", any_label)] + [(key, RuleSystem(key).label) for key in ATTRIBUTE_RANGE]


class RecruitingFilterForm(forms.Form):
    """The board's filters (a GET form): each one chosen narrows the sessions shown."""

    system = forms.ChoiceField(label=_("Rule system"), required=False)
    places = forms.IntegerField(
        label=_("Free places, at least"),
        required=False,
        min_value=1,
        max_value=MAX_PLAYER_SLOTS,
    )
    pace = forms.ChoiceField(label=_("Posting pace"), required=False)
    language = forms.ChoiceField(label=_("Language of play"), required=False)
    tag = SingleLineCharField(label=_("Tag"), required=False, max_length=TAG_MAX_LENGTH)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["system"].choices = _system_choices(_("every system"))
        self.fields["pace"].choices = [("", _("any pace")), *PostingPace.choices]
        self.fields["language"].choices = [("", _("any language")), *PlayLanguage.choices]
        self.fields["places"].widget.attrs.update(min=1, max=MAX_PLAYER_SLOTS)

    def clean_tag(self) -> str:
        return normalise_tag(self.cleaned_data.get("tag", ""))


class AdFilterForm(forms.Form):
    """The players' ads tab: by rule system and pace (an ad for any matches either)."""

    system = forms.ChoiceField(label=_("Rule system"), required=False)
    pace = forms.ChoiceField(label=_("Posting pace"), required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["system"].choices = _system_choices(_("every system"))
        self.fields["pace"].choices = [("", _("any pace")), *PostingPace.choices]


class PlayerAdForm(forms.ModelForm):
    """A player's "szukam gry" ad."""

    text = forms.CharField(
        label=_("A few words"),
        max_length=AD_TEXT_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=_("What you like to play, how often you post, what you look for."),
    )

    class Meta:
        model = PlayerAd
        fields = ["system", "pace", "text"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["system"].choices = _system_choices(_("any system"))
        self.fields["pace"].choices = [("", _("any pace")), *PostingPace.choices]

    def clean_text(self) -> str:
        text = self.cleaned_data["text"].strip()
        refuse_control_characters(text.replace("\n", "").replace("\r", "").replace("\t", ""))
        return text


class AdInviteForm(forms.Form):
    """The GM's invitation from an ad: one of the GM's recruiting sessions, and a note."""

    session = forms.ModelChoiceField(
        label=_("Session"),
        queryset=GameSession.objects.none(),
        error_messages={"invalid_choice": _("Choose one of your sessions that recruit.")},
    )
    note = forms.CharField(
        label=_("A note to the player"),
        required=False,
        max_length=SESSION_NOTE_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    def __init__(self, *args, sessions, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["session"].queryset = sessions
        self.fields["session"].empty_label = _("— choose a session —")
