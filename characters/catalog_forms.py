"""Moderators' forms for a system's catalog: the only place their input is parsed.

Each form shows the fields that mean something in its system (q10's kept dice, ciernie's
reroll source, forum1000's healing kind and mount). A row a sheet holds keeps its rule
fields: they are disabled here, and `characters.services.catalog_entry_save` refuses a
change of them again.
"""

from django import forms
from django.core import validators
from django.utils.translation import gettext_lazy as _

from characters.models import CATALOG_TEXT_MAX, Attribute, Item, Skill, Trait
from characters.systems import (
    KEEP_MODIFIER_RANGE,
    MODIFIER_RANGE,
    RuleSystem,
    range_message,
    words_for,
)

POSITION_MAX = 99

# The fields a row in use keeps (as the admin's `rule_fields`, characters/admin.py).
RULE_FIELDS = {
    "attribute": ("name", "position"),
    "skill": ("name", "attribute", "heals"),
    "trait": ("kind", "name", "attribute", "modifier", "keep_modifier", "rerolls"),
    "item": ("name", "attribute", "modifier", "keep_modifier", "rerolls", "is_mount"),
}
MODELS = {"attribute": Attribute, "skill": Skill, "trait": Trait, "item": Item}


class CatalogEntryForm(forms.ModelForm):
    """The common part: the system is the page's, never a field; names are unique in it."""

    kind_key = ""  # "attribute", "skill", "trait", "item"

    def __init__(self, *args, system: str, in_use: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.system = system
        self.in_use = in_use
        self.words = words_for(system)
        if "description" in self.fields:
            self.fields["description"].max_length = CATALOG_TEXT_MAX
            self.fields["description"].widget.attrs["maxlength"] = CATALOG_TEXT_MAX
        if "attribute" in self.fields:
            self.fields["attribute"].queryset = Attribute.objects.filter(system=system)
            self.fields["attribute"].label = self.words.attribute
            self.fields["attribute"].empty_label = (
                _("— choose —") if self.fields["attribute"].required else _("— none —")
            )
        for name in ("modifier", "keep_modifier"):
            if name in self.fields:
                low, high = MODIFIER_RANGE[system] if name == "modifier" else KEEP_MODIFIER_RANGE
                self._bound_number(name, low, high)
        if "position" in self.fields:
            self._bound_number("position", 0, POSITION_MAX)
        if "kind" in self.fields:
            # Ars Magica's are virtues and flaws: its own words, never forum1000's "zdolność".
            self.fields["kind"].choices = [
                ("ability", self.words.ability),
                ("flaw", self.words.flaw),
            ]
        self._fit_to_system(system)
        if in_use:
            for name in RULE_FIELDS[self.kind_key]:
                if name in self.fields:
                    self.fields[name].disabled = True
                    self.fields[name].help_text = _(
                        "In use on a character sheet: fixed, so no sheet changes behind "
                        "its owner's back."
                    )

    def _bound_number(self, name: str, low: int, high: int) -> None:
        field = self.fields[name]
        field.min_value, field.max_value = low, high
        field.validators += [
            validators.MinValueValidator(low),
            validators.MaxValueValidator(high),
        ]
        message = range_message(low, high)
        field.error_messages.update({"min_value": message, "max_value": message})
        field.widget.attrs.update({"min": low, "max": high})

    def _fit_to_system(self, system: str) -> None:
        """Drop the fields that mean nothing in this system."""
        if system != RuleSystem.Q10:
            self.fields.pop("keep_modifier", None)
        if system != RuleSystem.CIERNIE:
            self.fields.pop("rerolls", None)
        if system != RuleSystem.FORUM1000:
            self.fields.pop("heals", None)
            self.fields.pop("is_mount", None)
        if system == RuleSystem.Q10 and "modifier" in self.fields:
            self.fields["modifier"].label = _("Dice rolled modifier (X)")

    def clean_name(self):
        name = self.cleaned_data["name"].strip()
        taken = type(self.instance).objects.filter(system=self.system, name__iexact=name)
        if self.instance.pk:
            taken = taken.exclude(pk=self.instance.pk)
        if name and taken.exists():
            raise forms.ValidationError(
                _("This rule system's catalog already has an entry of this name.")
            )
        return name

    def values(self) -> dict:
        """The cleaned fields the service writes (disabled ones keep the row's values)."""
        return {name: self.cleaned_data[name] for name in self.fields}


class AttributeEntryForm(CatalogEntryForm):
    kind_key = "attribute"

    class Meta:
        model = Attribute
        fields = ["name", "position"]


class SkillEntryForm(CatalogEntryForm):
    kind_key = "skill"

    class Meta:
        model = Skill
        fields = ["name", "attribute", "heals", "description"]
        widgets = {"description": forms.Textarea(attrs={"rows": 3})}


class TraitEntryForm(CatalogEntryForm):
    kind_key = "trait"

    class Meta:
        model = Trait
        fields = [
            "kind",
            "name",
            "attribute",
            "modifier",
            "keep_modifier",
            "rerolls",
            "description",
        ]
        widgets = {"description": forms.Textarea(attrs={"rows": 3})}


class ItemEntryForm(CatalogEntryForm):
    kind_key = "item"

    class Meta:
        model = Item
        fields = [
            "name",
            "attribute",
            "modifier",
            "keep_modifier",
            "rerolls",
            "is_mount",
            "description",
        ]
        widgets = {"description": forms.Textarea(attrs={"rows": 3})}

    def clean(self):
        cleaned = super().clean()
        adds = cleaned.get("modifier") or cleaned.get("keep_modifier")
        if adds and not cleaned.get("attribute"):
            self.add_error("attribute", _("A modifier needs the attribute it applies to."))
        return cleaned


ENTRY_FORMS = {
    "attribute": AttributeEntryForm,
    "skill": SkillEntryForm,
    "trait": TraitEntryForm,
    "item": ItemEntryForm,
}
