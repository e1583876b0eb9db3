"""Rolls of the systems the panel plays through an engine case: q10, ciernie, arsmagica.

A case is what a conformance vector holds before its dice: the system, the engine's test
kind and its JSON input (rolls.engine.systems.parse_test reads it). Each system's panel
(rolls/panel_<system>.py) turns its form, the sheet's numbers and the GM's modifiers into a
`Case`; the preview shows the engine's exact chance of it; `rolls.services.roll_make_case`
rolls it and stores the engine's `result.to_dict()` (system, test, input, dice, result) in
the roll's hashed record, so anyone recomputes the result from the record alone.

forum1000 keeps its own richer path (rolls.requests, rolls.panel): its sides, NPC targets,
healing and initiative event predate this one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Protocol

from rolls.engine import systems
from rolls.ledger import canonical_json


@dataclass(frozen=True)
class Case:
    """One test to roll, as the engine reads it, and who it is for."""

    system: str
    mode: str  # the panel's mode (its tab), e.g. "pool", "skill", "stress"
    test: str  # the engine's test kind, e.g. "pool", "comparative", "stress"
    input: dict[str, Any]  # the engine's JSON input, with every modifier's label and reason
    character_id: int | None  # the acting character: its action roll in the turn
    other_character_id: int | None = None  # the other side (a comparative test), if any
    is_action: bool = True  # False for what does not use the turn's roll (initiative)
    what: str = ""  # the test in words for the roll line, e.g. "Siła + Miecz (5z2)"
    # Added for the generic path (compatible: both default to "nothing"):
    # whether a person typed modifiers into it (the GM's only; rolls.access refuses a
    # player's), and what a player's request names, as the mode form's values
    # (`SystemPanel.ask_fields`; filled by rolls.case_panel, not by the system's form).
    gm_typed: bool = False
    request_fields: dict[str, Any] = field(default_factory=dict)

    def engine_test(self):
        """The engine's validated test; raises RuleError (a ValueError) for bad input."""
        return systems.parse_test(self.system, self.test, self.input)

    def probability(self) -> Fraction:
        return systems.probability(self.system, self.engine_test())

    def digest(self) -> str:
        """What a one-time token asked for: the same token with other inputs is refused."""
        payload = {
            "system": self.system,
            "mode": self.mode,
            "test": self.test,
            "input": self.input,
            "character": self.character_id,
            "other": self.other_character_id,
        }
        return hashlib.sha256(canonical_json(payload)).hexdigest()


@dataclass(frozen=True)
class CaseDie:
    """One die of a roll as the line shows it (added for issue 10's generic display):
    its face, whether it counts (kept, deciding), whether it is an extra die, and a word
    for readers that do not see the marks (e.g. "zatrzymana", "kość pecha")."""

    face: int
    kept: bool = True
    extra: bool = False
    note: str = ""


@dataclass(frozen=True)
class CaseLine:
    """One line of a roll as the post shows it, in words a player without the formulas reads:
    `outcome` ("Sukces", "Porażka", "Pech"…), then `details` in order (faces, total against
    the difficulty, margin…), each a short phrase."""

    who: str
    what: str
    outcome: str
    success: bool
    details: list[str] = field(default_factory=list)
    dice: list[CaseDie] = field(default_factory=list)  # optional: the faces drawn as dice


@dataclass(frozen=True)
class CasePreview:
    """Before the roll: the exact chance (None when no roll is made, e.g. automatic success,
    said in `note`) and how the numbers were reached, term by term."""

    chance: Fraction | None
    terms: list[str] = field(default_factory=list)
    note: str = ""


class CaseForm(Protocol):
    """A system panel's form for one mode (a Django form). After `is_valid()`, `case()` gives
    the Case or raises `rolls.engine.errors.RuleError`, which the panel puts next to the
    field the error names."""

    def is_valid(self) -> bool: ...

    def case(self) -> Case: ...


@dataclass(frozen=True)
class SystemPanel:
    """What one system's panel module registers (see PANELS).

    `modes`: (key, label) of each test, in the order of the panel's tabs.
    `form(mode, data, characters=..., all_characters=..., gm=..., session=...)` builds the
    mode's form: `characters` the ones this user may roll for, `all_characters` every
    playing one (the other side of a comparative test), `gm` whether modifiers may be typed.
    `preview(case)` explains the numbers; `lines(record)` renders a stored roll's record.
    `gm_only_modes`: modes a player may not roll themselves.
    `summary(case)`: a player's request in words, after the character's name (optional).
    `ask_fields`: the mode forms' fields a player's request names and a link may prefill
    (what is tested, never a modifier or a reason), e.g. character, attribute, skill, raises.
    The generic panel (rolls.case_panel) reads them from the form's cleaned data.

    A mode form's field names must not be the panel's own: token, mode, post, ask, preview,
    sig. It may set `panel_template` (a template rendered with `form`) to lay its fields
    out; else each field is drawn in order. `case()` may raise RuleError with params
    `field` (the form field it concerns) and `text` (the message, already translated); the
    panel words the engine's own codes itself.
    """

    system: str
    modes: list[tuple[str, str]]
    form: Callable[..., Any]
    preview: Callable[[Case], CasePreview]
    lines: Callable[[dict], list[CaseLine]]
    gm_only_modes: frozenset[str] = frozenset()
    ask_fields: tuple[str, ...] = ("character",)
    # A request in words, after the character's name (default: `Case.what`).
    summary: Callable[[Case], str] | None = None


# Filled by each system's module (rolls/panel_q10.py, panel_ciernie.py, panel_arsmagica.py)
# through `register`; rolls.apps imports them at start-up.
PANELS: dict[str, SystemPanel] = {}


def register(panel: SystemPanel) -> SystemPanel:
    PANELS[panel.system] = panel
    return panel


def panel_for(system: str) -> SystemPanel | None:
    return PANELS.get(system)
