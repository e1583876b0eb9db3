"""The roll panel: the forms of one mode bundled, their request, and the preview.

Modes by tab: "Cechy" → attribute, combined, opposed; "Umiejętności" → skill,
healing; "Inicjatywa" → initiative.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from django.http import QueryDict
from django.utils import formats
from django.utils.translation import gettext_lazy as _

from characters.numbers import with_minus
from diary.models import GameSession, Post
from diary.services import current_turn
from rolls import selectors
from rolls.access import RollAccess, access_roll_panel
from rolls.engine import forum1000 as f1000
from rolls.engine.errors import RuleError
from rolls.forms import (
    SKILL_LIKE,
    HealingForm,
    InitiativeForm,
    SideForm,
    TokenForm,
    request_from_forms,
)
from rolls.initiative_services import check_no_running_event
from rolls.messages import request_error_message, rule_error_message
from rolls.presenters import threshold_terms
from rolls.requests import RequestError, RollRequest
from rolls.selectors import playing_characters
from rolls.services import check_action_limit, prepare

TABS = [
    ("attributes", _("Attributes"), ("attribute", "combined", "opposed")),
    ("skills", _("Skills"), ("skill", "healing")),
    ("initiative", _("Initiative"), ("initiative",)),
]
MODES = {mode: tab for tab, _label, modes in TABS for mode in modes}
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


@dataclass
class SidePreview:
    name: str
    threshold: int
    exact: str  # as shown: U+2212 for a minus
    threshold_text: str  # the threshold as shown
    chance: str  # percent, e.g. "37,5"
    terms: list = field(default_factory=list)
    action_warning: str = ""


@dataclass
class Preview:
    sides: list[SidePreview] = field(default_factory=list)
    odds: dict[str, str] | None = None  # opposed: a / draw / b / none, as percents
    # Why there is no chance to show yet: every refusal, each with the field it concerns.
    problems: list[str] = field(default_factory=list)


def percent_text(chance: Fraction) -> str:
    """The exact chance as a percent, rounded to two decimals, with the language's separator."""
    text = f"{round(float(chance * 100), 2):.2f}".rstrip("0").rstrip(".")
    return formats.number_format(Decimal(text), use_l10n=True)


class AnswersRequests:
    """The GM's side of the players' requests on a panel (forum1000's and the case systems'):
    the request it was opened to answer, and the session's open ones."""

    @property
    def answering(self):
        """The open request of this session the panel answers, if it was opened for one."""
        from rolls.models import AskStatus, RollAsk

        raw = self.token_form.data.get("ask") if self.bound else None
        if not raw or not str(raw).isdigit() or not self.gm:
            return None
        return (
            RollAsk.objects.filter(pk=int(raw), session=self.session, status=AskStatus.OPEN)
            .select_related("post")
            .first()
        )

    @property
    def open_asks(self) -> list:
        """The GM's view of the session's requests still waiting (answer one from here)."""
        if not self.gm:
            return []
        return [
            selectors.ask_view(ask, is_gm=True, user_id=self.user.pk)
            for ask in selectors.open_roll_asks(self.session)
        ]


class Panel(AnswersRequests):
    def __init__(
        self, session: GameSession, user, mode: str, data=None, access: RollAccess | None = None
    ):
        self.session = session
        self.user = user
        self.access = access or access_roll_panel(user, session)
        self.gm = self.access.is_gm
        # Users see only the modes they may roll (rolls.access decides which).
        self.modes = [m for m in MODES if self.access.may_roll_mode(m)]
        self.mode = mode if mode in self.modes else "attribute"
        self.tab = MODES[self.mode]
        # The sheets, read once a request: the forms' choices, the preview and the roll
        # (rolls.services.roll_make takes them) all use these.
        self.sheets = playing_characters(session)
        self.all_characters = list(self.sheets.values())
        self.characters = [c for c in self.all_characters if self.access.may_roll_for(c)]
        self.turn = current_turn(session)
        self._action_rolls: dict[int, selectors.TurnActionRolls] = {}
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
        self.token_form = TokenForm(
            data,
            user=user,
            session=session,
            posts=self.posts,
            initial={"mode": self.mode},
            may_allow_extra_action=self.access.may_allow_extra_action,
            may_roll_secret=self.access.may_roll_secret,
        )
        self.side_a = self.side_b = self.healing = self.initiative = None
        if self.mode == "initiative":
            self.initiative = InitiativeForm(data, characters=self.all_characters)
        else:
            tests = SIDE_TESTS_BY_MODE[self.mode]
            npc_modifiers = (
                selectors.npc_modifiers(session)
                if self.mode in NPC_TARGET_MODES and self.access.may_target_npcs
                else None
            )
            self.side_a = SideForm(
                data,
                prefix="a",
                characters=self.characters,
                gm=self.access.may_type_modifiers,
                tests=tests,
                healing_skills={"healing": True, "skill": False}.get(self.mode),
                npc_modifiers=npc_modifiers,
            )
            if self.mode == "opposed":
                self.side_b = SideForm(
                    data,
                    prefix="b",
                    characters=self.all_characters,
                    gm=self.access.may_type_modifiers,
                    tests=tests,
                    default_character=1,
                )
            if self.mode == "healing":
                self.healing = HealingForm(data, characters=self.all_characters)

    # The initiative tab's column: the attribute the engine rolls initiative on.
    speed_attribute = f1000.SPEED_ATTRIBUTE

    @property
    def tabs(self):
        """(key, label, the tab's modes this user may roll) for the tabs that have any."""
        tabs = [(key, label, [m for m in modes if m in self.modes]) for key, label, modes in TABS]
        return [(key, label, modes) for key, label, modes in tabs if modes]

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
    def forms(self):
        return [
            f
            for f in (self.token_form, self.side_a, self.side_b, self.healing, self.initiative)
            if f is not None
        ]

    def is_valid(self) -> bool:
        # A list, not a generator: every form must be validated so each shows its errors.
        valid = all([f.is_valid() for f in self.forms])  # noqa: C419
        return valid and self._defence_follows_initiator()

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

    def request(self) -> RollRequest:
        return request_from_forms(
            self.mode, self.side_a, self.side_b, self.healing, self.initiative
        )

    @property
    def event_name(self) -> str:
        """The initiative event's name (issue 9), once the forms are valid."""
        return self.initiative.cleaned_data.get("event_name", "") if self.initiative else ""

    @property
    def fight(self):
        """The running initiative event beside the panel (issue 9), or None."""
        from rolls import initiative_selectors

        event = initiative_selectors.running_event(self.session)
        if event is None:
            return None
        return initiative_selectors.fight_view(
            event, self.turn.number if self.turn else event.opened_turn
        )

    @property
    def secret(self) -> bool:
        """Issue 13: the GM ticked "Rzut tajny" (the box is only in the GM's form)."""
        return bool(self.token_form.cleaned_data.get("secret"))

    @property
    def extra_action_reason(self) -> str:
        """The GM's reason to allow a second action roll (RULES 1.5), once the forms are valid."""
        return self.token_form.cleaned_data.get("extra_action_reason", "")

    def add_error(self, field_name: str | None, message: str) -> None:
        """Put a refusal next to its field: "a-sources" goes to side a's "sources"."""
        for form in self.forms:
            if field_name is None:
                continue
            name = field_name
            if form.prefix and field_name.startswith(f"{form.prefix}-"):
                name = field_name.removeprefix(f"{form.prefix}-")
            elif form.prefix:
                continue
            if name in form.fields:
                form.add_error(name, message)
                return
        self.token_form.add_error(None, message)

    def add_rule_error(self, error: RuleError | RequestError) -> None:
        if isinstance(error, RequestError):
            self.add_error(*request_error_message(error))
        else:
            self.add_error(*rule_error_message(error))

    # -- the preview: threshold, breakdown, exact chance ------------------

    def preview(self) -> Preview | None:
        if not self.bound:
            return None
        if not self.is_valid():
            return Preview(problems=self.problems())
        try:
            request = self.request()
            check_no_running_event(self.session, request)
            test = prepare(self.session, request, self.sheets)
            names = {c.pk: c.name for c in self.all_characters}
            acting = request.acting_character_id
            check_action_limit(
                self.session,
                request,
                self.turn,
                names.get(acting, ""),
                self.extra_action_reason,
                counted=self.action_rolls(acting) if acting and self.turn else None,
            )
        except (RuleError, RequestError) as error:
            field_name, message = (
                request_error_message(error)
                if isinstance(error, RequestError)
                else rule_error_message(error)
            )
            return Preview(problems=[self._problem_at(field_name, message)])
        return self._preview_of(request, test)

    def problems(self) -> list[str]:
        """Every form error as "where — message", so the preview says why it cannot roll yet."""
        problems = []
        for form in self.forms:
            for name, errors in form.errors.items():
                where = self._where(form, name)
                problems += [f"{where} — {m}" if where else str(m) for m in errors]
        return problems

    def _where(self, form, name: str) -> str:
        """The field's label; in an opposed roll, with the side it is on."""
        if name not in form.fields:
            return ""
        label = str(form.fields[name].label)
        if self.side_b is not None and form.prefix in SIDE_TITLES:
            return f"{SIDE_TITLES[form.prefix]}: {label}"
        return label

    def _problem_at(self, field_name: str | None, message: str) -> str:
        """An engine or request refusal, placed like a form error ("b-sources", "patient")."""
        for form in self.forms:
            name = field_name or ""
            if form.prefix:
                if not name.startswith(f"{form.prefix}-"):
                    continue
                name = name.removeprefix(f"{form.prefix}-")
            if name in form.fields:
                return f"{self._where(form, name)} — {message}"
        return str(message)

    def _side(self, name: str, test, character_id: int | None) -> SidePreview:
        limit = f1000.threshold(test)
        chance = f1000.success_probability(limit.value)
        warning = ""
        if character_id and self.turn:
            earlier = self.action_rolls(character_id)
            if earlier:
                warning = _(
                    "%(name)s already has an action roll in this turn (#%(seq)s): "
                    "one action per turn may have a roll."
                ) % {"name": name, "seq": earlier.first_seq}
        return SidePreview(
            name=name,
            threshold=limit.value,
            threshold_text=with_minus(str(limit.value)),
            exact=with_minus(limit.to_dict()["exact"]),
            chance=percent_text(chance),
            terms=threshold_terms([t.to_dict() for t in limit.terms]),
            action_warning=str(warning),
        )

    def action_rolls(self, character_id: int) -> selectors.TurnActionRolls:
        """The character's action rolls this turn, counted once a request."""
        if character_id not in self._action_rolls:
            self._action_rolls[character_id] = selectors.action_rolls_in_turn(
                self.session, character_id, self.turn.number
            )
        return self._action_rolls[character_id]

    def _preview_of(self, request: RollRequest, test) -> Preview:
        names = {c.pk: c.name for c in self.all_characters}
        if request.kind == "initiative":
            return Preview(
                sides=[
                    self._side(entry.name, single, None)
                    for entry, single in zip(test.characters, test.tests, strict=True)
                ]
            )
        if request.kind == "opposed":
            odds = f1000.opposed_odds(test)
            return Preview(
                sides=[
                    self._side(names[request.a.character_id], test.a, request.a.character_id),
                    self._side(names[request.b.character_id], test.b, None),
                ],
                odds={k: percent_text(getattr(odds, k)) for k in ("a", "draw", "b", "none")},
            )
        single = test.skill if request.kind == "healing" else test
        return Preview(
            sides=[self._side(names[request.a.character_id], single, request.a.character_id)]
        )
