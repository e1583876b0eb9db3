"""A one-time form token (rolls.access) for a form a template builds by hand: the fight
box's "next" button, shown in the diary, the panel and the event page."""

from django import template

from rolls import access

register = template.Library()


@register.simple_tag(takes_context=True)
def one_time_token(context, session) -> str:
    """A fresh token signed for the page's user and this session."""
    return access.issue_token(context["request"].user, session)
