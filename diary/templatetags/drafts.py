"""`{{ draft|draft_saved }}`: "szkic zapisany 14:32" beside a composer."""

from django import template

from diary.drafts.presenters import saved_label

register = template.Library()


@register.filter
def draft_saved(draft) -> str:
    return saved_label(draft) if draft else ""
