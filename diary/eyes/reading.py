"""What one reader may read of a post's text for chosen eyes: the one place every surface
asks (the diary and its live poll, search and its snippets, quoting, revisions, the
table chat, the archive).

A part is read by the post's author, whoever runs the session (the GM, co-GMs), moderators,
and the players it names; everyone else reads "(text for chosen eyes only)" where it was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from diary.eyes.parsing import MarkupError, Part, has_markup, split

_PLACEHOLDER = re.compile(r"<!--eyes:(\d+)-->")


@dataclass(frozen=True)
class Reader:
    user_id: int | None
    # Runs the session (GM, co-GM) or moderates: reads every part.
    sees_all: bool = False

    def sees(self, author_id: int | None, part: dict | None) -> bool:
        """May read this part of a post by `author_id`. Without the part's record (a text
        the post no longer holds, an earlier version), only those who read every part."""
        if self.sees_all:
            return True
        if self.user_id is None:
            return False
        if self.user_id == author_id:
            return True
        return part is not None and self.user_id in part.get("to", ())


# Whoever is not in the session: the table chat, a file anyone may be handed.
NOBODY = Reader(None)


def reader_of(access) -> Reader:
    """The reader a SessionAccess describes (diary.access)."""
    user_id = access.user.pk if access.user.is_authenticated else None
    return Reader(user_id, sees_all=access.is_gm or access.is_moderator)


def hidden_words() -> str:
    return _("(text for chosen eyes only)")


def visible_html(post, reader: Reader) -> SafeString:
    """The post's HTML as this reader may read it: each part filled in, marked with whom
    it is for, or the words saying something is there."""
    parts = post.narration_eyes or []

    def fill(match: re.Match) -> str:
        index = int(match.group(1))
        part = parts[index] if index < len(parts) else None
        if part is None or not reader.sees(post.author_id, part):
            return format_html(
                '<p class="for-eyes-hidden" data-testid="for-eyes-hidden">{}</p>',
                hidden_words(),
            )
        return format_html(
            '<div class="for-eyes" data-testid="for-eyes"><p class="for-eyes-label">{}</p>{}</div>',
            _("only for: %(names)s") % {"names": ", ".join(part["names"])},
            mark_safe(part["html"]),  # rendered and sanitised on write (diary.eyes.rendering)
        )

    # The stored HTML was sanitised on write; only the placeholders are replaced.
    return mark_safe(_PLACEHOLDER.sub(fill, post.narration_html))


def visible_text(post, reader: Reader, *, markup: bool = False, text: str | None = None) -> str:
    """The post's Markdown (or `text`, an earlier version of it) as this reader may read it:
    each part they may not read replaced by the words saying something is there. `markup`
    keeps the markup around the parts they read (a quote stays for the same eyes); without
    it, only the parts' words."""
    raw = post.narration if text is None else text
    if not has_markup(raw):
        return raw
    try:
        pieces = split(raw)
    except MarkupError:
        # Stored before the markup meant anything: it was shown as typed, to everyone.
        return raw
    # An earlier version's parts are not the post's: read only by those who read them all.
    parts = (post.narration_eyes or []) if text is None else []
    shown, index = [], 0
    for piece in pieces:
        if not isinstance(piece, Part):
            shown.append(piece)
            continue
        part = parts[index] if index < len(parts) else None
        index += 1
        if not reader.sees(post.author_id, part):
            shown.append(f"\n\n{hidden_words()}\n\n")
        elif markup:
            shown.append(f"[dla: {', '.join(piece.names)}]{piece.text}[/dla]")
        else:
            shown.append(f"\n\n{piece.text}\n\n")
    return "".join(shown)
