"""The markup of text for chosen eyes, found in raw narration: "[dla: Bartek, Mira]…[/dla]"
(English "[for: …]…[/for]"; either closing tag closes either opening one, any case).

A malformed text is refused rather than guessed at: an unclosed part, a stray closing tag
or a part inside a part could otherwise show a secret to everyone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.utils.translation import gettext as _

TAG = re.compile(r"\[(?:(?:dla|for):([^\]\n]*)|/(?:dla|for))\]", re.IGNORECASE)


class MarkupError(ValueError):
    """The text's markup is malformed; the message says how, in the reader's language."""


@dataclass(frozen=True)
class Part:
    """One part for chosen eyes: the names as written and its inner text."""

    names: tuple[str, ...]
    text: str


def split(text: str) -> list[str | Part]:
    """The text as alternating public strings and Parts, in order."""
    pieces: list[str | Part] = []
    cursor = 0
    opened: re.Match | None = None
    for tag in TAG.finditer(text):
        closing = tag.group(0).startswith("[/")
        if opened is None and closing:
            raise MarkupError(
                _("“%(tag)s” closes no text for chosen eyes: start it with [dla: name].")
                % {"tag": tag.group(0)}
            )
        if opened is not None and not closing:
            raise MarkupError(
                _("Text for chosen eyes cannot hold another: close %(open)s before %(inner)s.")
                % {"open": opened.group(0), "inner": tag.group(0)}
            )
        if not closing:
            if not _names(tag):
                raise MarkupError(_("Say whose eyes the text is for: [dla: name]."))
            pieces.append(text[cursor : tag.start()])
            opened = tag
        else:
            pieces.append(Part(_names(opened), text[opened.end() : tag.start()]))
            opened = None
        cursor = tag.end()
    if opened is not None:
        raise MarkupError(
            _("%(open)s is not closed: end the text for chosen eyes with [/dla].")
            % {"open": opened.group(0)}
        )
    pieces.append(text[cursor:])
    return [piece for piece in pieces if piece != ""]


def _names(tag: re.Match) -> tuple[str, ...]:
    return tuple(n.strip() for n in tag.group(1).split(",") if n.strip())


def has_markup(text: str) -> bool:
    return bool(TAG.search(text or ""))
