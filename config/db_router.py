"""Read replicas: which database each query goes to (settings: DATABASE_REPLICA_URLS).

Installed only when replicas are configured (config/settings.py); with one database
nothing here runs. Then:

- `ReplicaMiddleware` decides once per request: a GET or HEAD may read from a replica
  (one that answers, picked at random, for the whole request; the primary if none
  does); any other method reads the primary.
  After a request that wrote (any non-safe method, or a safe one that wrote, such as a
  session save), the response carries a signed cookie that sends this browser's reads
  to the primary for READ_YOUR_WRITES_SECONDS: the author sees their post or roll at
  once even while the replica lags. The signature's own timestamp bounds the window,
  so a kept or forged cookie buys nothing more.
- `PrimaryReplicaRouter`: every write, every `select_for_update` (Django asks for the
  write database), and every read inside `transaction.atomic` go to the primary; the
  rate-limit counters (config/rate_limits.py) always live on the primary; outside a request
  (management commands, shells, cron) everything is on the primary.
"""

from __future__ import annotations

import random
from contextvars import ContextVar
from dataclasses import dataclass

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.db.backends.base.creation import TEST_DATABASE_PREFIX

COOKIE = "primary_reads"
COOKIE_SALT = "config.db_router.read-your-writes"
SAFE_METHODS = frozenset({"GET", "HEAD"})
# The rate-limit counters are read to be updated (config/rate_limits.py).
PRIMARY_ONLY_APPS = frozenset({"counters"})


@dataclass
class RequestReads:
    replica: str | None  # the alias this request reads from, None: the primary
    wrote: bool = False


_request: ContextVar[RequestReads | None] = ContextVar("replica_reads", default=None)


def is_test_mirror(replica: dict, primary: dict) -> bool:
    """Under the test runner a replica alias mirrors the primary (TEST.MIRROR): Django
    gives it the primary's test database name. A test's rows live in the primary
    connection's open transaction, so its reads must use that connection. (A production
    database named test_… with replicas would only lose the offloading, nothing else.)"""
    return replica["NAME"] == primary["NAME"] and primary["NAME"].startswith(TEST_DATABASE_PREFIX)


def replica_aliases() -> list[str]:
    return [alias for alias in settings.DATABASES if alias != DEFAULT_DB_ALIAS]


class PrimaryReplicaRouter:
    def db_for_read(self, model, **hints):
        reads = _request.get()
        if reads is None or reads.replica is None:
            return DEFAULT_DB_ALIAS
        if model._meta.app_label in PRIMARY_ONLY_APPS:
            return DEFAULT_DB_ALIAS
        # Inside a transaction the reads belong with its writes and locks.
        if connections[DEFAULT_DB_ALIAS].in_atomic_block:
            return DEFAULT_DB_ALIAS
        return reads.replica

    def db_for_write(self, model, **hints):
        reads = _request.get()
        if reads is not None and model._meta.app_label not in PRIMARY_ONLY_APPS:
            reads.wrote = True
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1, obj2, **hints):
        return True  # every alias holds the same data

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        # A streaming replica is read-only: it gets the schema from the primary's WAL.
        return db == DEFAULT_DB_ALIAS


class ReplicaMiddleware:
    """Route this request's reads (before the session and auth middleware, whose
    reads are routed too) and stamp the browser after a write."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.replicas = replica_aliases()
        self.window = settings.READ_YOUR_WRITES_SECONDS

    def __call__(self, request):
        replica = None
        if request.method in SAFE_METHODS and not self.wrote_lately(request):
            replica = self.answering_replica()
        reads = RequestReads(replica)
        token = _request.set(reads)
        try:
            response = self.get_response(request)
        finally:
            _request.reset(token)
        if reads.wrote or request.method not in SAFE_METHODS:
            response.set_signed_cookie(
                COOKIE,
                "1",
                salt=COOKIE_SALT,
                max_age=self.window,
                secure=settings.SESSION_COOKIE_SECURE,
                httponly=True,
                samesite="Lax",
            )
        return response

    def answering_replica(self) -> str | None:
        """A replica that answers, tried in random order; None (the primary) if none does,
        so a dead replica slows nothing but its own connect. A kept connection is checked
        once per request anyway (conn_health_checks): checking it here costs nothing more."""
        primary = connections[DEFAULT_DB_ALIAS].settings_dict
        for alias in random.sample(self.replicas, len(self.replicas)):
            connection = connections[alias]
            if is_test_mirror(connection.settings_dict, primary):
                return None
            try:
                connection.close_if_health_check_failed()
                connection.ensure_connection()
            except DatabaseError:
                continue
            return alias
        return None

    def wrote_lately(self, request) -> bool:
        stamp = request.get_signed_cookie(
            COOKIE, default=None, salt=COOKIE_SALT, max_age=self.window
        )
        return stamp is not None
