"""Session and diary forms: the only place their input is parsed."""

from django import forms
from django.utils.translation import gettext_lazy as _

from characters.models import Character
from characters.systems import ATTRIBUTE_RANGE, RuleSystem
from diary.models import GameSession, Participation, SessionStatus


class SessionForm(forms.ModelForm):
    class Meta:
        model = GameSession
        fields = ["title", "description", "system", "criticals_enabled", "npc_mode", "roll_policy"]
        widgets = {
            "description": forms.Textarea(attrs={"rows": 5}),
            "npc_mode": forms.RadioSelect,
            "roll_policy": forms.RadioSelect,
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Sessions can run only in systems whose characters can be built.
        self.fields["system"].choices = [(key, RuleSystem(key).label) for key in ATTRIBUTE_RANGE]
        if self.instance.pk:
            # The system never changes once the session exists: its characters depend on it.
            self.fields["system"].disabled = True
            if self.instance.rules_locked:
                self.fields["criticals_enabled"].disabled = True
                self.fields["npc_mode"].disabled = True


class StatusForm(forms.Form):
    status = forms.ChoiceField(choices=SessionStatus.choices)


class InviteForm(forms.Form):
    character = forms.ModelChoiceField(label=_("Character"), queryset=Character.objects.none())

    def __init__(self, *args, session: GameSession, **kwargs):
        super().__init__(*args, **kwargs)
        listed = Participation.objects.filter(session=session).exclude(
            status__in=["declined", "withdrawn"]
        )
        self.fields["character"].queryset = (
            Character.objects.filter(system=session.system)
            .exclude(pk__in=listed.values("character"))
            .select_related("owner")
            .order_by("owner__username", "name")
        )
        self.fields["character"].label_from_instance = lambda c: f"{c.name} ({c.owner})"


class JoinForm(forms.Form):
    character = forms.ModelChoiceField(label=_("Your character"), queryset=Character.objects.none())

    def __init__(self, *args, session: GameSession, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["character"].queryset = Character.objects.filter(
            owner=user, system=session.system
        ).order_by("name")


class PostForm(forms.Form):
    character = forms.ModelChoiceField(
        label=_("Narrating character"),
        queryset=Character.objects.none(),
        required=False,
        empty_label=_("— none (out of character / as the GM) —"),
    )
    narration = forms.CharField(
        label=_("Narration"),
        required=False,
        max_length=50_000,
        widget=forms.Textarea(attrs={"rows": 8}),
        help_text=_("Markdown: *italics*, **bold**, > quotes, lists. No HTML."),
    )
    nc_note = forms.CharField(
        label=_("NC note"),
        required=False,
        max_length=10_000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("Out of character: e.g. which skill and abilities you ask a roll for."),
    )

    def __init__(self, *args, characters: list[Character], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["character"].queryset = Character.objects.filter(
            pk__in=[c.pk for c in characters]
        )
        if len(characters) == 1 and not self.is_bound and "character" not in self.initial:
            self.initial["character"] = characters[0].pk

    def clean(self):
        cleaned = super().clean()
        if (
            not (cleaned.get("narration") or "").strip()
            and not (cleaned.get("nc_note") or "").strip()
        ):
            self.add_error("narration", _("Write the narration or an NC note."))
        return cleaned


class HideForm(forms.Form):
    reason = forms.CharField(label=_("Reason"), max_length=200, required=False)
