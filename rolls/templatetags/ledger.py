"""Template tags the diary uses to show rolls without importing the rolls app in Python."""

from django import template

from rolls import selectors, services
from rolls.presenters import roll_view

register = template.Library()


@register.inclusion_tag("rolls/post_rolls.html", takes_context=True)
def post_rolls(context, post):
    """A post's rolls (prefetched by the diary page), each as its RULES 1.1 line."""
    return {
        "views": [roll_view(roll) for roll in post.rolls.all()],
        "session": context["session"],
        "hidden_post": post.is_hidden,
    }


@register.inclusion_tag("rolls/chain_head.html", takes_context=True)
def chain_head(context, session):
    user = context["request"].user
    return {
        "session": session,
        "head": selectors.chain_head(session),
        "may_roll": services.may_roll_at_all(user, session),
    }
