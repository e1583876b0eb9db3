"""Quoting a post into a reply: the Markdown a quote becomes, and the quoted posts a text names.

A quote is a Markdown blockquote headed by who wrote the post and a same-site link to its
permalink (diary:post_link), so the rendered reply links back and the quote notification can
find the quoted post by that link alone.
"""

import re

from django.urls import reverse
from django.utils.translation import gettext as _

# The permalink's path with the post's pk; built from the route so a changed prefix follows.
_PERMALINK_PLACEHOLDER = 987654321


def _permalink_pattern() -> re.Pattern:
    path = reverse("diary:post_link", args=[_PERMALINK_PLACEHOLDER])
    prefix, suffix = path.split(str(_PERMALINK_PLACEHOLDER))
    return re.compile(r"\]\(" + re.escape(prefix) + r"(\d+)" + re.escape(suffix) + r"\)")


def quote_header(post) -> str:
    """Who is quoted: the character when the post narrates one, else the author."""
    who = post.character.name if post.character_id else post.author.get_username()
    link = reverse("diary:post_link", args=[post.pk])
    return _("[%(who)s wrote](%(link)s):") % {"who": who, "link": link}


def quote_markdown(post, selection: str = "") -> str:
    """The blockquote a reply starts with: the selection when given, else the whole narration."""
    text = (selection or post.narration).strip().replace("\r\n", "\n")
    lines = [quote_header(post), "", *text.split("\n")]
    return "\n".join(f"> {line}".rstrip() for line in lines) + "\n\n"


def quoted_post_pks(text: str) -> set[int]:
    """The pks of the posts a narration quotes (links to their permalinks), each once."""
    return {int(pk) for pk in _permalink_pattern().findall(text or "")}
