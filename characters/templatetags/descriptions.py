"""{{ character.description|markdown }}: descriptions are Markdown, as the posts are."""

from django import template
from django.utils.safestring import mark_safe

from config.markdown import render_description

register = template.Library()


@register.filter(name="markdown")
def markdown(text: str) -> str:
    """Rendered with raw HTML off and sanitised by the posts' allowlist (config/markdown.py)."""
    return mark_safe(render_description(text or ""))  # sanitised by nh3
