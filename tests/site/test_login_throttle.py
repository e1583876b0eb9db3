"""Log-in throttling: wrong passwords are counted per username and per address,
the right password is refused while the count is spent, and an attacker cannot lock a player
out of the browser the player logs in from (config/login_throttle.py, docs/security.md)."""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.conf import settings as django_settings
from django.core import signing
from django.test import Client
from django.urls import reverse

from config import login_throttle, rate_limits
from config import settings as project_settings
from tests.conftest import PASSWORD, polish

pytestmark = pytest.mark.django_db

LIMIT = django_settings.AXES_FAILURE_LIMIT


def log_in(client, username, password, address="10.0.0.1", **headers):
    return client.post(
        reverse("login"),
        {"username": username, "password": password},
        REMOTE_ADDR=address,
        **headers,
    )


def logged_in(client) -> bool:
    return "_auth_user_id" in client.session


def fail(client, username, times, address="10.0.0.1", **headers):
    for _ in range(times):
        response = log_in(client, username, "zle-haslo", address, **headers)
        assert response.status_code in (200, 429)
        assert not logged_in(client)


def test_the_documented_limits():
    assert (
        5,
        timedelta(minutes=15),
    ) == (project_settings.AXES_FAILURE_LIMIT, project_settings.AXES_COOLOFF_TIME)
    assert project_settings.AXES_LOCKOUT_PARAMETERS == ["username", "ip_address"]
    # Failing again during the lock-out does not prolong it.
    assert project_settings.AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT is False


def test_after_the_limit_even_the_right_password_is_refused(make_user):
    make_user("gracz")
    attacker = Client()
    for attempt in range(LIMIT - 1):
        response = log_in(attacker, "gracz", "zle-haslo")
        assert response.status_code == 200, attempt
    # The last allowed failure: the count is now spent.
    assert log_in(attacker, "gracz", "zle-haslo").status_code == 429
    response = log_in(attacker, "gracz", PASSWORD)
    assert response.status_code == 429
    assert not logged_in(attacker)
    body = response.content.decode()
    assert polish("Too many failed log-ins") in body
    assert 'data-testid="locked-out"' in body


def test_the_lock_out_ends_after_the_cool_off(make_user):
    make_user("gracz")
    client = Client()
    fail(client, "gracz", LIMIT + 3)
    assert log_in(client, "gracz", PASSWORD).status_code == 429
    # Fifteen minutes later (the attempts' clock moved back), the right password works.
    past = django_settings.AXES_COOLOFF_TIME + timedelta(seconds=1)
    for attempt in AccessAttempt.objects.all():
        AccessAttempt.objects.filter(pk=attempt.pk).update(attempt_time=attempt.attempt_time - past)
    assert log_in(client, "gracz", PASSWORD).status_code == 302
    assert logged_in(client)


def test_one_username_is_counted_across_addresses(make_user):
    """Guessing one account's password from many addresses is throttled too."""
    make_user("gracz")
    for n in range(LIMIT):
        fail(Client(), "gracz", 1, address=f"10.0.1.{n}")
    newcomer = Client()
    assert log_in(newcomer, "gracz", PASSWORD, address="10.0.2.1").status_code == 429
    assert not logged_in(newcomer)


def test_one_address_is_counted_across_usernames(make_user):
    """Trying one password on many accounts from one address is throttled."""
    make_user("ofiara")
    sprayer = Client()
    for n in range(LIMIT):
        fail(sprayer, f"konto{n}", 1, address="10.0.3.3")
    assert log_in(sprayer, "ofiara", PASSWORD, address="10.0.3.3").status_code == 429
    # Someone else, from another address, logs in as usual.
    other = Client()
    assert log_in(other, "ofiara", PASSWORD, address="10.0.4.4").status_code == 302


def test_a_forged_forwarded_for_header_does_not_reset_the_count(make_user):
    make_user("gracz2")
    client = Client()
    for n in range(LIMIT):
        fail(Client(), f"inne{n}", 1, address="10.0.5.5", HTTP_X_FORWARDED_FOR=f"1.2.3.{n}")
    assert (
        log_in(client, "gracz2", PASSWORD, address="10.0.5.5", HTTP_X_FORWARDED_FOR="9.9.9.9")
    ).status_code == 429


def test_the_players_own_browser_is_never_locked_out(make_user):
    """An attacker failing on purpose cannot keep the player out of their own browser."""
    make_user("gracz")
    player = Client()
    assert log_in(player, "gracz", PASSWORD, address="10.0.6.6").status_code == 302
    assert login_throttle.KNOWN_DEVICE_COOKIE in player.cookies
    player.post(reverse("logout"))

    attacker = Client()
    fail(attacker, "gracz", LIMIT + 5, address="10.0.7.7")
    assert log_in(attacker, "gracz", PASSWORD, address="10.0.7.7").status_code == 429

    # The player's browser (its known-device cookie), even from a new address.
    assert log_in(player, "gracz", PASSWORD, address="10.0.8.8").status_code == 302
    assert logged_in(player)


def test_a_forged_or_foreign_known_device_cookie_is_ignored(make_user):
    make_user("gracz")
    make_user("gracz3")
    fail(Client(), "gracz", LIMIT)
    forged = Client()
    forged.cookies[login_throttle.KNOWN_DEVICE_COOKIE] = signing.dumps(
        ["gracz"], salt="some-other-salt"
    )
    assert log_in(forged, "gracz", PASSWORD, address="10.0.9.9").status_code == 429
    # A genuine cookie for another account (the attacker's own) does not open this one.
    own = Client()
    assert log_in(own, "gracz3", PASSWORD, address="10.0.9.9").status_code == 302
    own.post(reverse("logout"))
    assert log_in(own, "gracz", PASSWORD, address="10.0.9.9").status_code == 429
    assert not logged_in(own)


def test_a_successful_log_in_resets_the_count(make_user):
    make_user("gracz")
    client = Client()
    fail(client, "gracz", LIMIT - 1)
    assert log_in(client, "gracz", PASSWORD).status_code == 302
    client.post(reverse("logout"))
    other = Client()
    fail(other, "gracz", LIMIT - 1, address="10.0.10.10")
    assert log_in(other, "gracz", PASSWORD, address="10.0.10.10").status_code == 302


class FrozenClock:
    @staticmethod
    def time():
        return 1_800_000_000.0


def test_password_changes_are_rate_limited_per_user(settings, monkeypatch, client_for, make_user):
    """Guessing the old password from a stolen session is throttled: 10 tries an hour."""
    settings.RATE_LIMITS = dict(project_settings.DEFAULT_RATE_LIMITS)
    monkeypatch.setattr(rate_limits, "time", FrozenClock)
    assert settings.RATE_LIMITS["password_change_user"] == "10/h"
    user = make_user()
    client = client_for(user)
    wrong = {"old_password": "zle", "new_password1": "N0we-haslo!", "new_password2": "N0we-haslo!"}
    for _ in range(10):
        assert client.post(reverse("password_change"), wrong).status_code == 200
    right = wrong | {"old_password": PASSWORD}
    response = client.post(reverse("password_change"), right)
    assert response.status_code == 429
    assert polish("Too many password changes in a short time. Try again later.") in (
        response.content.decode()
    )
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


def test_a_password_change_ends_the_known_device_exemption(make_user):
    """The cookie is bound to the password: a browser that knew the old one is a stranger."""
    user = make_user("gracz")
    browser = Client()
    assert log_in(browser, "gracz", PASSWORD, address="10.0.11.1").status_code == 302
    browser.post(reverse("logout"))
    user.set_password("N0we-haslo-gracza!")
    user.save()

    fail(Client(), "gracz", LIMIT, address="10.0.11.2")
    response = log_in(browser, "gracz", "N0we-haslo-gracza!", address="10.0.11.1")
    assert response.status_code == 429
    assert not logged_in(browser)
    assert polish("Too many failed log-ins") in response.content.decode()


def test_a_known_device_has_a_finite_allowance_of_failures(make_user):
    """A known browser (or one that stole its cookie) may fail more often than a stranger,
    not without end."""
    make_user("gracz")
    browser = Client()
    assert log_in(browser, "gracz", PASSWORD, address="10.0.12.1").status_code == 302
    browser.post(reverse("logout"))

    allowance = login_throttle.KNOWN_DEVICE_FAILURE_LIMIT
    assert LIMIT < allowance <= 4 * LIMIT
    codes = [
        log_in(browser, "gracz", "zle-haslo", address="10.0.12.1").status_code
        for _ in range(allowance + LIMIT)
    ]
    assert codes[:allowance] == [200] * allowance
    assert codes[-1] == 429
    response = log_in(browser, "gracz", PASSWORD, address="10.0.12.1")
    assert response.status_code == 429
    assert not logged_in(browser)
    body = response.content.decode()
    assert polish("Too many failed log-ins") in body
    assert 'data-testid="locked-out"' in body
