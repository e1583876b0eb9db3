"""The Q10 panel's form (RULES 2, seed 001): one mode, the pool XzY against a difficulty.

The pool comes from the sheet (X = attribute + skill, Y = the lower of the two), with the
sheet's abilities and items tied to the tested attribute (their `modifier` adds to X and
their `keep_modifier`, where the catalog has it, to Y) and the GM's typed pool modifiers
(±dice z ±keep, each with a reason). The difficulty is one of the seed's named levels or a
typed whole number ≥ 0; the GM adds circumstance modifiers (each with a reason); raises are
declared before the roll (a player's request declares them too). The engine
(rolls.engine.q10) caps the pool and rolls.
"""

from __future__ import annotations

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from characters.models import Character, Skill
from characters.numbers import signed_number, with_minus
from characters.selectors import system_catalog
from config.form_fields import DefaultedIntegerField
from rolls.engine import q10
from rolls.plugins import (
    TYPED_MODIFIER_REASON_MESSAGE,
    Case,
    FormContext,
    SheetCaseForm,
    character_label,
    typed_modifier_field,
)
from rolls.systems.q10.effects import RaisePurposes

SYSTEM = q10.SYSTEM
MODE = "pool"

LEVEL_NAMES = {
    5: gettext_lazy("trivial"),
    10: gettext_lazy("easy"),
    15: gettext_lazy("average"),
    20: gettext_lazy("not easy"),
    25: gettext_lazy("hard"),
    30: gettext_lazy("very hard"),
    35: gettext_lazy("extremely hard"),
    40: gettext_lazy("nightmarishly hard"),
    50: gettext_lazy("unimaginable"),
}
assert set(LEVEL_NAMES) == set(q10.DIFFICULTY_LEVELS)
OTHER = "other"
DEFAULT_DIFFICULTY = 15

# What a person may type (documented in docs/decisions.md, "Q10").
POOL_MODIFIER_ROWS = 3
POOL_MODIFIER_LIMIT = 10  # a pool modifier's dice and keep lie in −10..+10
CIRCUMSTANCE_ROWS = 3
CIRCUMSTANCE_LIMIT = 20  # a circumstance lies in −20..+20, in steps of 5 (seed 001: ±5, ±10)
CIRCUMSTANCE_STEP = 5
DIFFICULTY_MAX = 200  # a typed difficulty: a whole number 0..200
RAISES_MAX = 20
RAISE_PURPOSE_MAX = 100  # what one raise is for, a short text
# Seed 001's examples of circumstances and what each does to the difficulty, offered in the
# circumstance rows (the seed's own words, the same in every language, as catalog names).
CIRCUMSTANCE_EXAMPLES = (
    ("Postać walczy w absolutnej ciemności", 10),
    ("Postać walczy w świetle gwiazd i księżyca albo we mgle", 5),
    ("Bohater rozlał oliwę i walczy ze stołu", -5),
    ("Kawalerzysta atakuje pieszego", -5),
    ("Wojownik walczy z dachu wozu", -5),
    ("Łucznik strzela do celu wychylającego się zza rogu", 5),
    ("Łucznik strzela do celu w wąskim okienku strzelniczym", 10),
    ("Złodziej przećwiczył zawczasu otwieranie tych zamków", -5),
    ("Postać atakuje cel z zaskoczenia", -5),
    ("Postać atakuje nieświadomy cel z zaskoczenia, od tyłu", -10),
)
EXAMPLES_LIST_ID = "q10-circumstance-examples"
# What a player's request names: what is tested, the raises declared and what each is for
# (seed 001: the player declares them before the roll), and circumstances the player
# proposes ("Zarówno gracz jak i MG może wpływać na trudność … poprzez zainicjowanie
# odpowiednich okoliczności"), which the GM keeps or changes; the difficulty is the GM's.
CIRCUMSTANCE_FIELDS = tuple(
    name
    for row in range(1, CIRCUMSTANCE_ROWS + 1)
    for name in (f"circumstance_{row}", f"circumstance_reason_{row}")
)
ASK_FIELDS = (
    "character",
    "attribute",
    "skill",
    "sources",
    "raises",
    "raise_purposes",
    *CIRCUMSTANCE_FIELDS,
)
# A circumstance the GM adds where the request proposed none is no difference from it.
PROPOSED_FIELDS = CIRCUMSTANCE_FIELDS

NEGATIVE_DIFFICULTY = gettext_lazy("The difficulty cannot be negative.")
NEGATIVE_RAISES = gettext_lazy("The number of raises cannot be negative: declare 0 or more.")


def level_label(value: int) -> str:
    return f"{value} — {LEVEL_NAMES[value]}"


def difficulty_text(value: int) -> str:
    """ "15 (przeciętny)" for a named level, else the number."""
    return f"{value} ({LEVEL_NAMES[value]})" if value in LEVEL_NAMES else with_minus(str(value))


def pool_text(x: int, y: int) -> str:
    return f"{x}z{y}"


def modifier_text(dice: int, keep: int) -> str:
    """A pool modifier as the seed writes it: +1z+1, −3z−3."""
    return f"{with_minus(signed_number(dice))}z{with_minus(signed_number(keep))}"


def _source_keep(source) -> int:
    """The catalog's keep modifier where the sheets have it, else 0."""
    return int(getattr(source, "keep_modifier", 0) or 0)


class PoolForm(SheetCaseForm):
    """One q10 test: whose pool, from what, against which difficulty."""

    # The sources a test may use follow its attribute: a new one redraws them.
    structural = ("character", "attribute")

    character = forms.TypedChoiceField(label=gettext_lazy("Character"), coerce=int)
    attribute = forms.TypedChoiceField(label=gettext_lazy("Attribute"), coerce=int)
    skill = forms.TypedChoiceField(
        label=gettext_lazy("Skill"), coerce=int, required=False, empty_value=None
    )
    sources = forms.MultipleChoiceField(
        label=gettext_lazy("Abilities and items"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    difficulty = forms.ChoiceField(
        label=gettext_lazy("Difficulty"),
        initial=DEFAULT_DIFFICULTY,
        choices=[(v, level_label(v)) for v in LEVEL_NAMES]
        + [(OTHER, gettext_lazy("another value…"))],
    )
    difficulty_value = forms.IntegerField(
        label=gettext_lazy("Difficulty (another value)"),
        required=False,
        min_value=0,
        max_value=DIFFICULTY_MAX,
        help_text=format_lazy(
            gettext_lazy("A whole number, 0 or more; usually a multiple of {step}."),
            step=q10.RAISE_STEP,
        ),
        error_messages={"min_value": NEGATIVE_DIFFICULTY},
    )
    raises = DefaultedIntegerField(
        label=gettext_lazy("Raises declared"),
        default=0,
        min_value=0,
        max_value=RAISES_MAX,
        help_text=format_lazy(
            gettext_lazy(
                "Declared before the roll: each raise adds {step} to the difficulty; on a "
                "success all are achieved."
            ),
            step=q10.RAISE_STEP,
        ),
        error_messages={"min_value": NEGATIVE_RAISES},
    )
    raise_purposes = forms.CharField(
        label=gettext_lazy("What the raises are for"),
        required=False,
        max_length=RAISES_MAX * (RAISE_PURPOSE_MAX + 1),
        # One line: the panel keeps a typed field across its redraws (hx-preserve), which
        # a textarea's value does not survive.
        help_text=gettext_lazy(
            "One per raise, separated by semicolons, e.g. “land quietly; with grace”; shown in "
            "the roll. The GM sets what each costs."
        ),
    )

    def __init__(self, data=None, **kwargs):
        super().__init__(data, **kwargs)
        characters, gm = self.context.characters, self.context.gm
        self.fields["character"].choices = [(c.pk, character_label(c)) for c in characters]
        if characters:
            self.fields["character"].initial = characters[0].pk
        catalog = system_catalog(SYSTEM, self.context.catalog_version)
        self.attributes = {a.pk: a for a in catalog.attributes}
        self.skills = {s.pk: s for s in catalog.skills}
        self.fields["attribute"].choices = [(a.pk, a.name) for a in self.attributes.values()]
        character = self.selected_character()
        self.fields["skill"].choices = [("", _("— no skill (0) —"))] + [
            (s.pk, self._skill_label(s, character)) for s in self.skills.values()
        ]
        self.fields["attribute"].initial, self.fields["skill"].initial = self.best_pair(character)
        self.fields["sources"].choices = [
            (key, label) for key, label, _attribute, _dice, _keep in self.source_options(character)
        ]
        if gm:
            for row in range(1, POOL_MODIFIER_ROWS + 1):
                self.fields[f"pool_dice_{row}"] = typed_modifier_field(
                    _("Dice ±"), POOL_MODIFIER_LIMIT
                )
                self.fields[f"pool_keep_{row}"] = typed_modifier_field(
                    _("Kept ±"), POOL_MODIFIER_LIMIT
                )
                self.fields[f"pool_reason_{row}"] = forms.CharField(
                    label=_("Reason"), required=False, max_length=200
                )
        if gm or self.context.for_request:
            # The GM sets circumstances; a player's request may propose them.
            steps = range(-CIRCUMSTANCE_LIMIT, CIRCUMSTANCE_LIMIT + 1, CIRCUMSTANCE_STEP)
            for row in range(1, CIRCUMSTANCE_ROWS + 1):
                self.fields[f"circumstance_{row}"] = forms.TypedChoiceField(
                    label=_("Circumstance"),
                    choices=[(v, with_minus(signed_number(v)) if v else "0") for v in steps],
                    coerce=int,
                    initial=0,
                    required=False,
                    empty_value=0,
                )
                self.fields[f"circumstance_reason_{row}"] = forms.CharField(
                    label=_("Reason"),
                    required=False,
                    max_length=200,
                    widget=forms.TextInput(attrs={"list": EXAMPLES_LIST_ID}),
                )

    # -- what the template needs ------------------------------------------

    examples_list_id = EXAMPLES_LIST_ID

    @staticmethod
    def circumstance_examples() -> list[tuple[str, str]]:
        """(the seed's words, its effect) for the reason fields' list."""
        return [
            (text, _("difficulty %(value)s") % {"value": with_minus(signed_number(value))})
            for text, value in CIRCUMSTANCE_EXAMPLES
        ]

    def best_pair(self, character: Character | None) -> tuple[int | None, int | None]:
        """(attribute, skill) a fresh panel opens on: of the pairs the sheet shows (each
        developed skill with its catalog attribute; each attribute alone, for a sheet with no
        skill), the highest chance against the default difficulty; ties by the sheet's
        order. Never a skill the character lacks, whose pool keeps no die."""
        first_attribute = next(iter(self.attributes), None)
        if character is None:
            return first_attribute, None
        pairs = [
            (skill.attribute_id, skill.pk, character.skill_level(skill.pk))
            for skill in self.skills.values()
            if character.skill_level(skill.pk) and skill.attribute_id in self.attributes
        ] or [(attribute_id, None, 0) for attribute_id in self.attributes]
        best, best_chance = (first_attribute, None), -1
        for attribute_id, skill_id, level in pairs:
            test = q10.PoolTest(
                difficulty=DEFAULT_DIFFICULTY,
                attribute=character.attribute_value(attribute_id),
                skill=level,
            )
            chance = q10.probability(test)
            if chance > best_chance:  # strictly: a tie keeps the one earlier on the sheet
                best, best_chance = (attribute_id, skill_id), chance
        return best

    @staticmethod
    def _skill_label(skill: Skill, character: Character | None) -> str:
        level = character.skill_level(skill.pk) if character else 0
        return _("%(skill)s (level %(level)s)") % {"skill": skill.name, "level": level}

    @staticmethod
    def source_options(character: Character | None):
        """(key, label, attribute id, dice, keep) of each ability and item on the sheet that
        changes the pool of one attribute."""
        if character is None:
            return []
        options = []
        for trait in character.traits.all():
            dice, keep = trait.modifier, _source_keep(trait)
            label = f"{trait.name} {modifier_text(dice, keep)} ({trait.attribute.name})"
            options.append((f"trait:{trait.pk}", label, trait.attribute_id, dice, keep))
        for holding in character.item_holdings.all():
            item = holding.item
            dice, keep = item.modifier, _source_keep(item)
            if item.attribute_id and (dice or keep):
                label = f"{item.name} {modifier_text(dice, keep)} ({item.attribute.name})"
                options.append((f"item:{item.pk}", label, item.attribute_id, dice, keep))
        return options

    def pool_rows(self):
        return [
            (self[f"pool_dice_{r}"], self[f"pool_keep_{r}"], self[f"pool_reason_{r}"])
            for r in range(1, POOL_MODIFIER_ROWS + 1)
            if f"pool_dice_{r}" in self.fields
        ]

    def circumstance_rows(self):
        return [
            (self[f"circumstance_{r}"], self[f"circumstance_reason_{r}"])
            for r in range(1, CIRCUMSTANCE_ROWS + 1)
            if f"circumstance_{r}" in self.fields
        ]

    def _source_elsewhere(self, key: str, attribute_id: int, tested_id: int) -> str:
        """Why a ticked source does not count: it changes another attribute's pool."""
        return _("%(source)s changes the pool of %(attribute)s; this test uses %(tested)s.") % {
            "source": dict(self.fields["sources"].choices).get(key, key),
            "attribute": (
                self.attributes[attribute_id].name if attribute_id in self.attributes else "?"
            ),
            "tested": self.attributes[tested_id].name if tested_id in self.attributes else "?",
        }

    def inapplicable_sources(self) -> dict[str, str]:
        tested = self.raw_cleaned("attribute").get("attribute")
        if not tested:
            return {}
        return {
            key: self._source_elsewhere(key, attribute_id, tested)
            for key, _label, attribute_id, _dice, _keep in self.source_options(
                self.selected_character()
            )
            if attribute_id != tested
        }

    # -- validation -------------------------------------------------------

    def clean(self):
        cleaned = super().clean()
        if (
            cleaned.get("difficulty") == OTHER
            and cleaned.get("difficulty_value") is None
            and not self.has_error("difficulty_value")
        ):
            self.add_error("difficulty_value", _("Type the difficulty, 0 or more."))
        character = self.characters.get(cleaned.get("character"))
        attribute_id = cleaned.get("attribute")
        options = {
            key: (attr, dice, keep) for key, _l, attr, dice, keep in self.source_options(character)
        }
        for key in cleaned.get("sources") or []:
            attr, _dice, _keep = options[key]
            if attribute_id and attr != attribute_id:
                self.add_error("sources", self._source_elsewhere(key, attr, attribute_id))
        for dice, keep, reason in self.pool_rows():
            if (cleaned.get(dice.name) or cleaned.get(keep.name)) and not (
                cleaned.get(reason.name) or ""
            ).strip():
                self.add_error(reason.name, TYPED_MODIFIER_REASON_MESSAGE)
        examples = dict(CIRCUMSTANCE_EXAMPLES)
        for value, reason in self.circumstance_rows():
            text = (cleaned.get(reason.name) or "").strip()
            if not cleaned.get(value.name) and text in examples and value.name in cleaned:
                # A seed example picked without a value brings the seed's own.
                cleaned[value.name] = examples[text]
            if cleaned.get(value.name) and not text:
                self.add_error(reason.name, TYPED_MODIFIER_REASON_MESSAGE)
        purposes = self.raise_purposes_list(cleaned)
        raises = cleaned.get("raises")
        if raises is not None and len(purposes) > raises:
            self.add_error(
                "raise_purposes",
                ngettext(
                    "%(n)s raise declared: describe at most so many purposes.",
                    "%(n)s raises declared: describe at most so many purposes.",
                    raises,
                )
                % {"n": raises},
            )
        elif any(len(p) > RAISE_PURPOSE_MAX for p in purposes):
            self.add_error(
                "raise_purposes",
                _("At most %(max)s characters per raise.") % {"max": RAISE_PURPOSE_MAX},
            )
        return cleaned

    @staticmethod
    def raise_purposes_list(cleaned) -> list[str]:
        text = (cleaned.get("raise_purposes") or "").replace("\n", ";")
        return [part.strip() for part in text.split(";") if part.strip()]

    # -- the case ---------------------------------------------------------

    def case(self) -> Case:
        data = self.cleaned_data
        character = self.characters[data["character"]]
        attribute = self.attributes[data["attribute"]]
        skill = self.skills.get(data["skill"]) if data.get("skill") else None
        from_sheet = self._sheet_pool_modifiers(character, data)
        typed_pool = self._typed_pool_modifiers(data)
        circumstances = self._typed_circumstances(data)
        typed = bool(typed_pool or circumstances)
        difficulty = (
            data["difficulty_value"] if data["difficulty"] == OTHER else int(data["difficulty"])
        )
        what = f"{attribute.name} + {skill.name}" if skill else attribute.name
        return Case(
            system=SYSTEM,
            mode=MODE,
            test=q10.PoolTest.kind,
            input={
                "attribute": character.attribute_value(attribute.pk),
                "skill": character.skill_level(skill.pk) if skill else 0,
                "pool_modifiers": from_sheet + typed_pool,
                "difficulty": difficulty,
                "circumstances": circumstances,
                "raises": data["raises"],
            },
            people={"a": character.pk},
            what=what,
            gm_typed=typed,
            names={"a": character.name},
            request_fields=self._named_fields(),
            effects=self._effects(data),
        )

    def _sheet_pool_modifiers(self, character, data) -> list[dict]:
        """The ticked abilities, flaws and items: dice and kept dice from the sheet."""
        options = {
            key: (label, dice, keep)
            for key, label, _a, dice, keep in self.source_options(character)
        }
        modifiers = []
        for key in data.get("sources") or []:
            label, dice, keep = options[key]
            kind, _pk = key.split(":")
            modifiers.append(
                {"dice": dice, "keep": keep, "label": label, "reason": None, "source": kind}
            )
        return modifiers

    def _typed_pool_modifiers(self, data) -> list[dict]:
        """The GM's typed dice and kept dice, each row with its reason."""
        modifiers = []
        for dice, keep, reason in self.pool_rows():
            d, k = data.get(dice.name) or 0, data.get(keep.name) or 0
            if d or k:
                modifiers.append(
                    {
                        "dice": d,
                        "keep": k,
                        "label": None,
                        "reason": data[reason.name].strip(),
                        "source": "gm",
                    }
                )
        return modifiers

    def _typed_circumstances(self, data) -> list[dict]:
        """The circumstances typed, with their reasons: a player's request proposes them (in
        its named fields); the GM's roll sets them."""
        circumstances = []
        for value, reason in self.circumstance_rows() if self.gm else ():
            if data.get(value.name):
                circumstances.append(
                    {
                        "value": data[value.name],
                        "label": None,
                        "reason": data[reason.name].strip(),
                        "source": "gm",
                    }
                )
        return circumstances

    def _named_fields(self) -> dict:
        """What a request names; a circumstance row left at 0 names nothing, so the GM may
        add one where the request proposed none, and raises without purposes name none (as
        requests did before purposes existed)."""
        fields = self.request_fields(self.ask_fields)
        if not (fields.get(self.add_prefix("raise_purposes")) or "").strip():
            fields.pop(self.add_prefix("raise_purposes"), None)
        for row in range(1, CIRCUMSTANCE_ROWS + 1):
            if fields.get(self.add_prefix(f"circumstance_{row}")) in (None, "", "0"):
                fields.pop(self.add_prefix(f"circumstance_{row}"), None)
                fields.pop(self.add_prefix(f"circumstance_reason_{row}"), None)
        return fields

    def _effects(self, data) -> tuple:
        purposes = self.raise_purposes_list(data)
        return (RaisePurposes(purposes=tuple(purposes)),) if purposes else ()


def named_test(kind: str, catalog_id: int, character_id: int) -> tuple[str, dict]:
    """A test named in a narration, as the request form sends it: a skill with its catalog
    attribute (the pair the sheet shows), or an attribute alone with no skill (A z 0, as
    the form's "no skill"). The difficulty is the GM's, as in every request."""
    if kind == "attribute":
        return MODE, {"character": character_id, "attribute": catalog_id}
    attribute_id = Skill.objects.values_list("attribute_id", flat=True).get(pk=catalog_id)
    return MODE, {"character": character_id, "attribute": attribute_id, "skill": catalog_id}


def make_form(mode: str, data, context: FormContext) -> PoolForm:
    return PoolForm(data, context=context, ask_fields=ASK_FIELDS)
