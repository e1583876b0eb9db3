"""The GM's forms for a running initiative event: the only place their input is
parsed; every bad input is a Polish error next to its field, and nothing is stored. Each
carries a one-time token signed for the GM and the session (rolls.access): a double click or
a Back-and-resend answers with the change the token already made."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from config.form_fields import DefaultedIntegerField
from rolls import access
from rolls.engine import systems as engine_systems
from rolls.forms import FOREIGN_FORM_TOKEN, SignedTokenForm
from rolls.initiative.services import MAX_NPC_HP, MAX_NPC_SCORE, MAX_TURNS
from rolls.plugins import typed_modifier_field

BACK_CHOICES = [("fight", "fight"), ("diary", "diary"), ("panel", "panel")]


def _character_field(label, participants, *, required=True):
    field = forms.TypedChoiceField(label=label, coerce=int, required=required, empty_value=None)
    field.choices = ([] if required else [("", _("— the next in the order —"))]) + [
        (p.key, p.name) for p in participants
    ]
    return field


class _EventForm(SignedTokenForm):
    foreign_token_message = FOREIGN_FORM_TOKEN
    back = forms.ChoiceField(choices=BACK_CHOICES, required=False, widget=forms.HiddenInput)
    # The three forms share one page: each gets its own element ids ("modifier_reason").
    id_prefix = "event"

    def __init__(self, *args, participants=(), **kwargs):
        kwargs.setdefault("auto_id", f"{self.id_prefix}_%s")
        super().__init__(*args, **kwargs)
        self.participants = list(participants)

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("token") is None:
            # Refused, the form is shown again with a token of this GM's: sent again, it counts.
            self.data = self.data.copy()
            self.data["token"] = access.issue_token(self.user, self.session)
        return cleaned


class MarkerForm(_EventForm):
    """Whom the GM resolves next: the one picked, or the next in the order."""

    id_prefix = "marker"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["character"] = _character_field(_("Mark"), self.participants, required=False)


class ModifierForm(_EventForm):
    """A speed or initiative modifier from a spell or an item, for a number of turns."""

    id_prefix = "modifier"

    turns = DefaultedIntegerField(
        label=_("For how many turns"),
        default=1,
        min_value=1,
        max_value=MAX_TURNS,
        help_text=_("Counts from this turn; it ends by itself after the last one."),
    )
    reason = forms.CharField(label=_("Reason (spell, item)"), max_length=200)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["character"] = _character_field(_("Character"), self.participants)
        # In the units of the session's system's typed modifiers (its engine's limit).
        limit = engine_systems.system_module(self.session.system).TYPED_MODIFIER_LIMIT
        self.fields["value"] = typed_modifier_field(_("Modifier"), limit)
        self.order_fields(["character", "value", "turns", "reason"])

    def clean_value(self):
        value = self.cleaned_data.get("value")
        if not value:
            raise forms.ValidationError(_("A modifier of 0 changes nothing."))
        return value


class HandoverForm(_EventForm):
    """One character takes over initiative from another, at the place the GM states."""

    id_prefix = "handover"

    position = forms.IntegerField(label=_("New place"), min_value=1)
    reason = forms.CharField(label=_("Reason"), max_length=200)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["character"] = _character_field(_("Takes over initiative"), self.participants)
        self.fields["other"] = _character_field(_("From (hands it over)"), self.participants)
        self.order_fields(["character", "other", "position", "reason"])

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("character") and cleaned.get("character") == cleaned.get("other"):
            self.add_error("other", _("Initiative passes between two different characters."))
        position = cleaned.get("position")
        if position and position > len(self.participants):
            self.add_error(
                "position",
                _("A place between 1 and %(count)s.") % {"count": len(self.participants)},
            )
        return cleaned


class NpcJoinForm(_EventForm):
    """The GM adds one of the session's NPCs to the order, with its initiative value and,
    for a sheet-less NPC, optional max HP (RULES 1.7)."""

    id_prefix = "npc_join"

    score = forms.IntegerField(
        label=_("Initiative value"),
        min_value=-MAX_NPC_SCORE,
        max_value=MAX_NPC_SCORE,
        help_text=_("The value you give the NPC, or the one you rolled for it."),
    )
    hp_max = forms.IntegerField(
        label=_("Max HP (optional)"),
        min_value=1,
        max_value=MAX_NPC_HP,
        required=False,
        help_text=_("For an NPC without a stand-in sheet; leave empty if it takes no damage."),
    )

    def __init__(self, *args, npcs=(), **kwargs):
        super().__init__(*args, **kwargs)
        joined_npcs = {p.npc_id for p in self.participants}
        joined_sheets = {p.character_id for p in self.participants if p.character_id}
        field = forms.TypedChoiceField(label=_("NPC"), coerce=int, empty_value=None)
        field.choices = [
            (
                npc.pk,
                npc.name if npc.visible_to_players else _("%(name)s (hidden)") % {"name": npc.name},
            )
            for npc in npcs
            # A sent form may name one already in: the service answers a repeated token
            # with its change, or refuses the NPC next to the field.
            if self.is_bound or (npc.pk not in joined_npcs and npc.stand_in_id not in joined_sheets)
        ]
        self.fields["npc"] = field
        self.order_fields(["npc", "score", "hp_max"])
