"""Dice written inside a post's narration: `[[2k6+1 obrażenia]]` and `[[test: Percepcja]]`,
found in the text as typed. This module knows only where the markers are and which number
the site wrote into each once it rolled it (`[[2k6+1 obrażenia #41]]`); what a marker
means, and its result, are the rolls app's (asked through diary.hooks).

A rendered narration keeps a slot where each marker stood (two private-use characters around
the marker's index): Markdown and the sanitiser leave them as text, and the result's HTML
goes in afterwards, so nothing the author typed inside a marker ever reaches the page as
Markdown or HTML."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from config.markdown import render_narration

# A marker's body: one line, no nested "[[" or "]]", at most 200 characters.
_MARKER = re.compile(r"\[\[((?:(?!\[\[|\]\])[^\n]){1,200})\]\]")
# The number the site adds on publishing: the roll's number in the chain (or the request's).
_NUMBER = re.compile(r"\s+#(\d{1,9})\s*$")
_TEST = re.compile(r"^\s*test\s*:\s*", re.IGNORECASE)
_SLOT_OPEN, _SLOT_CLOSE = "\ue000", "\ue001"
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
        words = f"test: {marker.words}" if marker.is_test else marker.words
        out.append(text[at : marker.start])
        out.append(f"{words} (#{marker.number})" if marker.number is not None else words)
        at = marker.end
    out.append(text[at:])
    return "".join(out)


def without_slots(text: str) -> str:
    """The text without the slot characters (an author never types them; if one does, only
    the site's own slots are filled)."""
    return (text or "").replace(_SLOT_OPEN, "").replace(_SLOT_CLOSE, "")


def render_with_slots(text: str, markers: list[Marker], fill: Callable[[int], str]) -> str:
    """The narration (`without_slots` already) rendered as always, each of its `markers`
    replaced by `fill(index)`: HTML the caller made safe."""
    out, at = [], 0
    for index, marker in enumerate(markers):
        out.append(text[at : marker.start])
        out.append(f"{_SLOT_OPEN}{index}{_SLOT_CLOSE}")
        at = marker.end
    out.append(text[at:])
    html = render_narration("".join(out))
    return _SLOT.sub(lambda m: fill(int(m.group(1))), html)
