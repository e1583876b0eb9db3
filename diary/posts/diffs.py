"""Word-level differences between two versions of a text (a post's revisions, a plan's
submissions), for people to read what changed: Python's difflib over words, each word
escaped, insertions in <ins> and deletions in <del>. Nothing of the texts is ever output as
HTML: only the marks this module writes are."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

# A word with the whitespace after it is one token (leading whitespace one of its own):
# spaces as tokens of their own would be the most common "word" by far and make the
# matcher's work grow with the square of the text.
_TOKENS = re.compile(r"^\s+|\S+\s*")


def _tokens(text: str) -> list[str]:
    return _TOKENS.findall(text or "")


@dataclass(frozen=True)
class WordDiff:
    html: SafeString
    insertions: int
    deletions: int

    @property
    def changed(self) -> bool:
        return bool(self.insertions or self.deletions)


def _marked(tag: str, words: list[str], said: str) -> str:
    # The mark is said in words for screen readers, and drawn by more than colour
    # (static/css/site.css: underline, strike-through, a sign before it).
    return format_html(
        '<{tag}><span class="visually-hidden">{said} </span>{text}</{tag}>',
        tag=tag,
        said=said,
        text="".join(words),
    )


# Past this many token pairs between the first and last change, the changed middle is shown
# as removed and added whole: difflib's matcher grows with their product, and a page must
# not wait on it (a 20,000-character narration rewritten throughout).
MAX_COMPARED_PAIRS = 400_000


def _opcodes(old: list[str], new: list[str]) -> list[tuple[str, int, int, int, int]]:
    """difflib's opcodes, the common start and end cut off first (most edits touch a few
    words), the middle compared word by word when it is small enough."""
    start = 0
    while start < min(len(old), len(new)) and old[start] == new[start]:
        start += 1
    end = 0
    while end < min(len(old), len(new)) - start and old[-1 - end] == new[-1 - end]:
        end += 1
    a2, b2 = len(old) - end, len(new) - end
    codes: list[tuple[str, int, int, int, int]] = []
    if start:
        codes.append(("equal", 0, start, 0, start))
    if (a2 - start) * (b2 - start) <= MAX_COMPARED_PAIRS:
        matcher = difflib.SequenceMatcher(a=old[start:a2], b=new[start:b2], autojunk=False)
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            codes.append((op, start + i1, start + i2, start + j1, start + j2))
    else:
        codes.append(("replace", start, a2, start, b2))
    if end:
        codes.append(("equal", a2, len(old), b2, len(new)))
    return codes


def word_diff(before: str, after: str) -> WordDiff:
    """`after` as read against `before`: unchanged words as they are, removed words in
    <del>, added words in <ins>, all escaped."""
    old, new = _tokens(before), _tokens(after)
    parts: list[str] = []
    insertions = deletions = 0
    for op, a1, a2, b1, b2 in _opcodes(old, new):
        if op == "equal":
            parts.append(escape("".join(new[b1:b2])))
            continue
        if a2 > a1:
            deletions += sum(1 for t in old[a1:a2] if not t.isspace())
            parts.append(_marked("del", old[a1:a2], _("removed:")))
        if b2 > b1:
            insertions += sum(1 for t in new[b1:b2] if not t.isspace())
            parts.append(_marked("ins", new[b1:b2], _("added:")))
    return WordDiff(mark_safe("".join(parts)), insertions, deletions)
