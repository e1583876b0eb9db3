"""The Ciernie i Gwiazdy forms (RULES 3, seed 002): a form for each mode.

Five modes, one form class each: attribute (test cechy), combined (test łączony: the mean
of two or more attributes, floored), comparative (test porównawczy: own attribute against
another character's or a stand-in NPC's, or against a value the GM types), effect (test
efektu: how long an effect lasts, in a named time unit) and skill (test umiejętności:
attribute, or the mean of several, + 3 × (skill − factor)). Every mode has the difficulty
picker (+12 … −12), the sheet's abilities, flaws and items tied to the tested attribute, the
GM's typed modifier (with a reason). The reroll (przerzut) is chosen after a failed roll
(rerolls.py). The forms are the only place the panel's input is parsed: the numbers come from the
sheet, never from the user, and each modifier keeps its label, source and reason in the
engine's input, so the stored record says where every number came from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from characters.models import Character
from characters.numbers import signed_number, with_minus
from characters.selectors import system_catalog
from config.form_fields import DefaultedIntegerField
from rolls.engine import ciernie as engine
from rolls.engine.errors import RuleError
from rolls.plugins import (
    TYPED_MODIFIER_REASON_MESSAGE,
    Case,
    FormContext,
    SheetCaseForm,
    character_label,
    typed_modifier_field,
)
from rolls.systems.ciernie.rerolls import RerollOffer

SYSTEM = engine.SYSTEM

# Ranges the forms keep to (docs/decisions.md, "Ciernie i Gwiazdy").
TYPED_MODIFIER_LIMIT = 10  # the GM's typed threshold modifier: −10..+10
FACTOR_RANGE = (0, 20)  # a skill test's factor (a lock's class, a mechanism's level)
OPPOSING_VALUE_RANGE = (0, 30)  # an opposing value the GM types (attributes run about 1–20)
REASON_MAX = 200
EFFECT_MAX = 100

MODES = [
    ("attribute", gettext_lazy("Attribute test")),
    ("combined", gettext_lazy("Combined test")),
    ("comparative", gettext_lazy("Comparative test")),
    # Not "effect": a diary entry is stored with that kind.
    ("effect_test", gettext_lazy("Effect test")),
    ("skill", gettext_lazy("Skill test")),
]
MODE_LABELS = dict(MODES)
# The engine's test kind → its name on the roll line.
KIND_LABELS = {("effect" if key == "effect_test" else key): label for key, label in MODES}
# The other side of a comparative test and the effect resisted are the GM's to set: a player
# rolls, or asks for, attribute, combined and skill tests.
GM_ONLY_MODES = frozenset({"comparative", "effect_test"})
# What a player's request names (what is tested; never a modifier, a reason, the difficulty,
# the factor or the reroll, which the GM sets when answering).
ASK_FIELDS = ("character", "attribute", "attributes", "skill", "also_attributes", "sources")

DIFFICULTY_NAMES = {
    12: gettext_lazy("extremely easy"),
    9: gettext_lazy("very easy"),
    6: gettext_lazy("easy"),
    3: gettext_lazy("simple"),
    0: gettext_lazy("ordinary"),
    -3: gettext_lazy("demanding"),
    -6: gettext_lazy("hard"),
    -9: gettext_lazy("very hard"),
    -12: gettext_lazy("extremely difficult"),
}
assert set(DIFFICULTY_NAMES) == set(engine.DIFFICULTY_LEVELS)

# The effect test's time units: key stored in the record → (one, few, many) in words.
TIME_UNITS = {
    "turns": gettext_lazy("turns (of the diary)"),
    "rounds": gettext_lazy("rounds"),
    "minutes": gettext_lazy("minutes"),
    "hours": gettext_lazy("hours"),
    "days": gettext_lazy("days"),
}

OPPONENT_VALUE = "value"
# A skill in a comparative test: 3 threshold points per level, as a skill test's level
# difference (RULES 3), so two sides' skills compare as in a skill test.
POINTS_PER_SKILL_LEVEL = engine.POINTS_PER_LEVEL


def unit_count(unit: str | None, count: int) -> str:
    """ "3 minuty", "1 runda", "5 godzin": the count with its unit, in the language's plural."""
    forms_by_unit = {
        "turns": ngettext("%(count)s turn", "%(count)s turns", count),
        "rounds": ngettext("%(count)s round", "%(count)s rounds", count),
        "minutes": ngettext("%(count)s minute", "%(count)s minutes", count),
        "hours": ngettext("%(count)s hour", "%(count)s hours", count),
        "days": ngettext("%(count)s day", "%(count)s days", count),
    }
    text = forms_by_unit.get(unit or "")
    if text is None:  # a unit this panel does not know (another caller): the count and the word
        return f"{count} {unit or ''}".strip()
    return text % {"count": count}


# ---------------------------------------------------------------------------
# What the sheet offers


@dataclass(frozen=True)
class SheetSource:
    """An ability, flaw or item of the sheet: a threshold modifier to one attribute, a reroll
    source, or both."""

    key: str  # "trait:<id>" or "item:<id>"
    kind: str  # "ability", "flaw" or "item"
    name: str
    modifier: int
    attribute_id: int | None
    attribute: str
    rerolls: bool

    @property
    def label(self) -> str:
        return f"{self.name} {signed_number(self.modifier)} ({self.attribute})"


def sheet_sources(character: Character | None) -> list[SheetSource]:
    if character is None:
        return []
    sources = [
        SheetSource(
            f"trait:{t.pk}",
            t.kind,
            t.name,
            t.modifier,
            t.attribute_id,
            t.attribute.name,
            t.rerolls,
        )
        for t in character.traits.all()
    ]
    sources += [
        SheetSource(
            f"item:{h.item_id}",
            "item",
            h.item.name,
            h.item.modifier,
            h.item.attribute_id,
            h.item.attribute.name if h.item.attribute_id else "",
            h.item.rerolls,
        )
        for h in character.item_holdings.all()
    ]
    return sources


def modifier_sources(character: Character | None) -> list[SheetSource]:
    """The sheet's sources that change a threshold: a non-zero modifier tied to an attribute."""
    return [s for s in sheet_sources(character) if s.modifier and s.attribute_id]


def reroll_sources(character: Character | None) -> list[SheetSource]:
    return [s for s in sheet_sources(character) if s.rerolls]


def _values(character: Character) -> dict[int, int]:
    return {row.attribute_id: row.value for row in character.attribute_values.all()}


def _skill_levels(character: Character) -> dict[int, int]:
    return {row.skill_id: row.level for row in character.skill_levels.all()}


def _modifier(value: int, source: str, label: str | None = None, reason: str | None = None):
    return {"value": value, "label": label, "reason": reason, "source": source}


# ---------------------------------------------------------------------------
# The forms


# The fields that say which attributes a test uses: a new choice redraws the sources.
TESTED_FIELDS = ("attribute", "attributes", "skill", "also_attributes")


class CiernieForm(SheetCaseForm):
    """What every mode has: the character, the difficulty, the sheet's modifiers and the GM's
    typed modifier. A subclass adds its mode's fields, says which attributes
    it tests (`tested_attribute_ids`) and builds the engine's base test (`base_case`)."""

    structural = ("character", *TESTED_FIELDS)

    mode: str = ""
    kind: str = ""  # the engine's test kind of the base test

    character = forms.TypedChoiceField(label=gettext_lazy("Character"), coerce=int)
    difficulty = forms.TypedChoiceField(
        label=gettext_lazy("Difficulty"),
        coerce=int,
        initial=0,
        required=False,
        empty_value=0,
        choices=[
            (value, f"{signed_number(value)} {name}") for value, name in DIFFICULTY_NAMES.items()
        ],
    )
    sources = forms.MultipleChoiceField(
        label=gettext_lazy("Abilities, flaws and items"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=gettext_lazy("Only those tied to the tested attribute count (threshold points)."),
    )
    modifier = typed_modifier_field(
        gettext_lazy("GM modifier"),
        TYPED_MODIFIER_LIMIT,
        help_text=gettext_lazy("Threshold points, −10 to +10; the roll shows the reason."),
    )
    modifier_reason = forms.CharField(
        label=gettext_lazy("Reason for the modifier"), required=False, max_length=REASON_MAX
    )

    GM_FIELDS = ("modifier", "modifier_reason")

    def __init__(self, data=None, **kwargs):
        super().__init__(data, **kwargs)
        characters, gm = self.context.characters, self.context.gm
        self.fields["character"].choices = [(c.pk, character_label(c)) for c in characters]
        if characters:
            self.fields["character"].initial = characters[0].pk
        self.catalog = system_catalog(SYSTEM, self.context.catalog_version)
        self.attributes = {a.pk: a for a in self.catalog.attributes}
        character = self.selected_character()
        self.fields["sources"].choices = [(s.key, s.label) for s in modifier_sources(character)]
        if not gm:
            # Typed modifiers are the GM's (docs/decisions.md): a player picks the difficulty
            # the GM named and ticks the sheet's own modifiers only.
            for name in self.GM_FIELDS:
                self.fields.pop(name, None)

    # -- before validation: the chosen character, labels with the sheet's numbers ---------

    def attribute_choices(self, character: Character | None) -> list[tuple[Any, str]]:
        values = _values(character) if character else {}
        return [
            (a.pk, f"{a.name} ({values[a.pk]})" if a.pk in values else a.name)
            for a in self.attributes.values()
        ]

    def attribute_field(self, label) -> forms.TypedChoiceField:
        character = self.selected_character()
        field = forms.TypedChoiceField(
            label=label, coerce=int, choices=self.attribute_choices(character)
        )
        if self.attributes:
            field.initial = next(iter(self.attributes))
        return field

    # -- validation -------------------------------------------------------------------

    def tested_attribute_ids(self, cleaned: dict) -> list[int]:
        raise NotImplementedError

    def base_case(self, cleaned: dict, character: Character) -> tuple[dict, str, int | None]:
        """(the engine's base input without modifiers, `what`, the other character's id)."""
        raise NotImplementedError

    def sheet_value(self, character: Character, attribute_id: int, field: str) -> int | None:
        """The sheet's value of an attribute; an error next to `field` when missing or < 0."""
        attribute = self.attributes[attribute_id]
        value = _values(character).get(attribute_id)
        if value is None:
            self.add_error(
                field,
                _("%(name)s has no %(attribute)s on the sheet.")
                % {"name": character.name, "attribute": attribute.name},
            )
            return None
        if value < 0:
            self.add_error(
                field,
                _(
                    "%(name)s's %(attribute)s is %(value)s on the sheet: an attribute is never "
                    "negative (RULES 3). Correct the sheet first."
                )
                % {
                    "name": character.name,
                    "attribute": attribute.name,
                    "value": with_minus(str(value)),
                },
            )
            return None
        return value

    def clean(self):
        cleaned = super().clean()
        character = self.characters.get(cleaned.get("character"))
        if character is None:
            if "character" not in self.errors:
                self.add_error("character", _("Choose the character."))
            return cleaned
        modifiers = self._clean_modifiers(cleaned, character)
        if self.errors:
            return cleaned
        built = self.base_case(cleaned, character)
        if built is None or self.errors:
            return cleaned
        base, what, other = built
        base["modifiers"] = modifiers + base.get("modifiers", [])
        # The reroll is chosen after a failed roll (rolls/systems/ciernie/rerolls.py): the
        # roll records which sources the character had, so the failure can offer it.
        sources = reroll_sources(character)
        case = Case(
            system=SYSTEM,
            mode=self.mode,
            test=self.kind,
            input=base,
            people={"a": character.pk} | ({"b": other} if other is not None else {}),
            is_action=self.kind != "effect",
            what=what,
            gm_typed=self.gm_typed(cleaned),
            names={"a": character.name},
            request_fields=self.request_fields(self.ask_fields),
            effects=(RerollOffer(sources=tuple((s.key, s.name) for s in sources)),)
            if sources
            else (),
        )
        try:
            case.engine_test()
        except RuleError as error:
            self.add_error(None, rule_error_message(error))
            return cleaned
        self._case = case
        return cleaned

    def _clean_modifiers(self, cleaned: dict, character: Character) -> list[dict]:
        """Difficulty, the sheet's ticked sources (of the tested attributes only), the GM's."""
        modifiers = []
        difficulty = cleaned.get("difficulty") or 0
        if difficulty:
            modifiers.append(
                _modifier(difficulty, "difficulty", engine.DIFFICULTY_LEVELS[difficulty])
            )
        tested = self.tested_attribute_ids(cleaned)
        by_key = {s.key: s for s in modifier_sources(character)}
        for key in cleaned.get("sources") or []:
            source = by_key[key]
            if tested and source.attribute_id not in tested:
                self.add_error("sources", self._source_elsewhere(source, tested))
                continue
            modifiers.append(_modifier(source.modifier, source.kind, source.name))
        value = cleaned.get("modifier") or 0
        reason = (cleaned.get("modifier_reason") or "").strip()
        if value and not reason:
            self.add_error("modifier_reason", TYPED_MODIFIER_REASON_MESSAGE)
        elif value:
            modifiers.append(_modifier(value, "gm", reason=reason))
        return modifiers

    def _source_elsewhere(self, source: SheetSource, tested: list[int]) -> str:
        """Why a ticked source does not count: it is tied to an attribute not tested."""
        return _(
            "%(source)s is tied to %(attribute)s; this test uses %(tested)s "
            "(an ability, flaw or item counts only for its own attribute)."
        ) % {
            "source": source.name,
            "attribute": source.attribute,
            "tested": ", ".join(self.attributes[i].name for i in tested if i in self.attributes),
        }

    def inapplicable_sources(self) -> dict[str, str]:
        tested = self.tested_attribute_ids(self.raw_cleaned(*TESTED_FIELDS))
        if not tested:
            return {}
        return {
            source.key: self._source_elsewhere(source, tested)
            for source in modifier_sources(self.selected_character())
            if source.attribute_id not in tested
        }

    def gm_typed(self, cleaned: dict) -> bool:
        """Whether the case carries a number a person typed (the GM's only)."""
        return bool(cleaned.get("modifier"))

    def case(self) -> Case:
        """The Case, once `is_valid()`; every refusal was put next to its field by then."""
        if self._case is None:
            raise RuleError("invalid_input", "the form is not valid", field="form")
        return self._case


class AttributeForm(CiernieForm):
    mode = kind = "attribute"

    def __init__(self, data=None, **kwargs):
        super().__init__(data, **kwargs)
        self.fields["attribute"] = self.attribute_field(gettext_lazy("Attribute"))
        self.order_fields(["character", "attribute"])

    def tested_attribute_ids(self, cleaned):
        return [cleaned["attribute"]] if cleaned.get("attribute") else []

    def base_case(self, cleaned, character):
        value = self.sheet_value(character, cleaned["attribute"], "attribute")
        if value is None:
            return None
        return {"attribute": value}, self.attributes[cleaned["attribute"]].name, None


class EffectForm(CiernieForm):
    mode = "effect_test"
    kind = "effect"

    def __init__(self, data=None, **kwargs):
        super().__init__(data, **kwargs)
        self.fields["attribute"] = self.attribute_field(gettext_lazy("Attribute"))
        self.fields["effect"] = forms.CharField(
            label=gettext_lazy("The effect"),
            max_length=EFFECT_MAX,
            help_text=gettext_lazy("What the character resists, e.g. blindness, weakness."),
        )
        self.fields["unit"] = forms.ChoiceField(
            label=gettext_lazy("Time unit"),
            choices=list(TIME_UNITS.items()),
            initial="rounds",
            help_text=gettext_lazy("Each point missing to pass the test is one unit of this."),
        )
        self.order_fields(["character", "attribute", "effect", "unit"])

    def tested_attribute_ids(self, cleaned):
        return [cleaned["attribute"]] if cleaned.get("attribute") else []

    def base_case(self, cleaned, character):
        value = self.sheet_value(character, cleaned["attribute"], "attribute")
        effect = (cleaned.get("effect") or "").strip()
        if not effect:
            self.add_error("effect", _("Name the effect the character resists."))
        if value is None or not effect:
            return None
        what = f"{self.attributes[cleaned['attribute']].name}: {effect}"
        return {"attribute": value, "unit": cleaned["unit"]}, what, None


class CombinedForm(CiernieForm):
    mode = kind = "combined"

    def __init__(self, data=None, **kwargs):
        super().__init__(data, **kwargs)
        character = self.selected_character()
        self.fields["attributes"] = forms.TypedMultipleChoiceField(
            label=gettext_lazy("Attributes (their mean, rounded down)"),
            coerce=int,
            choices=self.attribute_choices(character),
            widget=forms.CheckboxSelectMultiple,
            error_messages={"required": gettext_lazy("Choose two or more attributes.")},
        )
        self.fields["attributes"].initial = list(self.attributes)[:2]
        self.order_fields(["character", "attributes"])

    def tested_attribute_ids(self, cleaned):
        return list(cleaned.get("attributes") or [])

    def base_case(self, cleaned, character):
        ids = cleaned["attributes"]
        if len(ids) < 2:
            self.add_error("attributes", _("A combined test needs two or more attributes."))
            return None
        values = [self.sheet_value(character, pk, "attributes") for pk in ids]
        if None in values:
            return None
        what = " + ".join(self.attributes[pk].name for pk in ids)
        return {"attributes": values}, what, None


class ComparativeForm(CiernieForm):
    """Own attribute against the other side's: another playing character's or a stand-in
    NPC's attribute from their sheet, or a value the GM types with a reason."""

    mode = kind = "comparative"

    def __init__(self, data=None, **kwargs):
        super().__init__(data, **kwargs)
        self.fields["attribute"] = self.attribute_field(gettext_lazy("Attribute"))
        own = self.selected_character()
        others = [c for c in self.all_characters if own is None or c.pk != own.pk]
        self._add_opponent_fields(others)
        self.skills = {s.pk: s for s in self.catalog.skills}
        self._add_compared_skill_field()
        self._add_opponent_sources_field(others)
        if self.gm:
            self._add_typed_opponent_fields()
        self.order_fields(
            [
                "character",
                "attribute",
                "opponent",
                "opponent_attribute",
                "opponent_value",
                "opponent_reason",
                "compared_skill",
                "opponent_sources",
            ]
        )

    def _add_opponent_fields(self, others: list[Character]) -> None:
        """Who the test is against (another character, or for the GM a typed value) and
        which of their attributes."""
        choices = [(str(c.pk), character_label(c)) for c in others]
        if self.gm:
            choices.append((OPPONENT_VALUE, _("a value I type")))
        self.fields["opponent"] = forms.ChoiceField(
            label=gettext_lazy("Against"),
            choices=choices,
            initial=choices[0][0] if choices else None,
        )
        self.fields["opponent_attribute"] = forms.TypedChoiceField(
            label=gettext_lazy("Their attribute"),
            coerce=int,
            required=False,
            empty_value=None,
            choices=[("", gettext_lazy("— the same attribute —"))]
            + [(a.pk, a.name) for a in self.attributes.values()],
        )

    def _add_compared_skill_field(self) -> None:
        self.fields["compared_skill"] = forms.TypedChoiceField(
            label=gettext_lazy("Skill (each side's level)"),
            coerce=int,
            required=False,
            empty_value=None,
            choices=[("", gettext_lazy("— no skill —"))]
            + [(s.pk, s.name) for s in self.skills.values()],
            help_text=gettext_lazy(
                "Each side adds 3 points per level of this skill on its sheet (seed 002: "
                "agility with the skill's modifiers)."
            ),
        )

    def _add_opponent_sources_field(self, others: list[Character]) -> None:
        self.fields["opponent_sources"] = forms.MultipleChoiceField(
            label=gettext_lazy("Their abilities, flaws and items"),
            required=False,
            widget=forms.CheckboxSelectMultiple,
            choices=[
                (f"{c.pk}:{source.key}", f"{c.name}: {source.label}")
                for c in others
                for source in modifier_sources(c)
            ],
            help_text=gettext_lazy(
                "Only the other side's own, tied to their tested attribute, count (against you)."
            ),
        )

    def _add_typed_opponent_fields(self) -> None:
        """The GM's "a value I type": the value and what it is."""
        low, high = OPPOSING_VALUE_RANGE
        self.fields["opponent_value"] = forms.IntegerField(
            label=gettext_lazy("Opposing value"),
            required=False,
            min_value=low,
            max_value=high,
            help_text=gettext_lazy("Only with “a value I type”: from 0 to 30."),
        )
        self.fields["opponent_reason"] = forms.CharField(
            label=gettext_lazy("What the value is"), required=False, max_length=REASON_MAX
        )

    def tested_attribute_ids(self, cleaned):
        return [cleaned["attribute"]] if cleaned.get("attribute") else []

    def gm_typed(self, cleaned):
        return super().gm_typed(cleaned) or cleaned.get("opponent") == OPPONENT_VALUE

    def _skill_modifier(self, character: Character, skill) -> dict:
        level = _skill_levels(character).get(skill.pk, 0)
        return _modifier(POINTS_PER_SKILL_LEVEL * level, "skill", f"{skill.name} {level}")

    def _opponent_modifiers(self, cleaned, other: Character | None, their_id: int) -> list[dict]:
        """The other side's ticked sources: theirs, tied to their tested attribute."""
        modifiers = []
        by_key = {f"{other.pk}:{s.key}": s for s in modifier_sources(other)} if other else {}
        for key in cleaned.get("opponent_sources") or []:
            source = by_key.get(key)
            if source is None:
                self.add_error(
                    "opponent_sources",
                    _("Tick only the abilities, flaws and items of the other side you chose."),
                )
            elif source.attribute_id != their_id:
                self.add_error(
                    "opponent_sources",
                    _(
                        "%(source)s is tied to %(attribute)s; the other side tests %(tested)s "
                        "(an ability, flaw or item counts only for its own attribute)."
                    )
                    % {
                        "source": source.name,
                        "attribute": source.attribute,
                        "tested": self.attributes[their_id].name,
                    },
                )
            else:
                modifiers.append(_modifier(source.modifier, source.kind, source.name))
        return modifiers

    def base_case(self, cleaned, character):
        built = self._base_case(cleaned, character)
        if built is None:
            return None
        base, what, other_id = built
        other = self.characters_by_pk().get(other_id) if other_id is not None else None
        skill = self.skills.get(cleaned.get("compared_skill"))
        their_id = cleaned.get("opponent_attribute") or cleaned["attribute"]
        own_modifiers = [self._skill_modifier(character, skill)] if skill else []
        opposing = [self._skill_modifier(other, skill)] if skill and other else []
        opposing += self._opponent_modifiers(cleaned, other, their_id)
        if self.errors:
            return None
        if own_modifiers:
            base["own_modifiers"] = own_modifiers
        if opposing:
            base["opposing_modifiers"] = opposing
        if skill:
            what = f"{what}, {skill.name}"
        return base, what, other_id

    def characters_by_pk(self) -> dict[int, Character]:
        return {c.pk: c for c in self.all_characters}

    def _base_case(self, cleaned, character):
        own = self.sheet_value(character, cleaned["attribute"], "attribute")
        attribute = self.attributes[cleaned["attribute"]]
        opponent = cleaned["opponent"]
        if opponent == OPPONENT_VALUE:
            value = cleaned.get("opponent_value")
            reason = (cleaned.get("opponent_reason") or "").strip()
            if value is None:
                self.add_error("opponent_value", _("Type the opposing value."))
            if not reason:
                self.add_error(
                    "opponent_reason",
                    _("Say what the opposing value is: the roll shows it to everyone."),
                )
            if own is None or value is None or not reason:
                return None
            what = f"{attribute.name} vs {value} ({reason})"
            return {"own": own, "opposing": value}, what, None
        others = {c.pk: c for c in self.all_characters if c.pk != character.pk}
        other = others.get(int(opponent))
        if other is None:
            self.add_error("opponent", _("Choose the other side of the test."))
            return None
        their_id = cleaned.get("opponent_attribute") or cleaned["attribute"]
        opposing = self.sheet_value(other, their_id, "opponent_attribute")
        if own is None or opposing is None:
            return None
        their = self.attributes[their_id]
        what = f"{attribute.name} vs {other.name} ({their.name})"
        return {"own": own, "opposing": opposing}, what, other.pk


class SkillForm(CiernieForm):
    """The skill's attribute (or the mean of it and further attributes) + 3 × (skill − factor)."""

    mode = kind = "skill"

    def __init__(self, data=None, **kwargs):
        super().__init__(data, **kwargs)
        character = self.selected_character()
        levels = _skill_levels(character) if character else {}
        self.skills = {s.pk: s for s in self.catalog.skills}
        self.fields["skill"] = forms.TypedChoiceField(
            label=gettext_lazy("Skill"),
            coerce=int,
            choices=[
                (
                    s.pk,
                    _("%(skill)s (%(attribute)s, level %(level)s)")
                    % {
                        "skill": s.name,
                        "attribute": s.attribute.name,
                        "level": levels.get(s.pk, 0),
                    },
                )
                for s in self.skills.values()
            ],
        )
        if self.skills:
            self.fields["skill"].initial = next(iter(self.skills))
        self.fields["also_attributes"] = forms.TypedMultipleChoiceField(
            label=gettext_lazy("Also tested with (combined: the mean)"),
            coerce=int,
            required=False,
            choices=self.attribute_choices(character),
            widget=forms.CheckboxSelectMultiple,
            help_text=gettext_lazy("Leave empty to test the skill's own attribute."),
        )
        low, high = FACTOR_RANGE
        self.fields["factor"] = DefaultedIntegerField(
            label=gettext_lazy("Factor"),
            default=0,
            min_value=low,
            max_value=high,
            help_text=gettext_lazy(
                "The level the skill is tested against (0 to 20): 3 or more below the skill "
                "succeeds without a roll, 3 or more above it is impossible."
            ),
        )
        self.order_fields(["character", "skill", "also_attributes", "factor"])

    def tested_attribute_ids(self, cleaned):
        skill = self.skills.get(cleaned.get("skill"))
        if skill is None:
            return []
        extra = [pk for pk in cleaned.get("also_attributes") or [] if pk != skill.attribute_id]
        return [skill.attribute_id, *extra]

    def base_case(self, cleaned, character):
        skill = self.skills[cleaned["skill"]]
        ids = self.tested_attribute_ids(cleaned)
        values = [
            self.sheet_value(
                character, pk, "skill" if pk == skill.attribute_id else "also_attributes"
            )
            for pk in ids
        ]
        if None in values:
            return None
        level = _skill_levels(character).get(skill.pk, 0)
        factor = cleaned["factor"]
        tested = {"attribute": values[0]} if len(values) == 1 else {"attributes": values}
        names = " + ".join(self.attributes[pk].name for pk in ids)
        what = _("%(attributes)s + %(skill)s vs factor %(factor)s") % {
            "attributes": names,
            "skill": skill.name,
            "factor": factor,
        }
        return {**tested, "skill": level, "factor": factor}, what, None


FORMS: dict[str, type[CiernieForm]] = {
    "attribute": AttributeForm,
    "combined": CombinedForm,
    "comparative": ComparativeForm,
    "effect_test": EffectForm,
    "skill": SkillForm,
}


def named_test(kind: str, catalog_id: int, character_id: int) -> tuple[str, dict]:
    """A test named in a narration, as the request form sends it: an attribute test, or a
    skill test on the skill's own attribute (the form's default: no further attribute).
    The difficulty and the factor are the GM's, as in every request."""
    if kind == "attribute":
        return "attribute", {"character": character_id, "attribute": catalog_id}
    return "skill", {"character": character_id, "skill": catalog_id}


def make_form(mode: str, data, context: FormContext) -> CiernieForm:
    return FORMS[mode](data, context=context, ask_fields=ASK_FIELDS)


def rule_error_message(error: RuleError) -> str:
    """An engine refusal (the forms check first, so this is a last line) in the site's words."""
    messages = {
        "negative_attribute": _("An attribute is never negative (RULES 3)."),
        "attribute_count": _("A combined test needs two or more attributes."),
        "negative_level": _("A skill level cannot be negative."),
        "negative_factor": _("The factor cannot be negative."),
        "no_reroll_sources": _("A reroll needs at least one reroll source."),
    }
    message = messages.get(error.code)
    if message is None:
        return _("The rules do not allow this roll (%(reason)s).") % {"reason": str(error)}
    return message
