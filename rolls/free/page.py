"""The free-form roll page's state, as the roll panel's is rolls.panel.Panel: the form (with
the htmx attributes of its live preview), what the expression means and its exact odds,
what the Roll button does with a POST, and how a refusal of the roll lands on the form.
rolls.free.views serves it; the roll itself is rolls.free.services.roll_make_free."""

from __future__ import annotations

from functools import cached_property

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from diary.selectors import own_posts_in_turn
from diary.services import current_turn
from rolls import services
from rolls.engine.errors import RuleError
from rolls.free.forms import FreeRollForm, parsed_expression
from rolls.ledger.selectors import turn_commitment
from rolls.messages import notation_error_message
from rolls.presenters import notation_odds, notation_summary
from rolls.selectors import sheets_in_play

NO_PREVIEW = {"summary": "", "preview_error": "", "odds": None}


def asked_target(value) -> int | None:
    """The total the roller asks the chance of (≥ it), or None."""
    try:
        number = int(str(value).strip().replace("−", "-"))
    except (TypeError, ValueError):
        return None
    return number if abs(number) <= 1_000_000 else None


def expression_preview(text: str, target=None) -> dict:
    """What the expression means and its exact odds, or the refusal; nothing for no text."""
    if not (text or "").strip():
        return dict(NO_PREVIEW)
    notation, error = parsed_expression(text)
    if notation is None:
        return {**NO_PREVIEW, "preview_error": error}
    return {
        "summary": notation_summary(notation),
        "preview_error": "",
        "odds": notation_odds(notation, asked_target(target)),
    }


def preview_htmx(url: str) -> dict[str, str]:
    """The expression field's live preview: its meaning, or its refusal, under the field,
    redrawn as it is typed (with the target total beside it)."""
    return {
        "hx-get": url,
        "hx-trigger": "input changed delay:300ms",
        "hx-target": "#free-preview",
        "hx-swap": "outerHTML",
        "hx-include": "#free-target",
    }


class FreeRollPage:
    def __init__(self, session, user, access, *, url: str, query, data=None) -> None:
        """`query`: the address's fields (an expression a link prefills, a target total);
        `data`: the POST, None for a GET. A POST with `preview` (no JavaScript) shows the
        form again with the preview and rolls nothing; `url`: the page's, the live
        preview's too."""
        self.session = session
        self.user = user
        self.access = access
        self.posted = data is not None
        self.previewing = self.posted and "preview" in data
        # Where the page reads the target total and (a GET) the expression to preview.
        self.source = data if self.posted else query
        self.turn = current_turn(session)
        self.posts = own_posts_in_turn(session, user, self.turn)
        self.form = FreeRollForm(
            self._form_data(data),
            user=user,
            session=session,
            characters=self._characters(),
            posts=self.posts,
            secret=access.is_gm,
            initial={"expression": query.get("expression", "")[:200]},
        )
        self.form.fields["expression"].widget.attrs.update(preview_htmx(url))
        # The Roll button of a valid form; decided before a refusal makes the form invalid.
        self.asks_roll = self.posted and self.form.is_valid() and not self.previewing
        if self.asks_roll and self.turn is None:
            self.form.add_error(
                None, _("Open a turn first: a roll lands in a post of the current turn.")
            )
        # What the Roll button does with this POST: roll (into a turn that is open).
        self.rolls = self.asks_roll and self.turn is not None

    def _form_data(self, data):
        if self.previewing:
            # A preview rolls nothing and never carries a roller's seed on to the roll: the
            # page it shows draws a fresh one (the browser sends none with a preview).
            data = data.copy()
            data.pop("client_seed", None)
        return data

    def _characters(self) -> list:
        """The sheets in play the roll may concern: all for the GM, a player's own."""
        return [
            c
            for c in sheets_in_play(self.session).values()
            if self.access.is_gm or c.owner_id == self.user.pk
        ]

    @property
    def target_post(self):
        """The post of this turn the form chose (None: the service picks)."""
        return next((p for p in self.posts if p.pk == self.form.cleaned_data["post"]), None)

    def refused(self, error: RuleError | ValidationError | services.TokenReused) -> None:
        """The roll service's refusal, next to its field (or above the form)."""
        if isinstance(error, RuleError):  # the form parsed it already; kept for a changed engine
            self.form.add_error("expression", notation_error_message(error))
        elif isinstance(error, ValidationError):
            for field, errors in error.message_dict.items():
                self.form.add_error(field if field in self.form.fields else None, errors)
        else:
            self.form.add_error(
                None,
                _("This form has already made another roll; open a new roll to roll again."),
            )

    @cached_property
    def preview(self) -> dict:
        """A GET: the expression's meaning and odds. Posted: the form's own error stands next
        to the field; the meaning only if it reads, and none once the roll was asked for."""
        if not self.posted:
            return expression_preview(self.source.get("expression", ""), self.source.get("target"))
        if self.asks_roll or self.form.notation is None:
            return dict(NO_PREVIEW)
        return {
            **NO_PREVIEW,
            "summary": notation_summary(self.form.notation),
            "odds": notation_odds(self.form.notation, asked_target(self.source.get("target"))),
        }

    @property
    def status(self) -> int:
        """200 for the page and a preview that reads; 400 for a POST the form refuses."""
        return 200 if not self.posted or (self.previewing and self.form.is_valid()) else 400

    def context(self) -> dict:
        return {
            "session": self.session,
            "form": self.form,
            **self.preview,
            "target": self.source.get("target", ""),
            "show_errors": self.posted,
            "hide_errors": not self.posted,
            "has_turn": self.turn is not None,
            "is_gm": self.access.is_gm,
            "commitment": turn_commitment(self.session),
        }
