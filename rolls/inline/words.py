"""What a dice marker of a narration says (diary/posts/dice_markers.py finds them): a free-form
expression and its label (`2k6+1 obrażenia`), or the name of a sheet's attribute or skill
(`test: Percepcja`)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from django.utils.translation import gettext as _

from characters.selectors import system_catalog
from rolls.engine import notation as free_notation
from rolls.free.forms import parsed_expression
from rolls.free.services import LABEL_MAX_LENGTH


@dataclass(frozen=True)
class Expression:
    """A free-form marker read: the notation, the expression as typed and its label; or
    the refusal in words."""

    notation: free_notation.Notation | None
    expression: str
    label: str
    error: str = ""


def read_expression(words: str) -> Expression:
    """The longest start of the words that reads as dice notation is the expression (it
    may hold spaces: `{1k20, 1k20}kh1`), the rest its label. Refused as the free-roll page
    refuses the whole words when no start reads."""
    pieces = words.split()
    for cut in range(len(pieces), 0, -1):
        expression = " ".join(pieces[:cut])
        notation, _error = parsed_expression(expression)
        if notation is not None:
            label = " ".join(pieces[cut:])
            if len(label) > LABEL_MAX_LENGTH:
                return Expression(None, expression, label, _("The label is too long."))
            return Expression(notation, expression, label)
    _notation, error = parsed_expression(pieces[0] if pieces else words)
    return Expression(None, words, "", error or _("Write a dice expression, e.g. 2k6+1."))


@dataclass(frozen=True)
class NamedTest:
    """A sheet test named in a marker: an attribute's or a skill's catalog row."""

    kind: str  # "attribute" or "skill"
    catalog_id: int
    name: str


def named_test(system: str, name: str) -> NamedTest | None:
    """The system's attribute or skill of this name (letter case aside), or None."""
    catalog = system_catalog(system)
    wanted = name.strip().casefold()
    for kind, rows in (("attribute", catalog.attributes), ("skill", catalog.skills)):
        for row in rows:
            if row.name.casefold() == wanted:
                return NamedTest(kind, row.pk, row.name)
    return None


def close_names(system: str, name: str) -> list[str]:
    """The attributes and skills whose names are nearest to `name`, for the refusal."""
    catalog = system_catalog(system)
    names = [row.name for row in (*catalog.attributes, *catalog.skills)]
    by_folded = {n.casefold(): n for n in names}
    near = difflib.get_close_matches(name.casefold(), list(by_folded), n=5, cutoff=0.5)
    return [by_folded[n] for n in near]


# Dice markers one post may roll, over all its versions: a post is a story, not a dice bag.
INLINE_DICE_MAX = 20


def too_many_dice(count: int) -> str:
    """The refusal of a post that would hold `count` dice, over INLINE_DICE_MAX (publishing,
    editing, and the preview, which says it before publishing does)."""
    return _("A post holds at most %(max)s dice in its text; this one would hold %(count)s.") % {
        "max": INLINE_DICE_MAX,
        "count": count,
    }
