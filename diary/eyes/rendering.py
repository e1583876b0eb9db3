"""A narration with parts for chosen eyes, rendered on write.

The post's HTML holds, where each part was, only a placeholder ("<!--eyes:0-->": the
sanitiser strips every comment from what people write, so none comes from input); the
parts' own HTML and whom each is for are stored apart (Post.narration_eyes). A surface that
shows the post's HTML without asking diary.eyes.reading therefore shows no secret, only
nothing where the part was.

Each part is a block of its own (rendered apart from the text around it), so a part in the
middle of a sentence or a list breaks it there.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from config.markdown import render_narration
from diary.eyes.parsing import MarkupError, Part, has_markup, split
from diary.eyes.reading import Reader, visible_html
from diary.eyes.selectors import members_by_name


@dataclass(frozen=True)
class Narration:
    html: str
    # Each part: {"to": [user ids], "names": [names as the members go by], "html": "…"};
    # None when the text has none.
    parts: list[dict] | None = None
    # The text with the parts taken out (what search reads for most readers); None when
    # the text has no part (then it is the text itself).
    public: str | None = None


def placeholder(index: int) -> str:
    return f"<!--eyes:{index}-->"


def render_post_narration(text: str, session) -> Narration:
    """The narration of a post of `session`, or a ValidationError on "narration" naming
    what is wrong (malformed markup, a name no member of the session goes by)."""
    if not has_markup(text):
        return Narration(render_narration(text))
    try:
        pieces = split(text)
    except MarkupError as error:
        raise ValidationError({"narration": str(error)}) from None
    members = members_by_name(session)
    html, parts, public = [], [], []
    for piece in pieces:
        if isinstance(piece, Part):
            parts.append(_part(piece, members))
            html.append(placeholder(len(parts) - 1) + "\n")
        else:
            html.append(render_narration(piece) if piece.strip() else "")
            public.append(piece)
    return Narration("".join(html), parts, "\n\n".join(public))


def _part(part: Part, members: dict) -> dict:
    to: set[int] = set()
    names: list[str] = []
    for name in part.names:
        meant = members.get(name.casefold(), set())
        if not meant:
            raise ValidationError(
                {"narration": _("No one in this session goes by “%(name)s”.") % {"name": name}}
            )
        if len({user_id for user_id, _spelled in meant}) > 1:
            raise ValidationError(
                {
                    "narration": _(
                        "“%(name)s” is the name of more than one member of this session: "
                        "name the player by their username."
                    )
                    % {"name": name}
                }
            )
        user_id, spelled = min(meant)
        to.add(user_id)
        if spelled not in names:
            names.append(spelled)
    return {"to": sorted(to), "names": names, "html": render_narration(part.text)}


def preview_html(text: str, session) -> str:
    """The narration as its author will read it once posted (every part filled in), or a
    ValidationError as posting it would give."""
    rendered = render_post_narration(text, session)
    as_posted = _Rendered(rendered.html, rendered.parts)
    return visible_html(as_posted, Reader(None, sees_all=True))


@dataclass(frozen=True)
class _Rendered:
    """A narration not yet stored, read as visible_html reads a post."""

    narration_html: str
    narration_eyes: list[dict] | None
    author_id: int | None = None
