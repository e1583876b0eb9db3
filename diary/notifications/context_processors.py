"""The bell in the header: the unread count, counted only when a page shows it."""

from functools import cache

from diary.notifications.delivery import unread_count


def notifications(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}

    @cache
    def unread() -> int:
        return unread_count(user)

    return {"unread_notifications": unread}
