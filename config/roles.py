"""Site-wide roles, which every app asks about; GM and player are roles within a session
(diary/access.py). Shared plumbing: imports no app."""

MODERATOR_GROUP = "Moderator"


def is_moderator(user) -> bool:
    if not user.is_authenticated:
        return False
    if user.is_superuser:
        return True
    # Cached on the user object: a page asks this many times.
    cached = getattr(user, "_is_moderator", None)
    if cached is None:
        cached = user.groups.filter(name=MODERATOR_GROUP).exists()
        user._is_moderator = cached
    return cached
