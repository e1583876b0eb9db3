"""Narration is Markdown: rendered with raw HTML off, then sanitised by an allowlist.

The renderer's work is bounded (issue 7, finding 12): images are off (the sanitiser
strips them anyway, and "![" was the costliest worst case), and the link rule, whose
search for a closing "]" from every "[" is quadratic, gets a budget of characters it
may scan per text; past it, a "[" is plain text.
"""

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
    "code", "pre", "hr", "a", "h3", "h4", "h5", "h6",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}


def render_narration(text: str) -> str:
    """Markdown → safe HTML. Headings 1–2 are demoted so a post never outshouts the page."""
    html = _markdown.render(text, {})
    html = html.replace("<h1>", "<h3>").replace("</h1>", "</h3>")
    html = html.replace("<h2>", "<h4>").replace("</h2>", "</h4>")
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="nofollow noopener noreferrer",
    )
