"""Dice written inside a post's narration: `[[2k6+1 obrażenia]]` and `[[test: Percepcja]]`,
found in the text as typed. This module knows only where the markers are and which number
the site wrote into each once it rolled it (`[[2k6+1 obrażenia #41]]`); what a marker
means, and its result, are the rolls app's (asked through diary.hooks).

A narration is rendered with a slot where each marker stood (two private-use characters
around the marker's index): Markdown, the sanitiser and the parts for chosen eyes leave
them as text, and each result's HTML goes in afterwards, so nothing the author typed inside
a marker ever reaches the page as Markdown or HTML."""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy

# A marker's body: one line, no nested "[[" or "]]", at most 200 characters.
_MARKER = re.compile(r"\[\[((?:(?!\[\[|\]\])[^\n]){1,200})\]\]")
# The number the site adds on publishing: the roll's number in the chain (or the request's).
_NUMBER = re.compile(r"\s+#(\d{1,9})\s*$")
_TEST = re.compile(r"^\s*test\s*:\s*", re.IGNORECASE)
_SLOT_OPEN, _SLOT_CLOSE = "\ue000", "\ue001"
DICE_FOR_CHOSEN_EYES = gettext_lazy(
    "Dice are rolled in the open: write them outside the text for chosen eyes."
)
_SLOT = re.compile(f"{_SLOT_OPEN}(\\d+){_SLOT_CLOSE}")


@dataclass(frozen=True)
class Marker:
    """One `[[…]]` of the text: where it is, what it says (`words`: the body without the
    site's number), whether it names a sheet test, and the number written into it."""

    start: int
    end: int
    words: str
    is_test: bool
    number: int | None


def find_markers(text: str) -> list[Marker]:
    markers = []
    for match in _MARKER.finditer(text or ""):
        body = match.group(1)
        numbered = _NUMBER.search(body)
        words = (body[: numbered.start()] if numbered else body).strip()
        is_test = bool(_TEST.match(words))
        if is_test:
            words = _TEST.sub("", words, count=1).strip()
        markers.append(
            Marker(
                start=match.start(),
                end=match.end(),
                words=words,
                is_test=is_test,
                number=int(numbered.group(1)) if numbered else None,
            )
        )
    return markers


def marker_text(marker: Marker, number: int | None) -> str:
    """The marker as the stored text keeps it, with its number."""
    words = f"test: {marker.words}" if marker.is_test else marker.words
    return f"[[{words} #{number}]]" if number is not None else f"[[{words}]]"


def numbered_text(text: str, markers: list[Marker], numbers: list[int | None]) -> str:
    """The text with each marker rewritten to carry its number (`numbers`, in order)."""
    out, at = [], 0
    for marker, number in zip(markers, numbers, strict=True):
        out.append(text[at : marker.start])
        out.append(
            marker_text(marker, number) if number is not None else text[marker.start : marker.end]
        )
        at = marker.end
    out.append(text[at:])
    return "".join(out)


def unmarked(text: str) -> str:
    """The text with each marker as plain words (`2k6+1 obrażenia (#41)`): what a quote of
    the post carries, so that a reply does not roll it again."""
    out, at = [], 0
    for marker in find_markers(text):
        out.append(text[at : marker.start])
        out.append(_words(marker))
        at = marker.end
    out.append(text[at:])
    return "".join(out)


def without_slots(text: str) -> str:
    """The text without the slot characters (an author never types them; if one does, only
    the site's own slots are filled)."""
    return (text or "").replace(_SLOT_OPEN, "").replace(_SLOT_CLOSE, "")


def slotted(text: str) -> str:
    """The (numbered) text with a slot where each marker stands, ready to be rendered as
    any narration is (Markdown, the sanitiser, parts for chosen eyes): the slots come out
    as text, where `with_results` puts each result."""
    out, at = [], 0
    for index, marker in enumerate(find_markers(text)):
        out.append(text[at : marker.start])
        out.append(f"{_SLOT_OPEN}{index}{_SLOT_CLOSE}")
        at = marker.end
    out.append(text[at:])
    return "".join(out)


# A result in the stored HTML, between comments (the sanitiser strips every comment from
# what people write, so none comes from input): a later result (a request answered) is put
# in their place without rendering the text again.
_PLACED = re.compile(r"<!--dice:(\d+|removed)-->.*?<!--/dice-->", re.DOTALL)


def _placed(key, html: str) -> str:
    return f"<!--dice:{key}-->{html}<!--/dice-->"


def with_results(fields: dict, dice) -> dict:
    """The post's narration fields rendered from `slotted(dice.text)` (diary.eyes'
    rendering), each slot filled with its result (`dice.pieces`, HTML the rules app made
    safe), the results no marker names any more at the end (`dice.removed`)."""
    markers = find_markers(dice.text)

    def fill(html: str) -> str:
        return _SLOT.sub(lambda m: _placed(m.group(1), dice.pieces[int(m.group(1))]), html)

    parts = fields.get("narration_eyes")
    if any(_SLOT.search(p["html"]) for p in parts or ()):
        # A roll is public in the chain (and under the post): it cannot be for chosen eyes.
        raise ValidationError({"narration": DICE_FOR_CHOSEN_EYES})
    html = fill(fields["narration_html"])
    if dice.removed:
        html += _placed("removed", dice.removed)
    public = fields.get("narration_public")
    return {
        **fields,
        "narration": dice.text,
        "narration_html": html,
        **(
            {"narration_public": _SLOT.sub(lambda m: _words(markers[int(m.group(1))]), public)}
            if public
            else {}
        ),
    }


def _words(marker: Marker) -> str:
    words = f"test: {marker.words}" if marker.is_test else marker.words
    return f"{words} (#{marker.number})" if marker.number is not None else words


def refill(html: str, pieces: list[str], removed: str) -> str:
    """Stored HTML with each placed result replaced by its newer HTML."""
    html = _PLACED.sub(
        lambda m: (
            _placed("removed", removed)
            if m.group(1) == "removed"
            else _placed(m.group(1), pieces[int(m.group(1))])
        ),
        html,
    )
    if removed and "<!--dice:removed-->" not in html:
        html += _placed("removed", removed)
    return html
