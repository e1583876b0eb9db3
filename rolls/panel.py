"""The roll panel, the same for every system: one user's tabs and modes, the mode's form from
the session's system (rolls.registry), the one-time token form, and the preview — the exact
chance and how the numbers were reached, before anything is rolled.

rolls.views serves it: htmx redraws the preview as fields change and the form only when a
choice other fields depend on changes (a character, a test), so what someone types is never
replaced; a plain-form fallback; Enter never rolls; a no-JS preview by POST + 303; signed
links that prefill only what is tested; a foreign token refused. The roll itself is
rolls.services.roll_make.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.http import QueryDict
from django.urls import reverse
from django.utils.translation import gettext as _

from diary.selectors import own_posts_in_turn
from diary.services import current_turn
from rolls import registry, selectors
from rolls.access import LINK_SIGNATURE, RollAccess, access_roll_panel
from rolls.engine.errors import RuleError
from rolls.forms import PanelTokenForm
from rolls.initiative import selectors as initiative_selectors
from rolls.ledger.fair_dice import NOT_READ
from rolls.ledger.selectors import turn_commitment
from rolls.messages import refusal_message
from rolls.models import RollAsk
from rolls.plugins import PANEL_FIELDS, Case, FormContext, RollContext
from rolls.roll_plan import RollPlan
from rolls.services import (
    answer_differences,
    answer_record,
    check_action_limit,
    checked_digest,
    planned_post,
)

# Inputs a person types into (a redraw never replaces them).
TYPED_INPUTS = frozenset({"text", "number", "textarea"})

# Widgets a browser sends nothing of when nothing is ticked or chosen.
SENDS_NOTHING_UNTICKED = (forms.CheckboxInput, forms.CheckboxSelectMultiple, forms.SelectMultiple)

# What a redraw asks of the panel besides its fields (the "do not answer" button): to stop
# answering the request. An action, never a field.
LEAVE_ASK = "leave_ask"
# Sent with the panel's fields but never a field's value: not kept for a later mode.
NEVER_KEPT = PANEL_FIELDS | {
    "csrfmiddlewaretoken",
    "client_seed",
    "plan",
    LINK_SIGNATURE,
    LEAVE_ASK,
}


def preserve_typed_fields(forms, *, skip=frozenset()) -> None:
    """Each text field of these forms stays the very element someone may be typing into
    across an htmx redraw (hx-preserve: htmx puts the old element back in place of the new),
    so no keystroke is ever replaced; `skip`: the (prefix, name) of fields whose own change
    redraws the form. The panel and the request page alike."""
    for form in forms:
        for name, typed in form.fields.items():
            kind = getattr(typed.widget, "input_type", "textarea")
            if kind in TYPED_INPUTS and (form.prefix, name) not in skip:
                typed.widget.attrs["hx-preserve"] = "true"


@dataclass
class PanelPreview:
    """The preview as the panel shows it: the system's own (`shown`, drawn by `template`),
    what the turn's action limit says, or why there is nothing to show yet."""

    shown: Any = None
    template: str = ""
    action_warning: str = ""
    problems: list[str] = field(default_factory=list)
    # The roll the Roll button makes, in words and as the digest the form carries.
    plan: RollPlan | None = None
    # An answer other than its request: what differs, in words.
    differs: list[str] = field(default_factory=list)


class Panel:
    def __init__(
        self,
        session,
        user,
        mode: str,
        data=None,
        access: RollAccess | None = None,
        *,
        redraw: bool = False,
    ) -> None:
        """`redraw`: the panel drawn again as its fields change (a GET): the mode's fields not
        sent take their starting values (a tab's new mode), the request is left when the GM
        said so, and a choice that no longer applies (a source of an attribute no longer
        tested) is dropped; a roll's POST refuses such a choice instead. `fields`: the
        panel's fields after that."""
        self.session = session
        self.user = user
        self.system = registry.system_for(session.system)
        self.access = access or access_roll_panel(user, session)
        self.gm = self.access.is_gm
        # Users see only the modes they may roll (rolls.access decides which).
        self.modes = [m for m in self.system.modes if self.access.may_roll_mode(m.key)]
        keys = [m.key for m in self.modes]
        if redraw and data is not None and data.get(LEAVE_ASK):
            data = self._redrawn(data)
        self.mode = mode if mode in keys else (keys[0] if keys else "")
        self._read_sheets()
        self.fields = data
        self.bound = data is not None
        self._ask_id = self._asked_id(data)
        self.token_form = self._token_form(data)
        self.form = self.system.form(self.mode, data, self.context)
        if redraw and self.bound:
            self._take_starting_values()
            self.form.settle()
        self._mark_structural_fields()
        self._case: Case | None = None
        self._action_rolls: dict[int, selectors.TurnActionState] = {}

    def _read_sheets(self) -> None:
        """The sheets, read once a request: the forms' choices, the preview and the roll
        (rolls.services.roll_make takes them) all use these; and the current turn."""
        self.sheets = selectors.sheets_in_play(self.session)
        self.all_characters = list(self.sheets.values())
        self.characters = [c for c in self.all_characters if self.access.may_roll_for(c)]
        self.turn = current_turn(self.session)
        self.context = FormContext(
            characters=self.characters,
            all_characters=self.all_characters,
            gm=self.access.may_type_modifiers,
            session=self.session,
            may_target_npcs=self.access.may_target_npcs,
        )

    def _token_form(self, data) -> PanelTokenForm:
        """The fields every mode carries (the one-time token, the mode, the post, the request
        answered), and the GM's boxes this user may set."""
        return PanelTokenForm(
            data,
            user=self.user,
            session=self.session,
            modes=self.modes,
            # Read when the field is drawn or a post was chosen: a preview of the
            # #preview part that names no post never reads them.
            posts=lambda: self.posts,
            initial={"mode": self.mode},
            may_allow_extra_action=(
                self.access.may_allow_extra_action and self.system.refuses_extra_action_rolls
            ),
            may_roll_secret=self.access.may_roll_secret,
            answering=self._ask_id is not None,
            resolves=self.gm,
        )

    # -- a redraw's own action ------------------------------------------------

    @staticmethod
    def _redrawn(data: QueryDict) -> QueryDict:
        """The fields once the GM left the request: none answered, nor the reason for
        differing from it."""
        fields = data.copy()
        fields.pop(LEAVE_ASK, None)
        fields.pop("ask", None)
        fields.pop("answer_note", None)
        return fields

    def _take_starting_values(self) -> None:
        """The mode's fields that were not sent take their starting values (a skill, a
        difficulty), as a fresh panel of the mode would: after a tab, the new mode's fields
        the old one lacked (a field drawn is always sent). Every field sent keeps its value,
        and a box is never ticked for the person: unticked, a box sends nothing. The forms
        read their data as they validate and draw, so it is completed in place."""
        missing = []
        for form in self.form.forms:
            for bound in form:
                value, name = bound.initial, bound.html_name
                if name in self.fields or value in (None, "", [], ()):
                    continue
                if isinstance(bound.field.widget, SENDS_NOTHING_UNTICKED):
                    continue
                missing.append((name, value))
        if not missing:
            return
        fields = self.fields.copy()
        for name, value in missing:
            values = value if isinstance(value, list | tuple) else [value]
            fields.setlist(name, [str(v) for v in values])
        self.fields = self.token_form.data = fields
        for form in self.form.forms:
            form.data = fields

    # -- what the template needs -------------------------------------------

    @cached_property
    def posts(self) -> list:
        """The user's visible posts of this turn, where the roll may land (newest first)."""
        return own_posts_in_turn(self.session, self.user, self.turn)

    @property
    def url(self) -> str:
        return reverse("rolls:panel", args=[self.session.pk])

    @property
    def tabs(self):
        """(key, label, this user's modes of it) of each tab with any."""
        return self.system.tabs(self.modes)

    @property
    def tab(self) -> str:
        mode = self.system.mode(self.mode)
        return mode.tab_key if mode else ""

    @property
    def form_template(self) -> str:
        return self.form.template or self.system.form_template

    @property
    def forms(self) -> list:
        return [self.token_form, *self.form.forms]

    @property
    def secret(self) -> bool:
        """The GM ticked "Rzut tajny" (the box is only in the GM's form)."""
        return bool(self.token_form.cleaned_data.get("secret"))

    @property
    def extra_action_reason(self) -> str:
        return self.token_form.cleaned_data.get("extra_action_reason", "")

    @property
    def answer_note(self) -> str:
        return self.token_form.cleaned_data.get("answer_note", "")

    @property
    def open_asks(self) -> list:
        """The GM's view of the session's requests still waiting (answer one from here)."""
        if not self.gm:
            return []
        return [
            selectors.ask_view(ask, is_gm=True, user_id=self.user.pk)
            for ask in selectors.open_roll_asks(self.session)
        ]

    @property
    def fight(self):
        """The running initiative event beside the panel, or None."""
        event = initiative_selectors.running_event(
            self.session, turn_number=self.turn.number if self.turn else None
        )
        if event is None:
            return None
        return initiative_selectors.fight_view(
            event,
            self.turn.number if self.turn else event.opened_turn,
            sees_hidden=self.gm,
        )

    def _asked_id(self, data) -> int | None:
        """The request the GM's panel was opened to answer (its id, as sent)."""
        raw = data.get("ask") if data is not None else None
        if not raw or not str(raw).isdigit() or not self.gm:
            return None
        return int(raw)

    @cached_property
    def dice_commitment(self):
        """The turn's committed dice seed the roll will draw from (read only where the whole
        panel is drawn, never for a preview)."""
        return turn_commitment(self.session)

    @cached_property
    def answering(self) -> RollAsk | None:
        """The request of this session the panel was opened to answer, open or not: a request
        closed meanwhile stays shown (and refuses the roll) until the GM leaves it."""
        if self._ask_id is None:
            return None
        return (
            RollAsk.objects.filter(pk=self._ask_id, session=self.session)
            .select_related("post")
            .first()
        )

    @property
    def ask_unknown(self) -> bool:
        """The panel was sent a request that is none of this session's (a link of another
        session's, an address edited): it answers nothing, and says so until the GM leaves it."""
        return self._ask_id is not None and self.answering is None

    @property
    def kept_fields(self) -> list[tuple[str, str]]:
        """The fields sent that this mode's forms do not have (another mode's typed reason,
        the other side of an opposed roll), kept in the form so that going back to their
        mode brings them back as they were."""
        if not self.bound:
            return []
        taken = {form.add_prefix(name) for form in self.form.forms for name in form.fields}
        return [
            (name, value)
            for name, values in self.token_form.data.lists()
            if name not in taken and name not in NEVER_KEPT
            for value in values
        ]

    @property
    def dropped(self) -> list[str]:
        """The choices this redraw unticked because they no longer apply, each with why."""
        return [note for form in self.form.forms for note in getattr(form, "dropped", ())]

    def _mark_structural_fields(self) -> None:
        """A field others depend on redraws the whole panel when it changes (htmx); every
        other field redraws only the preview (the form's own trigger). A redraw keeps each
        text field the very element someone may be typing into (hx-preserve: htmx puts the
        old one back in place of the new), so no keystroke is ever replaced."""
        structural = set()
        for sent in self.form.structural:
            form, name = self.form.bound_field(sent)
            if form is None:
                continue
            structural.add((form.prefix, name))
            form.fields[name].widget.attrs.update(
                {
                    "hx-get": self.url,
                    "hx-trigger": "change consume",
                    "hx-target": "#panel",
                    "hx-select": "#panel",
                    "hx-swap": "outerHTML",
                    "hx-include": "closest form",
                    # Its redraw holds the preview too: it replaces a preview on its way,
                    # and a preview asked for meanwhile waits for it (the form's queue).
                    "hx-sync": "closest form:replace",
                    "data-structural": "",
                }
            )
        preserve_typed_fields(self.forms, skip=structural)

    def initial_query(self) -> QueryDict:
        """Every field's starting value, as the query string of a complete panel."""
        query = QueryDict(mutable=True)
        for form in self.forms:
            for bound in form:
                value = bound.initial
                if value in (None, "") or bound.name == "token":
                    continue
                values = value if isinstance(value, list | tuple) else [value]
                query.setlist(bound.html_name, [str(v) for v in values])
        return query

    @property
    def link_fields(self) -> set[str]:
        """The fields a link may prefill: the mode, the post, the request, and what is tested
        — never a modifier, a reason or a token."""
        return {"mode", "post", "ask"} | set(self.system.ask_fields) | set(self.system.link_fields)

    # -- validation and the case -------------------------------------------

    def is_valid(self) -> bool:
        token_valid = self.token_form.is_valid()
        return self.form.is_valid() and token_valid

    def case(self) -> Case:
        """The valid forms' case (RuleError for what the rules refuse)."""
        if self._case is None:
            self._case = self.form.case()
        return self._case

    def add_error(self, field_name: str | None, message: str) -> None:
        """Put a refusal next to its field ("a-sources" goes to side a's "sources")."""
        if field_name:
            if field_name in self.token_form.fields:
                self.token_form.add_error(field_name, message)
                return
            form, name = self.form.bound_field(field_name)
            if form is not None:
                form.add_error(name, message)
                return
        self.token_form.add_error(None, message)

    def add_rule_error(self, error: RuleError) -> None:
        self.add_error(*refusal_message(self.system, error))

    def problems(self) -> list[str]:
        """Every form error as "where — message", so the preview says why it cannot roll yet."""
        problems = []
        for form in self.forms:
            for name, errors in form.errors.items():
                where = self.form.where(form, name) if form is not self.token_form else ""
                if form is self.token_form and name in form.fields:
                    where = str(form.fields[name].label or "")  # none on a hidden field
                problems += [f"{where} — {m}" if where else str(m) for m in errors]
        return problems

    def _problem_at(self, field_name: str | None, message: str) -> str:
        """A refusal placed like a form error ("b-sources", "patient")."""
        if field_name and field_name in self.token_form.fields:
            label = self.token_form.fields[field_name].label  # none on a hidden field
            return f"{label} — {message}" if label else str(message)
        form, name = self.form.bound_field(field_name or "")
        where = self.form.where(form, name) if form is not None else ""
        return f"{where} — {message}" if where else str(message)

    # -- the preview ----------------------------------------------------------

    def preview(self) -> PanelPreview | None:
        if not self.bound:
            return None
        if not self.is_valid():
            return PanelPreview(problems=self.problems())
        try:
            case = self.case()
            context = RollContext(self.session, self.user, case, self.sheets, self.turn)
            for effect in case.effects:
                effect.check(context)
            warning = self._action_warning(case)
            shown = self.system.preview(case)
            plan = self.plan(case, context)
        except RuleError as error:
            return PanelPreview(problems=[self._problem_at(*refusal_message(self.system, error))])
        except ValidationError as error:
            return PanelPreview(problems=self._validation_problems(error))
        differs = self.answer_differences(case) if self.answering else []
        return PanelPreview(
            shown=shown,
            template=self.system.preview_template,
            action_warning=warning,
            plan=plan,
            differs=differs,
        )

    def plan(self, case: Case, context: RollContext) -> RollPlan | None:
        """The roll the button makes, worked out as rolls.services.roll_make will (which
        refuses any other): ValidationError for what it would refuse (a closed request, an
        answer that differs with no reason, a post that is not the roller's)."""
        if self.turn is None:
            return None
        ask = self.answering
        if self._ask_id is not None and (ask is None or not ask.is_open):
            raise ValidationError({"ask": _("This request is no longer open.")})
        # What a secret roll may not be (it changes what everyone sees, it answers a player).
        checked_digest(self.user, self.session, case, self.secret, ask)
        answer = answer_record(ask, case, self.answer_note) if ask is not None else {}
        chosen = self.token_form.cleaned_data.get("post")
        post = next((p for p in self.posts if p.pk == chosen), None) if chosen else None
        if chosen and post is None:
            raise ValidationError(
                {"post": _("Rolls land only in your own post of the current turn.")}
            )
        target = planned_post(
            self.session, self.user, self.turn, post, context=context, ask=ask, newest=self._newest
        )
        return RollPlan.of(
            self.user,
            case,
            self.turn,
            target,
            ask,
            differs="rolled" in answer,
            secret=self.secret,
            extra_action=self._extra_action_allowed(case),
        )

    @cached_property
    def _newest(self):
        """The diary's newest visible post, when the session was read with it (rolls.views);
        else NOT_READ, and planned_post reads it itself."""
        if not hasattr(self.session, selectors.NEWEST_POST_ANNOTATION):
            return NOT_READ
        values = getattr(self.session, selectors.NEWEST_POST_ANNOTATION)
        return selectors.newest_post_of(values, self.session)

    def answer_differences(self, case: Case) -> list[str]:
        """What of the request this roll does not roll as asked, in words."""
        return answer_differences(self.answering, case)

    def _validation_problems(self, error: ValidationError) -> list[str]:
        fields = getattr(error, "error_dict", None)
        if fields is None:
            return [str(m) for m in error.messages]
        return [
            self._problem_at(name if name != "__all__" else None, str(message))
            for name, errors in fields.items()
            for message in ValidationError(errors).messages
        ]

    def _extra_action_allowed(self, case: Case) -> bool:
        """Whether the roll is a further action the GM allows (the record's extra_action):
        as roll_make decides, never for a secret roll or a system that only counts them."""
        acting = case.character_id
        if self.secret or not case.is_action or acting is None or self.turn is None:
            return False
        if not self.system.refuses_extra_action_rolls:
            return False
        name = self.sheets[acting].name if acting in self.sheets else ""
        allowed = check_action_limit(
            self.session,
            case,
            self.turn,
            name,
            self.extra_action_reason,
            counted=self.action_rolls(acting),
        )
        return bool(allowed)

    def action_rolls(self, character_id: int) -> selectors.TurnActionState:
        """The character's actions this turn, a running fight and its moves (one query)."""
        if character_id not in self._action_rolls:
            self._action_rolls[character_id] = selectors.turn_action_state(
                self.session, character_id, self.turn
            )
        return self._action_rolls[character_id]

    def _action_warning(self, case: Case) -> str:
        """A character's further action roll in the turn: refused here as the roll would be
        (a system that refuses it, outside combat, unless the GM gives a reason), or
        counted and shown."""
        acting = case.character_id
        if not case.is_action or acting is None or self.turn is None:
            return ""
        earlier = self.action_rolls(acting)
        name = self.sheets[acting].name if acting in self.sheets else ""
        if self.system.refuses_extra_action_rolls:
            allowed = check_action_limit(
                self.session, case, self.turn, name, self.extra_action_reason, counted=earlier
            )
            # In combat nothing is limited, and the GM's permission answers the warning.
            if not earlier or allowed or earlier.in_combat:
                return ""
            return _(
                "%(name)s already has an action roll in this turn (#%(seq)s): one action per "
                "turn may have a roll."
            ) % {"name": name, "seq": earlier.first_seq}
        if not earlier:
            return ""
        return _(
            "%(name)s already has %(count)s action roll(s) in this turn (first #%(seq)s); "
            "this one is counted and shown."
        ) % {"name": name, "count": earlier.count, "seq": earlier.first_seq}
