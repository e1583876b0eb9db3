"""Narration is Markdown: rendered with raw HTML off, then sanitised by an allowlist."""

import nh3
from markdown_it import MarkdownIt

_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
_markdown.enable("strikethrough")

ALLOWED_TAGS = {
    "p", "br", "strong", "em", "del", "s", "blockquote", "ul", "ol", "li",
    "code", "pre", "hr", "a", "h3", "h4", "h5", "h6",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}


def render_narration(text: str) -> str:
    """Markdown → safe HTML. Headings 1–2 are demoted so a post never outshouts the page."""
    html = _markdown.render(text)
    html = html.replace("<h1>", "<h3>").replace("</h1>", "</h3>")
    html = html.replace("<h2>", "<h4>").replace("</h2>", "</h4>")
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="nofollow noopener noreferrer",
    )
