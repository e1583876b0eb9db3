"""Character forms: the only place a sheet's input is parsed."""

from functools import partial

from django import forms
from django.utils.translation import gettext_lazy as _

from characters.models import (
    CHARACTER_DESCRIPTION_MAX,
    COMMENT_MAX,
    NOTE_MAX,
    Attribute,
    EffectKind,
    GrammaticalGender,
    Item,
    Skill,
    Trait,
)
from characters.numbers import signed_number
from characters.systems import (
    ATTRIBUTE_RANGE,
    SKILL_LEVEL_RANGE,
    RuleSystem,
    pool_modifier_text,
    range_message,
    words_for,
)
from config.form_fields import DefaultedIntegerField, ModelIdsField
from config.text import SingleLineCharField


class SystemChoiceForm(forms.Form):
    system = forms.ChoiceField(
        label=_("Rule system"),
        choices=[(key, RuleSystem(key).label) for key in ATTRIBUTE_RANGE],
    )


class CharacterForm(forms.Form):
    """The whole sheet in one form, its fields built from the system's catalog."""

    name = SingleLineCharField(label=_("Name"), max_length=80)
    description = forms.CharField(
        label=_("Description"),
        required=False,
        max_length=CHARACTER_DESCRIPTION_MAX,
        widget=forms.Textarea(attrs={"rows": 4}),
    )
    grammatical_gender = forms.ChoiceField(
        label=_("Grammatical gender"),
        choices=GrammaticalGender.choices,
        initial=GrammaticalGender.MASCULINE,
        # The page always sends one; a request without it leaves the sheet's as it is.
        required=False,
        help_text=_("How the site writes about the character: stunned, wounded, next."),
        error_messages={"invalid_choice": _("Choose one of the grammatical genders listed.")},
    )
    hp_max = forms.IntegerField(label=_("Maximum HP"), min_value=1, max_value=100_000)
    hp_current = forms.IntegerField(label=_("Current HP"), min_value=0, max_value=100_000)

    def __init__(self, *args, system: str, propose: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.system = system
        if propose:
            # In play current HP is the GM's: a proposal never carries it.
            del self.fields["hp_current"]
        low, high = ATTRIBUTE_RANGE[system]
        level_low, level_high = SKILL_LEVEL_RANGE[system]
        self.attributes = list(Attribute.objects.filter(system=system))
        self.skills = list(Skill.objects.filter(system=system).select_related("attribute"))
        self.items = list(Item.objects.filter(system=system).select_related("attribute"))
        self.words = words_for(system)
        self.system_label = RuleSystem(system).label
        self.attribute_range = _span(low, high)
        self.skill_range = _span(level_low, level_high)
        out_of_range = range_message(low, high)
        # Ars Magica's characteristics have a middle, 0, taken when left empty; the other
        # systems' attributes are typed.
        attribute_field = (
            partial(DefaultedIntegerField, default=0) if low < 0 <= high else forms.IntegerField
        )
        for attribute in self.attributes:
            self.fields[f"attr_{attribute.pk}"] = attribute_field(
                label=attribute.name,
                min_value=low,
                max_value=high,
                error_messages={"min_value": out_of_range, "max_value": out_of_range},
            )
        level_range = range_message(level_low, level_high)
        for skill in self.skills:
            self.fields[f"skill_{skill.pk}"] = DefaultedIntegerField(
                label=skill.name,
                default=0,
                min_value=level_low,
                max_value=level_high,
                help_text=skill.attribute.name,
                error_messages={"min_value": level_range, "max_value": level_range},
            )
        self.fields["traits"] = ModelIdsField(
            label=self.words.traits,
            queryset=Trait.objects.filter(system=system).select_related("attribute"),
            required=False,
            widget=forms.CheckboxSelectMultiple,
        )
        self.fields["traits"].label_from_instance = _trait_label
        for item in self.items:
            self.fields[f"item_{item.pk}"] = DefaultedIntegerField(
                label=item.name,
                default=0,
                min_value=0,
                max_value=99,
                help_text=rule_summary(item),
            )

    def clean(self):
        cleaned = super().clean()
        hp_max, hp_current = cleaned.get("hp_max"), cleaned.get("hp_current")
        if hp_max is not None and hp_current is not None and hp_current > hp_max:
            self.add_error("hp_current", _("Current HP cannot exceed the maximum."))
        return cleaned

    def attribute_fields(self):
        return [self[f"attr_{a.pk}"] for a in self.attributes]

    def skill_fields(self):
        return [self[f"skill_{s.pk}"] for s in self.skills]

    def item_fields(self):
        return [self[f"item_{i.pk}"] for i in self.items]

    def sheet_values(self) -> dict:
        """The cleaned data in the shape characters.services expects."""
        data = self.cleaned_data
        return {
            "name": data["name"],
            "description": data["description"],
            "grammatical_gender": data.get("grammatical_gender") or None,
            "hp_max": data["hp_max"],
            "hp_current": data.get("hp_current"),
            "attributes": {a: data[f"attr_{a.pk}"] for a in self.attributes},
            "skills": {s: data.get(f"skill_{s.pk}") or 0 for s in self.skills},
            "traits": list(data["traits"]),
            "items": {i: data.get(f"item_{i.pk}") or 0 for i in self.items},
        }

    @classmethod
    def initial_for(cls, character) -> dict:
        initial = {
            "name": character.name,
            "description": character.description,
            "grammatical_gender": character.grammatical_gender,
            "hp_max": character.hp_max,
            "hp_current": character.hp_current,
            "traits": list(character.traits.all()),
        }
        for row in character.attribute_values.all():
            initial[f"attr_{row.attribute_id}"] = row.value
        for row in character.skill_levels.all():
            initial[f"skill_{row.skill_id}"] = row.level
        for row in character.item_holdings.all():
            initial[f"item_{row.item_id}"] = row.quantity
        return initial


def _span(low: int, high: int) -> str:
    if low < 0:
        return f"{signed_number(low)}…{signed_number(high)}"
    return f"{low}–{high}"


def initial_from_proposal(values: dict, character) -> dict:
    """A pending proposal's values as the form's initial data, so the owner refines it
    (a proposal made before sheets had a grammatical gender keeps the sheet's)."""
    initial = {
        "name": values["name"],
        "description": values["description"],
        "grammatical_gender": values.get("grammatical_gender") or character.grammatical_gender,
        "hp_max": values["hp_max"],
        "traits": values["traits"],
    }
    initial.update({f"attr_{pk}": value for pk, value in values["attributes"].items()})
    initial.update({f"skill_{pk}": level for pk, level in values["skills"].items()})
    initial.update({f"item_{pk}": quantity for pk, quantity in values["items"].items()})
    return initial


def modifier_text(entry: Trait | Item) -> str:
    """What an ability, flaw or item adds, in its system's terms: "+50 Percepcja",
    q10 "+1z1 Siła" (dice rolled z dice kept), "" when it adds nothing."""
    if entry.attribute is None:
        return ""
    if entry.system == RuleSystem.Q10:
        if not entry.modifier and not entry.keep_modifier:
            return ""
        return pool_modifier_text(entry.modifier, entry.keep_modifier)
    if not entry.modifier:
        return ""
    return f"{signed_number(entry.modifier)} {entry.attribute.name}"


def rule_summary(entry: Trait | Item) -> str:
    """The modifier and, where it is one, "reroll source", for labels and help texts."""
    parts = [modifier_text(entry)]
    if entry.system == RuleSystem.Q10 and parts[0]:
        parts[0] = f"{parts[0]} {entry.attribute.name}"
    if entry.rerolls:
        parts.append(str(_("reroll source")))
    return ", ".join(part for part in parts if part)


def _trait_label(trait: Trait) -> str:
    summary = rule_summary(trait)
    return f"{trait.name} ({summary})" if summary else trait.name


class HitPointsForm(forms.Form):
    hp_current = forms.IntegerField(label=_("Current HP"), min_value=0, max_value=100_000)

    def __init__(self, *args, hp_max: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.hp_max = hp_max

    def clean_hp_current(self):
        value = self.cleaned_data["hp_current"]
        if value > self.hp_max:
            raise forms.ValidationError(
                _("Current HP cannot exceed the maximum (%(max)s)."), params={"max": self.hp_max}
            )
        return value


class NegativeEffectForm(forms.Form):
    kind = forms.ChoiceField(label=_("Kind"), choices=EffectKind.choices)
    description = forms.CharField(label=_("Description"), max_length=NOTE_MAX)


class FreeEffectForm(forms.Form):
    note = forms.CharField(label=_("How was it freed?"), max_length=NOTE_MAX, required=False)


class PotionForm(forms.Form):
    count = forms.IntegerField(label=_("Count"), min_value=1, max_value=99)
    effect = forms.CharField(label=_("Described effect"), max_length=NOTE_MAX)


class PotionUseForm(forms.Form):
    """No input: it carries a refusal from the service next to the potions."""


class ProposalDecisionForm(forms.Form):
    decision = forms.ChoiceField(
        label=_("GM's decision"),
        choices=[("approve", _("Approve the changes")), ("reject", _("Reject the changes"))],
    )
    comment = forms.CharField(
        label=_("Comment for the player (optional)"),
        max_length=COMMENT_MAX,
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
    )


class PortraitForm(forms.Form):
    """The portrait upload; clean_image returns the checked, re-encoded image."""

    image = forms.FileField(
        label=_("Portrait"),
        help_text=_("JPEG, PNG, WebP or GIF, up to 5 MB; it is stored as a 512 px WebP."),
        widget=forms.FileInput(attrs={"accept": "image/jpeg,image/png,image/webp,image/gif"}),
    )

    def __init__(self, *args, oversized: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        # The upload was cut off by PortraitSizeLimit: say so, not "this field is required".
        self.oversized = oversized

    def clean_image(self):
        from characters.portraits import portrait_check_and_encode

        return portrait_check_and_encode(self.cleaned_data["image"])

    def clean(self):
        if self.oversized:
            from characters.portraits import too_large_error

            self.errors.pop("image", None)
            self.add_error("image", too_large_error())
        return super().clean()
