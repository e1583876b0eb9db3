"""The Ars Magica forms (RULES 4, seed 003): the simple die and the stress die.

Each test is Cecha + Umiejętność + modifiers + the die against the ease factor (Poziom
Trudności). The form reads the characteristic and the ability off the chosen character's
sheet (never typed), adds the sheet's abilities, flaws and items tied to that
characteristic and the GM's typed modifiers (each with its reason), and turns it all into
the engine's input (rolls.engine.arsmagica). `preview` explains the numbers and the exact
chance (rolls.systems.arsmagica.display).
"""

from __future__ import annotations

from typing import Any, ClassVar

from django import forms
from django.core.validators import MinValueValidator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext_lazy

from characters.models import Attribute, Character, Skill, TraitKind
from characters.numbers import signed_number
from characters.selectors import system_catalog
from characters.systems import words_for
from config.form_fields import DefaultedIntegerField
from rolls.engine import arsmagica as ars
from rolls.engine.errors import RuleError
from rolls.plugins import (
    TYPED_MODIFIER_REASON_MESSAGE,
    Case,
    FormContext,
    SheetCaseForm,
    character_label,
    typed_modifier_field,
)
from rolls.systems.arsmagica.effects import SetsPlayersBotchFloor, players_botch_floor

SYSTEM = ars.SYSTEM
WORDS = words_for(SYSTEM)  # Charakterystyka / Umiejętność, zalety i wady

MODES = [
    ("simple", gettext_lazy("Simple die")),
    ("stress", gettext_lazy("Stress die")),
]
# The die inside a sentence ("Zręczność + Skradanie (stress die)").
DIE_WORDS = {
    "simple": pgettext_lazy("in a sentence", "simple die"),
    "stress": pgettext_lazy("in a sentence", "stress die"),
}

# The usual Ars Magica ease factors (docs/decisions.md, "Ars Magica"), offered as a picker;
# any other whole number from 0 to EASE_MAX can be typed.
EASE_LEVELS = [
    (3, pgettext_lazy("ease factor", "Simple")),
    (6, pgettext_lazy("ease factor", "Easy")),
    (9, pgettext_lazy("ease factor", "Average")),
    (12, pgettext_lazy("ease factor", "Hard")),
    (15, pgettext_lazy("ease factor", "Very hard")),
    (18, pgettext_lazy("ease factor", "Impressive")),
    (21, pgettext_lazy("ease factor", "Remarkable")),
]
EASE_OTHER = "other"
EASE_DEFAULT = 9
EASE_MAX = 200
BOTCH_DICE_DEFAULT = 1  # the usual situation; also what a player's own stress roll uses
BOTCH_DICE_MAX = 10
TYPED_LIMIT = 10  # each GM-typed modifier lies in −10..+10
TYPED_ROWS = 3  # the GM may type up to three modifiers, each with its reason
REASON_MAX = 200

# Where a modifier came from (`source` in the engine's input).
# What a player's request names: what is tested; the ease factor, the botch dice and the
# modifiers are the GM's.
ASK_FIELDS = ("character", "characteristic", "ability", "sources")
SOURCE_GM = "gm"
SOURCE_ITEM = "item"
SOURCE_NAMES = {
    # The sheet's words (characters.systems): Ars Magica's virtues and flaws.
    TraitKind.ABILITY: WORDS.ability,
    TraitKind.FLAW: WORDS.flaw,
    SOURCE_ITEM: pgettext_lazy("arsmagica source", "item"),
    SOURCE_GM: pgettext_lazy("arsmagica source", "GM"),
}

EASE_RANGE_MESSAGE = gettext_lazy("The ease factor is a whole number from 0 to %(max)s.")
BOTCH_NEGATIVE_MESSAGE = gettext_lazy("The number of botch dice cannot be negative.")
BOTCH_MAX_MESSAGE = gettext_lazy("At most %(max)s botch dice.")


def ease_label(value: int) -> str:
    names = dict(EASE_LEVELS)
    return f"{names[value]} ({value})" if value in names else str(value)


class ArsForm(SheetCaseForm):
    """One Ars Magica test: who, Cecha + Umiejętność from the sheet, modifiers, ease factor."""

    # The sources a test may use follow its characteristic: a new one redraws them.
    structural = ("character", "characteristic")

    mode: ClassVar[str] = ""
    test_kind: ClassVar[str] = ""

    character = forms.TypedChoiceField(label=gettext_lazy("Character"), coerce=int)
    characteristic = forms.TypedChoiceField(label=WORDS.attribute, coerce=int)
    ability = forms.TypedChoiceField(
        label=WORDS.skill,
        coerce=int,
        required=False,
        empty_value=None,
        help_text=gettext_lazy("The level is read off the character's sheet (0 if undeveloped)."),
    )
    sources = forms.MultipleChoiceField(
        label=gettext_lazy("Virtues, flaws and items"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=gettext_lazy("Only those tied to the tested characteristic count."),
    )
    ease = forms.ChoiceField(label=gettext_lazy("Ease factor"), initial=EASE_DEFAULT)
    ease_value = forms.IntegerField(
        label=gettext_lazy("Another ease factor"),
        required=False,
        min_value=0,
        max_value=EASE_MAX,
        help_text=gettext_lazy("Choose “another value” above and type it here."),
    )

    def __init__(self, data=None, **kwargs):
        super().__init__(data, **kwargs)
        characters, gm = self.context.characters, self.context.gm
        ease_range = EASE_RANGE_MESSAGE % {"max": EASE_MAX}
        self.fields["ease_value"].error_messages.update(
            {"min_value": ease_range, "max_value": ease_range}
        )
        self.fields["ease"].choices = [(str(v), ease_label(v)) for v, _label in EASE_LEVELS] + [
            (EASE_OTHER, _("another value (type it below)"))
        ]
        self.fields["character"].choices = [(c.pk, character_label(c)) for c in characters]
        if characters:
            self.fields["character"].initial = characters[0].pk
        character = self.selected_character()
        catalog = system_catalog(SYSTEM, self.context.catalog_version)
        self.attributes = {a.pk: a for a in catalog.attributes}
        self.fields["characteristic"].choices = [
            (a.pk, self.characteristic_label(a, character)) for a in self.attributes.values()
        ]
        if self.attributes:
            self.fields["characteristic"].initial = next(iter(self.attributes))
        self.skills = {s.pk: s for s in catalog.skills}
        self.fields["ability"].choices = [("", _("— no ability (0) —"))] + [
            (s.pk, self.ability_label(s, character)) for s in self.skills.values()
        ]
        self.fields["sources"].choices = [
            (key, label) for key, label, _attribute in self.source_options(character)
        ]
        if gm:
            self._add_gm_fields()
        self.order_fields(
            ["character", "characteristic", "ability", "sources"]
            + [
                f"{name}_{row}"
                for row in range(1, TYPED_ROWS + 1)
                for name in ("modifier", "reason")
            ]
            + ["ease", "ease_value", "botch_dice"]
        )

    def _add_gm_fields(self) -> None:
        """The GM's typed modifiers (a player rolls with the sheet's numbers only)."""
        for row in range(1, TYPED_ROWS + 1):
            self.fields[f"modifier_{row}"] = typed_modifier_field(
                _("GM modifier %(row)s") % {"row": row}, TYPED_LIMIT
            )
            self.fields[f"reason_{row}"] = forms.CharField(
                label=_("Reason for GM modifier %(row)s") % {"row": row},
                required=False,
                max_length=REASON_MAX,
            )

    # -- what the template needs before validation -------------------------

    def modifier_rows(self):
        """(value, reason) bound fields of the GM's typed modifiers; none for a player."""
        return [
            (self[f"modifier_{row}"], self[f"reason_{row}"])
            for row in range(1, TYPED_ROWS + 1)
            if f"modifier_{row}" in self.fields
        ]

    @staticmethod
    def _characteristic_row(character: Character | None, attribute_id: int):
        if character is None:
            return None
        return next(
            (r for r in character.attribute_values.all() if r.attribute_id == attribute_id), None
        )

    def characteristic_label(self, attribute: Attribute, character: Character | None) -> str:
        row = self._characteristic_row(character, attribute.pk)
        if row is None:
            return attribute.name
        return f"{attribute.name} ({signed_number(row.value)})"

    @staticmethod
    def ability_label(skill: Skill, character: Character | None) -> str:
        level = character.skill_level(skill.pk) if character else 0
        return _("%(ability)s (level %(level)s)") % {"ability": skill.name, "level": level}

    @staticmethod
    def source_options(character: Character | None) -> list[tuple[str, str, int | None]]:
        """(key, label, attribute id) of every characteristic-bound ability, flaw and item."""
        if character is None:
            return []
        options = []
        for trait in character.traits.all():
            if trait.system != SYSTEM:
                continue
            label = f"{trait.name} {signed_number(trait.modifier)} "
            label += f"({SOURCE_NAMES[trait.kind]}, {trait.attribute.name})"
            options.append((f"trait:{trait.pk}", label, trait.attribute_id))
        for holding in character.item_holdings.all():
            item = holding.item
            if item.system != SYSTEM or not item.attribute_id or not item.modifier:
                continue
            label = f"{item.name} {signed_number(item.modifier)} "
            label += f"({SOURCE_NAMES[SOURCE_ITEM]}, {item.attribute.name})"
            options.append((f"item:{item.pk}", label, item.attribute_id))
        return options

    @staticmethod
    def _source_elsewhere(source, tested: Attribute) -> str:
        """Why a ticked source does not count: it is tied to another characteristic."""
        return _("%(source)s is tied to %(attribute)s; this test uses %(tested)s.") % {
            "source": source.name,
            "attribute": source.attribute.name,
            "tested": tested.name,
        }

    def inapplicable_sources(self) -> dict[str, str]:
        tested = self.attributes.get(self.raw_cleaned("characteristic").get("characteristic"))
        character = self.selected_character()
        if tested is None or character is None:
            return {}
        sources = {f"trait:{t.pk}": t for t in character.traits.all()} | {
            f"item:{h.item_id}": h.item for h in character.item_holdings.all()
        }
        return {
            key: self._source_elsewhere(sources[key], tested)
            for key, _label, attribute_id in self.source_options(character)
            if attribute_id != tested.pk
        }

    # -- validation ---------------------------------------------------------

    def clean(self):
        cleaned = super().clean()
        character = self.characters.get(cleaned.get("character"))
        attribute = self.attributes.get(cleaned.get("characteristic"))
        characteristic = None
        if character is not None and attribute is not None:
            row = self._characteristic_row(character, attribute.pk)
            if row is None:
                self.add_error(
                    "characteristic",
                    _("%(name)s has no %(characteristic)s on the sheet.")
                    % {"name": character.name, "characteristic": attribute.name},
                )
            else:
                characteristic = row.value
        skill = self.skills.get(cleaned.get("ability"))
        modifiers = self._sheet_modifiers(cleaned, character, attribute)
        modifiers += self._typed_modifiers(cleaned)
        ease = self._ease(cleaned)
        botch_dice = self._botch_dice(cleaned)
        if self.errors or characteristic is None or ease is None or botch_dice is None:
            return cleaned
        ability = character.skill_level(skill.pk) if skill else 0
        data: dict[str, Any] = {
            "characteristic": characteristic,
            "ability": ability,
            "modifiers": modifiers,
            "ease_factor": ease,
        }
        what = self._what(attribute.name, skill.name if skill else None)
        if self.test_kind == "stress":
            data["botch_dice"], fewer = self._fewer_botch_dice(character, botch_dice)
            what += fewer
        case = Case(
            effects=self._effects(cleaned),
            system=SYSTEM,
            mode=self.mode,
            test=self.test_kind,
            input=data,
            people={"a": character.pk},
            what=what,
            gm_typed=any(m["source"] == SOURCE_GM for m in modifiers),
            names={"a": character.name},
            request_fields=self.request_fields(self.ask_fields),
        )
        try:
            case.engine_test()
        except RuleError as error:
            self.add_error(*self.error_field(error))
            return cleaned
        self._case = case
        return cleaned

    def _sheet_modifiers(self, cleaned, character, attribute) -> list[dict[str, Any]]:
        keys = cleaned.get("sources") or []
        if not keys or character is None:
            return []
        options = {
            key: attribute_id for key, _label, attribute_id in self.source_options(character)
        }
        traits = {f"trait:{t.pk}": t for t in character.traits.all()}
        items = {f"item:{h.item_id}": h.item for h in character.item_holdings.all()}
        modifiers = []
        for key in keys:
            source = traits.get(key) or items.get(key)
            if attribute is not None and options.get(key) != attribute.pk:
                self.add_error("sources", self._source_elsewhere(source, attribute))
                continue
            kind = source.kind if key.startswith("trait:") else SOURCE_ITEM
            modifiers.append(
                {"value": source.modifier, "label": source.name, "reason": None, "source": kind}
            )
        return modifiers

    def _typed_modifiers(self, cleaned) -> list[dict[str, Any]]:
        if not self.gm:
            return []
        modifiers = []
        for row in range(1, TYPED_ROWS + 1):
            value = cleaned.get(f"modifier_{row}") or 0
            reason = (cleaned.get(f"reason_{row}") or "").strip()
            if not value:
                continue
            if not reason:
                self.add_error(f"reason_{row}", TYPED_MODIFIER_REASON_MESSAGE)
                continue
            modifiers.append({"value": value, "label": None, "reason": reason, "source": SOURCE_GM})
        return modifiers

    def _ease(self, cleaned) -> int | None:
        choice = cleaned.get("ease")
        typed = cleaned.get("ease_value")
        if choice is None or self.has_error("ease_value"):
            return None
        if choice == EASE_OTHER:
            if typed is None:
                self.add_error("ease_value", _("Type the ease factor (a whole number, 0 or more)."))
            return typed
        level = int(choice)
        if typed is not None and typed != level:
            self.add_error(
                "ease_value",
                _(
                    "You chose %(level)s above and typed %(typed)s here: choose “another "
                    "value” to use the typed one, or clear this field."
                )
                % {"level": ease_label(level), "typed": typed},
            )
            return None
        return level

    def _botch_dice(self, cleaned) -> int | None:
        return 0

    def _effects(self, cleaned) -> tuple:
        return ()

    @staticmethod
    def _fewer_botch_dice(character: Character, botch_dice: int) -> tuple[int, str]:
        """The sheet's virtues that take botch dice off (seed 003), and the words the roll
        keeps of them in its `what`: " · Ostrożny: −1 kość fuszerki"."""
        virtues = [t for t in character.traits.all() if t.system == SYSTEM]
        virtues = [t for t in virtues if t.botch_dice_reduction]
        if not virtues or not botch_dice:
            return botch_dice, ""
        fewer = sum(t.botch_dice_reduction for t in virtues)
        words = ngettext("%(names)s: −%(n)s botch die", "%(names)s: −%(n)s botch dice", fewer) % {
            "names": ", ".join(t.name for t in virtues),
            "n": fewer,
        }
        return max(0, botch_dice - fewer), f" · {words}"

    def _what(self, characteristic: str, ability: str | None) -> str:
        """The test in the catalog's words; the ease factor, the GM's, is in the line's
        details (and a request leaves it open)."""
        test = (
            _("%(characteristic)s + %(ability)s")
            % {"characteristic": characteristic, "ability": ability}
            if ability
            else characteristic
        )
        return f"{test} ({DIE_WORDS[self.mode]})"

    @staticmethod
    def error_field(error: RuleError) -> tuple[str | None, str]:
        """An engine refusal, next to the field it concerns."""
        if error.code == "negative_ability":
            return "ability", _("An ability cannot be negative (the sheet says %(level)s).") % {
                "level": error.params.get("ability")
            }
        if error.code == "negative_botch_dice":
            return "botch_dice", str(BOTCH_NEGATIVE_MESSAGE)
        return None, _("The rules do not allow this roll (%(reason)s).") % {"reason": str(error)}

    def case(self) -> Case:
        """The test to roll; only after `is_valid()`."""
        if self._case is None:
            raise RuleError("invalid_input", "the form is not valid", field="form")
        return self._case


class SimpleForm(ArsForm):
    mode = "simple"
    test_kind = "simple"


class StressForm(ArsForm):
    mode = "stress"
    test_kind = "stress"

    botch_dice = DefaultedIntegerField(
        label=gettext_lazy("Botch dice"),
        default=BOTCH_DICE_DEFAULT,
        min_value=0,
        max_value=BOTCH_DICE_MAX,
        help_text=gettext_lazy(
            "Rolled when the stress die shows 0: any 0 among them is a botch. Usually 1, more "
            "for aggravating factors; 0 when no botch is possible."
        ),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        field = self.fields["botch_dice"]
        field.error_messages.update(
            {
                "min_value": BOTCH_NEGATIVE_MESSAGE,
                "max_value": BOTCH_MAX_MESSAGE % {"max": BOTCH_DICE_MAX},
            }
        )
        if not self.gm:
            # How many botch dice the situation calls for is the GM's call: a player may take
            # more than the GM's floor on their own stress roll, never fewer (docs/decisions.md,
            # "Ars Magica").
            floor = self.players_botch_floor()
            field.min_value = floor
            field.validators = [
                v for v in field.validators if not isinstance(v, MinValueValidator)
            ] + [MinValueValidator(floor)]
            field.error_messages["min_value"] = ngettext(
                "At least %(n)s botch die: the GM sets so many.",
                "At least %(n)s botch dice: the GM sets so many.",
                floor,
            ) % {"n": floor}
            field.set_default(floor)  # left empty: the floor
            field.widget.attrs["min"] = floor
        else:
            self.fields["players_botch_floor"] = forms.BooleanField(
                label=_("Players' own stress rolls in this session take at least so many"),
                required=False,
            )
            self.order_fields(list(self.fields))

    def _botch_dice(self, cleaned) -> int | None:
        if not self.gm and cleaned.get("botch_dice") is None and not self.has_error("botch_dice"):
            return self.players_botch_floor()
        return cleaned.get("botch_dice")

    def players_botch_floor(self) -> int:
        """The fewest botch dice a player's own stress roll takes: as the GM last set it,
        else the usual one."""
        return players_botch_floor(self.session, BOTCH_DICE_DEFAULT)

    def _effects(self, cleaned) -> tuple:
        if self.gm and cleaned.get("players_botch_floor"):
            return (SetsPlayersBotchFloor(dice=cleaned["botch_dice"]),)
        return ()


FORMS: dict[str, type[ArsForm]] = {"simple": SimpleForm, "stress": StressForm}


# The die a test named in a narration asks for: the request page's first tab. Which die
# the situation calls for is the GM's to judge when answering (docs/decisions.md, "Dice
# inside the narration").
NAMED_TEST_MODE = MODES[0][0]


def named_test(kind: str, catalog_id: int, character_id: int) -> tuple[str, dict]:
    """A test named in a narration, as the request form sends it, with the simple die: an
    ability with its catalog characteristic, or a characteristic with no ability (0). The
    ease factor and the botch dice are the GM's, as in every request."""
    if kind == "attribute":
        return NAMED_TEST_MODE, {"character": character_id, "characteristic": catalog_id}
    attribute_id = Skill.objects.values_list("attribute_id", flat=True).get(pk=catalog_id)
    return NAMED_TEST_MODE, {
        "character": character_id,
        "characteristic": attribute_id,
        "ability": catalog_id,
    }


def make_form(mode: str, data, context: FormContext) -> ArsForm:
    try:
        form_class = FORMS[mode]
    except KeyError:
        raise ValueError(f"arsmagica has no {mode!r} mode") from None
    return form_class(data, context=context, ask_fields=ASK_FIELDS)
