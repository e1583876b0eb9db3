"""Narration is Markdown: rendered with raw HTML off, then sanitised by an allowlist.

The renderer's work is bounded: images are off (the sanitiser
strips them anyway, and "![" was the costliest worst case), and the link rule, whose
search for a closing "]" from every "[" is quadratic, gets a budget of characters it
may scan per text; past it, a "[" is plain text.
"""

import html as html_entities
import re

import nh3
from markdown_it import MarkdownIt
from markdown_it.rules_inline import link as _link_rule

_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
_markdown.enable("strikethrough")
_markdown.disable("image")

# Characters the link rule may scan in one text: plenty for real links (each costs about
# its own length), a few tenths of a second of pathological input at most.
LINK_SCAN_BUDGET = 200_000
_BUDGET_KEY = "codziennik_link_budget"


def _bounded_link(state, silent: bool) -> bool:
    if state.src[state.pos] != "[":
        return False
    budget = state.env.get(_BUDGET_KEY, LINK_SCAN_BUDGET)
    if budget <= 0:
        return False
    # A failed attempt may scan to the end of the inline text; charge that much.
    start = state.pos
    matched = _link_rule(state, silent)
    cost = (state.pos - start) if matched else (state.posMax - start)
    state.env[_BUDGET_KEY] = budget - max(cost, 1)
    return matched


_markdown.inline.ruler.at("link", _bounded_link)

ALLOWED_TAGS = {
    "p", "br", "strong", "em", "del", "s", "blockquote", "ul", "ol", "li",
    "code", "pre", "hr", "a", "h4", "h5", "h6",
}  # fmt: skip

# The diary's outline is: session (h1), turn (h2), post (h3). A narration's headings sit
# below its post and never skip a level, whatever levels the player typed.
POST_HEADING_LEVEL = 3
_HEADING_TAG = re.compile(r"<(/?)h([1-6])>")


def _nest_headings(html: str) -> str:
    previous = POST_HEADING_LEVEL
    opened: list[int] = []

    def level(match: re.Match) -> str:
        nonlocal previous
        if match.group(1):  # a closing tag closes the heading it opened
            return f"</h{opened.pop()}>"
        wanted = min(int(match.group(2)) + POST_HEADING_LEVEL, 6)
        previous = min(wanted, previous + 1)
        opened.append(previous)
        return f"<h{previous}>"

    return _HEADING_TAG.sub(level, html)


ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}


# A spoiler block: "[spoiler]…[/spoiler]" (not nested; an unclosed one stays plain text).
SPOILER = re.compile(r"\[spoiler\](.*?)\[/spoiler\]", re.IGNORECASE | re.DOTALL)


def render_narration(text: str) -> str:
    """Markdown → safe HTML, its headings nested under the post's (so a post never
    outshouts the page); each spoiler a <details> block anyone opens with a click (no
    script). The <details> is added after sanitising, around sanitised HTML: no input
    produces one otherwise."""
    parts = SPOILER.split(text)
    if len(parts) == 1:
        return _sanitised(text)
    html = []
    for index, part in enumerate(parts):
        if index % 2 == 0:
            html.append(_sanitised(part) if part.strip() else "")
        else:
            html.append(
                f'<details class="spoiler"><summary>Spoiler</summary>{_sanitised(part)}</details>\n'
            )
    return "".join(html)


def _sanitised(text: str) -> str:
    html = _nest_headings(_markdown.render(text, {}))
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="nofollow noopener noreferrer",
    )


def render_description(text: str) -> str:
    """A description (a sheet's, an NPC's, a session's, a catalog entry's) is written as
    the posts are: the same Markdown, the same allowlist."""
    return render_narration(text)


# Where a block ends, the plain text gets a space, so two paragraphs do not run together.
_BLOCK_END = re.compile(r"</(p|li|h[1-6]|blockquote|pre)>|<br\s*/?>|<hr\s*/?>")


def plain_text(text: str) -> str:
    """Markdown as the words a reader sees, without its syntax ("**mgła**" → "mgła", a
    link → its text), whitespace collapsed: for search snippets and other one-line extracts."""
    rendered = _BLOCK_END.sub(" ", _markdown.render(SPOILER.sub(r"\n\n\1\n\n", text), {}))
    words = html_entities.unescape(nh3.clean(rendered, tags=set()))
    return " ".join(words.split())
