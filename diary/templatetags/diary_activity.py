"""`{% session_activity session %}`: a session's last post and turn change in words, with
the exact time on hover, and the "quiet" mark for whom diary.access shows it."""

from django import template
from django.conf import settings

from diary.access import sees_quiet_mark
from diary.activity.presenters import activity_of

register = template.Library()


@register.inclusion_tag("diary/activity/line.html", takes_context=True)
def session_activity(context, session):
    user = context.get("user")
    activity = activity_of(session)
    return {
        "session": session,
        "activity": activity,
        "quiet_days": settings.INACTIVE_AFTER_DAYS,
        "marked": activity.quiet and user is not None and sees_quiet_mark(user, session),
    }
