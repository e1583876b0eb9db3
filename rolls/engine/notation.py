"""Free-form rolls in dice notation: damage, random tables, encounters.

What the rules leave to the GM is rolled from an expression such as `2d6+3`,
`4d6k3`, `1d6!`, `10d10>=8f1`, `{1d20, 1d20}kh1` or `(1d8[cięcie]+2)*2` (Polish
players write `k` for the die: `2k6`). The expression is read by a small recursive-descent
parser (docs/decisions.md says why it replaced the lark grammar: every refusal names the
character the person typed and, where one exists, the spelling that would work); the dice
are drawn here, from the engine's `DiceSource`, so production rolls use the OS CSPRNG or
the fair-dice seeds and a stored roll replays from its faces like every other test.

    notation = parse_notation("4d6!kh3 + 2")      # RuleError for anything refused
    result = roll_notation(notation, SystemDice())  # result.to_dict() for the ledger
    odds = exact_odds(notation)                     # OddsTooLarge past the stated size

The language (case-insensitive, spaces anywhere; docs/rules.md is the reference):

    NdM, dM, d%, NdF  N dice of M faces (N defaults to 1, % is 100, F a Fate die −1/0/+1);
                      `k` may stand for `d`
    K                 whole-number constants
    + -               between terms, also a leading sign; `−` and `–` are read as `-`
    * /               multiplication; division by a whole number, rounded down
    ( )               grouping
    {A, B, ...}       a group: its parts' totals, optionally kept/dropped (`{1d20, 1d20}kh1`)
  after the dice, in any order, each at most once:
    !  !!             explode (a die on its highest face adds another) / compound (adds
                      into the same die); a chain stops after EXPLOSION_CAP extra dice;
                      a comparison straight after is the trigger (`!>=5`: on 5 and 6)
    rX  roX           reroll a die matching X (`r1`, `r<3`) until it does not (at most
                      REROLL_CAP times) / once
    khN klN dhN dlN   keep or drop the N highest / lowest; `kN` = khN, `dN` = dlN
    >=X >X <=X <X =X  count the dice that match (successes) instead of adding them
    fX                after a success count: subtract the dice matching X (failures)
    [text]            a label, shown with the term's dice

The language has versions (VERSION): a stored roll names the one it was read in (its
input's "version"; none is version 1), so that it recomputes as it was read:
  1  a comparison after `!`/`!!` counts successes; keep/drop after a one-part group
     chooses among its one part (it keeps it);
  2  a comparison straight after `!`/`!!` is the explosion's trigger, a success count
     comes after it (`1d6!>=5>=4`); keep/drop after a one-part group keeps from its
     dice (`{4d10}kl1` is `4d10kl1`), and is refused where its part is not one dice term;
     an explosion nothing but the caps would stop is refused.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from rolls.engine.common import read
from rolls.engine.dice import DiceSource
from rolls.engine.errors import RuleError

SYSTEM = "free"
TEST = "notation"
VERSION = 2  # what new rolls are read in (the module docstring lists the versions)
VERSIONS = (1, 2)

MAX_LENGTH = 100  # characters of one expression
MAX_DICE = 100  # dice written in one expression (explosions and rerolls come on top)
MIN_FACES = 2  # a d1 is no roll
MAX_FACES = 1000  # the largest die of the site (forum1000's d1000)
MAX_CONSTANT = 1000  # the largest constant term
EXPLOSION_CAP = 10  # extra dice one die may add by exploding
REROLL_CAP = 10  # times one die may be rerolled by `r` (`ro`: once)
PERCENT_FACES = 100  # d% is a d100 (1..100)
MAX_LABEL = 40  # characters of one [label]
# The exact odds stop past this many elementary steps (additions of one weight into a
# distribution; a step of keep/drop over exploding dice, on larger numbers, counts
# KEEP_STEP_COST): within the 5 ms budget on the benchmark machine (docs/performance.md).
ODDS_WORK_LIMIT = 20_000
KEEP_STEP_COST = 5
# A step of keep/drop over exploding dice whose trigger's faces lie among the others (`!=2`:
# two kinds of value at once) does about five times a keep step's work.
MIXED_KEEP_STEP_COST = 5 * KEEP_STEP_COST

SELECTIONS = {
    "kh": "keep the highest",
    "kl": "keep the lowest",
    "dh": "drop the highest",
    "dl": "drop the lowest",
}
COMPARES = ("=", "<", "<=", ">", ">=")

# What a refused character most likely meant: a stable hint code (the web layer words
# it in Polish) and its English sentence.
HINTS = {
    "multiplication": "multiply with *",
    "division": "divide by a whole number: 1d6/2",
    "decimal": "only whole numbers",
    "explode": "explode with ! after the dice: 1d6!",
    "explode_dice": "only dice explode: write ! after the dice, 2d6!",
    "keep": "keep with k, kh or kl and a count: 4d6k3",
    "drop": "drop with d, dl or dh and a count: 4d6d1",
    "not_equal": "there is no 'not equal': compare with =, <, <=, > or >=",
    "compare_total": "only dice are compared (10d10>=8 counts successes); "
    "a total's chance of at least N is asked for below the expression",
    "compare": "a comparison needs a number after it: 10d10>=8",
    "modulo": "% is only the percentile die (d%); there is no modulo",
    "comma": "a comma separates the parts of a group in braces: {1d20, 1d20}kh1",
    "word": "words are not dice notation; a label goes in brackets after the dice: 1d20[attack]",
    "operator": "an operator is missing between two terms",
    "whitespace": "only ordinary spaces",
    "twice": "each modifier at most once per dice",
    "failure": "failures (f) follow a success count: 10d10>=8f1",
    "unopened": "this bracket closes nothing",
    "faces": "the die's faces are missing: 1d6, d%, 4dF",
    "order": "",
}
# Characters a person may type without seeing them: named, never shown as a code point.
CHARACTER_NAMES = {
    "\t": "tab",
    "\n": "newline",
    "\r": "carriage return",
    "\xa0": "no-break space",
    "\u2009": "thin space",
    "\u202f": "narrow no-break space",
    "\u200b": "zero-width space",
    "\x00": "NUL",
}
_MINUSES = {"\u2212": "-", "\u2013": "-"}  # the minus sign and the en dash, as typed by phones


# ---------------------------------------------------------------------------
# The parsed expression


@dataclass(frozen=True)
class Compare:
    """A face test: `op` one of COMPARES, against `value`."""

    op: str
    value: int

    def matches(self, face: int) -> bool:
        return {
            "=": face == self.value,
            "<": face < self.value,
            "<=": face <= self.value,
            ">": face > self.value,
            ">=": face >= self.value,
        }[self.op]

    def text(self, bare_equal: bool) -> str:
        if self.op == "=" and bare_equal:
            return str(self.value)
        return f"{self.op}{self.value}"

    def to_dict(self) -> dict[str, Any]:
        return {"compare": self.op, "value": self.value}


@dataclass(frozen=True)
class DiceTerm:
    """`count` dice of `faces` faces (or Fate dice), with its modifiers."""

    sign: int
    count: int
    faces: int
    explode: bool = False
    selection: str | None = None  # one of SELECTIONS
    selection_count: int | None = None
    compound: bool = False  # `!!`: the chain adds into one die
    fate: bool = False  # faces −1, 0, +1
    reroll: Compare | None = None
    reroll_once: bool = False
    success: Compare | None = None
    failure: Compare | None = None
    label: str = ""
    # Version 2: what a face must match to explode (None: the highest face).
    explode_on: Compare | None = None

    @property
    def low(self) -> int:
        return -1 if self.fate else 1

    @property
    def high(self) -> int:
        return 1 if self.fate else self.faces

    def explodes(self, face: int) -> bool:
        """Whether a die of an exploding term showing `face` adds the next one."""
        return face == self.high if self.explode_on is None else self.explode_on.matches(face)

    def text(self, version: int = VERSION) -> str:
        out = f"{self.count}d{'F' if self.fate else self.faces}"
        if self.explode:
            out += "!!" if self.compound else "!"
            if self.explode_on:
                out += self.explode_on.text(bare_equal=False)
            elif self.success and not self.reroll and version >= 2:
                # Said, or the success count written next would read as the trigger.
                out += f">={self.high}"
        if self.reroll:
            out += ("ro" if self.reroll_once else "r") + self.reroll.text(bare_equal=True)
        if self.selection:
            out += f"{self.selection}{self.selection_count}"
        if self.success:
            out += self.success.text(bare_equal=False)
        if self.failure:
            out += "f" + self.failure.text(bare_equal=True)
        if self.label:
            out += f"[{self.label}]"
        return out

    def to_dict(self) -> dict[str, Any]:
        # The keys of the first notation, then only the modifiers this term uses: a roll
        # stored before them recomputes to the very same record.
        data: dict[str, Any] = {
            "kind": "dice",
            "sign": self.sign,
            "count": self.count,
            "faces": "F" if self.fate else self.faces,
            "explode": self.explode,
            "selection": self.selection,
            "selection_count": self.selection_count,
        }
        if self.compound:
            data["compound"] = True
        if self.explode_on:
            data["explode_on"] = self.explode_on.to_dict()
        if self.reroll:
            data["reroll"] = {**self.reroll.to_dict(), "once": self.reroll_once}
        if self.success:
            data["success"] = self.success.to_dict()
        if self.failure:
            data["failure"] = self.failure.to_dict()
        if self.label:
            data["label"] = self.label
        return data


@dataclass(frozen=True)
class ConstantTerm:
    sign: int
    value: int

    def text(self, version: int = VERSION) -> str:
        return str(self.value)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "constant", "sign": self.sign, "value": self.value}


@dataclass(frozen=True)
class ProductTerm:
    """`factors[0] ops[0] factors[1] …`, left to right; each factor a sum of terms. `/` is
    by a positive whole number and rounds down (towards minus infinity)."""

    sign: int
    factors: tuple[tuple[Term, ...], ...]
    ops: tuple[str, ...]

    def text(self, version: int = VERSION) -> str:
        out = _factor_text(self.factors[0], version)
        for op, factor in zip(self.ops, self.factors[1:], strict=True):
            out += f" {op} {_factor_text(factor, version)}"
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "product",
            "sign": self.sign,
            "ops": list(self.ops),
            "factors": [[term.to_dict() for term in factor] for factor in self.factors],
        }


@dataclass(frozen=True)
class GroupTerm:
    """`{A, B, …}`: each part's total; kept/dropped like dice (`kh1`: the best part)."""

    sign: int
    items: tuple[tuple[Term, ...], ...]
    selection: str | None = None
    selection_count: int | None = None

    def text(self, version: int = VERSION) -> str:
        inner = ", ".join(_sum_text(item, version) for item in self.items)
        selection = f"{self.selection}{self.selection_count}" if self.selection else ""
        return "{" + inner + "}" + selection

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "group",
            "sign": self.sign,
            "selection": self.selection,
            "selection_count": self.selection_count,
            "items": [[term.to_dict() for term in item] for item in self.items],
        }


Term = DiceTerm | ConstantTerm | ProductTerm | GroupTerm


def _sum_text(terms: tuple[Term, ...], version: int = VERSION) -> str:
    parts = []
    for index, term in enumerate(terms):
        if index == 0:
            parts.append(("-" if term.sign < 0 else "") + term.text(version))
        else:
            parts.append(("- " if term.sign < 0 else "+ ") + term.text(version))
    return " ".join(parts)


def _factor_text(terms: tuple[Term, ...], version: int = VERSION) -> str:
    text = _sum_text(terms, version)
    if len(terms) == 1 and terms[0].sign > 0 and not isinstance(terms[0], ProductTerm):
        return text
    return f"({text})"


def _walk(terms) -> list[Term]:
    """Every term, nested ones included, in rolling order."""
    out: list[Term] = []
    for term in terms:
        out.append(term)
        if isinstance(term, ProductTerm):
            for factor in term.factors:
                out.extend(_walk(factor))
        elif isinstance(term, GroupTerm):
            for item in term.items:
                out.extend(_walk(item))
    return out


@dataclass(frozen=True)
class Notation:
    """A checked expression: `text` as the person wrote it (trimmed), `terms` read from it
    in the language's `version`, summed with their signs. `Notation(text)` parses and checks
    itself, so a notation whose terms are not its text's (which the ledger's input, the text
    and its version, could not replay) cannot exist; `RuleError` for anything refused
    (positions count in the text as given, surrounding spaces included)."""

    text: str
    version: int = VERSION
    terms: tuple[Term, ...] = field(init=False)
    kind = TEST

    def __post_init__(self) -> None:
        original = _checked_text(self.text)
        if self.version not in VERSIONS or type(self.version) is not int:
            raise RuleError(
                "invalid_input",
                f"the notation has versions {VERSIONS}, not {self.version!r}",
                field="version",
                expected="integer",
            )
        object.__setattr__(self, "text", original.strip())
        object.__setattr__(self, "terms", _Parser(original, self.version).parse())

    @property
    def dice_count(self) -> int:
        """Dice written (explosions and rerolls may add more when rolled)."""
        return sum(t.count for t in _walk(self.terms) if isinstance(t, DiceTerm))

    @property
    def dice_terms(self) -> list[DiceTerm]:
        return [t for t in _walk(self.terms) if isinstance(t, DiceTerm)]

    @property
    def canonical(self) -> str:
        """One spelling of the sum: `2k6+(1d4-1)` → `2d6 + 1d4 - 1`."""
        return _sum_text(self.terms, self.version)

    def to_input(self) -> dict[str, Any]:
        # Version 1 said none: its rolls' records stay as they were stored.
        if self.version == 1:
            return {"expression": self.text}
        return {"expression": self.text, "version": self.version}


# ---------------------------------------------------------------------------
# Parsing


def character_name(character: str) -> str:
    """How a refused character is shown: itself, or its name when it cannot be seen."""
    if character in CHARACTER_NAMES:
        return CHARACTER_NAMES[character]
    if character and not character.isprintable():
        return f"U+{ord(character):04X}"
    return character


def _checked_text(text: object) -> str:
    if type(text) is not str:
        raise RuleError(
            "invalid_input",
            f"a dice expression must be text, got {text!r}",
            field="expression",
            expected="text",
        )
    trimmed = text.strip()
    if not trimmed:
        raise RuleError("notation_empty", "the dice expression is empty")
    if len(trimmed) > MAX_LENGTH:
        raise RuleError(
            "notation_too_long",
            f"a dice expression has at most {MAX_LENGTH} characters, this one has {len(trimmed)}",
            length=len(trimmed),
            max=MAX_LENGTH,
        )
    return text


def _normalized(text: str) -> str:
    """Lowercase ASCII, the minus look-alikes as `-`, one character for one (positions hold)."""
    return "".join(_MINUSES.get(c, c.lower() if c.isascii() else c) for c in text)


class _Parser:
    """Recursive descent over the text as typed; `self.pos` indexes it (0-based)."""

    def __init__(self, original: str, version: int = VERSION) -> None:
        self.original = original
        self.version = version
        self.text = _normalized(original)
        self.pos = 0
        self.opened: list[int] = []  # positions of the open ( and {

    # -- helpers

    def peek(self) -> str:
        while self.pos < len(self.text) and self.text[self.pos] == " ":
            self.pos += 1
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def at(self, offset: int = 0) -> str:
        index = self.pos + offset
        return self.text[index] if index < len(self.text) else ""

    def error(
        self, pos: int, hint: str = "", suggestion: str = "", found: str | None = None
    ) -> RuleError:
        if found is None:
            found = self.original[pos] if pos < len(self.original) else ""
        shown = character_name(found)
        return RuleError(
            "notation_syntax",
            f"the dice expression {self.original.strip()!r} cannot be read at character "
            f"{pos + 1} ({shown!r})"
            + (f": {HINTS[hint]}" if HINTS.get(hint) else "")
            + (f"; perhaps {suggestion!r}" if suggestion else ""),
            expression=self.original.strip(),
            position=pos + 1,
            found=found,
            shown=shown,
            hint=hint,
            suggestion=suggestion,
        )

    def incomplete(self, missing: str = "", after: str = "") -> RuleError:
        """The text ends too early: a bracket left open, else what is `missing` ("faces" of
        a die, a "term" after an operator, a "number" after a comparison or modifier),
        written `after` what."""
        if self.opened:
            opened = self.opened[-1]
            bracket = self.original[opened]
            closing = {"(": ")", "{": "}"}[bracket]
            return RuleError(
                "notation_unclosed",
                f"the {bracket} at character {opened + 1} is never closed: add {closing}",
                expression=self.original.strip(),
                position=len(self.original.rstrip()) + 1,
                opened=opened + 1,
                bracket=bracket,
                closing=closing,
                suggestion=self._suggest(self.original.strip() + self.closings()),
            )
        what = {
            "faces": ": the die's faces are missing",
            "term": f": a number or dice is missing after {after!r}",
            "number": f": a number is missing after {after!r}",
        }.get(missing, "")
        return RuleError(
            "notation_incomplete",
            f"the dice expression {self.original.strip()!r} ends too early{what}",
            expression=self.original.strip(),
            position=len(self.original.rstrip()) + 1,
            missing=missing,
            after=after,
        )

    def closings(self) -> str:
        """What closes every bracket still open, innermost first."""
        return "".join({"(": ")", "{": "}"}[self.original[o]] for o in reversed(self.opened))

    def typed_before(self, pos: int) -> str:
        """The character typed last before `pos`, spaces skipped (an operator)."""
        end = pos
        while end > 0 and self.text[end - 1] == " ":
            end -= 1
        return self.original[end - 1 : end]

    def number(self) -> int:
        start = self.pos
        while _isdigit(self.at()):
            self.pos += 1
        return int(self.text[start : self.pos])

    def _suggest(self, candidate: str) -> str:
        """`candidate` if it is an expression the engine accepts, else ""."""
        try:
            if len(candidate.strip()) <= MAX_LENGTH and candidate.strip():
                _Parser(candidate, self.version).parse()
                return candidate.strip()
        except RuleError:
            pass
        return ""

    # -- the grammar

    def parse(self) -> tuple[Term, ...]:
        terms = self.sum()
        if self.peek():
            raise self.unexpected()
        dice = sum(t.count for t in _walk(terms) if isinstance(t, DiceTerm))
        if dice == 0:
            raise RuleError(
                "notation_no_dice",
                f"the expression {self.original.strip()!r} rolls no dice",
                expression=self.original.strip(),
            )
        if dice > MAX_DICE:
            raise RuleError(
                "notation_too_many_dice",
                f"a dice expression rolls at most {MAX_DICE} dice, this one asks for {dice}",
                count=dice,
                max=MAX_DICE,
            )
        return tuple(terms)

    def sum(self) -> list[Term]:
        terms = self.product()
        while self.peek() in ("+", "-") and self.peek():
            op = self.text[self.pos]
            self.pos += 1
            right = self.product()
            terms += [_negated(t) for t in right] if op == "-" else right
        return terms

    def signed_atom(self) -> list[Term]:
        sign = 1
        while self.peek() in ("+", "-") and self.peek():
            if self.text[self.pos] == "-":
                sign = -sign
            self.pos += 1
        terms = self.atom()
        return [_negated(t) for t in terms] if sign < 0 else terms

    def product(self) -> list[Term]:
        first = self.signed_atom()
        factors, ops = [tuple(first)], []
        while self.peek() in ("*", "/") and self.peek():
            op, at = self.text[self.pos], self.pos
            self.pos += 1
            start = self.peek() and self.pos
            factor = self.signed_atom()
            if op == "/":
                if not (len(factor) == 1 and isinstance(factor[0], ConstantTerm)):
                    raise RuleError(
                        "notation_division",
                        "divide only by a whole number (1d6/2), not by dice",
                        position=at + 1,
                        expression=self.original.strip(),
                    )
                if factor[0].value == 0 or factor[0].sign < 0:
                    raise RuleError(
                        "notation_division",
                        "divide only by a whole number above 0",
                        position=(start or at) + 1,
                        expression=self.original.strip(),
                    )
            factors.append(tuple(factor))
            ops.append(op)
        if not ops:
            return first
        return [ProductTerm(sign=1, factors=tuple(factors), ops=tuple(ops))]

    def atom(self) -> list[Term]:
        c = self.peek()
        start = self.pos
        if not c:
            raise self.incomplete("term", self.typed_before(self.pos))
        if c == "(":
            self.pos += 1
            self.opened.append(start)
            inner = self.sum()
            if self.peek() != ")":
                if not self.peek():
                    raise self.incomplete()
                raise self.unexpected()
            self.opened.pop()
            self.pos += 1
            return inner
        if c == "{":
            return [self.group()]
        if _isdigit(c):
            value = self.number()
            if self.peek() in ("d", "k") and self.peek():
                return [self.dice(value, start)]
            if value > MAX_CONSTANT:
                raise RuleError(
                    "notation_constant_range",
                    f"a constant in a dice expression is at most {MAX_CONSTANT}, got {value}",
                    value=value,
                    max=MAX_CONSTANT,
                )
            if self.peek() == "!":
                bang = self.pos
                if self.at(1) == "=":
                    raise self.error(bang, "not_equal")
                raise self.error(bang, "explode_dice")
            return [ConstantTerm(sign=1, value=value)]
        if c in ("d", "k") and (_isdigit(self.at(1)) or self.at(1) in ("%", "f")):
            return [self.dice(1, start)]
        raise self.unexpected()

    def group(self) -> Term:
        start = self.pos
        self.pos += 1
        self.opened.append(start)
        items = [tuple(self.sum())]
        while self.peek() == ",":
            self.pos += 1
            items.append(tuple(self.sum()))
        if self.peek() != "}":
            if not self.peek():
                raise self.incomplete()
            raise self.unexpected()
        self.pos += 1
        self.opened.pop()
        selection = None
        selection_at = self.peek() and self.pos
        if self.peek() in ("k", "d") and self.peek():
            selection = self.selection(start)
        name, n = selection or (None, None)
        if name is not None and len(items) == 1 and self.version >= 2:
            return self._kept_from_dice(items[0], name, n, selection_at)
        if name is not None:
            _check_selection(name, n, len(items), "parts")
        return GroupTerm(sign=1, items=tuple(items), selection=name, selection_count=n)

    def _kept_from_dice(self, part: tuple[Term, ...], name: str, n: int, at: int) -> DiceTerm:
        """`{4d10}kl1`: keep/drop after a group of one part chooses among its dice (as in
        rpg-dice-roller), where that part is one term of dice that neither keeps nor counts."""
        term = part[0] if len(part) == 1 else None
        if not (
            isinstance(term, DiceTerm)
            and term.sign > 0
            and term.selection is None
            and term.success is None
        ):
            raise RuleError(
                "notation_group_one_part",
                f"{name}{n} after a group of one part keeps from its dice, and this part is "
                "not one term of dice: keep from the dice themselves (4d10kl1) or list the "
                "parts to choose from ({1d20, 1d20}kh1)",
                position=at + 1,
                selection=f"{name}{n}",
            )
        _check_selection(name, n, term.count, "dice", faces=term.faces)
        return _replace(term, selection=name, selection_count=n)

    def selection(self, term_start: int) -> tuple[str, int]:
        at = self.pos
        letter = self.text[self.pos]
        self.pos += 1
        which = self.at()
        if which in ("h", "l"):
            self.pos += 1
            name = letter + which
        else:
            name = "kh" if letter == "k" else "dl"
        if not _isdigit(self.peek()) or not self.peek():
            self.pos = at
            raise self.error(at, "keep" if letter == "k" else "drop")
        return name, self.number()

    def compare(self, default_equal: bool, hint: str, after: str = "") -> Compare:
        """`N`, `=N`, `<N`, `<=N`, `>N`, `>=N` (a bare N only where `default_equal`, after the
        modifier `after`)."""
        self.peek()
        two = self.text[self.pos : self.pos + 2]
        if two in ("<>", "!="):
            raise self.error(self.pos, "not_equal")
        if two in ("=>", "=<"):
            fixed = two[::-1]
            raise self.error(
                self.pos,
                "compare",
                self._suggest(self.original[: self.pos] + fixed + self.original[self.pos + 2 :]),
            )
        if two in ("<=", ">="):
            op = two
        elif two[:1] in ("<", ">", "="):
            op = two[:1]
        elif default_equal and _isdigit(self.at()):
            op = ""
        else:
            raise self.error(self.pos, hint) if self.at() else self.incomplete("number", after)
        self.pos += len(op)
        if self.peek() == "=" and op == "=":
            raise self.error(
                self.pos,
                "compare",
                self._suggest(self.original[: self.pos] + self.original[self.pos + 1 :]),
            )
        if not _isdigit(self.peek()) or not self.peek():
            if self.peek():
                raise self.error(self.pos, "compare")
            raise self.incomplete("number", op or after)
        return Compare(op or "=", self.number())

    def dice(self, count: int, start: int) -> DiceTerm:
        faces, fate = self.faces()
        mods = self.modifiers(start)
        _check_dice(count, faces, fate)
        explode = mods.get("explode")
        if explode and fate:
            raise RuleError("notation_fate_explode", "Fate dice do not explode", position=start + 1)
        term = DiceTerm(
            sign=1,
            count=count,
            faces=faces,
            explode=bool(explode),
            compound=explode == "!!",
            fate=fate,
            label=mods.get("label", ""),
            success=mods.get("success"),
            failure=mods.get("failure"),
        )
        if "reroll" in mods:
            term = _with_reroll(term, *mods["reroll"])
        if explode and self.version >= 2:
            term = self._checked_explosion(term, mods.get("explode_on"), mods["explode_at"])
        if "selection" in mods:
            term = _with_selection(term, *mods["selection"], start)
        return term

    def faces(self) -> tuple[int, bool]:
        """A die's faces, read from its d or k on: (faces, whether it is a Fate die)."""
        self.peek()
        self.pos += 1  # the d or k
        self.peek()
        faces_at = self.pos
        if self.at() == "%":
            self.pos += 1
            return PERCENT_FACES, False
        if self.at() == "f":
            self.pos += 1
            return 3, True
        if _isdigit(self.at()):
            return self.number(), False
        raise self.error(faces_at, "faces") if self.at().strip() else self.incomplete("faces")

    def modifiers(self, start: int) -> dict[str, Any]:
        """The modifiers after a die's faces, in any order, each at most once, by kind."""
        mods: dict[str, Any] = {}
        while True:
            c = self.peek()
            at = self.pos
            if c == "!":
                self.explosion(mods, at)
            elif c == "r":
                self._once(mods, "reroll", at)
                mods["reroll"] = self.reroll(at)
            elif c in ("k", "d") and (self.at(1) in ("h", "l") or _isdigit(self.at(1))):
                self._once(mods, "selection", at)
                mods["selection"] = self.selection(start)
            elif c in ("<", ">", "="):
                self._once(mods, "success", at)
                mods["success"] = self.compare(False, "compare")
            elif c == "f" and "success" in mods:
                self._once(mods, "failure", at)
                self.pos += 1
                mods["failure"] = self.compare(True, "compare", self.original[at])
            elif c == "f":
                raise self.error(at, "failure")
            elif c == "[":
                self._once(mods, "label", at)
                mods["label"] = self.label(at)
            else:
                return mods

    def _once(self, mods: dict[str, Any], kind: str, at: int) -> None:
        if kind in mods:
            raise self.error(at, "twice")

    def explosion(self, mods: dict[str, Any], at: int) -> None:
        """`!` or `!!` at `at`, and (version 2) its trigger, into `mods`."""
        # `1d6 != 3` reads as "not equal"; `1d6!=3`, glued, explodes on 3.
        spaced = at > 0 and self.text[at - 1] == " "
        if self.at(1) == "=" and (self.version < 2 or spaced):
            raise self.error(at, "not_equal")
        self._once(mods, "explode", at)
        compound = self.at(1) == "!"
        self.pos += 2 if compound else 1
        mods["explode"], mods["explode_at"] = ("!!" if compound else "!"), at
        if self.version >= 2 and self.peek() in ("<", ">", "=") and self.peek():
            mods["explode_on"] = self.compare(False, "compare")

    def reroll(self, at: int) -> tuple[Compare, bool, int]:
        """`rX` or `roX` at `at`: (what is rerolled, only once?, where it was written)."""
        self.pos += 1
        is_once = self.at() == "o"
        if is_once:
            self.pos += 1
        modifier = "ro" if is_once else "r"
        return self.compare(True, "compare", modifier), is_once, at

    def label(self, at: int) -> str:
        """The `[text]` opened at `at`, its spaces collapsed."""
        end = self.original.find("]", at)
        if end < 0:
            raise RuleError(
                "notation_unclosed",
                f"the [ at character {at + 1} is never closed: add ]",
                expression=self.original.strip(),
                position=len(self.original.rstrip()) + 1,
                opened=at + 1,
                bracket="[",
                closing="]",
                suggestion=self._suggest(self.original.strip() + "]" + self.closings()),
            )
        label = " ".join(self.original[at + 1 : end].split())
        if len(label) > MAX_LABEL or not label or "[" in label:
            raise RuleError(
                "notation_label",
                f"a label has 1 to {MAX_LABEL} characters, got {len(label)}",
                position=at + 1,
                length=len(label),
                max=MAX_LABEL,
            )
        self.pos = end + 1
        return label

    def _checked_explosion(self, term: DiceTerm, trigger: Compare | None, at: int) -> DiceTerm:
        """The term with its trigger (none where it is the highest face alone: the plain
        explosion), refused where it matches no face, or where every face a die may keep
        explodes (only the caps would end the chain)."""
        faces = range(term.low, term.high + 1)
        written = ("!!" if term.compound else "!") + (trigger.text(False) if trigger else "")
        exploding = [f for f in faces if trigger.matches(f)] if trigger else [term.high]
        if not exploding:
            raise RuleError(
                "notation_explode_none",
                f"{written} matches no face of the die: nothing would explode",
                position=at + 1,
                explode=written,
            )
        stays = faces
        if term.reroll is not None and not term.reroll_once:
            stays = [f for f in faces if not term.reroll.matches(f)]
        if all(f in exploding for f in stays):
            raise RuleError(
                "notation_explode_all",
                f"{written} explodes on every face a die keeps: the chain would never end",
                position=at + 1,
                explode=written,
            )
        if exploding == [term.high]:
            trigger = None
        return _replace(term, explode_on=trigger)

    def unexpected(self) -> RuleError:
        """The refusal of the character at `self.pos`, with what was most likely meant."""
        self.peek()
        pos = self.pos
        c = self.text[pos] if pos < len(self.text) else ""
        if not c:
            return self.incomplete()
        original = self.original
        if c in CHARACTER_NAMES or not (c.isascii() and c.isprintable()):
            fixed = original[:pos] + " " + original[pos + 1 :] if c in CHARACTER_NAMES else ""
            return self.error(pos, "whitespace" if fixed else "", self._suggest(fixed))
        if c.isalpha():
            return self._unexpected_word(pos)
        if c == ",":
            return self._unexpected_comma(pos)
        if c == ".":
            return self.error(pos, "decimal")
        if c == "%":
            return self.error(pos, "modulo")
        if c == "!":
            return self.error(pos, "not_equal" if self.at(1) == "=" else "explode_dice")
        if c in ("<", ">", "="):
            if self.text[pos : pos + 2] in ("<>", "!="):
                return self.error(pos, "not_equal")
            return self.error(pos, "compare_total")
        if c in (")", "}", "]"):
            if c == ")" and self.opened and self.original[self.opened[-1]] == "{":
                return self.error(
                    pos, "unopened", self._suggest(original[:pos] + "}" + original[pos + 1 :])
                )
            return self.error(pos, "unopened")
        if c == "[":
            return self.error(pos, "word")
        if _isdigit(c) or c in ("(", "{") or c in ("d", "k"):
            return self.error(
                pos, "operator", self._suggest(original[:pos].rstrip() + " + " + original[pos:])
            )
        return self.error(pos)

    def _unexpected_word(self, pos: int) -> RuleError:
        """The refusal of the letters at `pos`: another roller's spelling, else a word (a
        label, where one standing apart would read in brackets)."""
        original = self.original
        end = pos
        while end < len(self.text) and self.text[end].isalpha():
            end += 1
        word = original[pos:end]
        lower = word.lower()
        if lower == "x":
            return self.error(
                pos, "multiplication", self._suggest(original[:pos] + "*" + original[end:])
            )
        if lower == "e" or (lower.startswith("e") and len(lower) <= 2):
            return self.error(pos, "explode")
        if lower in ("h", "l"):
            return self.error(pos, "keep")
        if lower.startswith("p") and len(lower) <= 2:
            return self.error(pos, "drop")
        rest = (original[:pos] + original[end:]).strip()
        candidate = ""
        # Only a word standing apart is a label: one glued to the dice may be a modifier
        # of another roller (`2d6max3`, `1d8cf<4`), and taking it out would glue what is
        # left into something else (a d63, a success count).
        apart = (pos == 0 or self.text[pos - 1] == " ") and self.text[end : end + 1] in (
            "",
            " ",
        )
        if rest and apart:
            candidate = self._suggest(f"{rest}[{word}]")
        return self.error(pos, "word", candidate, found=word)

    def _unexpected_comma(self, pos: int) -> RuleError:
        """A comma: a decimal one, one between the parts of a group in ( ), or a stray."""
        before = self.text[pos - 1] if pos else ""
        after = self.at(1)
        if _isdigit(before) and _isdigit(after):
            return self.error(pos, "decimal")
        if self.opened and self.original[self.opened[-1]] == "(":
            return self.error(pos, "comma", self._braced(self.opened[-1]))
        return self.error(pos, "comma")

    def _braced(self, opened: int) -> str:
        """The text with the ( at `opened` and its ) as braces, if that reads."""
        depth = 0
        for index in range(opened, len(self.text)):
            if self.text[index] == "(":
                depth += 1
            elif self.text[index] == ")":
                depth -= 1
                if depth == 0:
                    o = self.original
                    return self._suggest(
                        o[:opened] + "{" + o[opened + 1 : index] + "}" + o[index + 1 :]
                    )
        return ""


def _isdigit(character: str) -> bool:
    return len(character) == 1 and "0" <= character <= "9"


def _replace(term: DiceTerm, **changes) -> DiceTerm:
    from dataclasses import replace

    return replace(term, **changes)


def _check_selection(name: str, n: int, count: int, what: str, faces: int | None = None) -> None:
    keeps = name.startswith("k")
    most = count if keeps else count - 1
    if not 1 <= n <= most:
        shown = f"{count}d{faces}" if faces is not None else f"{count} {what}"
        raise RuleError(
            "notation_selection",
            f"{name}{n} on {shown}: {SELECTIONS[name]} 1 to {most} of {count} {what}"
            if most >= 1
            else f"{name}{n} on {shown}: one cannot be dropped from",
            selection=name,
            selection_count=n,
            count=count,
            most=most,
        )


def _check_dice(count: int, faces: int, fate: bool) -> None:
    if count < 1:
        raise RuleError(
            "notation_no_dice", f"{count}d{faces} rolls no dice", expression=f"{count}d{faces}"
        )
    if not fate and not MIN_FACES <= faces <= MAX_FACES:
        raise RuleError(
            "notation_faces",
            f"a die has {MIN_FACES} to {MAX_FACES} faces, got {faces}",
            faces=faces,
            min=MIN_FACES,
            max=MAX_FACES,
        )


def _with_reroll(term: DiceTerm, compare: Compare, is_once: bool, at: int) -> DiceTerm:
    """The term rerolling what matches `compare`, refused where that is every face."""
    matching = [f for f in range(term.low, term.high + 1) if compare.matches(f)]
    if len(matching) == term.high - term.low + 1:
        raise RuleError(
            "notation_reroll_all",
            f"{compare.text(True)} matches every face of the die: nothing would stay",
            position=at + 1,
            reroll=("ro" if is_once else "r") + compare.text(True),
        )
    return _replace(term, reroll=compare, reroll_once=is_once)


def _with_selection(term: DiceTerm, name: str, n: int, start: int) -> DiceTerm:
    """The term keeping/dropping `n` of its dice, refused next to a success count."""
    if term.success:
        raise RuleError(
            "notation_selection_success",
            "keep/drop and a success count cannot be combined on the same dice",
            position=start + 1,
        )
    _check_selection(name, n, term.count, "dice", faces=term.faces)
    return _replace(term, selection=name, selection_count=n)


def _negated(term: Term) -> Term:
    return _replace(term, sign=-term.sign)  # type: ignore[arg-type]


def parse_notation(text: object, version: int | None = None) -> Notation:
    """A checked `Notation` (read in the current version unless told), or `RuleError` with
    the reason (nothing is rolled)."""
    return Notation(text, VERSION if version is None else version)


def parse_test(kind: str, data: Mapping[str, Any]) -> Notation:
    """The `systems` entry point: `{"expression": "2d6+3", "version": 2}` as the ledger
    stores it (a roll stored without a version was read in version 1)."""
    if kind != TEST:
        raise RuleError(
            "unknown_test", f"{SYSTEM} has no {kind!r} test", system=SYSTEM, test=str(kind)
        )
    expression = read(data, "expression")
    version = data.get("version", 1)
    if type(version) is not int:
        raise RuleError(
            "invalid_input",
            f"the notation's version is a whole number, not {version!r}",
            field="version",
            expected="integer",
        )
    return parse_notation(expression, version)


# ---------------------------------------------------------------------------
# Rolling


@dataclass(frozen=True)
class Die:
    """One die as it fell: `exploded` if it added the next die, `extra` if an explosion
    added it, `capped` if it showed the highest face but its chain had reached the cap;
    `rerolled` if a reroll replaced it (it never counts), `success`/`failure` for a count."""

    face: int
    kept: bool
    exploded: bool = False
    extra: bool = False
    capped: bool = False
    rerolled: bool | None = None  # None: the term has no reroll (the key is left out)
    success: bool | None = None  # None: the term counts no successes
    failure: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "face": self.face,
            "kept": self.kept,
            "exploded": self.exploded,
            "extra": self.extra,
            "capped": self.capped,
        }
        if self.rerolled is not None:
            data["rerolled"] = self.rerolled
        if self.success is not None:
            data["success"] = self.success
        if self.failure is not None:
            data["failure"] = self.failure
        return data


@dataclass(frozen=True)
class TermResult:
    term: Term
    dice: tuple[Die, ...] = ()
    parts: tuple[tuple[TermResult, ...], ...] = ()  # a product's factors, a group's items
    kept_parts: tuple[bool, ...] = ()
    value: int = 0  # the unsigned value (dice terms: the kept dice or the count)

    @property
    def subtotal(self) -> int:
        """The term's contribution to the total, sign included."""
        return self.term.sign * self.value

    def to_dict(self) -> dict[str, Any]:
        data = self.term.to_dict()
        if isinstance(self.term, DiceTerm):
            data["dice"] = [die.to_dict() for die in self.dice]
        elif isinstance(self.term, ProductTerm):
            data["factors"] = [_part_dict(part) for part in self.parts]
        elif isinstance(self.term, GroupTerm):
            data["items"] = [
                {**_part_dict(part), "kept": kept}
                for part, kept in zip(self.parts, self.kept_parts, strict=True)
            ]
        data["subtotal"] = self.subtotal
        return data


def _part_dict(part: tuple[TermResult, ...]) -> dict[str, Any]:
    return {"terms": [t.to_dict() for t in part], "total": sum(t.subtotal for t in part)}


@dataclass(frozen=True)
class NotationResult:
    notation: Notation
    terms: tuple[TermResult, ...]

    @property
    def total(self) -> int:
        return sum(term.subtotal for term in self.terms)

    @property
    def faces(self) -> list[int]:
        """Every face in rolling order (the ledger's `dice`)."""
        return [die.face for term in _walk_results(self.terms) for die in term.dice]

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": SYSTEM,
            "test": TEST,
            "input": self.notation.to_input(),
            "notation": self.notation.canonical,
            "dice": self.faces,
            "terms": [term.to_dict() for term in self.terms],
            "total": self.total,
        }


def _walk_results(results) -> list[TermResult]:
    out: list[TermResult] = []
    for result in results:
        out.append(result)
        for part in result.parts:
            out.extend(_walk_results(part))
    return out


def _draw(term: DiceTerm, dice: DiceSource, fallen: list[dict]) -> int:
    """One face, rerolled as the term says; each replaced face is noted as a rerolled die."""
    face = dice.roll(term.low, term.high)
    if term.reroll is not None:
        times = 1 if term.reroll_once else REROLL_CAP
        while term.reroll.matches(face) and times > 0:
            fallen.append({"face": face, "rerolled": True})
            face = dice.roll(term.low, term.high)
            times -= 1
    return face


def _roll_dice(term: DiceTerm, dice: DiceSource) -> tuple[tuple[Die, ...], int]:
    """Each die, its rerolls and its explosion chain, in rolling order; then keep/drop and
    the success count over the term's units (a die, or a compounded chain)."""
    fallen: list[dict] = []
    units: list[list[int]] = []  # indices into fallen of each unit's counted faces
    for _ in range(term.count):
        chain: list[int] = []
        face, extra, added = _draw(term, dice, fallen), False, 0
        while term.explode and term.explodes(face) and added < EXPLOSION_CAP:
            fallen.append({"face": face, "exploded": True, "extra": extra})
            chain.append(len(fallen) - 1)
            face, extra, added = _draw(term, dice, fallen), True, added + 1
        capped = term.explode and term.explodes(face)
        fallen.append({"face": face, "extra": extra, "capped": capped})
        chain.append(len(fallen) - 1)
        if term.compound:
            units.append(chain)
        else:
            units.extend([index] for index in chain)
    values = [sum(fallen[i]["face"] for i in unit) for unit in units]
    kept_units = _kept_indices(term.selection, term.selection_count, values)
    kept_faces = {i for u in kept_units for i in units[u]}
    outcome: dict[int, tuple[bool, bool]] = {}
    value = 0
    for u, unit in enumerate(units):
        if term.success is not None:
            success = term.success.matches(values[u])
            failure = term.failure is not None and term.failure.matches(values[u]) and not success
            outcome[unit[-1]] = (success, failure)
            value += int(success) - int(failure)
        elif u in kept_units:
            value += values[u]
    result = []
    for index, die in enumerate(fallen):
        rerolled = die.get("rerolled", False)
        success, failure = outcome.get(index, (False, False))
        result.append(
            Die(
                face=die["face"],
                kept=index in kept_faces and not rerolled,
                exploded=die.get("exploded", False),
                extra=die.get("extra", False),
                capped=die.get("capped", False),
                rerolled=rerolled if term.reroll is not None else None,
                success=success if term.success is not None else None,
                failure=failure if term.success is not None else None,
            )
        )
    return tuple(result), value


def _kept_indices(selection: str | None, n: int | None, values: list[int]) -> set[int]:
    """Ties go to the one rolled first (which of two equal values counts never changes a sum)."""
    every = set(range(len(values)))
    if selection is None or n is None:
        return every
    highest_first = sorted(every, key=lambda i: (-values[i], i))
    lowest_first = sorted(every, key=lambda i: (values[i], i))
    if selection == "kh":
        return set(highest_first[:n])
    if selection == "kl":
        return set(lowest_first[:n])
    if selection == "dh":
        return every - set(highest_first[:n])
    return every - set(lowest_first[:n])  # dl


def _roll_terms(terms, dice: DiceSource) -> tuple[TermResult, ...]:
    return tuple(_roll_term(term, dice) for term in terms)


def _roll_term(term: Term, dice: DiceSource) -> TermResult:
    if isinstance(term, ConstantTerm):
        return TermResult(term, value=term.value)
    if isinstance(term, DiceTerm):
        rolled, value = _roll_dice(term, dice)
        return TermResult(term, rolled, value=value)
    if isinstance(term, ProductTerm):
        parts = tuple(_roll_terms(factor, dice) for factor in term.factors)
        totals = [sum(t.subtotal for t in part) for part in parts]
        value = totals[0]
        for op, other in zip(term.ops, totals[1:], strict=True):
            value = value * other if op == "*" else value // other
        return TermResult(term, parts=parts, value=value)
    parts = tuple(_roll_terms(item, dice) for item in term.items)
    totals = [sum(t.subtotal for t in part) for part in parts]
    kept = _kept_indices(term.selection, term.selection_count, totals)
    return TermResult(
        term,
        parts=parts,
        kept_parts=tuple(i in kept for i in range(len(parts))),
        value=sum(totals[i] for i in kept),
    )


def roll_notation(notation: Notation, dice: DiceSource) -> NotationResult:
    """Every die drawn from `dice`, term by term, left to right (nested terms in order)."""
    return NotationResult(notation=notation, terms=_roll_terms(notation.terms, dice))


def roll(test: Notation, dice: DiceSource) -> NotationResult:
    """The `systems` entry point."""
    return roll_notation(test, dice)


def probability(test: Notation) -> Fraction:
    """A free-form roll has no success to be likely (its whole distribution is
    `exact_odds`): refused like forum1000 initiative."""
    raise RuleError(
        "no_probability", f"a {SYSTEM} {TEST} roll has no success probability", test=TEST
    )


# ---------------------------------------------------------------------------
# Exact odds: distributions as {value: integer weight} over a common integer total,
# combined by convolution; Fractions only at the end.


class OddsTooLarge(RuleError):
    """The exact distribution would take more than ODDS_WORK_LIMIT steps."""


@dataclass(frozen=True)
class Odds:
    """The exact distribution of a notation's total."""

    weights: dict[int, int]
    total_weight: int

    def chance(self, value: int) -> Fraction:
        return Fraction(self.weights.get(value, 0), self.total_weight)

    @property
    def distribution(self) -> dict[int, Fraction]:
        return {v: Fraction(w, self.total_weight) for v, w in sorted(self.weights.items())}

    @property
    def mean(self) -> Fraction:
        return Fraction(sum(v * w for v, w in self.weights.items()), self.total_weight)

    @property
    def low(self) -> int:
        return min(self.weights)

    @property
    def high(self) -> int:
        return max(self.weights)

    def at_least(self, target: int) -> Fraction:
        return Fraction(sum(w for v, w in self.weights.items() if v >= target), self.total_weight)

    def to_dict(self) -> dict[str, str]:
        """Each total's chance as a fraction string (conformance vectors)."""
        return {str(v): _fraction_text(p) for v, p in self.distribution.items()}


def _fraction_text(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


Dist = tuple[dict[int, int], int]  # weights and their total


class _Budget:
    def __init__(self, limit: int) -> None:
        self.left = limit

    def spend(self, steps: int) -> None:
        self.left -= steps
        if self.left < 0:
            raise OddsTooLarge(
                "odds_too_large",
                f"the exact odds of this expression take more than {ODDS_WORK_LIMIT} steps",
                limit=ODDS_WORK_LIMIT,
            )


def _convolve(a: Dist, b: Dist, budget: _Budget, op=None) -> Dist:
    """The distribution of `op(x, y)` (default: the sum) of independent `x` from `a`, `y`
    from `b`."""
    if op is None and _dense(a[0]) and _dense(b[0]):
        return _convolve_packed(a, b, budget)
    budget.spend(len(a[0]) * len(b[0]))
    out: dict[int, int] = {}
    for x, wx in a[0].items():
        for y, wy in b[0].items():
            v = x + y if op is None else op(x, y)
            out[v] = out.get(v, 0) + wx * wy
    return out, a[1] * b[1]


def _dense(weights: dict[int, int]) -> bool:
    return len(weights) >= 8 and max(weights) - min(weights) < 4 * len(weights)


def _convolve_packed(a: Dist, b: Dist, budget: _Budget) -> Dist:
    """A sum's distribution by one big-integer product (Kronecker substitution): each
    weight in a slot wide enough for any weight of the result (at most the product of the
    totals), so the slots never carry into each other."""
    low_a, low_b = min(a[0]), min(b[0])
    span_a = max(a[0]) - low_a + 1
    span_b = max(b[0]) - low_b + 1
    span = span_a + span_b - 1
    width = (a[1] * b[1]).bit_length() // 8 + 1  # bytes per slot
    budget.spend((span_a + span_b + span) * (3 + width // 8))

    def packed(weights: dict[int, int], low: int, size: int) -> int:
        buffer = bytearray(size * width)
        for v, w in weights.items():
            at = (v - low) * width
            buffer[at : at + width] = w.to_bytes(width, "little")
        return int.from_bytes(buffer, "little")

    product = packed(a[0], low_a, span_a) * packed(b[0], low_b, span_b)
    raw = product.to_bytes(span * width, "little")
    out: dict[int, int] = {}
    for index in range(span):
        w = int.from_bytes(raw[index * width : (index + 1) * width], "little")
        if w:
            out[low_a + low_b + index] = w
    return out, a[1] * b[1]


def _power(d: Dist, n: int, budget: _Budget) -> Dist:
    """The sum of `n` independent values from `d`, by repeated squaring."""
    # Said before any work: the last squaring alone handles the whole span of the sum.
    if n > 1:
        budget.spend((max(d[0]) - min(d[0])) * n * 3)
    result: Dist = ({0: 1}, 1)
    base = d
    while n:
        if n & 1:
            result = _convolve(result, base, budget)
        n >>= 1
        if n:
            base = _convolve(base, base, budget)
    return result


def _mapped(d: Dist, fn) -> Dist:
    out: dict[int, int] = {}
    for v, w in d[0].items():
        key = fn(v)
        out[key] = out.get(key, 0) + w
    return out, d[1]


def _draw_dist(term: DiceTerm) -> Dist:
    """One draw with the term's rerolls: faces not matching carry Σ s^i·M^(R−i), matching
    ones s^R (the die kept after the last reroll), over M^(R+1)."""
    faces = range(term.low, term.high + 1)
    m = len(faces)
    if term.reroll is None:
        return dict.fromkeys(faces, 1), m
    cap = 1 if term.reroll_once else REROLL_CAP
    matching = [f for f in faces if term.reroll.matches(f)]
    s = len(matching)
    stays = sum(s**i * m ** (cap - i) for i in range(cap + 1))
    return {f: (s**cap if f in matching else stays) for f in faces}, m ** (cap + 1)


def _chain_dist(term: DiceTerm, value_of) -> Dist:
    """One written die with its explosion chain: `value_of(k, v)` of a chain of `k`
    highest faces then `v` (a capped chain: k = EXPLOSION_CAP and v the highest face)."""
    draw, total = _draw_dist(term)
    if not term.explode:
        return _mapped((draw, total), lambda v: value_of(0, v))
    h = term.high
    out: dict[int, int] = {}
    for k in range(EXPLOSION_CAP + 1):
        scale = draw[h] ** k * total ** (EXPLOSION_CAP - k)
        for v, w in draw.items():
            if v == h and k < EXPLOSION_CAP:
                continue
            key = value_of(k, v)
            out[key] = out.get(key, 0) + scale * w
    return out, total ** (EXPLOSION_CAP + 1)


def _keep_extreme(d: Dist, count: int, keep: int, highest: bool, budget: _Budget) -> Dist:
    """The sum of the `keep` highest (or lowest) of `count` independent values from `d`."""
    if keep <= 0:
        return {0: d[1] ** count}, d[1] ** count
    values = sorted(d[0], reverse=highest)
    states: dict[tuple[int, int], int] = {(0, 0): 1}  # (values placed, kept sum) → weight
    done: dict[int, int] = {}
    rest = d[1]
    for v in values:
        w = d[0][v]
        rest -= w
        nxt: dict[tuple[int, int], int] = {}
        for (placed, kept_sum), weight in states.items():
            left = count - placed
            budget.spend((left + 1) * KEEP_STEP_COST)
            for c in range(left + 1):
                new_placed = placed + c
                add = (min(new_placed, keep) - min(placed, keep)) * v
                key = (new_placed, kept_sum + add)
                nxt[key] = nxt.get(key, 0) + weight * math.comb(left, c) * w**c
        states = {}
        for (placed, kept_sum), weight in nxt.items():
            if placed >= keep:  # the rest fall below: any of the remaining values
                final = weight * rest ** (count - placed)
                if final:
                    done[kept_sum] = done.get(kept_sum, 0) + final
            else:
                states[(placed, kept_sum)] = weight
    return done, d[1] ** count


def _triggered_chain_dist(term: DiceTerm, face_value, budget: _Budget) -> Dist:
    """One written die with its explosion chain when a trigger says which faces explode:
    the sum of `face_value` over the chain's faces (k exploding faces, then one that does not
    explode, or after EXPLOSION_CAP of them any face, the chain capped)."""
    draw, total = _draw_dist(term)
    exploding: dict[int, int] = {}
    stopping: dict[int, int] = {}
    every: dict[int, int] = {}
    for face, weight in draw.items():
        value = face_value(face)
        side = exploding if term.explodes(face) else stopping
        side[value] = side.get(value, 0) + weight
        every[value] = every.get(value, 0) + weight
    out: dict[int, int] = {}
    chain: Dist = ({0: 1}, 1)  # the sum of the k exploding faces so far
    for k in range(EXPLOSION_CAP + 1):
        last = (every, total) if k == EXPLOSION_CAP else (stopping, total)
        ended = _convolve(chain, last, budget)[0]
        scale = total ** (EXPLOSION_CAP - k)
        for value, weight in ended.items():
            out[value] = out.get(value, 0) + weight * scale
        if k < EXPLOSION_CAP:
            chain = _convolve(chain, (exploding, total), budget)
    return out, total ** (EXPLOSION_CAP + 1)


def _keep_mixed(groups, keep: int, highest: bool, budget: _Budget) -> Dist:
    """The sum of the `keep` highest (or lowest) of independent values: `count` of them
    from each group's distribution (`groups`: (weights, their total, count)); as
    `_keep_extreme`, a state closes once its kept values are placed."""
    every = math.prod(group_total**count for _, group_total, count in groups)
    if keep <= 0:
        return {0: every}, every
    counts = [count for _, _, count in groups]
    rests = [group_total for _, group_total, _ in groups]
    values = sorted(set().union(*(weights for weights, _, _ in groups)), reverse=highest)
    states: dict[tuple[tuple[int, ...], int], int] = {((0,) * len(groups), 0): 1}
    done: dict[int, int] = {}
    for v in values:
        at_v = [weights.get(v, 0) for weights, _, _ in groups]
        rests = [rest - w for rest, w in zip(rests, at_v, strict=True)]
        nxt: dict[tuple[tuple[int, ...], int], int] = {}
        for (placed, kept_sum), weight in states.items():
            choices = [
                range(count - p + 1) if w else (0,)
                for count, p, w in zip(counts, placed, at_v, strict=True)
            ]
            budget.spend(math.prod(len(c) for c in choices) * MIXED_KEEP_STEP_COST)
            for chosen in itertools.product(*choices):
                w_new = weight
                for count, p, w, c in zip(counts, placed, at_v, chosen, strict=True):
                    if c:
                        w_new *= math.comb(count - p, c) * w**c
                before = sum(placed)
                add = (min(before + sum(chosen), keep) - min(before, keep)) * v
                key = (tuple(p + c for p, c in zip(placed, chosen, strict=True)), kept_sum + add)
                nxt[key] = nxt.get(key, 0) + w_new
        states = {}
        for (placed, kept_sum), weight in nxt.items():
            if sum(placed) >= keep:  # the rest fall below: any of the remaining values
                final = weight * math.prod(
                    rest ** (count - p)
                    for rest, count, p in zip(rests, counts, placed, strict=True)
                )
                if final:
                    done[kept_sum] = done.get(kept_sum, 0) + final
            else:
                states[(placed, kept_sum)] = weight
    return done, every


def _joint_chains(per_die: dict[tuple[int, int], int], count: int, budget) -> dict:
    """`count` dice's chains together: (faces drawn, dice that stopped) → weight, one die's
    `per_die` convolved `count` times, each step paid for from the odds' work budget."""
    joint: dict[tuple[int, int], int] = {(0, 0): 1}
    for _ in range(count):
        budget.spend(len(joint) * len(per_die) * KEEP_STEP_COST)
        nxt: dict[tuple[int, int], int] = {}
        for (t, kk), w in joint.items():
            for (dt, dk), dw in per_die.items():
                key = (t + dt, kk + dk)
                nxt[key] = nxt.get(key, 0) + w * dw
        joint = nxt
    return joint


def _triggered_keep_dist(term: DiceTerm, n: int, budget: _Budget) -> Dist:
    """Keep/drop over exploding dice with a trigger: as for the highest face, the number of
    exploding faces (T) and of dice ending on a face that does not explode (K), then the
    kept values among T faces from the exploding ones and K from the others."""
    draw, total = _draw_dist(term)
    exploding = {f: w for f, w in draw.items() if term.explodes(f)}
    stopping = {f: w for f, w in draw.items() if not term.explodes(f)}
    q = sum(exploding.values())
    # Each die: k exploding faces then a stopping one (its weights come with the faces'),
    # or a capped chain of EXPLOSION_CAP + 1 exploding faces.
    per_die = {(k, 1): total ** (EXPLOSION_CAP - k) for k in range(EXPLOSION_CAP + 1)}
    per_die[(EXPLOSION_CAP + 1, 0)] = 1
    joint = _joint_chains(per_die, term.count, budget)
    # Where every exploding face is above every other (`!>=5`) or below (`!<=2`), the kept
    # values come from one side first: two plain keeps, each worked out once per size.
    apart = max(stopping) < min(exploding) or max(exploding) < min(stopping)
    kept_of: dict[tuple[bool, int, int, bool], Dist] = {}

    def kept_side(side_exploding: bool, count: int, keep: int, highest: bool) -> Dist:
        key = (side_exploding, count, keep, highest)
        if key not in kept_of:
            side = (exploding, q) if side_exploding else (stopping, total - q)
            if keep >= count:
                kept_of[key] = _power(side, count, budget)
            else:
                kept_of[key] = _keep_extreme(side, count, keep, highest, budget)
        return kept_of[key]

    out: dict[int, int] = {}
    for (t, kk), w in joint.items():
        keep, highest = _keep_rule(term.selection, n, t + kk)
        if apart:
            first_exploding = (max(exploding) > max(stopping)) == highest
            first_count, second_count = (t, kk) if first_exploding else (kk, t)
            from_first = min(keep, first_count)
            kept = _convolve(
                kept_side(first_exploding, first_count, from_first, highest),
                kept_side(not first_exploding, second_count, keep - from_first, highest),
                budget,
            )
        else:
            groups = [(exploding, q, t), (stopping, total - q, kk)]
            kept = _keep_mixed(groups, keep, highest, budget)
        for v, fw in kept[0].items():
            out[v] = out.get(v, 0) + w * fw
    return out, total ** ((EXPLOSION_CAP + 1) * term.count)


def _keep_rule(selection: str, n: int, pool: int) -> tuple[int, bool]:
    """(how many are kept, from the highest?) for a pool of `pool`."""
    if selection == "kh":
        return min(n, pool), True
    if selection == "kl":
        return min(n, pool), False
    if selection == "dh":
        return max(pool - n, 0), False
    return max(pool - n, 0), True  # dl


def _dice_dist(term: DiceTerm, budget: _Budget) -> Dist:
    if term.explode and term.explode_on is not None:
        return _triggered_dice_dist(term, budget)
    h = term.high
    if term.success is not None:
        counted = _counted(term)
        if term.compound:
            unit = _chain_dist(term, lambda k, v: counted(k * h + v))
        else:
            unit = _chain_dist(term, lambda k, v: k * counted(h) + counted(v))
        return _power(unit, term.count, budget)
    if term.selection is None:
        return _power(_chain_dist(term, lambda k, v: k * h + v), term.count, budget)
    n = term.selection_count or 0
    if not term.explode or term.compound:
        unit = _chain_dist(term, lambda k, v: k * h + v)
        keep, highest = _keep_rule(term.selection, n, term.count)
        return _keep_extreme(unit, term.count, keep, highest, budget)
    # Exploding dice join the pool: a die is k highest faces then a lower final face (or a
    # capped chain of highest faces only). Count the highest faces (T) and the dice with a
    # lower final (K); the finals are independent draws below the highest face.
    draw, total = _draw_dist(term)
    q = draw[h]
    lower = {v: w for v, w in draw.items() if v != h}
    lower_total = total - q
    per_die: dict[tuple[int, int], int] = {}
    for k in range(EXPLOSION_CAP + 1):
        per_die[(k, 1)] = q**k * total ** (EXPLOSION_CAP - k)
    per_die[(EXPLOSION_CAP + 1, 0)] = q ** (EXPLOSION_CAP + 1)
    joint = _joint_chains(per_die, term.count, budget)
    scale_total = total ** ((EXPLOSION_CAP + 1) * term.count)
    out: dict[int, int] = {}
    for (t, kk), w in joint.items():
        if not w:
            continue
        keep, highest = _keep_rule(term.selection, n, t + kk)
        if highest:
            from_high = min(keep, t)
            finals = _keep_extreme((lower, lower_total), kk, keep - from_high, True, budget)
        else:
            from_low = min(keep, kk)
            from_high = keep - from_low
            finals = _keep_extreme((lower, lower_total), kk, from_low, False, budget)
        # `w` leaves each lower final's weight out: `finals` brings it, spread by value.
        for v, fw in finals[0].items():
            key = v + from_high * h
            out[key] = out.get(key, 0) + w * fw
        budget.spend(len(finals[0]))
    return out, scale_total


def _counted(term: DiceTerm):
    """What a unit of a success count adds: 1 a success, −1 a failure, else 0."""
    s, f = term.success, term.failure

    def counted(v: int) -> int:
        hit = s.matches(v)
        return int(hit) - int(f is not None and not hit and f.matches(v))

    return counted


def _triggered_dice_dist(term: DiceTerm, budget: _Budget) -> Dist:
    if term.success is not None:
        counted = _counted(term)
        if term.compound:
            unit = _mapped(_triggered_chain_dist(term, lambda v: v, budget), counted)
        else:
            unit = _triggered_chain_dist(term, counted, budget)
        return _power(unit, term.count, budget)
    if term.selection is None:
        return _power(_triggered_chain_dist(term, lambda v: v, budget), term.count, budget)
    n = term.selection_count or 0
    if term.compound:
        unit = _triggered_chain_dist(term, lambda v: v, budget)
        keep, highest = _keep_rule(term.selection, n, term.count)
        return _keep_extreme(unit, term.count, keep, highest, budget)
    return _triggered_keep_dist(term, n, budget)


def _sum_dist(terms, budget: _Budget) -> Dist:
    result: Dist = ({0: 1}, 1)
    for term in terms:
        result = _convolve(result, _term_dist(term, budget), budget)
    return result


def _group_dist(term: GroupTerm, budget: _Budget) -> Dist:
    items = [_sum_dist(item, budget) for item in term.items]
    if term.selection is None:
        result: Dist = ({0: 1}, 1)
        for item in items:
            result = _convolve(result, item, budget)
        return result
    keep, highest = _keep_rule(term.selection, term.selection_count or 0, len(items))
    # State: the best `keep` values so far, sorted (a tuple), and its weight.
    states: dict[tuple[int, ...], int] = {(): 1}
    total = 1
    for weights, item_total in items:
        budget.spend(len(states) * len(weights))
        nxt: dict[tuple[int, ...], int] = {}
        for best, w in states.items():
            for v, wv in weights.items():
                merged = sorted((*best, v), reverse=highest)[:keep]
                key = tuple(merged)
                nxt[key] = nxt.get(key, 0) + w * wv
        states, total = nxt, total * item_total
    out: dict[int, int] = {}
    for best, w in states.items():
        out[sum(best)] = out.get(sum(best), 0) + w
    return out, total


def _term_dist(term: Term, budget: _Budget) -> Dist:
    if isinstance(term, ConstantTerm):
        d: Dist = ({term.value: 1}, 1)
    elif isinstance(term, DiceTerm):
        d = _dice_dist(term, budget)
    elif isinstance(term, GroupTerm):
        d = _group_dist(term, budget)
    else:
        d = _sum_dist(term.factors[0], budget)
        for op, factor in zip(term.ops, term.factors[1:], strict=True):
            if op == "/":
                divisor = factor[0].value  # a positive constant (the parser's rule)
                d = _mapped(d, lambda v, c=divisor: v // c)
            else:
                d = _convolve(d, _sum_dist(factor, budget), budget, op=lambda x, y: x * y)
    if term.sign < 0:
        d = _mapped(d, lambda v: -v)
    return d


def distribution(test: Notation) -> dict[str, str]:
    """The conformance runner's entry point: each total's exact chance, as fraction text."""
    return exact_odds(test).to_dict()


def exact_odds(notation: Notation, limit: int = ODDS_WORK_LIMIT) -> Odds:
    """The exact distribution of the total (explosions and rerolls up to their caps), or
    `OddsTooLarge` past `limit` steps."""
    weights, total = _sum_dist(notation.terms, _Budget(limit))
    weights = {v: w for v, w in weights.items() if w}
    divisor = math.gcd(total, *weights.values())
    return Odds({v: w // divisor for v, w in weights.items()}, total // divisor)


# ---------------------------------------------------------------------------
# The range: lowest and highest total, explosions and compounding up to their cap


def _kept(selection: str | None, n: int | None, pool: int) -> int:
    if selection is None or n is None:
        return pool
    return _keep_rule(selection, n, pool)[0]


def _dice_range(term: DiceTerm) -> tuple[int, int]:
    if term.explode and not term.compound:
        return _exploding_range(term)
    if term.success is not None:
        return (-term.count if term.failure is not None else 0), term.count
    faces = range(term.low, term.high + 1)
    unit_low, unit_high = term.low, term.high
    if term.compound:
        # A chain: exploding faces, then one that stops it (or, capped, any face).
        exploding = [f for f in faces if term.explodes(f)]
        stopping = min(f for f in faces if not term.explodes(f))
        unit_low = min(stopping, EXPLOSION_CAP * min(exploding) + term.low)
        unit_high = EXPLOSION_CAP * max(exploding) + term.high
    kept = _kept(term.selection, term.selection_count, term.count)
    return kept * unit_low, kept * unit_high


def _exploding_range(term: DiceTerm) -> tuple[int, int]:
    """Exploding dice, each face a unit: the extremes over how many chains are capped (c)
    and how many exploding faces there are (T, at either end of what c allows: a kept sum
    only grows or only shrinks with T, the faces being positive), each face at its extreme
    (a success count: its extreme count)."""
    faces = range(term.low, term.high + 1)
    value = _counted(term) if term.success is not None else (lambda v: v)
    exploding = [value(f) for f in faces if term.explodes(f)]
    stopping = [value(f) for f in faces if not term.explodes(f)]
    every = [value(f) for f in faces]
    cap, count = EXPLOSION_CAP, term.count
    least = greatest = None
    for capped in range(count + 1):
        fewest = capped * cap
        for t in {fewest, fewest + (count - capped) * (cap - 1)}:
            for pick, better in ((min, lambda a, b: a < b), (max, lambda a, b: a > b)):
                units = [(pick(exploding), t), (pick(every), capped)]
                units.append((pick(stopping), count - capped))
                total = _kept_sum(term, units)
                if pick is min and (least is None or better(total, least)):
                    least = total
                if pick is max and (greatest is None or better(total, greatest)):
                    greatest = total
    return least, greatest


def _kept_sum(term: DiceTerm, units: list[tuple[int, int]]) -> int:
    """The sum of the units (value, how many) kept by the term's keep/drop."""
    pool = sum(n for _, n in units)
    if term.selection is None or term.selection_count is None:
        return sum(v * n for v, n in units)
    keep, highest = _keep_rule(term.selection, term.selection_count, pool)
    total = 0
    for v, n in sorted(units, reverse=highest):
        taken = min(n, keep)
        total, keep = total + taken * v, keep - taken
    return total


def _terms_range(terms) -> tuple[int, int]:
    low = high = 0
    for term in terms:
        least, greatest = _term_range(term)
        low, high = low + least, high + greatest
    return low, high


def _term_range(term: Term) -> tuple[int, int]:
    if isinstance(term, ConstantTerm):
        least = greatest = term.value
    elif isinstance(term, DiceTerm):
        least, greatest = _dice_range(term)
    elif isinstance(term, GroupTerm):
        spans = [_terms_range(item) for item in term.items]
        keep, highest = _keep_rule(term.selection or "kh", term.selection_count or 0, len(spans))
        if term.selection is None:
            keep, highest = len(spans), True
        lows = sorted((s[0] for s in spans), reverse=highest)[:keep]
        highs = sorted((s[1] for s in spans), reverse=highest)[:keep]
        least, greatest = sum(lows), sum(highs)
    else:
        least, greatest = _terms_range(term.factors[0])
        for op, factor in zip(term.ops, term.factors[1:], strict=True):
            if op == "/":
                divisor = factor[0].value
                least, greatest = least // divisor, greatest // divisor
            else:
                a, b = _terms_range(factor)
                corners = [least * a, least * b, greatest * a, greatest * b]
                least, greatest = min(corners), max(corners)
    if term.sign < 0:
        least, greatest = -greatest, -least
    return least, greatest


def value_range(notation: Notation) -> tuple[int, int]:
    """The lowest and highest total (exploding dice counted up to the engine's cap)."""
    return _terms_range(notation.terms)
