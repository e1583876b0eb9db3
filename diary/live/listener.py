"""Sessions' activity markers kept in this process, fresh by PostgreSQL LISTEN/NOTIFY, so the
live poll answers "nothing new" without a query (diary/live/poll.py).

A trigger (diary migration 0023) sends NOTIFY diary_activity, '<session id>' whenever a
session's marker moves or the session is deleted, as that transaction commits. One listener
thread per process (started by the first poll, its own connection to the primary) forgets
that session's marker. A marker is cached only:

- while the listener is connected and has LISTENed, checked alive within HEARTBEAT seconds;
- from a read that started after the listener was up and that no notice for its session
  overtook (a per-session counter, taken before the read and compared after it);
- from a read outside any transaction (a read-committed statement: its snapshot is newer
  than the counter it is compared with; inside a transaction it could be older).

A cached marker is trusted only while nothing is waiting unread on the listener's socket
(one poll() of it with no timeout, under the lock). The listener waits on the socket without
reading it and reads (and applies) what arrived only under that lock, so a notice that has
reached the process is either still on the socket (the poll goes to the database) or already
applied (the copy is gone): never read and not yet applied. Anything
else (the listener starting, down, reconnecting, silent too long; SQLite; a session not yet
cached) is the one-query path, never a delayed answer.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import socket
import threading
import time
from dataclasses import dataclass

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections

log = logging.getLogger(__name__)

CHANNEL = "diary_activity"  # the trigger's, diary/migrations/0023_session_activity_notify.py
APPLICATION_NAME = "codziennik-live-listener"  # in pg_stat_activity
HEARTBEAT = 5.0  # seconds between the listener's liveness checks
RETRY = 2.0  # seconds before reconnecting after a failure
MAX_SESSIONS = 20_000  # markers (and notice counters) kept at most; beyond, start afresh

# libpq parameters of Django's connection; the rest (adapters, cursor class) are Django's.
_LIBPQ_PARAMS = frozenset(
    {
        "dbname",
        "user",
        "password",
        "host",
        "hostaddr",
        "port",
        "sslmode",
        "sslrootcert",
        "sslcert",
        "sslkey",
        "sslpassword",
        "passfile",
        "service",
        "connect_timeout",
        "options",
        "target_session_attrs",
        "channel_binding",
        "gssencmode",
        "keepalives",
        "keepalives_idle",
        "keepalives_interval",
        "keepalives_count",
        "application_name",
    }
)


@dataclass(frozen=True)
class Ticket:
    """Taken before reading a marker: the listener's connection and the session's notices."""

    session_pk: int
    epoch: int
    notices: int


class MarkerCache:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._markers: dict[int, str] = {}
        self._notices: dict[int, int] = {}
        self._counter = 0
        self._epoch = 0  # changes whenever the listener connects or is given up on
        self._fd: int | None = None  # the listening socket, while up
        self._alive_at = 0.0
        self._thread: threading.Thread | None = None
        self._pid = 0
        self._stopping = False
        self._beating = False  # the listener's heartbeat query is out

    # --- the poll's side --------------------------------------------------------------

    def get(self, session_pk: int) -> str | None:
        """The cached marker, if the listener vouches for it right now."""
        self.start()
        with self._lock:  # held while polling: the listener closes its socket only under it
            marker, fd = self._markers.get(session_pk), self._fd
            if marker is None or fd is None:
                return None
            if self._beating or time.monotonic() - self._alive_at > 2 * HEARTBEAT:
                return None
            waiting = select.poll()
            waiting.register(fd, select.POLLIN)
            try:
                pending = waiting.poll(0)
            except OSError:
                return None
        return None if pending else marker

    def ticket(self, session_pk: int) -> Ticket | None:
        """Before a read that may fill the cache; None when it may not."""
        self.start()
        if connections[DEFAULT_DB_ALIAS].in_atomic_block:
            return None
        with self._lock:
            if self._fd is None:
                return None
            return Ticket(session_pk, self._epoch, self._notices.get(session_pk, 0))

    def store(self, ticket: Ticket, marker: str) -> None:
        with self._lock:
            if (
                self._fd is None
                or ticket.epoch != self._epoch
                or ticket.notices != self._notices.get(ticket.session_pk, 0)
            ):
                return
            if len(self._markers) >= MAX_SESSIONS:
                self._markers.clear()
            self._markers[ticket.session_pk] = marker

    # --- the listener's side ----------------------------------------------------------

    def start(self) -> None:
        """Start this process's listener once (again after a fork: threads do not follow)."""
        if self._pid == os.getpid() and self._thread is not None:
            return
        if self._stopping or not settings.LIVE_POLL_LISTEN:
            return
        if connections[DEFAULT_DB_ALIAS].vendor != "postgresql":
            return
        with self._lock:
            if self._pid == os.getpid() and self._thread is not None:
                return
            self._reset(fd=None)
            self._pid = os.getpid()
            conninfo = _conninfo()
            self._thread = threading.Thread(
                target=self._run, args=(conninfo,), name="diary-live", daemon=True
            )
            self._thread.start()

    def _reset(self, fd: int | None) -> None:
        """Forget everything (under the lock): a new connection, or none."""
        self._markers.clear()
        self._notices.clear()
        self._epoch += 1
        self._fd = fd
        self._alive_at = time.monotonic()
        self._beating = False

    def _forget(self, session_pk: int) -> None:
        """A notice for this session (under the lock)."""
        if len(self._notices) >= MAX_SESSIONS:
            self._reset(self._fd)  # outstanding tickets lapse with the epoch
        self._counter += 1
        self._notices[session_pk] = self._counter
        self._markers.pop(session_pk, None)

    def _run(self, conninfo: dict) -> None:
        while not self._stopping:
            try:
                self._listen(conninfo)
            except Exception as error:
                if not self._stopping:
                    # One line each time: a database that is down says so elsewhere too.
                    log.warning("live poll listener: no connection (polls query): %s", error)
            with self._lock:
                self._reset(fd=None)
            if not self._stopping:
                time.sleep(RETRY)

    def _listen(self, conninfo: dict) -> None:
        import psycopg

        params = dict(conninfo)
        url = params.pop("url", "")
        with psycopg.connect(url, **params, autocommit=True) as conn:
            conn.execute(f"LISTEN {CHANNEL}")
            fd = conn.pgconn.socket
            with self._lock:
                self._reset(fd=fd)
            incoming = select.poll()
            incoming.register(fd, select.POLLIN)
            beat = time.monotonic()
            try:
                while not self._stopping:
                    # Wait for the socket without reading it: what arrives stays on it (and
                    # keeps the copy untrusted, MarkerCache.get) until read under the lock.
                    left = max(0.0, beat + HEARTBEAT - time.monotonic())
                    incoming.poll(left * 1000)
                    if time.monotonic() - beat >= HEARTBEAT:
                        # Not under the lock (a hung server must not hold the polls up): the
                        # copy is untrusted meanwhile, as the query may read notices too.
                        with self._lock:
                            self._beating = True
                        conn.execute("SELECT 1")
                        beat = time.monotonic()
                    with self._lock:
                        for notice in conn.notifies(timeout=0):
                            self._received(notice.payload)
                        if self._beating:
                            self._beating, self._alive_at = False, beat
            finally:
                # Before the socket closes and its number can be another's.
                with self._lock:
                    self._reset(fd=None)

    def _received(self, payload: str) -> None:
        """A notice (under the lock)."""
        if payload == "*":  # the table was emptied (TRUNCATE): forget every session
            self._reset(self._fd)
            return
        try:
            self._forget(int(payload))
        except ValueError:
            return

    def stop(self, timeout: float = 5.0) -> None:
        """End the listener for good (the test suite, before it drops its database): shut its
        socket down, so its wait ends at once, and let the thread close the connection."""
        self._stopping = True
        with self._lock:
            fd, thread = self._fd, self._thread
            self._reset(fd=None)
        if fd is not None:
            with contextlib.suppress(OSError), socket.socket(fileno=os.dup(fd)) as sock:
                sock.shutdown(socket.SHUT_RDWR)
        if thread is not None and thread.is_alive():
            thread.join(timeout)

    # --- for tests ----------------------------------------------------------------------

    def wait_listening(self, timeout: float = 10.0) -> bool:
        """Start the listener and wait until it has LISTENed."""
        self.start()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if self._fd is not None:
                    return True
            time.sleep(0.01)
        return False


def _conninfo() -> dict:
    """The primary's libpq parameters, from Django's connection (the test database's under
    the test runner), read on the thread that starts the listener."""
    if settings.LIVE_POLL_LISTEN_URL:
        conninfo = {"url": settings.LIVE_POLL_LISTEN_URL}
    else:
        params = connections[DEFAULT_DB_ALIAS].get_connection_params()
        conninfo = {key: value for key, value in params.items() if key in _LIBPQ_PARAMS}
    conninfo.setdefault("connect_timeout", 5)
    conninfo["application_name"] = APPLICATION_NAME
    # A peer gone without a word is noticed by TCP within ~20 s (the heartbeat's query then
    # fails); until then the heartbeat's silence has already stopped the cache.
    conninfo.update(keepalives=1, keepalives_idle=5, keepalives_interval=5, keepalives_count=3)
    return conninfo


markers = MarkerCache()
