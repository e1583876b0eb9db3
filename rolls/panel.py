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

from django.http import QueryDict
from django.urls import reverse
from django.utils.translation import gettext as _

from diary.selectors import own_posts_in_turn
from diary.services import current_turn
from rolls import initiative_selectors, registry, selectors
from rolls.access import RollAccess, access_roll_panel
from rolls.engine.errors import RuleError
from rolls.forms import PanelTokenForm
from rolls.messages import refusal_message
from rolls.models import AskStatus, RollAsk
from rolls.plugins import Case, FormContext, RollContext
from rolls.services import check_action_limit

# Inputs a person types into (a redraw never replaces them).
TYPED_INPUTS = frozenset({"text", "number", "textarea"})


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


class Panel:
    def __init__(
        self, session, user, mode: str, data=None, access: RollAccess | None = None
    ) -> None:
        self.session = session
        self.user = user
        self.system = registry.system_for(session.system)
        self.access = access or access_roll_panel(user, session)
        self.gm = self.access.is_gm
        # Users see only the modes they may roll (rolls.access decides which).
        self.modes = [m for m in self.system.modes if self.access.may_roll_mode(m.key)]
        keys = [m.key for m in self.modes]
        self.mode = mode if mode in keys else (keys[0] if keys else "")
        # The sheets, read once a request: the forms' choices, the preview and the roll
        # (rolls.services.roll_make takes them) all use these.
        self.sheets = selectors.sheets_in_play(session)
        self.all_characters = list(self.sheets.values())
        self.characters = [c for c in self.all_characters if self.access.may_roll_for(c)]
        self.turn = current_turn(session)
        self.bound = data is not None
        self._ask_id = self._asked_id(data)
        self.token_form = PanelTokenForm(
            data,
            user=user,
            session=session,
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
        self.form = self.system.form(
            self.mode,
            data,
            FormContext(
                characters=self.characters,
                all_characters=self.all_characters,
                gm=self.access.may_type_modifiers,
                session=session,
                may_target_npcs=self.access.may_target_npcs,
            ),
        )
        self._mark_structural_fields()
        self._case: Case | None = None
        self._action_rolls: dict[int, selectors.TurnActionState] = {}

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
        return selectors.turn_commitment(self.session)

    @cached_property
    def answering(self) -> RollAsk | None:
        """The open request of this session the panel answers, if it was opened for one."""
        if self._ask_id is None:
            return None
        return (
            RollAsk.objects.filter(pk=self._ask_id, session=self.session, status=AskStatus.OPEN)
            .select_related("post")
            .first()
        )

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
                    where = str(form.fields[name].label)
                problems += [f"{where} — {m}" if where else str(m) for m in errors]
        return problems

    def _problem_at(self, field_name: str | None, message: str) -> str:
        """A refusal placed like a form error ("b-sources", "patient")."""
        if field_name and field_name in self.token_form.fields:
            return f"{self.token_form.fields[field_name].label} — {message}"
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
        except RuleError as error:
            return PanelPreview(problems=[self._problem_at(*refusal_message(self.system, error))])
        return PanelPreview(
            shown=shown, template=self.system.preview_template, action_warning=warning
        )

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
