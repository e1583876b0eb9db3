"""Browser tests: Debian's Chromium driven by Playwright against Django's live server."""

import os
import shutil

import pytest
from playwright.sync_api import expect

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
        yield browser
        browser.close()


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
    page.wait_for_load_state("networkidle")
