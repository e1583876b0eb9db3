"""A scheduling poll in Chromium: a player in another time zone reads the dates in her own
time (the page's script names her zone; the page itself carries each moment with its offset),
votes, sees her vote counted with her name; the GM closes the poll, and it is read-only:
"Ankieta zamknięta", no choices, no button."""

import uuid
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests.browser.axe import violations
from tests.browser.conftest import log_in, wait_until_quiet
from tests.conftest import PASSWORD, polish

pytestmark = pytest.mark.django_db(transaction=True)

WARSAW = ZoneInfo("Europe/Warsaw")


@pytest.fixture
def far_player_page(browser, live_server):
    """The player's own browser, in New York."""
    context = browser.new_context(
        locale="pl-PL", base_url=live_server.url, timezone_id="America/New_York"
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


def date_poll(session, by, question: str):
    """A scheduling poll between two evenings of next January (19:00 on the 15th, 20:30 on
    the 16th, Warsaw time), one choice, names shown."""
    from diary.polls.services import poll_create

    year = timezone.now().year + 1
    return poll_create(
        session=session,
        by=by,
        question=question,
        kind="dates",
        options=[
            datetime(year, 1, 15, 19, 0, tzinfo=WARSAW),
            datetime(year, 1, 16, 20, 30, tzinfo=WARSAW),
        ],
        max_choices=1,
        anonymous=False,
        closes_at=None,
        token=uuid.uuid4(),
    )


def test_a_player_votes_on_a_date_and_the_gm_closes_the_poll(page, far_player_page, table):
    from diary.models import PollVote

    year = timezone.now().year + 1
    poll = date_poll(table.session, table.gm, "Kiedy następna sesja?")
    first = poll.options.order_by("position").first()
    player = far_player_page

    # Alicja finds the poll in the OOC thread and reads its dates in her own time zone.
    log_in(player, table.alice.username, PASSWORD)
    player.goto(f"/sessions/{table.session.pk}/ooc/")
    player.get_by_role("link", name="Kiedy następna sesja?").click()
    wait_until_quiet(player)
    moment = player.locator(f'label[for="choice-{first.pk}"] time')
    assert moment.get_attribute("datetime") == f"{year}-01-15T19:00:00+01:00"
    expect(moment).to_contain_text("America/New_York")
    expect(moment).to_contain_text("13:00")  # 19:00 in Warsaw
    assert "Europe/Warsaw" in moment.get_attribute("title")
    assert not violations(player)

    # She votes; her vote is counted, with her name.
    player.locator(f"#choice-{first.pk}").check()
    player.get_by_role("button", name=polish("Vote")).click()
    wait_until_quiet(player)
    expect(player.get_by_test_id("poll-count").first).to_have_text("1")
    expect(player.get_by_test_id("poll-voters").first).to_have_text("alicja")
    expect(player.get_by_role("button", name=polish("Change my vote"))).to_be_visible()
    assert PollVote.objects.filter(voter=table.alice, option=first).exists()

    # The GM closes it.
    log_in(page, table.gm.username, PASSWORD)
    page.goto(poll.get_absolute_url())
    page.get_by_test_id("poll-close").click()
    wait_until_quiet(page)
    expect(page.get_by_test_id("poll-closed")).to_have_text(polish("Poll closed"))
    expect(page.get_by_test_id("poll-close")).to_have_count(0)

    # Read-only for Alicja: the result stays, the choices and the button are gone.
    player.reload()
    wait_until_quiet(player)
    expect(player.get_by_test_id("poll-closed")).to_have_text(polish("Poll closed"))
    expect(player.locator('input[name="choices"]')).to_have_count(0)
    expect(player.get_by_role("button", name=polish("Change my vote"))).to_have_count(0)
    expect(player.get_by_test_id("poll-count").first).to_have_text("1")
    assert not violations(player)
