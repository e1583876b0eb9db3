"""A PostgreSQL outage under the real production server: the site answers every request
that needs the database with its 503 page (in Polish, in the site's look, with
Retry-After), never a 500, logs nobody out, and serves again by itself once the database
is back.

`make serve` (one gunicorn worker, persistent connections, as production) runs on a
throwaway cluster of its own (tests/load/test_faults.py's `cluster`), which the test stops
and starts again.
"""

from __future__ import annotations

import subprocess
import time
import uuid

import pytest

from tests.load.http_client import Answer, Browser, form_fields
from tests.load.test_faults import CLUSTER, Server, cluster  # noqa: F401  (the fixture)
from tests.serving import free_port, make_serve, serve_environment

pytestmark = pytest.mark.load

USERNAME, PASSWORD = "gracz", "Awaria-Bazy-1000"
CREATE_USER = (
    "from django.contrib.auth import get_user_model; "
    f"get_user_model().objects.create_user({USERNAME!r}, password={PASSWORD!r})"
)
UNAVAILABLE = "Baza danych jest chwilowo niedostępna"  # templates/503.html, in Polish
TIMEOUT = 20


@pytest.fixture
def server(cluster, tmp_path):  # noqa: F811
    env = serve_environment(
        SECRET_KEY="outage-test-" + uuid.uuid4().hex,
        DATABASE_URL=cluster.url,
        BIND=f"127.0.0.1:{free_port()}",
        WEB_CONCURRENCY="1",
        STATIC_ROOT=str(tmp_path / "static"),
    )
    with make_serve(env, tmp_path / "serve.log", timeout=120) as served:
        yield Server(served.url, served.env, served.process, served.log)


def log_in(browser: Browser) -> None:
    _action, fields = form_fields(browser.get("/accounts/login/").body)
    data = dict(fields) | {"username": USERNAME, "password": PASSWORD}
    answer = browser.post("/accounts/login/", list(data.items()))
    assert answer.status == 302, answer.body[:500]


def assert_unavailable(answer: Answer) -> None:
    assert answer.status == 503, (answer.status, answer.body[:300])
    assert int(answer.headers["Retry-After"]) > 0
    assert UNAVAILABLE in answer.body
    assert "Spróbuj ponownie za chwilę" in answer.body
    assert '<html lang="pl">' in answer.body
    assert "/static/css/site" in answer.body  # the site's stylesheet: its look
    assert "Traceback" not in answer.body


def test_an_outage_answers_503_and_the_site_recovers_by_itself(cluster, server):  # noqa: F811
    made = server.manage("manage.py", "shell", "-c", CREATE_USER)
    assert made.returncode == 0, made.stderr
    player, stranger = Browser(server.url, TIMEOUT), Browser(server.url, TIMEOUT)
    log_in(player)
    assert player.get("/sessions/").status == 200
    _action, login_form = form_fields(stranger.get("/accounts/login/").body)
    session_cookie = player.cookies["sessionid"]

    subprocess.run([str(CLUSTER), "stop", cluster.directory], check=True, timeout=60)
    try:
        # A logged-in reader: the session itself cannot be read.
        assert_unavailable(player.get("/sessions/"))
        assert_unavailable(player.get("/"))
        # A log-in: the form is fine, the database that checks it is not there.
        data = dict(login_form) | {"username": USERNAME, "password": PASSWORD}
        assert_unavailable(stranger.post("/accounts/login/", list(data.items())))
        # English is the visitor's choice, and kept.
        stranger.cookies["django_language"] = "en"
        english = stranger.post("/accounts/login/", list(data.items()))
        assert english.status == 503 and "The database is unavailable" in english.body
    finally:
        cluster.run("start", cluster.directory, str(cluster.port))

    # Back by itself: the first request after the database returns is served, and the
    # player is still logged in with the same session.
    started = time.monotonic()
    page = player.get("/sessions/")
    assert page.status == 200, page.body[:300]
    assert USERNAME in page.body
    assert player.cookies["sessionid"] == session_cookie
    assert time.monotonic() - started < 10
    assert "Internal Server Error" not in server.log.read_text()
