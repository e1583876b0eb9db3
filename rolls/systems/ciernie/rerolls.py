"""Przerzut (seed 002, RULES 3) chosen after the roll: a failed roll of a character with a
reroll source may be rolled once more, as a roll of its own linked to the first.

- `RerollOffer` rides on every case of a character with reroll sources: when the roll fails,
  its record keeps the sources (`reroll_offer`), which is what offers the reroll.
- `RerollForm` builds the reroll's case from the first roll's record: the same test, k = the
  sources ticked, the first roll's face (the engine's `reroll_of` test checks it failed).
- `RerollLink` checks, under the session's lock, that the first roll offers a reroll, in the
  current turn, not rerolled yet; the record names the first roll (`rerolls`), and the
  reroll lands in the first roll's post, so the post shows both.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from rolls.engine import ciernie as engine
from rolls.engine.errors import RuleError
from rolls.plugins import Case, Effect, RequestError, RollContext
from rolls.selectors import REROLL_OFFER_KEY, REROLLS_KEY, rerolled_by

OFFER_KEY = REROLL_OFFER_KEY
LINK_KEY = REROLLS_KEY
TOKEN_NAMESPACE = uuid.UUID("6f1d9a52-3c0e-4b7a-9d55-2a8f3e1c7b40")


@dataclass(frozen=True)
class RerollOffer(Effect):
    """The character's reroll sources ((key, name) pairs), kept by a roll that fails."""

    sources: tuple[tuple[str, str], ...] = ()
    key: str = OFFER_KEY
    visible: bool = False  # it changes nothing: a secret roll may carry it (and offers nothing)

    def apply(self, context: RollContext, result, seq: int):
        if getattr(result, "outcome", None) not in engine.REROLLABLE:
            return None
        return {"sources": [{"key": key, "name": name} for key, name in self.sources]}


def reroll_token(first) -> uuid.UUID:
    """One token per first roll: a repeated click gets the reroll it made, never a second."""
    return uuid.uuid5(TOKEN_NAMESPACE, first.hash)


def offered_sources(first) -> list[dict]:
    """The sources a roll's failure offers a reroll with ([] when it offers none)."""
    offer = (first.record or {}).get(OFFER_KEY) or {}
    return list(offer.get("sources") or [])


@dataclass(frozen=True)
class RerollLink(Effect):
    """The reroll of roll #first_seq: checked under the session's lock, named in the record."""

    first_seq: int = 0
    source_keys: tuple[str, ...] = ()
    key: str = LINK_KEY
    visible: bool = True

    def _first(self, context: RollContext):
        from rolls.models import Roll

        return (
            Roll.objects.select_related("post")
            .filter(session=context.session, seq=self.first_seq)
            .first()
        )

    def check(self, context: RollContext) -> None:
        first = self._first(context)
        offered = {s["key"] for s in offered_sources(first)} if first is not None else set()
        if first is None or not offered or first.character_id != context.case.character_id:
            raise RequestError(
                None, "not_rerollable", text=_("This roll cannot be rerolled: it did not fail.")
            )
        if not set(self.source_keys) <= offered:
            raise RequestError(
                "reroll_sources",
                "unknown_reroll_source",
                field="reroll_sources",
                text=_("Tick only the reroll sources the character had when rolling."),
            )
        if first.turn_number != context.turn.number:
            raise RequestError(
                None,
                "reroll_turn_over",
                text=_(
                    "The turn of this roll is over: a reroll follows its roll in the same turn."
                ),
            )
        if rerolled_by(first) is not None:
            raise RequestError(
                None, "already_rerolled", text=_("This roll was already rerolled: once only.")
            )

    def post(self, context: RollContext):
        first = self._first(context)
        return first.post if first is not None else None

    def apply(self, context: RollContext, result, seq: int):
        first = self._first(context)
        return {"seq": first.seq, "hash": first.hash}

    def digest_data(self) -> dict:
        return {"rerolls": self.first_seq, "sources": sorted(self.source_keys)}


class RerollForm(forms.Form):
    """Which of the offered sources apply (k = their number); the case is the reroll."""

    reroll_sources = forms.MultipleChoiceField(
        label=gettext_lazy("Reroll sources that apply"),
        widget=forms.CheckboxSelectMultiple,
        help_text=gettext_lazy("Each source beyond the first makes the reroll 3 points easier."),
        error_messages={
            "required": gettext_lazy(
                "Tick the reroll sources that apply to this test: a reroll needs at least one."
            ),
            "invalid_choice": gettext_lazy(
                "Tick only the reroll sources the character had when rolling."
            ),
        },
    )

    def __init__(self, first, data=None, context=None):
        super().__init__(data)
        self.first = first
        self.sources = offered_sources(first)
        field = self.fields["reroll_sources"]
        field.choices = [(s["key"], s["name"]) for s in self.sources]
        field.initial = [s["key"] for s in self.sources]
        self._case: Case | None = None

    def clean(self):
        cleaned = super().clean()
        ticked = cleaned.get("reroll_sources")
        if not ticked:
            return cleaned
        case = reroll_case(self.first, ticked)
        try:
            case.engine_test()
        except RuleError:
            self.add_error(None, _("This roll cannot be rerolled: it did not fail."))
            return cleaned
        self._case = case
        return cleaned

    def token(self) -> uuid.UUID:
        return reroll_token(self.first)

    def case(self) -> Case:
        if self._case is None:
            raise RuleError("invalid_input", "the form is not valid", field="form")
        return self._case

    def preview_case(self) -> Case | None:
        """The case of every offered source ticked, for the chance shown before choosing."""
        try:
            return reroll_case(self.first, [s["key"] for s in self.sources])
        except (KeyError, TypeError):
            return None


def reroll_case(first, keys: list[str]) -> Case:
    """The reroll of `first` with the sources `keys` (k = their number)."""
    record = first.record
    result = record["result"]
    names = {s["key"]: s["name"] for s in offered_sources(first)}
    people = {
        role: value["id"]
        for role, value in (record.get("characters") or {}).items()
        if isinstance(value, dict)
    }
    acting = (record.get("characters") or {}).get("a") or {}
    what = _("%(what)s (reroll: %(sources)s)") % {
        "what": record.get("what") or "",
        "sources": ", ".join(names.get(key, key) for key in keys),
    }
    return Case(
        system=engine.SYSTEM,
        mode=record["kind"],
        test=engine.LinkedReroll.kind,
        input={
            "base": {"test": result["test"], **result["input"]},
            "reroll_sources": len(keys),
            "first_roll": result["roll"],
        },
        people=people,
        # The first roll was the action; its reroll is no further action roll.
        is_action=False,
        what=what,
        names={"a": acting.get("name", "")},
        effects=(RerollLink(first_seq=first.seq, source_keys=tuple(keys)),),
    )


def make_reroll_form(first, data, context=None) -> RerollForm:
    return RerollForm(first, data, context)
