"""What a rule system's plug-in gives the shared roll path, and what the path gives it back.

The shared path — one panel (rolls.panel), one request flow and one answer flow, one roll
service (rolls.services.roll_make) — never names a system: it asks the `RollSystem` the
registry (rolls.registry) holds for the session's system. A plug-in says:

- its engine module (rolls.engine.<system>: `parse_test`, `roll`, `probability`);
- its modes (the kinds of roll), grouped in tabs, and which are the GM's alone;
- the form of each mode (`form(mode, data, context)`), which reads the sheets and turns
  what a person chose into a `Case`: the engine's test kind and JSON input, who it is for,
  and the `Effect`s a roll of it has beyond its record (a healed patient, an opened
  initiative event);
- what a player's request names of the form (`ask_fields`), and the request in words;
- the preview of a case (the exact chance and how the numbers were reached) and the lines
  of a stored roll, read from its record alone;
- its template partials (the form, the preview, a roll's lines);
- its rule for a character's further action roll in a turn (refused unless the GM allows
  it, or counted and shown).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from types import ModuleType
from typing import Any

from django import forms
from django.http import QueryDict
from django.utils import formats
from django.utils.functional import lazy
from django.utils.translation import gettext_lazy

from config.form_fields import DefaultedIntegerField
from rolls.engine import systems as engine_systems
from rolls.engine.errors import RuleError
from rolls.ledger.chain import canonical_json

# The panel's own fields; a mode form's fields never take these names.
PANEL_FIELDS = frozenset(
    {"token", "mode", "post", "ask", "preview", "sig", "secret", "answer_note"}
    | {"extra_action_reason", "plan", "leave_ask"}
)


class RequestError(RuleError):
    """A form or request names something the site refuses before any die: a field's value
    that is not there (a foreign id, a missing choice) or not allowed (an action limit).
    `field` is the panel field it concerns ("a-sources", "patient"), `code` a stable name
    the system's messages word."""

    def __init__(self, field: str | None, code: str, **params):
        super().__init__(code, code, **params)
        self.field = field


# ---------------------------------------------------------------------------
# A test to roll


@dataclass(frozen=True)
class Effect:
    """What a roll does beyond its record, in the roll's transaction: checks under the
    session's lock (before any die), a part of the record (under `key`), work after the row
    is appended. A case carries its effects; the roll service runs them in order."""

    key: str = ""  # the record key `apply` writes ("" for none)
    # Changes a sheet or opens something everyone sees: a secret roll refuses it.
    visible: bool = True

    def lock(self) -> None:
        """Rows to lock beside the session's (the roll writes them)."""

    def check(self, context: RollContext) -> None:
        """Refuse (RequestError, ValidationError) before any die; the preview runs it too,
        outside a transaction, so it must not lock."""

    def apply(self, context: RollContext, result, seq: int) -> Any:
        """In the roll's transaction, once the dice fell: what the record keeps under `key`."""
        return None

    def after(self, context: RollContext, roll) -> None:
        """Once the roll's row is in the chain."""

    def post(self, context: RollContext) -> Any:
        """The post the roll belongs in, when the effect names one (a reroll lands beside the
        roll it repeats), else None: the roll path chooses."""
        return None

    def digest_data(self) -> dict:
        """What of the effect a one-time token is bound to."""
        return {}


@dataclass(frozen=True)
class Case:
    """One test to roll, as the engine reads it, and who it is for.

    `people` names the characters by their part: "a" acts (its action roll in the turn),
    "b" is the other side, a system may add its own ("patient", "initiative": a list)."""

    system: str
    mode: str  # the panel's mode, e.g. "skill", "pool", "stress"
    test: str  # the engine's test kind, e.g. "skill", "pool", "comparative"
    input: dict[str, Any]  # the engine's JSON input, every modifier with its label and reason
    people: Mapping[str, int | list[int]] = field(default_factory=dict)
    is_action: bool = True  # False: does not use the character's action roll of the turn
    what: str = ""  # the test in words, e.g. "Siła + Miecz (5z2)"
    names: Mapping[str, str] = field(default_factory=dict)  # the people's names, by part
    gm_typed: bool = False  # a person typed a number into it (the GM's alone)
    # What a player's request names, by the form's field names (RollSystem.ask_fields).
    request_fields: Mapping[str, Any] = field(default_factory=dict)
    effects: tuple[Effect, ...] = ()

    @property
    def character_id(self) -> int | None:
        value = self.people.get("a")
        return value if isinstance(value, int) else None

    @property
    def other_character_id(self) -> int | None:
        value = self.people.get("b")
        return value if isinstance(value, int) else None

    @property
    def character_ids(self) -> list[int]:
        ids: list[int] = []
        for value in self.people.values():
            ids += value if isinstance(value, list) else [value]
        return ids

    @property
    def is_visible_to_all(self) -> bool:
        """Whether a roll of it changes something everyone sees (a secret roll may not)."""
        return any(effect.visible for effect in self.effects)

    def engine_test(self):
        """The engine's validated test; raises RuleError for bad input."""
        return engine_systems.parse_test(self.system, self.test, self.input)

    def probability(self) -> Fraction:
        return engine_systems.probability(self.system, self.engine_test())

    def digest(self) -> str:
        """What a one-time token asked for: the same token with other inputs is refused."""
        payload = {
            "system": self.system,
            "mode": self.mode,
            "test": self.test,
            "input": self.input,
            "people": dict(self.people),
            "effects": [effect.digest_data() for effect in self.effects],
        }
        return hashlib.sha256(canonical_json(payload)).hexdigest()


@dataclass(frozen=True)
class RollContext:
    """What a roll's effects and checks read: the locked session, who rolls, the case, the
    sheets it names and the current turn."""

    session: Any
    by: Any
    case: Case
    characters: dict
    turn: Any


# ---------------------------------------------------------------------------
# What the shared path shows


@dataclass(frozen=True)
class CaseDie:
    """One die as the line shows it: its face, whether it counts, whether it is an extra
    die, and a word for readers who do not see the marks ("zatrzymana", "kość pecha")."""

    face: int
    kept: bool = True
    extra: bool = False
    note: str = ""


@dataclass(frozen=True)
class CaseLine:
    """One line of a roll as the post shows it, in words a player without the formulas reads:
    `outcome`, then `details` in order (faces, total against the difficulty, margin…)."""

    who: str
    what: str
    outcome: str
    success: bool
    details: list[str] = field(default_factory=list)
    dice: list[CaseDie] = field(default_factory=list)


@dataclass(frozen=True)
class CasePreview:
    """Before the roll: the exact chance (None when no roll is made, e.g. an automatic
    success, said in `note`) and how the numbers were reached, term by term."""

    chance: Fraction | None
    terms: list[str] = field(default_factory=list)
    note: str = ""

    @property
    def chance_text(self) -> str:
        """The chance as a percent, as shown ("37,5"); "" when no roll is made."""
        return percent_text(self.chance) if self.chance is not None else ""


@dataclass(frozen=True)
class Mode:
    key: str
    label: Any
    tab: str = ""  # the tab it is under; "" for a tab of its own
    gm_only: bool = False  # involves others' characters or the GM's judgment

    @property
    def tab_key(self) -> str:
        return self.tab or self.key


@dataclass(frozen=True)
class FormContext:
    """What a mode form is built with."""

    characters: list  # the characters this user may roll (or ask) for
    all_characters: list  # every playing one: the other side, a patient, an initiative
    gm: bool  # modifiers may be typed (the GM's alone)
    session: Any = None
    for_request: bool = False  # a player's request: only what is tested, the rest is the GM's
    may_target_npcs: bool = False  # the GM may apply an NPC's fixed modifier

    @property
    def catalog_version(self) -> str | None:
        """The catalogs' version token read with the session (rolls.views annotates it), or
        None: characters.selectors.system_catalog then reads the catalogs itself."""
        return getattr(self.session, "catalog_version", None)


@dataclass(frozen=True)
class RollSystem:
    """One rule system's plug-in (see the module's docstring)."""

    name: str
    engine: ModuleType
    modes: tuple[Mode, ...]
    form: Callable[[str, Any, FormContext], Any]
    preview: Callable[[Case], Any]
    lines: Callable[[dict], list]
    # The tabs' labels where several modes share one (a mode's own tab takes its label).
    tab_labels: Mapping[str, Any] = field(default_factory=dict)
    # What a player's request names (and a link may prefill): what is tested, never a
    # modifier or a reason.
    ask_fields: tuple[str, ...] = ("character",)
    # Of the ask fields, what a request may propose and the GM may add to: one the GM fills
    # where the request left it out is no difference from the request.
    proposed_fields: tuple[str, ...] = ()
    # What else a link may prefill in the panel (the other side, a patient).
    link_fields: tuple[str, ...] = ()
    # A sheet test named in a narration (`[[test: Percepcja]]`, rolls.inline): (kind —
    # "attribute" or "skill" —, the catalog row's id, the character's id) -> (the mode, the
    # request form's data), as a player's request sends them; None: this system takes no
    # test by name.
    named_test: Callable[[str, int, int], tuple[str, dict]] | None = None
    # A request in words, after the character's name (default: `Case.what`).
    summary: Callable[[Case], str] | None = None
    # A failed roll rerolled by choice after it (seed 002's przerzut): a form built from the
    # first roll (`reroll_form(roll, data, context)`) whose `case()` is the reroll; None for a
    # system without one.
    reroll_form: Callable[[Any, Any, FormContext], Any] | None = None
    # (field or None, message) for a refusal of this system's forms and engine.
    error_message: Callable[[RuleError], tuple[str | None, str]] | None = None
    form_template: str = ""  # lays out a mode form's fields; "" draws each in order
    preview_template: str = "rolls/systems/preview.html"
    lines_template: str = "rolls/systems/lines.html"
    # A partial under a post's rolls explaining its marks (e.g. the critical faces), and
    # the numbers it shows.
    legend_template: str = ""
    legend: Any = None
    # The moderators' audit: figures of the session's rolls (`audit(session)`), drawn by
    # `audit_template`.
    audit: Callable[[Any], Any] | None = None
    audit_template: str = ""
    # A stored roll's kind as its heading names it (default: its mode's label).
    kind_labels: Mapping[str, Any] = field(default_factory=dict)
    # Outside combat, a further action roll in a turn: refused unless the GM allows it with
    # a reason, or counted and shown.
    refuses_extra_action_rolls: bool = False
    # The actions a character has in a turn outside combat (moving, using an item, one roll).
    actions_per_turn: int = 2
    # The session's "criticals off" (the simplified system) changes this system's rolls, so
    # its sessions offer the setting; other systems' sessions neither show nor store it.
    criticals_setting: bool = False

    def mode(self, key: str) -> Mode | None:
        return next((m for m in self.modes if m.key == key), None)

    @property
    def mode_keys(self) -> tuple[str, ...]:
        return tuple(m.key for m in self.modes)

    @property
    def gm_only_modes(self) -> frozenset[str]:
        return frozenset(m.key for m in self.modes if m.gm_only)

    @property
    def askable_modes(self) -> tuple[str, ...]:
        return tuple(m.key for m in self.modes if not m.gm_only)

    def mode_label(self, key: str) -> str:
        mode = self.mode(key)
        return str(mode.label) if mode else key

    def kind_label(self, key: str) -> str:
        return str(self.kind_labels.get(key) or self.mode_label(key))

    def tabs(self, modes: list[Mode] | None = None) -> list[tuple[str, str, list[Mode]]]:
        """(key, label, its modes) of each tab that has any of `modes` (default: all)."""
        modes = list(self.modes if modes is None else modes)
        tabs: dict[str, list[Mode]] = {}
        for mode in modes:
            tabs.setdefault(mode.tab_key, []).append(mode)
        return [
            (key, str(self.tab_labels.get(key) or members[0].label), members)
            for key, members in tabs.items()
        ]

    def request_summary(self, case: Case) -> str:
        return self.summary(case) if self.summary else case.what

    def refusal(self, error: RuleError) -> tuple[str | None, str]:
        if self.error_message is not None:
            return self.error_message(error)
        return case_error_message(error)


# ---------------------------------------------------------------------------
# Refusals in words

RULE_MESSAGES = {
    "negative_raises": ("raises", "The number of raises cannot be negative."),
    "negative_difficulty": ("difficulty", "The difficulty cannot be negative."),
    "negative_pool": (None, "A pool cannot start below zero dice."),
}


def case_error_message(error: RuleError) -> tuple[str | None, str]:
    """(field or None, message): the form's own words when its `case()` gave them (params
    `field`, `text`), else the engine code's."""
    from django.utils.translation import gettext as _

    params = error.params
    if params.get("text"):
        return params.get("field"), str(params["text"])
    if error.code in RULE_MESSAGES:
        name, message = RULE_MESSAGES[error.code]
        return params.get("field") if name is None else name, _(message)
    return params.get("field"), _("The rules do not allow this roll (%(reason)s).") % {
        "reason": str(error)
    }


# ---------------------------------------------------------------------------
# The mode forms


def field_value(value):
    """A cleaned value as a link carries it: text, or a sorted list of texts."""
    if value is None:
        return ""
    if isinstance(value, list | tuple | set | frozenset):
        return sorted(str(v.pk if hasattr(v, "pk") else v) for v in value)
    return str(value.pk if hasattr(value, "pk") else value)


class ModeForm:
    """What the panel needs of a mode's form, whatever Django forms it is made of.

    `forms` are the Django forms it draws and validates (one for most systems; a system with
    two sides, a patient or an initiative table may have several). `case()` gives the Case
    once valid, or raises RuleError (a RequestError names its field). `structural` names
    the fields whose change redraws the form (the choices of others depend on them); every
    other change redraws only the preview, so nothing a person types is ever replaced."""

    template = ""
    structural: tuple[str, ...] = ("character",)

    @property
    def forms(self) -> list[forms.Form]:
        raise NotImplementedError

    def is_valid(self) -> bool:
        return all([form.is_valid() for form in self.forms])  # noqa: C419 (each shows its errors)

    def case(self) -> Case:
        raise NotImplementedError

    def keep_only_asked(self) -> None:
        """For a player's request: leave out what the GM sets (a form whose GM fields are
        already left out for a player needs nothing here)."""

    def settle(self) -> None:
        """On the panel's redraw as choices change: untick what no longer applies to them (a
        source of an attribute no longer tested), noting each (`untick_choices`). A roll's
        POST never settles: it refuses such a choice next to its field."""

    def request_fields(self, names) -> dict:
        """What a request names of these forms (by field name as sent), from cleaned data."""
        wanted = set(names)
        fields = {}
        for form in self.forms:
            for name in form.fields:
                sent = form.add_prefix(name)
                if sent in wanted:
                    fields[sent] = field_value(form.cleaned_data.get(name))
        return fields

    def bound_field(self, sent_name: str):
        """The form and field name behind a field's name as sent ("a-sources")."""
        for form in self.forms:
            name = sent_name
            if form.prefix:
                if not sent_name.startswith(f"{form.prefix}-"):
                    continue
                name = sent_name.removeprefix(f"{form.prefix}-")
            if name in form.fields:
                return form, name
        return None, None

    def where(self, form, name: str) -> str:
        """A field's label as the preview's problems name it."""
        return str(form.fields[name].label) if name in form.fields else ""


class SheetCaseForm(forms.Form, ModeForm):
    """A system's mode form that is one Django form: the characters it may roll for, whether
    modifiers may be typed, and the chosen character read before validation, so the sheet's
    own choices can fill the form. Built for a player's request, it keeps only the fields the
    request names (`ask_fields`); the others take their initial value (a difficulty, a
    factor: the GM sets them when answering)."""

    def __init__(
        self,
        data=None,
        *,
        context: FormContext,
        ask_fields: tuple[str, ...] = (),
        prefix: str | None = None,
        **kwargs,
    ):
        super().__init__(data, prefix=prefix, **kwargs)
        self.context = context
        self.characters = {c.pk: c for c in context.characters}
        # The other side of a comparative test may be anyone playing (a stand-in included).
        self.all_characters = list(context.all_characters or context.characters)
        self.gm = context.gm
        self.session = context.session
        self.ask_fields = ask_fields
        self._case: Case | None = None
        self._left_to_gm: dict[str, Any] = {}

    @property
    def forms(self):
        return [self]

    def settle(self) -> None:
        if "sources" in self.fields:
            untick_choices(self, "sources", self.inapplicable_sources())

    def inapplicable_sources(self) -> dict[str, str]:
        """The sheet's sources ticked for an attribute this test does not use: key → why."""
        return {}

    def raw_cleaned(self, *names: str) -> dict[str, Any]:
        """These fields' values as they would clean, before validation; a field whose value
        would not clean is left out."""
        values = {}
        for name in names:
            if name not in self.fields:
                continue
            field = self.fields[name]
            raw = field.widget.value_from_datadict(self.data, self.files, self.add_prefix(name))
            if raw in (None, "", []):
                raw = field.initial
            try:
                values[name] = field.clean(raw)
            except forms.ValidationError:
                continue
        return values

    def keep_only_asked(self) -> None:
        if not self.context.for_request:
            return
        for name in list(self.fields):
            if name not in self.ask_fields:
                self._left_to_gm[name] = self.fields.pop(name).initial

    def _clean_fields(self):
        super()._clean_fields()
        for name, initial in self._left_to_gm.items():
            self.cleaned_data.setdefault(name, initial)

    def _raw(self, name: str):
        """A field's value as sent (or its initial value), before validation."""
        value = self.data.get(self.add_prefix(name)) if self.is_bound else self.initial.get(name)
        if value in (None, "") and name in self.fields:
            return self.fields[name].initial
        return value

    def selected_character(self):
        try:
            return self.characters.get(int(self._raw("character")))
        except (TypeError, ValueError):
            return next(iter(self.characters.values()), None)


UNTICKED = gettext_lazy("Unticked, as it no longer applies: %(reason)s")
UNTICKED_OTHER_SHEET = gettext_lazy(
    "Unticked: the abilities, flaws and items of the character chosen before."
)


def untick_choices(form, name: str, reasons: Mapping[str, str]) -> None:
    """Take out of a bound form's data the values of `name` that no longer apply (`reasons`:
    value → why) or that its choices no longer offer (another character's sources), so the
    field is drawn without them and the preview and the roll go without them; each is noted
    in `form.dropped`, shown by the field. Nothing else of the form changes."""
    if not form.is_bound:
        return
    sent = form.add_prefix(name)
    if not hasattr(form.data, "getlist"):  # a plain dict (a form built in code): a QueryDict
        data = QueryDict(mutable=True)
        for key, value in form.data.items():
            data.setlist(key, value if isinstance(value, list | tuple) else [value])
        form.data = data
    values = form.data.getlist(sent)
    offered = {str(key) for key, _label in form.fields[name].choices}
    gone = [value for value in values if value in reasons or value not in offered]
    if not gone:
        return
    data = form.data.copy()
    data.setlist(sent, [value for value in values if value not in gone])
    form.data = data
    notes = [UNTICKED % {"reason": reasons[value]} for value in gone if value in reasons]
    if any(value not in reasons for value in gone):
        notes.append(UNTICKED_OTHER_SHEET)
    form.dropped = [*getattr(form, "dropped", []), *notes]


# What the systems' forms and words share: how a character and a chance are named, and the
# refusals of a number a person types.
TYPED_MODIFIER_RANGE_MESSAGE = gettext_lazy(
    "A modifier you type lies between −%(limit)s and +%(limit)s."
)
TYPED_MODIFIER_REASON_MESSAGE = gettext_lazy(
    "A modifier you type needs a reason: the roll shows it to everyone."
)


def character_label(character) -> str:
    """A stand-in is named as the NPC it plays."""
    return f"{character.name} (NPC)" if character.is_stand_in else character.name


def percent_text(chance: Fraction) -> str:
    """The exact chance as a percent, rounded to two decimals, with the language's separator."""
    text = f"{round(float(chance * 100), 2):.2f}".rstrip("0").rstrip(".")
    return formats.number_format(Decimal(text), use_l10n=True)


def _typed_modifier_range_text(limit: int) -> str:
    return str(TYPED_MODIFIER_RANGE_MESSAGE) % {"limit": limit}


_typed_modifier_range_message = lazy(_typed_modifier_range_text, str)


def typed_modifier_field(label, limit: int, **kwargs) -> forms.IntegerField:
    """A modifier a person types (RULES 1.2): bounded by the system's limit, in the site's
    words (in the language of the request that shows it, as a form may be built at import);
    empty is 0 (the placeholder)."""
    range_error = _typed_modifier_range_message(limit)
    return DefaultedIntegerField(
        label=label,
        default=0,
        min_value=-limit,
        max_value=limit,
        error_messages={"min_value": range_error, "max_value": range_error},
        **kwargs,
    )
