"""A search hit as the results page shows it: the words around the first match, escaped, with every
match marked."""

from __future__ import annotations

import re

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from config.markdown import plain_text
from diary.eyes.reading import Reader, visible_text
from diary.models import Post
from diary.search.selectors import fold, parse_query

SNIPPET_CHARS = 200


def _matches(folded: str, words: tuple[str, ...]) -> list[tuple[int, int]]:
    """Spans of every word found (from where it starts to the end of its word)."""
    if not words:
        return []
    pattern = re.compile("|".join(re.escape(fold(w)) for w in words) + r"[^\W_]*")
    return [m.span() for m in pattern.finditer(folded)]


def snippet(post: Post, query: str) -> SafeString:
    """The words around the first match (the narration's Markdown as its plain words),
    escaped, with every match marked."""
    words = parse_query(query).wanted
    # Who reads every part for chosen eyes, as the query annotated it; anyone else reads
    # the snippet as search read the post, without them.
    reader = Reader(None, sees_all=getattr(post, "reads_all_eyes", False))
    text = plain_text(visible_text(post, reader))
    spans = _matches(fold(text), words)
    if not spans and post.nc_note:
        text = plain_text(post.nc_note)
        spans = _matches(fold(text), words)
    start = max(spans[0][0] - SNIPPET_CHARS // 2, 0) if spans else 0
    end = start + SNIPPET_CHARS
    parts, cursor = [], start
    for span_start, span_end in spans:
        if span_end <= start or span_start >= end:
            continue
        span_start, span_end = max(span_start, cursor), min(span_end, end)
        parts.append(escape(text[cursor:span_start]))
        parts.append(f"<mark>{escape(text[span_start:span_end])}</mark>")
        cursor = span_end
    parts.append(escape(text[cursor:end]))
    prefix = "…" if start else ""
    suffix = "…" if end < len(text) else ""
    return mark_safe(prefix + "".join(parts) + suffix)  # every piece escaped above
