"""Quoting a post into a reply: the Markdown a quote becomes, and the quoted posts a text names.

A quote is a Markdown blockquote headed by who wrote the post and a same-site link to its
permalink (diary:post_link), so the rendered reply links back and the quote notification can
find the quoted post by that link alone.
"""

import re
from functools import cache

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from characters.grammar import gendered
from diary.eyes.reading import NOBODY, Reader, reader_of, visible_text
from diary.models import Post
from diary.posts.dice_markers import unmarked
from diary.posts.voices import npc_label, voices_as_markdown

# The permalink's path with the post's pk; built from the route so a changed prefix follows.
_PERMALINK_PLACEHOLDER = 987654321


@cache
def _permalink_parts() -> tuple[str, str]:
    # Reversed once per process: the diary builds a header for every post it shows.
    path = reverse("diary:post_link", args=[_PERMALINK_PLACEHOLDER])
    prefix, suffix = path.split(str(_PERMALINK_PLACEHOLDER))
    return prefix, suffix


def permalink_path(pk: int) -> str:
    """reverse("diary:post_link", args=[pk]), without resolving the route again."""
    prefix, suffix = _permalink_parts()
    return f"{prefix}{pk}{suffix}"


@cache
def _permalink_pattern() -> re.Pattern:
    prefix, suffix = _permalink_parts()
    return re.compile(r"\]\(" + re.escape(prefix) + r"(\d+)" + re.escape(suffix) + r"\)")


def quote_header(post) -> str:
    """Who is quoted: the NPC when the post speaks as one ("Karczmarz (NPC) napisał"); the
    character when the post narrates one, the verb agreeing with its grammatical gender
    ("Lirael napisała"); else the author, whose gender the site does not know
    ("napisał(a)")."""
    link = permalink_path(post.pk)
    if getattr(post, "npc_id", None):
        # An NPC's words are quoted as the NPC's, marked as one; the verb agrees with the
        # mark (Polish treats "NPC" as masculine); the NPC's own gender is not kept.
        header = pgettext("masculine", "[%(who)s wrote](%(link)s):")
        return header % {"who": npc_label(post.npc.name), "link": link}
    if not post.character_id:
        return _("[%(who)s wrote](%(link)s):") % {"who": post.author.get_username(), "link": link}
    character = post.character
    header = gendered(
        character.grammatical_gender,
        masculine=pgettext("masculine", "[%(who)s wrote](%(link)s):"),
        feminine=pgettext("feminine", "[%(who)s wrote](%(link)s):"),
        neuter=pgettext("neuter", "[%(who)s wrote](%(link)s):"),
    )
    return header % {"who": character.name, "link": link}


def quote_markdown(post, selection: str = "", *, reader: Reader = NOBODY) -> str:
    """The blockquote a reply starts with: the selection when given, else the whole narration
    as `reader` may read it (a part for other eyes is not copied; one for theirs stays for
    the same eyes), each NPC block as plain words."""
    text = selection or voices_as_markdown(visible_text(post, reader, markup=True))
    text = text.strip().replace("\r\n", "\n")
    # A quoted die is the quoted post's, not the reply's: quoted as words, never rolled again.
    lines = [quote_header(post), "", *unmarked(text).split("\n")]
    return "\n".join(f"> {line}".rstrip() for line in lines) + "\n\n"


def quoted_post_pks(text: str) -> set[int]:
    """The pks of the posts a narration quotes (links to their permalinks), each once."""
    return {int(pk) for pk in _permalink_pattern().findall(text or "")}


def quotable(post_access) -> bool:
    """A post may be quoted when it is shown and its content is visible: never a hidden one
    (quoting would copy what a moderator took down back into the diary)."""
    return not post_access.post.is_hidden and post_access.can_see_content


def quote_prefill(access, raw_pk: str | None, shown_posts) -> str:
    """The reply text `?quote=<pk>` asks for, or "" when that post may not be quoted here:
    another session's, hidden, unreadable, or not a post at all."""
    if not access.can_post or not (raw_pk or "").isdigit():
        return ""
    pk = int(raw_pk)
    post = next((p for p in shown_posts if p.pk == pk), None)
    if post is None:
        post = (
            Post.objects.filter(pk=pk, session_id=access.session.pk)
            .select_related("author", "character", "npc")
            .first()
        )
    if post is None or not quotable(access.post(post)):
        return ""
    return quote_markdown(post, reader=reader_of(access))
