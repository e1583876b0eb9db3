"""The live poll's "nothing new" without a query: this process's copy of a session's marker,
forgotten by a real NOTIFY from a real transaction (diary/live/listener.py and the trigger of
diary migration 0023). PostgreSQL only: SQLite has no LISTEN, and its poll stays one query."""

import threading
import time
from contextlib import contextmanager

import pytest
from django.db import connection, connections
from django.urls import reverse

from diary.live import poll as live
from diary.live.listener import APPLICATION_NAME, markers
from diary.models import GameSession
from diary.services import participation_withdraw, post_create

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres_only,  # LISTEN/NOTIFY is PostgreSQL's
]

# "Anything new?" with nothing new: no query once this process holds the marker, one before.
POLL_WARM_MAX = 0
POLL_COLD_MAX = 1


@contextmanager
def counted_queries():
    """Every query on every database alias, as the server would see it."""
    seen: list[str] = []

    def count(execute, sql, params, many, context):
        seen.append(sql)
        return execute(sql, params, many, context)

    wrappers = [c.execute_wrapper(count) for c in connections.all()]
    for wrapper in wrappers:
        wrapper.__enter__()
    try:
        yield seen
    finally:
        for wrapper in reversed(wrappers):
            wrapper.__exit__(None, None, None)


def _poll(client, table, seen, **headers):
    return client.get(
        reverse("diary:session_live", args=[table.session.pk]), {"seen": seen}, headers=headers
    )


def _marker(table) -> str:
    return GameSession.objects.get(pk=table.session.pk).activity_marker


def _in_another_connection(work):
    """Run `work` on a thread of its own: its own connection, its own committed transaction."""
    failures = []

    def run():
        try:
            work()
        except Exception as error:  # reported to the test below
            failures.append(error)
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(30)
    assert not failures, failures


def _say_elsewhere(table, text):
    _in_another_connection(
        lambda: post_create(
            session=GameSession.objects.get(pk=table.session.pk),
            author=table.alice,
            character=table.lirael,
            narration=text,
            nc_note="",
        )
    )


@pytest.fixture
def listening():
    assert markers.wait_listening(), "the listener did not LISTEN within 10 s"


def test_nothing_new_costs_no_query_once_the_marker_is_cached(table, client_for, listening):
    bob = client_for(table.bob)
    full = _poll(bob, table, "0")  # the full check grants this cookie
    assert full.status_code == 200
    seen = _marker(table)
    with counted_queries() as cold:
        assert _poll(bob, table, seen).status_code == 204
    assert len(cold) <= POLL_COLD_MAX, cold
    with counted_queries() as warm:
        assert _poll(bob, table, seen).status_code == 204
        assert _poll(bob, table, "", **{"If-None-Match": full["ETag"]}).status_code in (200, 304)
    assert len(warm) == POLL_WARM_MAX, warm


def test_a_change_from_another_transaction_shows_at_the_very_next_poll(
    table, client_for, listening
):
    bob = client_for(table.bob)
    assert _poll(bob, table, "0").status_code == 200
    trips = []
    for number in range(5):
        seen = _marker(table)
        assert _poll(bob, table, seen).status_code == 204  # cached (again) after each change
        with counted_queries() as warm:
            assert _poll(bob, table, seen).status_code == 204
        assert warm == []
        _say_elsewhere(table, f"Wieść numer {number}")
        # The notice leaves as the commit does, and crosses to this process on its own: a
        # poll that starts before it lands still hears "nothing new" (the documented bound).
        # Wait for that crossing only, never for a cache to expire...
        committed = time.monotonic()
        while markers.get(table.session.pk) is not None and time.monotonic() - committed < 5:
            time.sleep(0.001)
        trips.append(time.monotonic() - committed)
        # ...then the very next poll shows the change.
        fresh = _poll(bob, table, seen)
        assert fresh.status_code == 200, number
        assert f"Wieść numer {number}" in fresh.text
    # The notice's crossing, the only delay (milliseconds; generous for a loaded machine).
    assert max(trips) < 2, trips
    print(f"notice crossings: {', '.join(f'{trip * 1000:.1f} ms' for trip in trips)}")


def test_a_raw_update_of_the_marker_is_heard_too(table, client_for, listening):
    """The trigger, not the services, sends the notice: any writer of the marker is heard."""
    bob = client_for(table.bob)
    _poll(bob, table, "0")
    seen = _marker(table)
    _poll(bob, table, seen)
    assert _poll(bob, table, seen).status_code == 204
    _bump_elsewhere(table)
    # Only the notice's crossing to this process may stand between the commit and the poll.
    committed = time.monotonic()
    while markers.get(table.session.pk) is not None and time.monotonic() - committed < 5:
        time.sleep(0.001)
    assert markers.get(table.session.pk) is None, "the trigger's notice never arrived"
    assert _poll(bob, table, seen).status_code == 200


def test_a_lost_listener_never_vouches_for_its_copy(table, client_for, listening):
    bob = client_for(table.bob)
    _poll(bob, table, "0")
    seen = _marker(table)
    _poll(bob, table, seen)
    assert _poll(bob, table, seen).status_code == 204  # the copy is warm
    with connection.cursor() as cursor:
        cursor.execute(
            # This database's listener only: another test run may share the server.
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE application_name = %s AND datname = current_database()",
            [APPLICATION_NAME],
        )
        assert cursor.fetchall() == [(True,)]
    # The change's notice has no one to reach; the poll must not answer from the copy.
    _say_elsewhere(table, "Nikt nie słuchał")
    fresh = _poll(bob, table, seen)
    assert fresh.status_code == 200 and "Nikt nie słuchał" in fresh.text
    # The listener comes back, and the copy with it.
    assert markers.wait_listening(timeout=15)
    seen = _marker(table)
    _poll(bob, table, seen)
    with counted_queries() as warm:
        assert _poll(bob, table, seen).status_code == 204
    assert warm == []


def test_a_reader_without_access_is_refused_with_the_sites_page(
    table, client_for, listening, monkeypatch
):
    outsider = client_for(table.outsider)
    refused = _poll(outsider, table, _marker(table))
    assert refused.status_code == 403
    assert "<html" in refused.text.lower()  # the site's 403 page, not a bare status
    # A removed player whose cookie holds a grant, with the marker warm: "nothing new" only,
    # until the grant runs out; then the full check refuses.
    bob = client_for(table.bob)
    _poll(bob, table, "0")
    seen = _marker(table)
    _poll(bob, table, seen)
    _in_another_connection(
        lambda: participation_withdraw(
            participation=table.borys.participations.get(session=table.session),
            by=table.gm,
            reason="Bez odpowiedzi.",
        )
    )
    _poll(bob, table, seen)
    assert _poll(bob, table, seen).status_code == 204
    _say_elsewhere(table, "Po odejściu")
    after_change = _poll(bob, table, seen)
    assert after_change.status_code == 403 and "Po odejściu" not in after_change.text
    later = live._now() + live.ACCESS_TTL
    monkeypatch.setattr(live, "_now", lambda: later)
    assert _poll(bob, table, _marker(table)).status_code == 403


def _bump_elsewhere(table):
    def bump():
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE diary_gamesession SET activity_at = activity_at + interval '1 second'"
                " WHERE id = %s",
                [table.session.pk],
            )

    _in_another_connection(bump)


def test_a_read_overtaken_by_a_notice_is_not_kept(table, listening):
    """A poll reads the marker, a change commits before the poll keeps what it read: the
    stale read must not become the copy."""
    pk = table.session.pk
    ticket = markers.ticket(pk)
    assert ticket is not None
    read = _marker(table)  # the poll's read...
    _bump_elsewhere(table)  # ...overtaken by a commit
    deadline = time.monotonic() + 10
    while markers.ticket(pk) == ticket and time.monotonic() < deadline:
        time.sleep(0.01)  # the notice reaching this process
    assert markers.ticket(pk) != ticket
    markers.store(ticket, read)
    assert markers.get(pk) is None
    # A read after the notice is kept: once the listener vouches for the copy (not while its
    # heartbeat query is out, nor while anything waits unread on its socket), the copy is
    # that read, never the overtaken one.
    current = _marker(table)
    assert current != read
    deadline = time.monotonic() + 30
    while True:
        fresh = markers.ticket(pk)
        markers.store(fresh, _marker(table))
        kept = markers.get(pk)
        assert kept in (None, current), kept
        if kept == current:
            break
        assert time.monotonic() < deadline, "the listener never vouched for a fresh read"
        time.sleep(0.05)
