"""Log-in throttling: django-axes counts failed log-ins per username and per client
address and refuses further tries for a short cool-off; a browser a user already logged in
from ("a known device") keeps an allowance of its own for that user's account.

Why the known-device cookie: a lock-out per username is what stops guessing one account's
password from many addresses, but on its own it lets anyone lock a real player out by
failing on purpose. The player's own browser carries a signed cookie naming the usernames it
logged in as (set only by a successful log-in), and axes lets those through; an attacker
cannot forge it (it is signed with SECRET_KEY) and so gains nothing from the lock-out but
the cool-off on browsers the player never used. The cool-off does not grow while an attacker
keeps failing (AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT is off).

The cookie is no key to guess with: each name in it carries a digest of that user's password
hash, so a password change (after a stolen laptop, say) makes it worthless; and the browsers
known for a username share KNOWN_DEVICE_FAILURE_LIMIT failures per cool-off, after which they
are counted like any other browser. See docs/security.md.
"""

import hashlib

from axes.handlers.database import AxesDatabaseHandler
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth import views as auth_views
from django.core import signing
from django.shortcuts import render
from django.utils.crypto import constant_time_compare, salted_hmac

from config import rate_limits

KNOWN_DEVICE_COOKIE = "codziennik_known_device"
KNOWN_DEVICE_SALT = "codziennik.login.known-device"
KNOWN_DEVICE_MAX_AGE = 180 * 24 * 3600  # half a year, renewed at each log-in
KNOWN_DEVICE_MAX_USERS = 5  # a shared family computer, not a list to grow without bound
# Failures the known browsers of one username may make per cool-off before axes counts them:
# room for a player who mistypes, not for guessing.
KNOWN_DEVICE_FAILURE_LIMIT = 10


def client_address(request) -> str | None:
    """The address axes counts by: the same META key as the rate limits, so a forged
    X-Forwarded-For cannot give an attacker a fresh count (config/rate_limits.py)."""
    return request.META.get(settings.RATELIMIT_IP_META_KEY or "REMOTE_ADDR")


def _normalise(username: str) -> str:
    return username.strip().casefold()


def _password_digest(user) -> str:
    """Changes whenever the password does; reveals nothing of the hash (keyed by SECRET_KEY)."""
    return salted_hmac(
        KNOWN_DEVICE_SALT + ".password", user.password, algorithm="sha256"
    ).hexdigest()[:32]


def _remembered(request) -> list[list[str]]:
    """[username, password digest] pairs this browser logged in as (empty when the cookie is
    absent, forged, or of the older form without digests)."""
    value = request.COOKIES.get(KNOWN_DEVICE_COOKIE)
    if not value:
        return []
    try:
        entries = signing.loads(value, salt=KNOWN_DEVICE_SALT, max_age=KNOWN_DEVICE_MAX_AGE)
    except signing.BadSignature:
        return []
    if not isinstance(entries, list):
        return []
    return [
        entry
        for entry in entries
        if isinstance(entry, list) and len(entry) == 2 and all(isinstance(x, str) for x in entry)
    ]


def _known_user(request, username: str):
    """The user this browser logged in as under this name, if their password is unchanged."""
    wanted = _normalise(username)
    for name, digest in _remembered(request):
        if _normalise(name) != wanted:
            continue
        user = get_user_model()._default_manager.filter(username=name).first()
        if user is not None and constant_time_compare(digest, _password_digest(user)):
            return user
    return None


def _failures_key(username: str) -> str:
    return "login.known-device:" + hashlib.sha256(_normalise(username).encode()).hexdigest()


def _typed_username(request, credentials) -> str:
    return (credentials or {}).get("username") or request.POST.get("username") or ""


def is_known_device(request, credentials=None) -> bool:
    """AXES_WHITELIST_CALLABLE: the log-in comes from a browser that logged in as this user
    with their present password, and the known browsers' allowance is not spent."""
    username = _typed_username(request, credentials)
    if not username or _known_user(request, username) is None:
        return False
    return rate_limits.hits(_failures_key(username)) < KNOWN_DEVICE_FAILURE_LIMIT


class LoginFailureHandler(AxesDatabaseHandler):
    """AXES_HANDLER: axes' own, which also counts a known device's failures against its
    allowance (axes leaves the failures of a let-through browser uncounted)."""

    def user_login_failed(self, sender, credentials: dict, request=None, **kwargs):
        if request is not None and is_known_device(request, credentials):
            # Counted like the rate limits, in a window of one cool-off from the first failure.
            key = _failures_key(_typed_username(request, credentials))
            rate_limits.hit({key: int(settings.AXES_COOLOFF_TIME.total_seconds())})
        super().user_login_failed(sender, credentials, request, **kwargs)


def remember_device(request, response, user) -> None:
    entry = [user.get_username(), _password_digest(user)]
    entries = [entry] + [
        other for other in _remembered(request) if _normalise(other[0]) != _normalise(entry[0])
    ]
    response.set_cookie(
        KNOWN_DEVICE_COOKIE,
        signing.dumps(entries[:KNOWN_DEVICE_MAX_USERS], salt=KNOWN_DEVICE_SALT),
        max_age=KNOWN_DEVICE_MAX_AGE,
        httponly=True,
        secure=settings.SESSION_COOKIE_SECURE,
        samesite="Lax",
    )
    # The player got in: their browsers' allowance starts afresh, as axes' count does.
    rate_limits.forget(_failures_key(entry[0]))


class LoginView(auth_views.LoginView):
    """Django's log-in page; a successful log-in marks this browser as a known device."""

    def form_valid(self, form):
        response = super().form_valid(form)
        remember_device(self.request, response, form.get_user())
        return response


def locked_out(request, original_response=None, credentials=None):
    """AXES_LOCKOUT_CALLABLE: the Polish page saying how long log-in is paused (429)."""
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    return render(request, "registration/locked_out.html", {"cooloff_minutes": minutes}, status=429)
