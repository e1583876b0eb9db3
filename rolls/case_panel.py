"""The roll panel of a case system (issue 10: q10, ciernie, arsmagica).

A session whose system registered a `rolls.cases.SystemPanel` gets this panel: a tab per
mode this user may roll (rolls.access), the mode's form from the system's module, the
one-time token form, the preview (`SystemPanel.preview`, the exact chance as a percent)
and the roll through `rolls.services.roll_make_case`. rolls.views serves it with the same
guarantees as forum1000's panel (rolls.panel): htmx redraws and a plain-form fallback,
Enter never rolls, a no-JS preview by POST + 303, signed links that prefill only what is
tested, a foreign token refused.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from django import forms
from django.http import QueryDict
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from diary.models import GameSession, Post
from diary.services import current_turn
from rolls import selectors
from rolls.access import RollAccess, access_roll_panel
from rolls.cases import Case, CasePreview, SystemPanel, panel_for
from rolls.engine.errors import RuleError
from rolls.forms import SignedTokenForm, secret_field
from rolls.panel import AnswersRequests, percent_text
from rolls.selectors import playing_characters

# The panel's own fields; a mode form's fields never take these names (rolls.cases).
OWN_FIELDS = frozenset({"token", "mode", "post", "ask", "preview", "sig"})

# The engine's refusals (rolls.engine.errors codes) as the panel words them, by field.
RULE_MESSAGES = {
    "negative_raises": ("raises", gettext_lazy("The number of raises cannot be negative.")),
    "negative_difficulty": ("difficulty", gettext_lazy("The difficulty cannot be negative.")),
    "negative_pool": (None, gettext_lazy("A pool cannot start below zero dice.")),
}
RULE_REFUSED = gettext_lazy("The rules do not allow this roll (%(reason)s).")


def case_error_message(error: RuleError) -> tuple[str | None, str]:
    """(field or None, message) for a refusal of a case: the form's own words when its
    `case()` gave them (params `field`, `text`), else the engine code's."""
    params = error.params
    if params.get("text"):
        return params.get("field"), str(params["text"])
    if error.code in RULE_MESSAGES:
        name, message = RULE_MESSAGES[error.code]
        return params.get("field") if name is None else name, str(message)
    return params.get("field"), str(RULE_REFUSED % {"reason": str(error)})


def _field_value(value):
    """A cleaned value as a link carries it: text, or a sorted list of texts."""
    if value is None:
        return ""
    if isinstance(value, list | tuple | set | frozenset):
        return sorted(str(v.pk if hasattr(v, "pk") else v) for v in value)
    return str(value.pk if hasattr(value, "pk") else value)


def request_fields(form, names) -> dict:
    """What a request names of this form (`SystemPanel.ask_fields`), from its cleaned data."""
    return {
        name: _field_value(form.cleaned_data.get(name)) for name in names if name in form.fields
    }


def with_request_fields(case: Case, form, system_panel: SystemPanel) -> Case:
    return dataclasses.replace(case, request_fields=request_fields(form, system_panel.ask_fields))


class CaseTokenForm(SignedTokenForm):
    """The one-time token, the mode, the target post and the request answered."""

    mode = forms.ChoiceField(label=gettext_lazy("Roll"))
    post = forms.TypedChoiceField(
        label=gettext_lazy("Into the post"), coerce=int, required=False, empty_value=None
    )
    ask = forms.IntegerField(widget=forms.HiddenInput, required=False, min_value=1)

    def __init__(self, *args, modes=(), posts=(), may_roll_secret=False, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["mode"].choices = list(modes)
        if may_roll_secret:
            self.fields["secret"] = secret_field()
        self.fields["post"].choices = [("", _("my latest post of this turn (or a new one)"))] + [
            (p.pk, _("post #%(id)s") % {"id": p.pk}) for p in posts
        ]


@dataclass
class CasePanelPreview:
    """The preview as the template shows it."""

    chance: str = ""  # percent, e.g. "37,5"; "" when no roll is made
    terms: list[str] = field(default_factory=list)
    note: str = ""
    action_warning: str = ""
    problems: list[str] = field(default_factory=list)


class CasePanel(AnswersRequests):
    """One user's panel in one session of a case system (see the module's docstring)."""

    is_case = True

    def __init__(
        self, session: GameSession, user, mode: str, data=None, access: RollAccess | None = None
    ):
        self.session = session
        self.user = user
        self.system_panel = panel_for(session.system)
        self.access = access or access_roll_panel(user, session)
        self.gm = self.access.is_gm
        self.mode_choices = [
            (key, label) for key, label in self.system_panel.modes if self.access.may_roll_mode(key)
        ]
        self.modes = [key for key, _label in self.mode_choices]
        self.mode = mode if mode in self.modes else (self.modes[0] if self.modes else "")
        # The sheets, read once a request (the forms, the preview and the roll use them).
        self.sheets = playing_characters(session)
        self.all_characters = list(self.sheets.values())
        self.characters = [c for c in self.all_characters if self.access.may_roll_for(c)]
        self.turn = current_turn(session)
        self.posts = (
            list(
                Post.objects.filter(
                    session=session, author=user, turn=self.turn, hidden_at__isnull=True
                ).order_by("-id")
            )
            if self.turn
            else []
        )
        self.bound = data is not None
        self.token_form = CaseTokenForm(
            data,
            user=user,
            session=session,
            modes=self.mode_choices,
            posts=self.posts,
            initial={"mode": self.mode},
            may_roll_secret=self.access.may_roll_secret,
        )
        self.form = self.system_panel.form(
            self.mode,
            data,
            characters=self.characters,
            all_characters=self.all_characters,
            gm=self.access.may_type_modifiers,
            session=session,
        )
        self._case: Case | None = None

    # -- what the template needs -------------------------------------------

    @property
    def form_template(self) -> str:
        return getattr(self.form, "panel_template", "") or ""

    @property
    def tabs(self):
        return self.mode_choices

    fight = None  # the seeds 001–003 define no initiative (docs/decisions.md, issue 10)

    @property
    def forms(self):
        return [self.token_form, self.form]

    @property
    def secret(self) -> bool:
        """Issue 13: the GM ticked "Rzut tajny" (the box is only in the GM's form)."""
        return bool(self.token_form.cleaned_data.get("secret"))

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
        """The fields a link may prefill: the mode, the post, the request, and what the
        system's requests name — never a modifier or a reason."""
        return {"mode", "post", "ask"} | set(self.system_panel.ask_fields)

    # -- validation and the case -------------------------------------------

    def is_valid(self) -> bool:
        valid = all([f.is_valid() for f in self.forms])  # noqa: C419
        return valid

    def case(self) -> Case:
        """The valid forms' case (RuleError for what the rules refuse)."""
        if self._case is None:
            case = self.form.case()
            self._case = with_request_fields(case, self.form, self.system_panel)
        return self._case

    def add_error(self, field_name: str | None, message: str) -> None:
        for form in (self.form, self.token_form):
            if field_name and field_name in form.fields:
                form.add_error(field_name, message)
                return
        self.token_form.add_error(None, message)

    def add_rule_error(self, error: RuleError) -> None:
        self.add_error(*case_error_message(error))

    def problems(self) -> list[str]:
        problems = []
        for form in self.forms:
            for name, errors in form.errors.items():
                label = str(form.fields[name].label) if name in form.fields else ""
                problems += [f"{label} — {m}" if label else str(m) for m in errors]
        return problems

    def preview(self) -> CasePanelPreview | None:
        if not self.bound:
            return None
        if not self.is_valid():
            return CasePanelPreview(problems=self.problems())
        try:
            case = self.case()
            shown: CasePreview = self.system_panel.preview(case)
        except RuleError as error:
            name, message = case_error_message(error)
            label = str(self.form.fields[name].label) if name and name in self.form.fields else ""
            return CasePanelPreview(problems=[f"{label} — {message}" if label else message])
        return CasePanelPreview(
            chance=percent_text(shown.chance) if shown.chance is not None else "",
            terms=list(shown.terms),
            note=shown.note,
            action_warning=self._action_warning(case),
        )

    def _action_warning(self, case: Case) -> str:
        """Issue 10: a character's further action roll in a turn is counted and shown."""
        if not case.is_action or case.character_id is None or self.turn is None:
            return ""
        earlier = selectors.action_rolls_in_turn(self.session, case.character_id, self.turn.number)
        if not earlier:
            return ""
        names = {c.pk: c.name for c in self.all_characters}
        return _(
            "%(name)s already has %(count)s action roll(s) in this turn (first #%(seq)s); "
            "this one is counted and shown."
        ) % {
            "name": names.get(case.character_id, ""),
            "count": earlier.count,
            "seq": earlier.first_seq,
        }
