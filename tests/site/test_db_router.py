"""The replica router's decisions, in a process configured with two replicas.

The suite's own process has one database, so a fresh process gets the settings with
DATABASE_REPLICA_URLS; the "replicas" are SQLite files here (the router only needs an
alias that answers). The real streaming replica is in tests/load/test_replica.py.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def replicas(directory: Path, *names: str) -> str:
    return ",".join(f"sqlite:///{directory / name}" for name in names)


PROBE = r"""
import json, time
from unittest import mock
import django
django.setup()
from django.conf import settings
from django.db import connections, router, transaction
from django.http import HttpResponse
from django.test import RequestFactory
from config.db_router import COOKIE, COOKIE_SALT, ReplicaMiddleware
from diary.models import Post

from config.counters.models import RateCounter

out = {
    "aliases": list(settings.DATABASES),
    "mirrors": [d["TEST"].get("MIRROR") for a, d in settings.DATABASES.items() if a != "default"],
    "server_side_cursors": [
        not d.get("DISABLE_SERVER_SIDE_CURSORS", False) for d in settings.DATABASES.values()
    ],
    "routers": getattr(settings, "DATABASE_ROUTERS", []),
    "middleware": settings.MIDDLEWARE,
    "outside": router.db_for_read(Post),
}
if out["routers"]:
    out["migrate"] = [router.allow_migrate(a, "diary") for a in settings.DATABASES]

    def run(method, cookie=None, work=lambda: None):
        factory = RequestFactory()
        request = getattr(factory, method)("/")
        if cookie is not None:
            request.COOKIES[COOKIE] = cookie
        seen = {}
        def view(request):
            seen["read"] = router.db_for_read(Post)
            seen["counter"] = router.db_for_read(RateCounter)
            with transaction.atomic():
                seen["atomic"] = router.db_for_read(Post)
            seen["after"] = work()
            return HttpResponse()
        response = ReplicaMiddleware(view)(request)
        seen["stamp"] = response.cookies[COOKIE].value if COOKIE in response.cookies else None
        return seen

    get = run("get")
    stamp = run("post")["stamp"]
    with mock.patch("time.time", return_value=time.time() - 3600):
        old = run("post")["stamp"]
    out.update({
        "get": get,
        "get_counter_write": run("get", work=lambda: router.db_for_write(RateCounter)),
        "get_write": run("get", work=lambda: router.db_for_write(Post)),
        "post": run("post"),
        "head": run("head"),
        "stamped": run("get", cookie=stamp),
        "forged": run("get", cookie="1"),
        "expired": run("get", cookie=old),
        "reads": sorted({run("get")["read"] for _ in range(60)}),
    })
    for alias in settings.DATABASES:  # what the test runner's MIRROR does to the names
        connections[alias].settings_dict["NAME"] = "test_codziennik"
    out["test_mirror"] = run("get")["read"]
print(json.dumps(out))
"""


def probe(**env) -> dict:
    environment = {
        k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "PYTEST_"))
    } | {"DJANGO_SETTINGS_MODULE": "config.settings", "SECRET_KEY": "x"}
    environment.pop("DATABASE_REPLICA_URLS", None)
    environment |= {"DATABASE_URL": "sqlite:///:memory:", **env}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=environment, capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_without_replicas_nothing_changes():
    seen = probe()
    assert seen["aliases"] == ["default"]
    assert seen["routers"] == []
    assert "config.db_router.ReplicaMiddleware" not in seen["middleware"]
    assert seen["outside"] == "default"
    assert seen["server_side_cursors"] == [True]


def test_behind_pgbouncer_no_alias_uses_server_side_cursors(tmp_path):
    seen = probe(
        DATABASE_REPLICA_URLS=replicas(tmp_path, "r1", "r2"), PGBOUNCER_TRANSACTION_MODE="1"
    )
    assert seen["server_side_cursors"] == [False, False, False]


def test_with_replicas_safe_requests_read_a_replica_and_writers_the_primary(tmp_path):
    seen = probe(DATABASE_REPLICA_URLS=replicas(tmp_path, "r1", "r2"))
    assert seen["aliases"] == ["default", "replica1", "replica2"]
    assert seen["mirrors"] == ["default", "default"]  # the test runner's own databases
    assert seen["routers"] == ["config.db_router.PrimaryReplicaRouter"]
    middleware = seen["middleware"]
    session = middleware.index("django.contrib.sessions.middleware.SessionMiddleware")
    assert middleware.index("config.db_router.ReplicaMiddleware") == session - 1
    assert seen["migrate"] == [True, False, False]
    assert seen["outside"] == "default"  # commands and shells: the primary

    get = seen["get"]
    assert get["read"] in {"replica1", "replica2"}
    assert get["counter"] == "default"  # rate-limit counters are read to be written
    assert get["atomic"] == "default"
    assert get["stamp"] is None  # a read-only GET leaves the browser on the replicas
    assert seen["head"]["read"] in {"replica1", "replica2"}
    assert seen["reads"] == ["replica1", "replica2"]  # both replicas share the reads

    # A write, even on a GET (a session save), stamps the browser; a rate-limit counter does not.
    assert seen["get_write"]["after"] == "default"
    assert seen["get_write"]["stamp"]
    assert seen["get_counter_write"]["stamp"] is None
    post = seen["post"]
    assert post["read"] == post["counter"] == post["atomic"] == "default"
    assert post["stamp"]

    # With a fresh stamp the primary; a forged or an expired one counts for nothing.
    assert seen["stamped"]["read"] == "default"
    assert seen["forged"]["read"] in {"replica1", "replica2"}
    assert seen["expired"]["read"] in {"replica1", "replica2"}

    # Under the test runner a replica mirrors the primary's test database: its connection.
    assert seen["test_mirror"] == "default"


def test_a_replica_that_does_not_answer_is_passed_over(tmp_path):
    """replica1 cannot be opened (its directory does not exist): GETs read replica2; with
    no replica answering, the primary."""
    seen = probe(DATABASE_REPLICA_URLS=replicas(tmp_path, "missing/r1", "r2"))
    assert seen["reads"] == ["replica2"]
    seen = probe(DATABASE_REPLICA_URLS=replicas(tmp_path, "missing/r1"))
    assert seen["reads"] == ["default"]
    assert seen["get"]["read"] == "default"
