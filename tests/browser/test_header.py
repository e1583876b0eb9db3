"""In Chromium: the header's search and bell are drawn icons, not emoji (a phone without an
emoji font showed empty boxes, "☐ 5"), named for screen readers, with the unread count in
plain sight, on a desktop and on a phone."""

import re

import pytest
from playwright.sync_api import expect

from diary.models import Notification
from tests.browser.axe import violations
from tests.browser.conftest import log_in
from tests.conftest import PASSWORD, polish

pytestmark = pytest.mark.django_db(transaction=True)

# Pictographs, dingbats, symbols and the emoji presentation selector: what needs an emoji
# font to be drawn.
EMOJI = re.compile(
    "[\U0001f000-\U0001faff\u2190-\u21ff\u2300-\u23ff\u2460-\u27bf\u2900-\u2bff\ufe0f\u200d]"
)

HEADER_TEXT = """() => {
  const header = document.querySelector('header.site-header');
  const generated = [];
  for (const element of [header, ...header.querySelectorAll('*')]) {
    for (const pseudo of ['::before', '::after']) {
      const content = getComputedStyle(element, pseudo).content;
      if (content && content !== 'none' && content !== 'normal') generated.push(content);
    }
  }
  return header.textContent + ' ' + generated.join(' ');
}"""


def icon_size(locator) -> tuple[float, float]:
    box = locator.locator("svg").bounding_box()
    assert box is not None, "the icon is not drawn"
    return box["width"], box["height"]


@pytest.fixture
def phone(browser, live_server):
    context = browser.new_context(
        locale="pl-PL", base_url=live_server.url, viewport={"width": 375, "height": 740}
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


def _check_header(page, table, *, on_phone: bool) -> None:
    unread = Notification.objects.filter(recipient=table.alice, read_at__isnull=True).count()
    assert unread > 0
    log_in(page, table.alice.username, PASSWORD)
    page.goto("/")
    text = page.evaluate(HEADER_TEXT)
    assert not EMOJI.findall(text), EMOJI.findall(text)
    header = page.get_by_role("banner")
    search = polish("Search")
    bell = header.get_by_role("link", name=re.compile("^" + re.escape(polish("Notifications"))))
    # The count stays in sight; the words say what it counts.
    expect(page.get_by_test_id("unread-count")).to_be_visible()
    expect(page.get_by_test_id("unread-count")).to_have_text(str(unread))
    expect(bell).to_have_accessible_name(
        re.compile(rf"^{polish('Notifications')}\s+{unread}\s+{polish('unread')}$")
    )
    expect(bell.locator("svg")).to_have_attribute("aria-hidden", "true")
    if on_phone:
        # The bell's word gives way to its icon; the search box to a link with an icon.
        expect(page.locator(".bell-label")).to_have_css("position", "absolute")
        width, height = icon_size(bell)
        assert width > 0 and height > 0
        link = header.get_by_role("link", name=search, exact=True)
        expect(link).to_be_visible()
        width, height = icon_size(link)
        assert width > 0 and height > 0
        expect(link.locator("svg")).to_have_attribute("aria-hidden", "true")
    else:
        button = page.get_by_test_id("header-search").get_by_role("button", name=search)
        expect(button).to_be_visible()
        width, height = icon_size(button)
        assert width > 0 and height > 0
        expect(button.locator("svg")).to_have_attribute("aria-hidden", "true")
    assert not violations(page)


def test_the_header_draws_its_icons_without_emoji_on_a_desktop(page, table):
    _check_header(page, table, on_phone=False)


def test_the_header_draws_its_icons_without_emoji_on_a_phone(phone, table):
    _check_header(phone, table, on_phone=True)
