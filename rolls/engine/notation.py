"""Free-form rolls in dice notation: damage, random tables, encounters.

What the rules leave to the GM is rolled from an expression such as `2d6+3`,
`4d6kh3`, `1d6!` or `2k10-(1d4+1)` (Polish players write `k` for the die: `2k6`).
The grammar is parsed by lark (docs/decisions.md says why not a dice library); the
dice are drawn here, from the engine's `DiceSource`, so production rolls use the OS
CSPRNG and a stored roll replays from its faces like every other test.

    notation = parse_notation("4d6!kh3 + 2")      # RuleError for anything refused
    result = roll_notation(notation, SystemDice())  # result.to_dict() for the ledger

The language, and nothing more:

    NdM, dM, d%     N dice of M faces (N defaults to 1, % is 100); `k` may stand for `d`
    +K, -K          whole-number constants
    + and -         between terms, also a leading sign; parentheses group terms
    !               after the dice: every die showing its highest face adds one more die
                    (a chain stops after EXPLOSION_CAP extra dice)
    khN klN         after the dice (and after `!`): keep the N highest / lowest dice
    dhN dlN         drop the N highest / lowest dice

Everything else (multiplication, division, rerolls, success counts, decimals, sets,
comments) is refused with a reason before any die is rolled.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

from rolls.engine.common import read
from rolls.engine.dice import DiceSource
from rolls.engine.errors import RuleError

SYSTEM = "free"
TEST = "notation"

MAX_LENGTH = 100  # characters of one expression
MAX_DICE = 100  # dice written in one expression (explosions come on top, see below)
MIN_FACES = 2  # a d1 is no roll
MAX_FACES = 1000  # the largest die of the site (forum1000's d1000)
MAX_CONSTANT = 1000  # the largest constant term
EXPLOSION_CAP = 10  # extra dice one die may add by exploding
PERCENT_FACES = 100  # d% is a d100 (1..100)

SELECTIONS = {
    "kh": "keep the highest",
    "kl": "keep the lowest",
    "dh": "drop the highest",
    "dl": "drop the lowest",
}

# Tokens are case-insensitive (the text is lowercased before parsing); spaces may stand
# anywhere. LALR with lark's contextual lexer: after the faces only `!`,
# `kh`, `kl`, `dh`, `dl`, an operator or `)` can follow, so `dl` is never read as a die.
_GRAMMAR = r"""
    ?start: sum
    ?sum: signed
        | sum PLUS signed   -> add
        | sum MINUS signed  -> add
    ?signed: atom
        | PLUS signed       -> sign
        | MINUS signed      -> sign
    ?atom: dice
        | INT               -> constant
        | "(" sum ")"       -> group
    dice: INT? DIE FACES EXPLODE? selection?
    selection: SELECT INT
    FACES: /[0-9]+/ | "%"
    DIE: "d" | "k"
    EXPLODE: "!"
    SELECT: "kh" | "kl" | "dh" | "dl"
    PLUS: "+"
    MINUS: "-"
    INT: /[0-9]+/
    %ignore / +/
"""

# What a refused character most likely meant: a stable hint code (the web layer words
# it in Polish) and its English sentence.
HINTS = {
    "multiplication": "multiplication is not supported",
    "division": "division is not supported",
    "decimal": "only whole numbers",
    "reroll": "rerolls are not supported",
    "explode": "explode with ! after the dice",
    "keep": "keep with kh or kl and a count",
    "drop": "drop with dh or dl and a count",
    "comparison": "comparisons are not supported",
    "annotation": "annotations are not supported",
    "percent": "use d% or d100",
    "order": "after the dice at most one !, then at most one of kh, kl, dh, dl",
}
_HINT_OF = {
    "*": "multiplication",
    "x": "multiplication",
    "/": "division",
    ".": "decimal",
    ",": "decimal",
    "r": "reroll",
    "e": "explode",
    "k": "keep",
    "h": "keep",
    "l": "keep",
    "p": "drop",
    ">": "comparison",
    "=": "comparison",
    "[": "annotation",
    "%": "percent",
}


# ---------------------------------------------------------------------------
# The parsed expression


@dataclass(frozen=True)
class DiceTerm:
    """`count` dice of `faces` faces, exploding or not, with at most one keep/drop."""

    sign: int
    count: int
    faces: int
    explode: bool = False
    selection: str | None = None  # one of SELECTIONS
    selection_count: int | None = None

    def text(self) -> str:
        selection = f"{self.selection}{self.selection_count}" if self.selection else ""
        return f"{self.count}d{self.faces}{'!' if self.explode else ''}{selection}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "dice",
            "sign": self.sign,
            "count": self.count,
            "faces": self.faces,
            "explode": self.explode,
            "selection": self.selection,
            "selection_count": self.selection_count,
        }


@dataclass(frozen=True)
class ConstantTerm:
    sign: int
    value: int

    def text(self) -> str:
        return str(self.value)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "constant", "sign": self.sign, "value": self.value}


Term = DiceTerm | ConstantTerm


@dataclass(frozen=True)
class Notation:
    """A checked expression: `text` as the person wrote it (trimmed), `terms` read from it,
    summed with their signs. `Notation(text)` parses and checks itself, so a notation whose
    terms are not its text's (which the ledger's input, the text alone, could not replay)
    cannot exist; `RuleError` for anything refused."""

    text: str
    terms: tuple[Term, ...] = field(init=False)
    kind = TEST

    def __post_init__(self) -> None:
        text = _checked_text(self.text)
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "terms", _parse_terms(text))

    @property
    def dice_count(self) -> int:
        """Dice written (explosions may add more when rolled)."""
        return sum(term.count for term in self.terms if isinstance(term, DiceTerm))

    @property
    def canonical(self) -> str:
        """One spelling of the sum: `2k6+(1d4-1)` → `2d6 + 1d4 - 1`."""
        parts = []
        for index, term in enumerate(self.terms):
            if index == 0:
                parts.append(("-" if term.sign < 0 else "") + term.text())
            else:
                parts.append(("- " if term.sign < 0 else "+ ") + term.text())
        return " ".join(parts)

    def to_input(self) -> dict[str, Any]:
        return {"expression": self.text}


# ---------------------------------------------------------------------------
# Parsing


class _ToTerms(Transformer):
    """The parse tree as a flat list of signed terms (only + and - exist, so it is exact)."""

    def add(self, items):
        left, op, right = items
        if op.type == "MINUS":
            right = [_negated(term) for term in right]
        return [*left, *right]

    def sign(self, items):
        op, value = items
        return [_negated(term) for term in value] if op.type == "MINUS" else value

    def group(self, items):
        return items[0]

    def constant(self, items):
        return [("constant", 1, int(items[0]))]

    def dice(self, items):
        count, faces, explode, selection = 1, 0, False, None
        for item in items:
            if isinstance(item, Token) and item.type == "INT":
                count = int(item)
            elif isinstance(item, Token) and item.type == "FACES":
                faces = PERCENT_FACES if item == "%" else int(item)
            elif isinstance(item, Token) and item.type == "EXPLODE":
                explode = True
            elif isinstance(item, tuple):
                selection = item
        return [("dice", 1, count, faces, explode, selection)]

    def selection(self, items):
        return (str(items[0]), int(items[1]))


def _negated(term: tuple) -> tuple:
    return (term[0], -term[1], *term[2:])


_PARSER = Lark(_GRAMMAR, parser="lalr", lexer="contextual", transformer=_ToTerms())


def _syntax_error(text: str, error: LarkError) -> RuleError:
    if isinstance(error, UnexpectedEOF) or (
        isinstance(error, UnexpectedToken) and error.token.type == "$END"
    ):
        return RuleError(
            "notation_incomplete",
            f"the dice expression {text!r} ends too early",
            expression=text,
        )
    position = getattr(error, "column", 0) or 1
    if isinstance(error, UnexpectedCharacters):
        found = text[error.pos_in_stream] if error.pos_in_stream < len(text) else ""
    elif isinstance(error, UnexpectedToken):
        found = str(error.token)[:1]
    else:
        found = ""
    if isinstance(error, UnexpectedToken) and error.token.type in ("EXPLODE", "SELECT"):
        hint = "order"  # a second `!` or keep/drop, or `!` after keep/drop
    else:
        hint = _HINT_OF.get(found.lower(), "")
    return RuleError(
        "notation_syntax",
        f"the dice expression {text!r} cannot be read at character {position} ({found!r})"
        + (f": {HINTS[hint]}" if hint else ""),
        expression=text,
        position=position,
        found=found,
        hint=hint,
    )


def parse_notation(text: object) -> Notation:
    """A checked `Notation`, or `RuleError` with the reason (nothing is rolled)."""
    return Notation(text)


def _checked_text(text: object) -> str:
    if type(text) is not str:
        raise RuleError(
            "invalid_input",
            f"a dice expression must be text, got {text!r}",
            field="expression",
            expected="text",
        )
    text = text.strip()
    if not text:
        raise RuleError("notation_empty", "the dice expression is empty")
    if len(text) > MAX_LENGTH:
        raise RuleError(
            "notation_too_long",
            f"a dice expression has at most {MAX_LENGTH} characters, this one has {len(text)}",
            length=len(text),
            max=MAX_LENGTH,
        )
    for position, character in enumerate(text, start=1):
        if not (character.isascii() and character.isprintable()):
            raise RuleError(
                "notation_syntax",
                f"the dice expression cannot be read at character {position} ({character!r})",
                expression=text,
                position=position,
                found=character,
                hint="",
            )
    return text


def _parse_terms(text: str) -> tuple[Term, ...]:
    try:
        raw_terms = _PARSER.parse(text.lower())
    except LarkError as error:
        raise _syntax_error(text, error) from None
    terms = tuple(_checked_term(raw) for raw in raw_terms)
    dice_count = sum(term.count for term in terms if isinstance(term, DiceTerm))
    if dice_count == 0:
        raise RuleError(
            "notation_no_dice", f"the expression {text!r} rolls no dice", expression=text
        )
    if dice_count > MAX_DICE:
        raise RuleError(
            "notation_too_many_dice",
            f"a dice expression rolls at most {MAX_DICE} dice, this one asks for {dice_count}",
            count=dice_count,
            max=MAX_DICE,
        )
    return terms


def _checked_term(raw: tuple) -> Term:
    if raw[0] == "constant":
        _, sign, value = raw
        if value > MAX_CONSTANT:
            raise RuleError(
                "notation_constant_range",
                f"a constant in a dice expression is at most {MAX_CONSTANT}, got {value}",
                value=value,
                max=MAX_CONSTANT,
            )
        return ConstantTerm(sign=sign, value=value)
    _, sign, count, faces, explode, selection = raw
    if count < 1:
        raise RuleError(
            "notation_no_dice", f"{count}d{faces} rolls no dice", expression=f"{count}d{faces}"
        )
    if not MIN_FACES <= faces <= MAX_FACES:
        raise RuleError(
            "notation_faces",
            f"a die has {MIN_FACES} to {MAX_FACES} faces, got {faces}",
            faces=faces,
            min=MIN_FACES,
            max=MAX_FACES,
        )
    name, n = selection if selection else (None, None)
    if name is not None:
        keeps = name.startswith("k")
        most = count if keeps else count - 1
        if not 1 <= n <= most:
            raise RuleError(
                "notation_selection",
                f"{name}{n} on {count}d{faces}: {SELECTIONS[name]} 1 to {most} of {count} dice"
                if most >= 1
                else f"{name}{n} on {count}d{faces}: one die cannot be dropped from",
                selection=name,
                selection_count=n,
                count=count,
                most=most,
            )
    return DiceTerm(
        sign=sign,
        count=count,
        faces=faces,
        explode=explode,
        selection=name,
        selection_count=n,
    )


def parse_test(kind: str, data: Mapping[str, Any]) -> Notation:
    """The `systems` entry point: `{"expression": "2d6+3"}` as the ledger stores it."""
    if kind != TEST:
        raise RuleError(
            "unknown_test", f"{SYSTEM} has no {kind!r} test", system=SYSTEM, test=str(kind)
        )
    return parse_notation(read(data, "expression"))


# ---------------------------------------------------------------------------
# Rolling


@dataclass(frozen=True)
class Die:
    """One die as it fell: `exploded` if it added the next die, `extra` if an explosion
    added it, `capped` if it showed the highest face but its chain had reached the cap."""

    face: int
    kept: bool
    exploded: bool = False
    extra: bool = False
    capped: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "face": self.face,
            "kept": self.kept,
            "exploded": self.exploded,
            "extra": self.extra,
            "capped": self.capped,
        }


@dataclass(frozen=True)
class TermResult:
    term: Term
    dice: tuple[Die, ...] = ()

    @property
    def subtotal(self) -> int:
        """The term's contribution to the total, sign included."""
        if isinstance(self.term, ConstantTerm):
            return self.term.sign * self.term.value
        return self.term.sign * sum(die.face for die in self.dice if die.kept)

    def to_dict(self) -> dict[str, Any]:
        data = self.term.to_dict()
        if isinstance(self.term, DiceTerm):
            data["dice"] = [die.to_dict() for die in self.dice]
        data["subtotal"] = self.subtotal
        return data


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
        return [die.face for term in self.terms for die in term.dice]

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


def _roll_term(term: DiceTerm, dice: DiceSource) -> tuple[Die, ...]:
    """Each die, then its explosion chain, in rolling order; then keep/drop over them all."""
    fallen: list[tuple[int, bool, bool, bool]] = []  # face, exploded, extra, capped
    for _ in range(term.count):
        face, extra, added = dice.roll(1, term.faces), False, 0
        while term.explode and face == term.faces and added < EXPLOSION_CAP:
            fallen.append((face, True, extra, False))
            face, extra, added = dice.roll(1, term.faces), True, added + 1
        capped = term.explode and face == term.faces
        fallen.append((face, False, extra, capped))
    kept = _kept_indices(term, [face for face, *_ in fallen])
    return tuple(
        Die(face=face, kept=index in kept, exploded=exploded, extra=extra, capped=capped)
        for index, (face, exploded, extra, capped) in enumerate(fallen)
    )


def _kept_indices(term: DiceTerm, faces: list[int]) -> set[int]:
    """Ties go to the die rolled first (which of two equal faces counts never changes a sum)."""
    every = set(range(len(faces)))
    if term.selection is None:
        return every
    n = term.selection_count
    highest_first = sorted(every, key=lambda i: (-faces[i], i))
    lowest_first = sorted(every, key=lambda i: (faces[i], i))
    if term.selection == "kh":
        return set(highest_first[:n])
    if term.selection == "kl":
        return set(lowest_first[:n])
    if term.selection == "dh":
        return every - set(highest_first[:n])
    return every - set(lowest_first[:n])  # dl


def roll_notation(notation: Notation, dice: DiceSource) -> NotationResult:
    """Every die drawn from `dice`, term by term, left to right."""
    return NotationResult(
        notation=notation,
        terms=tuple(
            TermResult(term, _roll_term(term, dice))
            if isinstance(term, DiceTerm)
            else TermResult(term)
            for term in notation.terms
        ),
    )


def roll(test: Notation, dice: DiceSource) -> NotationResult:
    """The `systems` entry point."""
    return roll_notation(test, dice)


def probability(test: Notation) -> Fraction:
    """A free-form roll has no success to be likely: it is refused like forum1000 initiative."""
    raise RuleError(
        "no_probability", f"a {SYSTEM} {TEST} roll has no success probability", test=TEST
    )
