"""Forms of the diary's entries: the GM's HP change, effect, effect freed early and
item grant, and a character's use of a potion or healing item, or of a spell or ability
without a roll. Every bad input is a Polish
error next to its field; the one-time token (rolls.access) makes a repeated click answer
with the entry it already made."""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass

from django import forms
from django.utils.translation import gettext_lazy as _

from characters.models import NOTE_MAX, EffectKind, NegativeEffect
from config.form_fields import DefaultedIntegerField
from diary.models import Turn
from rolls.forms import (
    FOREIGN_FORM_TOKEN,
    SignedTokenForm,
    extra_action_field,
    post_target_choices,
)
from rolls.initiative.selectors import npc_effects

AMOUNT_MAX = 9_999
LENGTH_MAX = 99
GRANT_MAX = 20
ABILITY_NAME_MAX = 100

HP_DIRECTIONS = [("damage", _("damage (HP lost)")), ("restore", _("HP restored"))]


class EntryForm(SignedTokenForm):
    """The token every entry form carries, signed for its user and session."""

    foreign_token_message = FOREIGN_FORM_TOKEN

    def digest(self) -> str:
        """What was asked, for the token's replay check (same token, same entry)."""
        values = {k: v for k, v in self.cleaned_data.items() if k != "token"}
        return hashlib.sha256(
            json.dumps(values, sort_keys=True, default=str).encode("utf-8")
        ).hexdigest()


def _reason_field() -> forms.CharField:
    return forms.CharField(label=_("Reason"), max_length=NOTE_MAX, strip=True)


class _ForCharacter(EntryForm):
    """A GM's entry about one character. Like the GM's roll, it lands at the bottom of the
    diary by default, or into one of the GM's posts of this turn (`posts`) by choice."""

    character = forms.TypedChoiceField(label=_("Character"), coerce=int)
    post = forms.TypedChoiceField(
        label=_("Into the post"), coerce=int, required=False, empty_value=None
    )

    def __init__(self, *args, characters=(), npc_targets=(), posts=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["character"].choices = [("", "—")] + [(c.pk, c.name) for c in characters]
        self.fields["post"].choices = post_target_choices(posts, resolves=True)
        self.fields["post"] = self.fields.pop("post")  # the last field, under what it records


class _ForCharacterOrNpc(_ForCharacter):
    """Its targets include the running fight's sheet-less NPCs visible to players
    (`npc_targets`, rolls.entries.selectors.npc_entry_targets: their keys, an NPC's id negated,
    names, and whether the GM gave them HP): the HP and effect forms treat them as
    characters; the HP form offers only those with HP."""

    npcs_need_hp = False

    def __init__(self, *args, npc_targets=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["character"].choices += [
            (key, _("%(name)s (NPC)") % {"name": name})
            for key, name, has_hp in npc_targets
            if has_hp or not self.npcs_need_hp
        ]


class HpEntryForm(_ForCharacterOrNpc):
    """The GM deals damage (or restores HP, e.g. a free-text potion's effect), with a reason."""

    npcs_need_hp = True

    direction = forms.ChoiceField(label=_("Change"), choices=HP_DIRECTIONS, initial="damage")
    amount = forms.IntegerField(label=_("HP"), min_value=1, max_value=AMOUNT_MAX)
    reason = _reason_field()

    def delta(self) -> int:
        amount = self.cleaned_data["amount"]
        return -amount if self.cleaned_data["direction"] == "damage" else amount


class EffectEntryForm(_ForCharacterOrNpc):
    """The GM applies a negative effect, optionally for a number of turns."""

    kind = forms.ChoiceField(label=_("Kind"), choices=EffectKind.choices)
    description = forms.CharField(label=_("Description"), max_length=NOTE_MAX)
    length_turns = forms.IntegerField(
        label=_("Length in turns"),
        required=False,
        min_value=1,
        max_value=LENGTH_MAX,
        help_text=_(
            "Empty: until freed. N turns: active in this turn and the next N−1, "
            "it ends by itself when turn (this + N) opens."
        ),
    )
    reason = _reason_field()


@dataclass(frozen=True)
class PickedEffect:
    """An active effect the free form names: a sheet's `NegativeEffect` (its pk), or a
    sheet-less NPC's effect entry (the entry's pk), with whose it is (a character's id or an
    NPC's id negated)."""

    owner: int
    pk: int


NPC_EFFECT_PREFIX = "npc-"


class EffectFreeForm(_ForCharacterOrNpc):
    """The GM frees an active effect of a character (or a sheet-less NPC) early, with a
    reason."""

    effect = forms.ChoiceField(
        label=_("Effect"),
        error_messages={"invalid_choice": _("This effect is not active on this character.")},
    )
    reason = _reason_field()

    def __init__(self, *args, characters=(), npc_targets=(), **kwargs):
        super().__init__(*args, characters=characters, npc_targets=npc_targets, **kwargs)
        sheets = [c.pk for c in characters]
        npcs = {-key: name for key, name, _has_hp in npc_targets}
        self._owners: dict[str, int] = {}

        @functools.cache
        def choices():
            # Read when the form is shown or checked, never on a page without it, and once:
            # rendering the select walks its choices more than once.
            rows = [("", "—")]
            effects = (
                NegativeEffect.objects.filter(character__in=sheets, freed_at__isnull=True)
                .select_related("character")
                .order_by("character__name", "id")
            )
            for e in effects:
                self._owners[str(e.pk)] = e.character_id
                rows.append(
                    (str(e.pk), f"{e.character.name}: {e.description} ({e.get_kind_display()})")
                )
            for npc, active in _npc_effects(self.session, npcs).items():
                for entry_pk, e in active.items():
                    value = f"{NPC_EFFECT_PREFIX}{entry_pk}"
                    self._owners[value] = -npc
                    kind = EffectKind(e["kind"]).label
                    rows.append((value, f"{npcs[npc]}: {e['description']} ({kind})"))
            return rows

        self.fields["effect"].choices = choices

    def clean_effect(self):
        value = self.cleaned_data["effect"]
        pk = value.removeprefix(NPC_EFFECT_PREFIX)
        return PickedEffect(owner=self._owners[value], pk=int(pk))

    def clean(self):
        cleaned = super().clean()
        effect, character = cleaned.get("effect"), cleaned.get("character")
        if effect is not None and character is not None and effect.owner != character:
            self.add_error("effect", _("This effect is not active on this character."))
        return cleaned

    def digest(self) -> str:
        values = {k: v for k, v in self.cleaned_data.items() if k != "token"}
        values["effect"] = values["effect"].pk if values.get("effect") else None
        return hashlib.sha256(
            json.dumps(values, sort_keys=True, default=str).encode("utf-8")
        ).hexdigest()


def _npc_effects(session, npcs) -> dict:
    """The active effects of these sheet-less NPCs in the session's current turn."""
    if not npcs:
        return {}
    turn = (
        Turn.objects.filter(session=session)
        .order_by("-number")
        .values_list("number", flat=True)
        .first()
    )
    return npc_effects(session, list(npcs), turn or 0)


class ItemGrantForm(_ForCharacter):
    """The GM grants potions or healing items in a post, with their described effect."""

    count = DefaultedIntegerField(label=_("Count"), default=1, min_value=1, max_value=GRANT_MAX)
    effect = forms.CharField(
        label=_("Described effect"),
        max_length=NOTE_MAX,
        help_text=_("What it does, in words (the post shows it)."),
    )
    restores_hp = forms.IntegerField(
        label=_("Restores HP"), required=False, min_value=1, max_value=AMOUNT_MAX
    )
    frees_kind = forms.ChoiceField(
        label=_("Frees one effect of kind"),
        required=False,
        choices=[("", _("none")), *EffectKind.choices],
    )


class ItemUseForm(EntryForm):
    """A character uses one of its potions or healing items (its owner, or the GM)."""

    potion = forms.TypedChoiceField(label=_("Potion or item"), coerce=int)

    def __init__(self, *args, potions=(), may_allow_extra_action=False, **kwargs):
        super().__init__(*args, **kwargs)
        if may_allow_extra_action:
            # The GM's permission for another action this turn, as on the roll panel.
            self.fields["extra_action_reason"] = extra_action_field()
        self.fields["potion"].choices = [("", "—")] + [
            (p.pk, f"{p.character.name}: {p.effect} (×{p.count})") for p in potions
        ]


class AbilityUseForm(EntryForm):
    """A character uses a spell or ability without a roll: its owner, or the GM for any
    character. Named and described in free text: the sheet has no list of spells (its traits
    are qualities, not deeds), and what it does is the GM's to judge."""

    character = forms.TypedChoiceField(label=_("Character"), coerce=int)
    name = forms.CharField(label=_("Spell or ability"), max_length=ABILITY_NAME_MAX, strip=True)
    description = forms.CharField(
        label=_("What it does"),
        max_length=NOTE_MAX,
        strip=True,
        widget=forms.Textarea(attrs={"rows": 3}),
    )

    def __init__(self, *args, characters=(), may_allow_extra_action=False, **kwargs):
        super().__init__(*args, **kwargs)
        if may_allow_extra_action:
            self.fields["extra_action_reason"] = extra_action_field()
        self.fields["character"].choices = [("", "—")] + [(c.pk, c.name) for c in characters]


class _EntryCharacterPick(forms.Form):
    entry_character = forms.TypedChoiceField(coerce=int, required=False)


def preselected_character(value, characters) -> int | None:
    """The character a link preselects in the GM's entry forms (`?entry_character=<pk>`, the
    sheet's link to the diary): one of `characters`, else none (a bad value is ignored)."""
    pick = _EntryCharacterPick({"entry_character": value or ""})
    pick.fields["entry_character"].choices = [("", "—")] + [(c.pk, c.name) for c in characters]
    if not pick.is_valid():
        return None
    return pick.cleaned_data["entry_character"] or None


GM_ENTRY_FORMS = {
    "hp": HpEntryForm,
    "effect": EffectEntryForm,
    "free": EffectFreeForm,
    "grant": ItemGrantForm,
}
