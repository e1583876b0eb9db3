"""Posting and signing up are rate-limited per user and per address.

The suite raises the limits (tests/conftest.py); these tests put the real ones
back and pin the limiter's clock so that no window boundary falls inside a test.
"""

import uuid

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.test import RequestFactory
from django.urls import reverse

from config import rate_limits
from config import settings as project_settings
from config.counters.models import RateCounter
from diary.models import Post
from tests.conftest import polish

pytestmark = pytest.mark.django_db

POST_REFUSAL = "Too many posts in a short time. Wait a moment and try again."
SIGNUP_REFUSAL = "Too many sign-ups from this address. Try again later."


class FrozenClock:
    @staticmethod
    def time():
        return 1_800_000_000.0


@pytest.fixture
def real_limits(settings, monkeypatch):
    settings.RATE_LIMITS = dict(project_settings.DEFAULT_RATE_LIMITS)
    monkeypatch.setattr(rate_limits, "time", FrozenClock)
    return settings.RATE_LIMITS


def test_the_documented_limits_are_the_defaults():
    assert project_settings.DEFAULT_RATE_LIMITS == {
        "post_user": "10/m",
        "post_ip": "30/m",
        "draft_user": "30/m",
        "signup_ip": "5/h",
        "password_change_user": "10/h",
    }
    # The suite's own raised limits are not what production gets.
    assert django_settings.RATE_LIMITS != project_settings.DEFAULT_RATE_LIMITS


def post(client, table, address="10.0.0.1", **headers):
    return client.post(
        reverse("diary:post_create", args=[table.session.pk]),
        # Each send is a new form: its own one-time token.
        {"character": "", "narration": "Mgła gęstnieje.", "nc_note": "", "token": uuid.uuid4()},
        REMOTE_ADDR=address,
        **headers,
    )


def test_a_player_may_post_ten_times_a_minute(real_limits, table, client_for):
    gm = client_for(table.gm)
    for _ in range(10):
        assert post(gm, table).status_code == 302
    stored = Post.objects.count()
    assert stored == 10
    refused = post(gm, table)
    assert refused.status_code == 429
    assert polish(POST_REFUSAL) in refused.content.decode()
    assert Post.objects.count() == stored
    # Another player from another address is not held back by the first one's pace.
    assert post(client_for(table.alice), table, address="10.0.0.2").status_code == 302


def test_an_address_may_post_thirty_times_a_minute(real_limits, table, client_for):
    players = [client_for(user) for user in (table.gm, table.alice, table.bob)]
    for client in players:
        for _ in range(10):
            assert post(client, table).status_code == 302
    stored = Post.objects.count()
    fourth = client_for(table.moderator)
    refused = post(fourth, table)
    assert refused.status_code == 429
    assert Post.objects.count() == stored


def sign_up(client, username, address, **headers):
    password = "Kostki-i-Mgła-77"
    return client.post(
        reverse("signup"),
        {"username": username, "email": "", "password1": password, "password2": password},
        REMOTE_ADDR=address,
        **headers,
    )


def test_an_address_may_sign_up_five_times_an_hour(real_limits, client):
    User = get_user_model()
    for n in range(5):
        assert sign_up(client, f"nowy{n}", "10.0.0.7").status_code == 302
        client.logout()
    refused = sign_up(client, "nowy5", "10.0.0.7")
    assert refused.status_code == 429
    assert polish(SIGNUP_REFUSAL) in refused.content.decode()
    assert not User.objects.filter(username="nowy5").exists()
    assert sign_up(client, "nowy6", "10.0.0.8").status_code == 302


def forged(n):
    """A client-chosen X-Forwarded-For, different on every request."""
    return {"HTTP_X_FORWARDED_FOR": f"203.0.113.{n}, 198.51.100.{n}"}


def test_a_forged_forwarded_for_does_not_reset_the_sign_up_limit(real_limits, client):
    # RATELIMIT_IP_META_KEY unset (the default): the address is REMOTE_ADDR, never a header.
    assert django_settings.RATELIMIT_IP_META_KEY is None
    for n in range(5):
        assert sign_up(client, f"nowy{n}", "10.0.0.7", **forged(n)).status_code == 302
        client.logout()
    refused = sign_up(client, "nowy5", "10.0.0.7", **forged(99))
    assert refused.status_code == 429
    assert not get_user_model().objects.filter(username="nowy5").exists()


def test_a_forged_forwarded_for_does_not_reset_the_posting_limits(real_limits, table, client_for):
    assert django_settings.RATELIMIT_IP_META_KEY is None
    gm = client_for(table.gm)
    for n in range(10):
        assert post(gm, table, **forged(n)).status_code == 302
    # The player's own limit holds whatever address the header claims...
    assert post(gm, table, **forged(50)).status_code == 429
    # ...and so does the address's: 30 posts from one REMOTE_ADDR, whatever the header.
    for client in (client_for(table.alice), client_for(table.bob)):
        for n in range(10):
            assert post(client, table, **forged(100 + n)).status_code == 302
    stored = Post.objects.count()
    assert post(client_for(table.moderator), table, **forged(200)).status_code == 429
    assert Post.objects.count() == stored


def test_a_new_minute_starts_afresh(real_limits, table, client_for, monkeypatch):
    """A new window starts afresh: the limit is a rate, not a lifetime quota."""
    gm = client_for(table.gm)
    for _ in range(11):
        post(gm, table)
    assert post(gm, table).status_code == 429

    class MinuteLater:
        @staticmethod
        def time():
            return FrozenClock.time() + 61

    monkeypatch.setattr(rate_limits, "time", MinuteLater)
    assert post(gm, table).status_code == 302


def test_a_hit_is_one_statement_for_every_key(real_limits, table, client_for):
    """The limiter's whole cost is one INSERT … ON CONFLICT a request, for both keys."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    request = RequestFactory().post("/", REMOTE_ADDR="10.0.0.9")
    request.user = table.alice
    for expected in (1, 2):
        with CaptureQueriesContext(connection) as queries:
            assert not rate_limits.is_limited(request, "post")
        assert len(queries.captured_queries) == 1, queries.captured_queries
        assert "ON CONFLICT" in queries.captured_queries[0]["sql"]
        assert rate_limits.hits(f"post.user:{table.alice.pk}") == expected
        assert rate_limits.hits("post.ip:10.0.0.9") == expected


def test_an_ended_window_starts_afresh_in_the_same_statement(real_limits, monkeypatch):
    assert rate_limits.hit({"k": 60}) == {"k": 1}
    assert rate_limits.hit({"k": 60}) == {"k": 2}

    class Later:
        @staticmethod
        def time():
            return FrozenClock.time() + 60

    monkeypatch.setattr(rate_limits, "time", Later)
    assert rate_limits.hits("k") == 0
    assert rate_limits.hit({"k": 60}) == {"k": 1}
    assert RateCounter.objects.get(key="k").window_end == Later.time() + 60


def test_rows_of_long_ended_windows_are_pruned(real_limits, monkeypatch):
    rate_limits.hit({"old": 60, "recent": 60})

    class NextDay:
        @staticmethod
        def time():
            return FrozenClock.time() + 60 + rate_limits.PRUNE_AFTER + 1

    monkeypatch.setattr(rate_limits, "time", NextDay)
    rate_limits.hit({"recent": 86400})
    assert set(RateCounter.objects.values_list("key", flat=True)) == {"old", "recent"}
    # The next window started after PRUNE_EVERY of them deletes what ended a day ago.
    monkeypatch.setattr(rate_limits, "_windows_started", rate_limits.PRUNE_EVERY - 1)
    rate_limits.hit({"new": 60})
    assert set(RateCounter.objects.values_list("key", flat=True)) == {"recent", "new"}


def test_an_ipv6_client_counts_by_its_64_block(real_limits, table, client_for):
    """Hopping addresses inside one's own /64 buys no fresh allowance."""
    gm = client_for(table.gm)
    for n in range(10):
        assert post(gm, table, address=f"2001:db8:1:2::{n + 1:x}").status_code == 302
    alice = client_for(table.alice)
    for n in range(10):
        assert post(alice, table, address=f"2001:db8:1:2:ffff::{n + 1:x}").status_code == 302
    bob = client_for(table.bob)
    for n in range(10):
        assert post(bob, table, address=f"2001:db8:1:2:aaaa::{n + 1:x}").status_code == 302
    moderator = client_for(table.moderator)
    assert post(moderator, table, address="2001:db8:1:2::99").status_code == 429
    # Another /64 is another address: past the limiter (and refused as a non-player).
    assert post(moderator, table, address="2001:db8:1:3::1").status_code == 403


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_hits_are_not_lost():
    """Workers share the counters: hits at once from many connections all count."""
    import threading

    from django.db import connection

    start = threading.Barrier(8)

    def hammer():
        try:
            start.wait()
            for _ in range(25):
                rate_limits.hit({"rl:race": 3600})
        finally:
            connection.close()

    threads = [threading.Thread(target=hammer) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert rate_limits.hits("rl:race") == 200
