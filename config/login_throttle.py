"""Log-in throttling: django-axes counts failed log-ins per username and per client
address and refuses further tries for a short cool-off; a browser a user already logged in
from ("a known device") is never locked out of that user's account.

Why the known-device cookie: a lock-out per username is what stops guessing one account's
password from many addresses, but on its own it lets anyone lock a real player out by
failing on purpose. The player's own browser carries a signed cookie naming the usernames it
logged in as (set only by a successful log-in), and axes lets those through; an attacker
cannot forge it (it is signed with SECRET_KEY) and so gains nothing from the lock-out but
the cool-off on browsers the player never used. The cool-off does not grow while an attacker
keeps failing (AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT is off). See docs/security.md.
"""

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.core import signing
from django.shortcuts import render

KNOWN_DEVICE_COOKIE = "codziennik_known_device"
KNOWN_DEVICE_SALT = "codziennik.login.known-device"
KNOWN_DEVICE_MAX_AGE = 180 * 24 * 3600  # half a year, renewed at each log-in
KNOWN_DEVICE_MAX_USERS = 5  # a shared family computer, not a list to grow without bound


def client_address(request) -> str | None:
    """The address axes counts by: the same META key as the rate limits, so a forged
    X-Forwarded-For cannot give an attacker a fresh count (config/rate_limits.py)."""
    return request.META.get(settings.RATELIMIT_IP_META_KEY or "REMOTE_ADDR")


def _normalise(username: str) -> str:
    return username.strip().casefold()


def known_usernames(request) -> list[str]:
    """The usernames this browser has logged in as (empty when the cookie is absent or forged)."""
    value = request.COOKIES.get(KNOWN_DEVICE_COOKIE)
    if not value:
        return []
    try:
        names = signing.loads(value, salt=KNOWN_DEVICE_SALT, max_age=KNOWN_DEVICE_MAX_AGE)
    except signing.BadSignature:
        return []
    return [name for name in names if isinstance(name, str)] if isinstance(names, list) else []


def is_known_device(request, credentials=None) -> bool:
    """AXES_WHITELIST_CALLABLE: the log-in comes from a browser that logged in as this user."""
    username = (credentials or {}).get("username") or request.POST.get("username") or ""
    return bool(username) and _normalise(username) in known_usernames(request)


def remember_device(request, response, username: str) -> None:
    names = [_normalise(username)]
    names += [name for name in known_usernames(request) if name != names[0]]
    response.set_cookie(
        KNOWN_DEVICE_COOKIE,
        signing.dumps(names[:KNOWN_DEVICE_MAX_USERS], salt=KNOWN_DEVICE_SALT),
        max_age=KNOWN_DEVICE_MAX_AGE,
        httponly=True,
        secure=settings.SESSION_COOKIE_SECURE,
        samesite="Lax",
    )


class LoginView(auth_views.LoginView):
    """Django's log-in page; a successful log-in marks this browser as a known device."""

    def form_valid(self, form):
        response = super().form_valid(form)
        remember_device(self.request, response, form.get_user().get_username())
        return response


def locked_out(request, original_response=None, credentials=None):
    """AXES_LOCKOUT_CALLABLE: the Polish page saying how long log-in is paused (429)."""
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    return render(request, "registration/locked_out.html", {"cooloff_minutes": minutes}, status=429)
