"""Browser tests: Debian's Chromium driven by Playwright against Django's live server."""

import os
import shutil

import pytest
from django.core.servers.basehttp import WSGIServer
from django.test.testcases import LiveServerThread
from playwright.sync_api import expect
from pytest_django import live_server_helper

from tests.conftest import polish

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# The machine's network is closed: Chromium must not try to phone home.
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser/" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser():
    if not shutil.which(CHROMIUM):
        pytest.fail(f"Chromium not found at {CHROMIUM}: run scripts/ensure-chromium")
    # Playwright's sync API keeps an event loop in this thread; Django's ORM calls
    # in the test body are still plain synchronous code.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        new_context = browser.new_context

        def watched_context(*args, **kwargs):
            """Every page of every test can say when it is quiet (wait_until_quiet)."""
            context = new_context(*args, **kwargs)
            context.add_init_script(QUIET_WATCH)
            return context

        browser.new_context = watched_context
        yield browser
        browser.close()


class _OneRequestAtATime(WSGIServer):
    """Django's server without threads: on SQLite the live server's requests share the
    test's one in-memory connection, and two at once (a preview beside a roll) break
    each other. Served in turn, the browser just waits; Django closes each connection,
    so a kept-alive socket never blocks the next request."""

    def __init__(self, *args, connections_override=None, **kwargs):
        super().__init__(*args, **kwargs)


class _SerialLiveServerThread(LiveServerThread):
    server_class = _OneRequestAtATime


def _probe_sqlite_features_now(django_db_blocker) -> None:
    """SQLite's JSON support is probed once, on first use, and the answer kept: probed while
    the live server's thread and the test share the one connection, an error from their
    overlap reads as "no JSON", and every later query using JSON functions fails for the
    rest of the run. Probed here, before any browser is served."""
    from django.db import connections

    with django_db_blocker.unblock():
        for connection in connections.all():
            if connection.vendor == "sqlite":
                connection.features.supports_json_field  # noqa: B018 (cached on first read)


@pytest.fixture(scope="session")
def live_server(request, django_db_setup, django_db_blocker):
    """pytest-django's live server; on an in-memory SQLite it serves one request at a time."""
    _probe_sqlite_features_now(django_db_blocker)
    addr = request.config.getvalue("liveserver") or os.getenv(
        "DJANGO_LIVE_TEST_SERVER_ADDRESS", "localhost"
    )
    server = live_server_helper.LiveServer(addr, start=False)
    if server.thread.connections_override:
        server.thread.__class__ = _SerialLiveServerThread
    server.start()
    yield server
    server.stop()


# Counts the page's requests in flight (at the XMLHttpRequest itself: htmx's own events may
# fire on elements its swap took out of the page) and keeps the time of the last thing that
# happened (a request sent or answered, a redraw settled, a key typed, a choice changed).
QUIET_WATCH = """
(() => {
  const watch = (window.__quiet = { inflight: 0, last: performance.now() });
  const touch = () => { watch.last = performance.now(); };
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    watch.inflight += 1;
    touch();
    this.addEventListener("loadend", () => { watch.inflight -= 1; touch(); });
    return send.apply(this, args);
  };
  for (const name of ["input", "change", "click", "htmx:afterSettle", "htmx:afterSwap"]) {
    document.addEventListener(name, touch, true);
  }
  watch.quiet = (ms) =>
    watch.inflight === 0 &&
    !document.querySelector(".htmx-request, .htmx-settling, .htmx-swapping") &&
    performance.now() - watch.last > ms;
})();
"""


def wait_until_quiet(page, ms: int = 600) -> None:
    """Wait until the page has loaded and nothing happened on it for `ms`: no request in
    flight, none that a change or a keystroke scheduled (the forms' previews wait 400 ms
    after the last keystroke). Playwright's "networkidle" cannot say it: once a page has
    been idle it resolves at once, whatever htmx sends later."""
    page.wait_for_load_state("load")
    page.wait_for_function(f"() => window.__quiet && window.__quiet.quiet({ms})", polling=100)


def _polish_page(browser, live_server):
    context = browser.new_context(locale="pl-PL", base_url=live_server.url)
    page = context.new_page()
    page.set_default_timeout(15_000)
    return context, page


@pytest.fixture
def page(browser, live_server):
    context, page = _polish_page(browser, live_server)
    yield page
    context.close()


@pytest.fixture
def player_page(browser, live_server):
    """A second browser of its own (cookies apart): the player, while `page` is the GM."""
    context, page = _polish_page(browser, live_server)
    yield page
    context.close()


def log_in(page, username: str, password: str) -> None:
    page.goto("/accounts/login/")
    page.get_by_label("Nazwa użytkownika").fill(username)
    page.get_by_label("Hasło").fill(password)
    page.get_by_role("button", name="Zaloguj się").click()
    page.wait_for_url("**/")


def open_turn(page, table, number: int) -> None:
    """The GM opens turn `number` from the diary, confirming as the page asks."""
    page.goto(f"/sessions/{table.session.pk}/")
    page.get_by_text(f"Otwórz turę {number}", exact=True).click()
    page.get_by_role("button", name=f"Tak, otwórz turę {number}").click()
    expect(page.get_by_text(f"Bieżąca tura: {number}")).to_be_visible()


def settle_panel(page) -> None:
    """Leave the field being typed into and let its preview redraw finish before rolling:
    the blur's `change` sends one more preview request, and on SQLite the live server's
    threads share one connection, so it must not run beside the roll's POST."""
    page.keyboard.press("Tab")
    preview_settled(page)


def preview_settled(page) -> None:
    """Wait until the roll panel's line above its Roll button describes the form as it is
    now: no change waits to be sent, no preview or redraw is on its way
    (static/js/roll_plan.js keeps `data-preview`). A page with no panel waits for nothing."""
    form = page.locator("form[data-roll-plan]")
    if form.count():
        expect(form).to_have_attribute("data-preview", "settled")


def roll_button(page):
    """The panel's Roll button, once the line above it is the form's (a person reads the line
    before clicking; a click while it is drawn again waits for it, static/js/roll_plan.js)."""
    preview_settled(page)
    return page.get_by_role("button", name=polish("Roll"), exact=True)  # "Wykonaj rzut"
