"""In Chromium: the player asks for turn e-mails, the GM opens a turn, the player's
bell counts it, the list leads to the diary, and the e-mail has arrived over SMTP (sent by
the tasks framework's database worker, as `make serve` runs it)."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.axe import violations
from tests.browser.conftest import log_in, open_turn
from tests.conftest import PASSWORD, polish
from tests.smtp import run_worker

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_gm_opens_a_turn_and_the_player_is_told_in_the_site_and_by_e_mail(
    page, player_page, table, smtp_server
):
    # The player (Bartek) wants new turns by e-mail.
    log_in(player_page, table.bob.username, PASSWORD)
    player_page.goto("/notifications/preferences/")
    assert not violations(player_page)
    player_page.get_by_label(polish("E-mail address")).fill("bartek@example.com")
    player_page.get_by_label(re.compile("^" + polish("a new turn"))).check()
    player_page.get_by_role("button", name=polish("Save"), exact=True).click()
    expect(player_page.get_by_role("status")).to_contain_text(
        polish("Notification preferences saved.")
    )
    player_page.goto("/notifications/")
    player_page.get_by_role("button", name=polish("Mark all as read")).click()
    expect(player_page.get_by_test_id("unread-count")).to_have_count(0)

    # The GM opens turn 2.
    log_in(page, table.gm.username, PASSWORD)
    open_turn(page, table, 2)

    # The player's bell counts it; the list says it and leads to the diary.
    player_page.goto("/")
    expect(player_page.get_by_test_id("unread-count")).to_have_text("1")
    player_page.get_by_test_id("bell").click()
    text = polish(
        "%(actor)s opened turn %(number)s in “%(session)s”.",
        actor="mg",
        number=2,
        session=table.session.title,
    )
    expect(player_page.get_by_role("heading", name=polish("Notifications"))).to_be_visible()
    assert not violations(player_page)
    # Its words are a link (it opens in a new tab, its address can be copied) to the page
    # that marks it read and leads on to the diary: the bell there no longer counts it.
    # "Mark as read" beside it is a button, named for screen readers by what it marks.
    mark_read = re.compile(rf"^{re.escape(polish('Mark as read'))}\s*:\s*{re.escape(text)}$")
    expect(player_page.get_by_role("button", name=mark_read)).to_be_visible()
    link = player_page.get_by_role("link", name=re.compile(re.escape(text)))
    expect(link).to_have_attribute("href", re.compile(r"^/notifications/\d+/open/$"))
    tab = player_page.context.new_page()
    tab.goto(link.get_attribute("href"))
    tab.wait_for_url(re.compile(rf"/sessions/{table.session.pk}/$"))
    expect(tab.get_by_text("Bieżąca tura: 2")).to_be_visible()
    expect(tab.get_by_test_id("unread-count")).to_have_count(0)
    tab.close()
    link.click()
    player_page.wait_for_url(re.compile(rf"/sessions/{table.session.pk}/$"))
    expect(player_page.get_by_test_id("unread-count")).to_have_count(0)
    # In the list it is read now: a plain link to the diary, no "New", no button.
    player_page.get_by_test_id("bell").click()
    expect(player_page.get_by_role("link", name=text, exact=True)).to_have_attribute(
        "href", f"/sessions/{table.session.pk}/"
    )
    expect(player_page.get_by_role("button", name=mark_read)).to_have_count(0)

    # The worker sends the e-mail, which arrives at the SMTP server.
    run_worker()
    (message,) = smtp_server.wait_for(1)
    assert message["To"] == "bartek@example.com"
    assert message["Subject"] == f"Codziennik: {text}"
    assert f"http://codziennik.test/sessions/{table.session.pk}/" in message.get_content()


def test_a_player_reads_the_post_a_notification_is_about_and_the_bell_drops(
    page, player_page, table
):
    """Bartek has written; Alicja answers. Bartek's bell counts the reply; reading the diary
    page that shows it (not the list) clears it, and "Mark all as read" empties the rest."""
    from django.utils import timezone

    from diary import services
    from diary.models import Notification

    services.post_create(
        session=table.session, author=table.bob, character=table.borys, narration="Idę.", nc_note=""
    )
    Notification.objects.filter(recipient=table.bob).update(read_at=timezone.now())
    log_in(player_page, table.bob.username, PASSWORD)
    player_page.goto("/")
    expect(player_page.get_by_test_id("unread-count")).to_have_count(0)

    log_in(page, table.alice.username, PASSWORD)
    page.goto(f"/sessions/{table.session.pk}/")
    page.locator("#write textarea[name=narration]").fill("Lirael odpowiada.")
    page.get_by_role("button", name=polish("Publish")).click()
    expect(page.get_by_text("Lirael odpowiada.")).to_be_visible()

    player_page.goto("/")
    expect(player_page.get_by_test_id("unread-count")).to_have_text("1")
    player_page.goto(f"/sessions/{table.session.pk}/")
    expect(player_page.get_by_text("Lirael odpowiada.")).to_be_visible()
    expect(player_page.get_by_test_id("unread-count")).to_have_count(0)

    # A new turn and a post to mark all as read at once.
    services.turn_open_next(session=table.session, by=table.gm)
    player_page.goto("/")
    expect(player_page.get_by_test_id("unread-count")).to_have_text("1")
    player_page.get_by_test_id("bell").click()
    player_page.get_by_role("button", name=polish("Mark all as read")).click()
    expect(player_page.get_by_test_id("unread-count")).to_have_count(0)
