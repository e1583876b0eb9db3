"""Rate limits for posting and signing up. Shared plumbing: every
app limits what a user does, so this module imports no app (a contract in pyproject.toml).

The counting is django-ratelimit's; the counters live in a database cache so
that every gunicorn worker (and every server behind the same database) shares
them. Django's DatabaseCache increments by read-then-write, which concurrent
requests would undercount, so `AtomicDatabaseCache` locks the counter's row
around the increment. The limits themselves are settings (RATE_LIMITS).
"""

from functools import wraps

from django.conf import settings
from django.core.cache.backends.db import DatabaseCache
from django.db import connections, router, transaction
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _
from django_ratelimit.core import is_ratelimited

# What each limited action says when it is refused, and which keys it counts by.
ACTIONS = {
    "post": (_("Too many posts in a short time. Wait a moment and try again."), ("user", "ip")),
    "signup": (_("Too many sign-ups from this address. Try again later."), ("ip",)),
    # Guessing the old password from a logged-in session (a stolen one) is throttled too.
    "password_change": (
        _("Too many password changes in a short time. Try again later."),
        ("user",),
    ),
}


class AtomicDatabaseCache(DatabaseCache):
    """A DatabaseCache whose `incr` cannot lose a count to a concurrent request."""

    def incr(self, key, delta=1, version=None):
        db = router.db_for_write(self.cache_model_class)
        connection = connections[db]
        table = connection.ops.quote_name(self._table)
        cache_key = self.make_and_validate_key(key, version=version)
        with transaction.atomic(using=db):
            if connection.features.has_select_for_update:
                with connection.cursor() as cursor:
                    cursor.execute(
                        f"SELECT cache_key FROM {table} WHERE cache_key = %s FOR UPDATE",
                        [cache_key],
                    )
            # SQLite: the project's IMMEDIATE transactions already serialise writers.
            return super().incr(key, delta, version=version)


def rate_limited(action: str):
    """Refuse a POST with 429 once RATE_LIMITS[f"{action}_{key}"] is spent for any key."""
    message, keys = ACTIONS[action]

    def decorator(view):
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            if request.method == "POST":
                for key in keys:
                    if is_ratelimited(
                        request,
                        group=f"codziennik.{action}.{key}",
                        key=key,
                        rate=settings.RATE_LIMITS[f"{action}_{key}"],
                        increment=True,
                    ):
                        return render(
                            request, "rate_limited.html", {"message": message}, status=429
                        )
            return view(request, *args, **kwargs)

        return wrapped

    return decorator
