"""The production command serves its own static files with DEBUG off.

`make serve` is started as it is documented in README.md — gunicorn, DEBUG off,
WhiteNoise serving `collectstatic` output — on a free loopback port against a
database it migrates itself (an SQLite file, or a new PostgreSQL database when
the suite runs on PostgreSQL). Chromium then proves the stylesheet applies and
htmx loads; plain HTTP requests check the cache and compression headers.
"""

import os
import urllib.error
import urllib.request
import uuid

import dj_database_url
import pytest

from tests.serving import free_port, make_serve, serve_environment

YEAR = 365 * 24 * 3600


@pytest.fixture
def server_database(tmp_path):
    """A database of the suite's kind that only the server uses."""
    configured = os.environ.get("DATABASE_URL", "")
    if not configured.startswith(("postgres://", "postgresql://")):
        yield f"sqlite:///{tmp_path / 'serve.sqlite3'}"
        return
    import psycopg

    settings = dj_database_url.parse(configured)
    name = f"codziennik_serve_{uuid.uuid4().hex[:8]}"
    admin = psycopg.connect(
        host=settings["HOST"],
        port=settings["PORT"],
        user=settings["USER"],
        password=settings["PASSWORD"] or None,
        dbname=settings["NAME"],
        autocommit=True,
    )
    admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield configured.rsplit("/", 1)[0] + "/" + name
    finally:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


@pytest.fixture
def production_server(server_database, tmp_path):
    env = serve_environment(
        SECRET_KEY="production-test-" + uuid.uuid4().hex,
        DATABASE_URL=server_database,
        BIND=f"127.0.0.1:{free_port()}",
        WEB_CONCURRENCY="2",
        STATIC_ROOT=str(tmp_path / "static"),
    )
    with make_serve(env, tmp_path / "serve.log") as served:
        yield served.url


def test_the_production_server_serves_css_and_htmx(browser, production_server):
    context = browser.new_context(locale="pl-PL", base_url=production_server)
    page = context.new_page()
    page.set_default_timeout(15_000)
    static_responses = []
    page.on(
        "response",
        lambda response: "/static/" in response.url and static_responses.append(response),
    )
    try:
        page.goto("/accounts/login/")
        # site.css paints the page (--paper: #fbf8f2) and the header (#2b2520).
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == (
            "rgb(251, 248, 242)"
        )
        header = page.locator(".site-header")
        assert header.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(43, 37, 32)"
        page.wait_for_function("() => window.htmx !== undefined && !!window.htmx.version")
        assert {response.status for response in static_responses} == {200}
        assert len(static_responses) >= 2  # the stylesheet and htmx
    finally:
        context.close()

    # Hashed names from the manifest, cached for good, compressed ahead of time.
    stylesheet = next(r.url for r in static_responses if r.url.endswith(".css"))
    assert stylesheet.rsplit("/", 1)[1].count(".") == 2, stylesheet  # site.<hash>.css
    request = urllib.request.Request(stylesheet, headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request, timeout=10) as response:
        cache_control = response.headers["Cache-Control"]
        assert "immutable" in cache_control
        max_age = int(cache_control.split("max-age=")[1].split(",")[0])
        assert max_age >= YEAR
        assert response.headers["Content-Encoding"] == "gzip"


def test_the_production_server_runs_without_debug(production_server):
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(production_server + "/no-such-page/", timeout=10)
    assert missing.value.code == 404
    body = missing.value.read().decode()
    assert "URLconf" not in body and "DEBUG = True" not in body
