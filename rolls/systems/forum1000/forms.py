"""forum1000's forms: parse the panel's fields into a request and its Case, or say why not.

Three tabs (RULES 1.x, seed 000): "Cechy" (a single attribute, a combined roll, or an
opposed roll of two sides), "Umiejętności" (a skill, or healing), "Inicjatywa" (every
character at once). Each side of a test has the same fields; opposed rolls use two sides,
prefixed "a-" and "b-". A mode's form (`Forum1000Form`) bundles the sides, the patient and
the initiative table it needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from characters.models import Character, NegativeEffect, Skill
from characters.numbers import signed_number
from characters.selectors import SystemCatalog, system_catalog
from rolls.engine import forum1000 as f1000
from rolls.plugins import (
    TYPED_MODIFIER_REASON_MESSAGE,
    Case,
    FormContext,
    ModeForm,
    character_label,
    untick_choices,
)
from rolls.plugins import typed_modifier_field as common_typed_modifier_field
from rolls.systems.forum1000.cases import case_of
from rolls.systems.forum1000.requests import (
    GmModifier,
    InitiativeLine,
    RollRequest,
    SideRequest,
)
from rolls.systems.forum1000.selectors import npc_modifiers


def _gm_choices(scope: f1000.Scope, easier=None, harder=None) -> list[tuple[int, str]]:
    limit = f1000.GM_LIMITS[scope]
    values = range(-limit, limit + 1, f1000.GM_STEP)
    if easier is None:
        return [(v, signed_number(v)) for v in values]
    # A plus adds to the threshold: the test is easier (RULES 1.2), so each choice says so.
    return [
        (v, format_lazy("{}: {}", signed_number(v), easier if v > 0 else harder) if v else "0")
        for v in values
    ]


GM_DIFFICULTY_CHOICES = _gm_choices(
    f1000.Scope.GM_DIFFICULTY, _("an easier test"), _("a harder test")
)
GM_BONUS_CHOICES = _gm_choices(f1000.Scope.GM_BONUS)
TYPED_LIMIT = f1000.TYPED_MODIFIER_LIMIT


def typed_modifier_field(label) -> forms.IntegerField:
    """An `action` or initiative modifier (RULES 1.2): within forum1000's range."""
    return common_typed_modifier_field(label, TYPED_LIMIT)


TEST_CHOICES = [
    ("attribute", _("single attribute")),
    ("combined", _("combined (two attributes)")),
    ("skill", _("skill")),
    # PvP defence when no skill fits the initiator's: a skill roll at level 0 (RULES 1.3).
    ("half_attribute", _("no fitting skill: attribute ÷ 2")),
]
SKILL_LIKE = ("skill", "half_attribute")


@dataclass(frozen=True)
class SourceOption:
    """An ability, flaw or item that modifies one attribute."""

    key: str  # "trait:<id>" or "item:<id>"
    name: str
    modifier: int
    attribute: str

    @property
    def label(self) -> str:
        return f"{self.name} {signed_number(self.modifier)} ({self.attribute})"


def npc_modifier_label(modifier) -> str:
    """As the panel lists it: "Stary kupiec — perswazja +100 (łatwowierny)"."""
    return (
        f"{modifier.npc.name} — {modifier.interaction} "
        f"{signed_number(modifier.value)} ({modifier.reason})"
    )


def _gm_field(choices, label):
    return forms.TypedChoiceField(
        label=label, choices=choices, coerce=int, initial=0, required=False, empty_value=0
    )


class SideForm(forms.Form):
    """One character's test. `tests` limits which kinds of test this side may be."""

    character = forms.TypedChoiceField(label=_("Character"), coerce=int)
    test = forms.ChoiceField(label=_("Test"), choices=TEST_CHOICES, initial="attribute")
    attribute = forms.TypedChoiceField(label=_("Attribute"), coerce=int, required=False)
    attribute_2 = forms.TypedChoiceField(label=_("Second attribute"), coerce=int, required=False)
    skill = forms.TypedChoiceField(label=_("Skill"), coerce=int, required=False)
    sources = forms.MultipleChoiceField(
        label=_("Abilities, flaws and items"), required=False, widget=forms.CheckboxSelectMultiple
    )
    action_value = typed_modifier_field(_("Action modifier"))
    action_reason = forms.CharField(label=_("Reason"), required=False, max_length=200)
    gm_difficulty = _gm_field(GM_DIFFICULTY_CHOICES, _("GM: an easier or harder test"))
    gm_difficulty_reason = forms.CharField(
        label=_("Reason for the difficulty"), required=False, max_length=200
    )
    gm_bonus = _gm_field(GM_BONUS_CHOICES, _("GM bonus or penalty"))
    gm_bonus_reason = forms.CharField(
        label=_("Reason for the bonus or penalty"), required=False, max_length=200
    )

    def __init__(
        self,
        *args,
        characters: list[Character],
        gm: bool,
        tests: tuple[str, ...] = ("attribute", "combined", "skill"),
        healing_skills: bool | None = None,
        catalog: SystemCatalog | None = None,
        default_character: int = 0,
        npc_modifiers=None,
        npc_opponent: bool = False,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        self.characters = {c.pk: c for c in characters}
        # The session's NPC modifiers, as a callable read only when the field is drawn or a
        # chosen one is validated: a roll that targets no NPC never reads them.
        self.npc_modifiers = npc_modifiers
        if npc_modifiers is not None:
            self._add_npc_modifier_field(npc_modifiers, npc_opponent=npc_opponent)
        self.gm = gm
        self._offer_characters(characters, default_character)
        # With one kind of test allowed, the mode says it and the field goes.
        self.fixed_test = tests[0] if len(tests) == 1 else None
        if self.fixed_test:
            del self.fields["test"]
        else:
            self.fields["test"].choices = [(k, v) for k, v in TEST_CHOICES if k in tests]
        self._offer_catalog(catalog or system_catalog(f1000.SYSTEM), healing_skills)
        if not gm:
            # Modifiers are the GM's to give (RULES 1.2): a player rolls with the sheet's only.
            for name in (
                "action_value",
                "action_reason",
                "gm_difficulty",
                "gm_difficulty_reason",
                "gm_bonus",
                "gm_bonus_reason",
            ):
                del self.fields[name]

    def _add_npc_modifier_field(self, npc_modifiers, *, npc_opponent: bool) -> None:
        """The GM's target NPC and interaction, before the typed modifiers."""
        self.fields["npc_modifier"] = forms.TypedChoiceField(
            label=_("Opponent: an NPC") if npc_opponent else _("Target NPC"),
            coerce=int,
            required=False,
            empty_value=None,
            choices=lambda: (
                [("", _("— no NPC —"))] + [(m.pk, npc_modifier_label(m)) for m in npc_modifiers()]
            ),
            help_text=_(
                "The NPC rolls no defence: the character's test gets the NPC's fixed "
                "modifier for this interaction."
            )
            if npc_opponent
            else _("Its fixed modifier is added as a GM difficulty modifier."),
        )

    def _offer_characters(self, characters: list[Character], default_character: int) -> None:
        self.fields["character"].choices = [(c.pk, character_label(c)) for c in characters]
        if characters:
            # The other side of an opposed roll starts on another character.
            self.fields["character"].initial = characters[
                min(default_character, len(characters) - 1)
            ].pk

    def _offer_catalog(self, catalog: SystemCatalog, healing_skills: bool | None) -> None:
        """The attributes, skills and sources to choose from, the chosen character's levels
        and sources shown."""
        attributes = catalog.attributes
        attribute_choices = [("", "—")] + [(a.pk, a.name) for a in attributes]
        self.fields["attribute"].choices = attribute_choices
        self.fields["attribute_2"].choices = attribute_choices
        skills = catalog.skills
        if healing_skills is not None:  # healing has its own mode, which asks for the patient
            skills = [s for s in skills if bool(s.heals) == healing_skills]
        self.skills = {s.pk: s for s in skills}
        character = self.selected_character()
        self.fields["skill"].choices = [("", "—")] + [
            (skill.pk, self.skill_label(skill, character)) for skill in self.skills.values()
        ]
        # Start from a complete test, so the preview shows a chance at once.
        if attributes:
            self.fields["attribute"].initial = attributes[0].pk
            self.fields["attribute_2"].initial = attributes[1].pk if len(attributes) > 1 else None
        if self.skills:
            self.fields["skill"].initial = next(iter(self.skills))
        self.fields["sources"].choices = [
            (option.key, option.label) for option in self.source_options(character)
        ]

    # -- what the template needs before validation -------------------------

    @property
    def offers_npc_modifiers(self) -> bool:
        """Whether the side draws its NPC field: the session has modifiers to target, or a
        chosen one was refused (its error stands next to the field)."""
        if "npc_modifier" not in self.fields:
            return False
        return bool(self.npc_modifiers()) or (self.is_bound and self.has_error("npc_modifier"))

    @staticmethod
    def skill_label(skill: Skill, character: Character | None) -> str:
        """The skill, its attribute, and the chosen character's level (0: undeveloped)."""
        level = character.skill_level(skill.pk) if character else 0
        return _("%(skill)s (%(attribute)s, level %(level)s)") % {
            "skill": skill.name,
            "attribute": skill.attribute.name,
            "level": level,
        }

    def _raw(self, name: str):
        """A field's submitted value before validation (the panel redraws as fields change)."""
        if name == "test" and self.fixed_test:
            return self.fixed_test
        value = self.data.get(self.add_prefix(name)) if self.is_bound else self.initial.get(name)
        if value in (None, "") and name in self.fields:
            return self.fields[name].initial
        return value

    def current_test(self) -> str:
        test = self._raw("test")
        return test if test in dict(TEST_CHOICES) else "attribute"

    def selected_character(self) -> Character | None:
        raw = self._raw("character")
        try:
            return self.characters.get(int(raw))
        except (TypeError, ValueError):
            return next(iter(self.characters.values()), None)

    @staticmethod
    def source_options(character: Character | None) -> list[SourceOption]:
        """Every attribute-bound ability, flaw and item on the sheet."""
        if character is None:
            return []
        options = [
            SourceOption(f"trait:{t.pk}", t.name, t.modifier, t.attribute.name)
            for t in character.traits.all()
        ]
        options += [
            SourceOption(f"item:{h.item_id}", h.item.name, h.item.modifier, h.item.attribute.name)
            for h in character.item_holdings.all()
            if h.item.attribute_id
        ]
        return options

    def tested_attribute_names(self) -> list[str]:
        """The attributes the current choice tests; sources of other attributes are disabled."""
        character = self.selected_character()
        if character is None:
            return []
        test = self._raw("test") or "attribute"
        names = {row.attribute_id: row.attribute.name for row in character.attribute_values.all()}
        try:
            if test == "skill":
                skill = self.skills.get(int(self._raw("skill")))
                return [skill.attribute.name] if skill else []
            ids = [self._raw("attribute")] + (
                [self._raw("attribute_2")] if test == "combined" else []
            )
            return [names[int(i)] for i in ids if i not in (None, "") and int(i) in names]
        except (TypeError, ValueError):
            return []

    def source_rows(self):
        """Checkbox rows for the template: enabled, or disabled with the reason."""
        tested = self.tested_attribute_names()
        checked = set(self.data.getlist(self.add_prefix("sources"))) if self.is_bound else set()
        rows = []
        for option in self.source_options(self.selected_character()):
            usable = not tested or option.attribute in tested
            reason = (
                ""
                if usable
                else _("%(source)s is tied to %(attribute)s; this test uses %(tested)s.")
                % {
                    "source": option.name,
                    "attribute": option.attribute,
                    "tested": ", ".join(tested),
                }
            )
            rows.append(
                {
                    "key": option.key,
                    "label": option.label,
                    "enabled": usable,
                    "reason": reason,
                    "checked": option.key in checked,
                }
            )
        return rows

    def settle(self) -> None:
        """On a redraw: a ticked source of an attribute this test no longer uses is unticked
        (drawn disabled, it could not be unticked by hand)."""
        reasons = {row["key"]: row["reason"] for row in self.source_rows() if not row["enabled"]}
        untick_choices(self, "sources", reasons)

    # -- validation ---------------------------------------------------------

    def clean(self):
        cleaned = super().clean()
        if self.fixed_test:
            cleaned["test"] = self.fixed_test
        test = cleaned.get("test")
        if test in ("attribute", "combined", "half_attribute") and not cleaned.get("attribute"):
            self.add_error("attribute", _("Choose the attribute."))
        if test == "combined":
            if not cleaned.get("attribute_2"):
                self.add_error("attribute_2", _("Choose the second attribute."))
            elif cleaned.get("attribute") == cleaned.get("attribute_2"):
                self.add_error("attribute_2", _("A combined roll needs two different attributes."))
        if test == "skill" and not cleaned.get("skill"):
            self.add_error("skill", _("Choose the skill."))
        if cleaned.get("action_value") and not (cleaned.get("action_reason") or "").strip():
            self.add_error("action_reason", TYPED_MODIFIER_REASON_MESSAGE)
        for scope in ("gm_difficulty", "gm_bonus"):
            if cleaned.get(scope) and not (cleaned.get(f"{scope}_reason") or "").strip():
                self.add_error(
                    f"{scope}_reason",
                    _("A GM modifier needs a reason: the roll shows it to everyone."),
                )
        return cleaned

    def side_request(self) -> SideRequest:
        data = self.cleaned_data
        test = data["test"]
        attribute_ids: tuple[int, ...] = ()
        if test in ("attribute", "half_attribute"):
            attribute_ids = (data["attribute"],)
        elif test == "combined":
            attribute_ids = (data["attribute"], data["attribute_2"])
        sources = data.get("sources") or []
        return SideRequest(
            character_id=data["character"],
            test=test,
            attribute_ids=attribute_ids,
            skill_id=data.get("skill") if test == "skill" else None,
            trait_ids=tuple(
                sorted(int(s.split(":")[1]) for s in sources if s.startswith("trait:"))
            ),
            item_ids=tuple(sorted(int(s.split(":")[1]) for s in sources if s.startswith("item:"))),
            action_value=data.get("action_value") or 0,
            action_reason=(data.get("action_reason") or "").strip(),
            gm_difficulty=GmModifier(
                data.get("gm_difficulty") or 0, (data.get("gm_difficulty_reason") or "").strip()
            ),
            gm_bonus=GmModifier(
                data.get("gm_bonus") or 0, (data.get("gm_bonus_reason") or "").strip()
            ),
            npc_modifier_id=data.get("npc_modifier") or None,
        )


class HealingForm(forms.Form):
    patient = forms.TypedChoiceField(label=_("Patient"), coerce=int)
    effect = forms.TypedChoiceField(
        label=_("Effect to free on success"), coerce=int, required=False, empty_value=None
    )

    def __init__(self, *args, characters: list[Character], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["patient"].choices = [
            (c.pk, f"{c.name} ({c.hp_current}/{c.hp_max} PŻ)") for c in characters
        ]
        if characters:
            self.fields["patient"].initial = characters[0].pk
        effects = NegativeEffect.objects.filter(
            character__in=characters, freed_at__isnull=True
        ).select_related("character")
        self.fields["effect"].choices = [("", _("— none —"))] + [
            (e.pk, f"{e.character.name}: {e.get_kind_display()} — {e.description}") for e in effects
        ]


class InitiativeForm(forms.Form):
    """The event's name, and per character of the session: whether it sits the event out
    (everyone takes part unless the GM ticks it), a modifier and its reason. The roll opens
    an initiative event for the characters taking part."""

    # The table's column: the attribute the engine rolls initiative on.
    speed_attribute = f1000.SPEED_ATTRIBUTE

    event_name = forms.CharField(
        label=_("Name of the event"),
        required=False,
        max_length=100,
        help_text=_(
            "A fight, a duel, a contest: the roll opens it, and its order holds until the GM "
            "ends it."
        ),
    )

    def __init__(self, *args, characters: list[Character], **kwargs):
        super().__init__(*args, **kwargs)
        self.characters = characters
        for character in characters:
            # The table's header names the columns; each input still needs its own name
            # (the label, for the preview's messages; aria-label, as no <label> is drawn).
            names = {"name": character_label(character)}
            out = _("%(name)s sits this event out") % names
            self.fields[f"out_{character.pk}"] = forms.BooleanField(
                label=out, required=False, widget=forms.CheckboxInput(attrs={"aria-label": out})
            )
            modifier = typed_modifier_field(_("Initiative modifier: %(name)s") % names)
            modifier.widget.attrs["aria-label"] = modifier.label
            reason = _("Reason: %(name)s") % names
            self.fields[f"mod_{character.pk}"] = modifier
            self.fields[f"why_{character.pk}"] = forms.CharField(
                label=reason,
                required=False,
                max_length=200,
                widget=forms.TextInput(attrs={"aria-label": reason}),
            )

    def joining(self) -> list[Character]:
        data = self.cleaned_data
        return [c for c in self.characters if not data.get(f"out_{c.pk}")]

    def clean(self):
        cleaned = super().clean()
        for character in self.joining():
            if (
                cleaned.get(f"mod_{character.pk}")
                and not (cleaned.get(f"why_{character.pk}") or "").strip()
            ):
                self.add_error(f"why_{character.pk}", TYPED_MODIFIER_REASON_MESSAGE)
        if self.characters and not self.joining():
            self.add_error("event_name", _("Choose at least one character to take part."))
        cleaned["event_name"] = (cleaned.get("event_name") or "").strip()
        return cleaned

    def rows(self):
        """(character, label, Szybkość, sits-out field, modifier field, reason field)."""
        return [
            (
                c,
                character_label(c),
                c.value_of(f1000.SPEED_ATTRIBUTE),
                self[f"out_{c.pk}"],
                self[f"mod_{c.pk}"],
                self[f"why_{c.pk}"],
            )
            for c in self.characters
        ]

    def lines(self) -> tuple[InitiativeLine, ...]:
        data = self.cleaned_data
        return tuple(
            InitiativeLine(
                c.pk, data.get(f"mod_{c.pk}") or 0, (data.get(f"why_{c.pk}") or "").strip()
            )
            for c in self.joining()
        )


MODES_BY_TAB = {
    "attributes": ("attribute", "combined", "opposed"),
    "skills": ("skill", "healing"),
    "initiative": ("initiative",),
}
SIDE_TESTS_BY_MODE = {
    "attribute": ("attribute",),
    "combined": ("combined",),
    "opposed": ("attribute", "combined", "skill", "half_attribute"),
    "skill": ("skill",),
    "healing": ("skill",),
}
# The modes in which the GM may target an NPC's fixed modifier (PvE: no defence roll).
NPC_TARGET_MODES = ("attribute", "combined", "skill")
SIDE_TITLES = {"a": _("Initiator"), "b": _("Other side (defence)")}
DEFENCE_MISMATCH = _(
    "The defence follows the initiator: a skill is answered by a skill (or by attribute ÷ 2 "
    "when none fits), an attribute roll by attribute rolls."
)
# What a player's request names: the character, what is tested and the sheet's sources.
ASK_FIELDS = ("a-character", "a-attribute", "a-attribute_2", "a-skill", "a-sources")
# What a link may prefill besides: the other side of an opposed roll and a patient.
LINK_FIELDS = (
    "a-test",
    *(f"b-{name}" for name in ("character", "test", "attribute", "attribute_2", "skill")),
    "b-sources",
    "patient",
    "effect",
)


def named_test(kind: str, catalog_id: int, character_id: int) -> tuple[str, dict]:
    """A test named in a narration, as the request form sends it: a single attribute's
    test, or a skill's (with the sheet's level)."""
    if kind == "attribute":
        return "attribute", {"a-character": character_id, "a-attribute": catalog_id}
    return "skill", {"a-character": character_id, "a-skill": catalog_id}


class Forum1000Form(ModeForm):
    """One mode's forms: the initiator's side (and the defence's, in an opposed roll), the
    patient of a healing roll, or the initiative table."""

    template = "rolls/systems/forum1000/form.html"
    # Their choices decide the others' (a skill's level, the sources a test may use).
    structural = tuple(
        f"{side}-{name}"
        for side in "ab"
        for name in ("character", "test", "attribute", "attribute_2", "skill")
    )

    def __init__(self, mode: str, data, context: FormContext):
        self.mode = mode
        self.context = context
        self.side_a = self.side_b = self.healing = self.initiative = None
        if mode == "initiative":
            self.initiative = InitiativeForm(data, characters=context.all_characters)
            return
        tests = SIDE_TESTS_BY_MODE[mode]
        catalog = system_catalog(f1000.SYSTEM, context.catalog_version)
        # Read when the field is drawn or a modifier is chosen (the field's choices are
        # lazy), once a request.
        targets = (
            (lambda: self.npc_targets)
            if mode in (*NPC_TARGET_MODES, "opposed") and context.may_target_npcs
            else None
        )
        # Mode fixed_modifiers (seed 000 line 180): an NPC opponent rolls no defence; the
        # roll becomes the initiator's test with the NPC's fixed modifier for the interaction.
        self.npc_opponent = bool(
            mode == "opposed"
            and targets is not None
            and data is not None
            and data.get("a-npc_modifier")
            and targets()
        )
        if self.npc_opponent:
            tests = NPC_TARGET_MODES
        if mode == "opposed":
            # An NPC opponent takes the defence's side away: choosing one redraws the panel.
            self.structural = (*self.structural, "a-npc_modifier")
        self.side_a = SideForm(
            data,
            prefix="a",
            characters=context.characters,
            gm=context.gm,
            tests=tests,
            healing_skills={"healing": True, "skill": False}.get(mode),
            catalog=catalog,
            npc_modifiers=targets,
            npc_opponent=mode == "opposed",
        )
        if mode == "opposed" and not self.npc_opponent:
            self.side_b = SideForm(
                data,
                prefix="b",
                characters=context.all_characters,
                gm=context.gm,
                tests=tests,
                default_character=1,
                catalog=catalog,
            )
        if mode == "healing":
            self.healing = HealingForm(data, characters=context.all_characters)

    def settle(self) -> None:
        for side in (self.side_a, self.side_b):
            if side is not None:
                side.settle()

    @cached_property
    def npc_targets(self) -> list:
        """The session's NPC modifiers the GM may target."""
        return npc_modifiers(self.context.session)

    @property
    def forms(self):
        return [
            f for f in (self.side_a, self.side_b, self.healing, self.initiative) if f is not None
        ]

    @property
    def sides(self) -> list:
        """(form, title) of each side, as the template draws them."""
        if self.side_b is None:
            return [(self.side_a, "")] if self.side_a else []
        return [(self.side_a, SIDE_TITLES["a"]), (self.side_b, SIDE_TITLES["b"])]

    def is_valid(self) -> bool:
        return super().is_valid() and self._defence_follows_initiator()

    def _defence_follows_initiator(self) -> bool:
        """RULES 1.3: a skill meets a skill (or attribute ÷ 2), attribute rolls meet attributes."""
        if self.side_b is None:
            return True
        initiator = self.side_a.cleaned_data["test"]
        defence = self.side_b.cleaned_data["test"]
        if (initiator in SKILL_LIKE) == (defence in SKILL_LIKE):
            return True
        if not self.side_b.has_error("test"):
            self.side_b.add_error("test", DEFENCE_MISMATCH)
        return False

    def where(self, form, name: str) -> str:
        label = super().where(form, name)
        if self.side_b is not None and form.prefix in SIDE_TITLES and label:
            return f"{SIDE_TITLES[form.prefix]}: {label}"
        return label

    def request(self) -> RollRequest:
        """What the valid forms ask for."""
        if self.mode == "initiative":
            return RollRequest(kind="initiative", initiative=self.initiative.lines())
        a = self.side_a.side_request()
        if self.mode == "opposed" and not self.npc_opponent:
            return RollRequest(kind="opposed", a=a, b=self.side_b.side_request())
        if self.mode == "healing":
            return RollRequest(
                kind="healing",
                a=a,
                patient_id=self.healing.cleaned_data["patient"],
                effect_id=self.healing.cleaned_data.get("effect"),
            )
        return RollRequest(kind=a.test, a=a)

    def case(self) -> Case:
        characters = {c.pk: c for c in self.context.all_characters}
        event = self.initiative.cleaned_data.get("event_name", "") if self.initiative else ""
        return case_of(self.request(), characters, self.context.session, event_name=event)


def make_form(mode: str, data, context: FormContext) -> Forum1000Form:
    return Forum1000Form(mode, data, context)
