"""Two weeks of a play-by-post game in fast-forward, in Chromium, as its people click it.

The GM lets the turn pass on at the deadline and the site open the next one; Alicja is away
for a week and says so; the GM nudges Bartek, who stays silent; the GM's roll lands on
Alicja's Lirael while she is away; the deadline passes and the site (the periodic
`advance_turns`) opens the next turn, passing over both characters; Alicja comes back and
reads the recap naming the roll against Lirael; the GM names Kasia co-GM and hands her the
session, and Kasia closes the poll on the next session's date.

Time runs forward the way it does for a forum game: days pass between the steps, so the
stored moments (the turn's opening and deadline, Alicja's last visit) are moved back as the
days would have moved them; everything else is clicked.
"""

import re
from datetime import datetime, timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone
from playwright.sync_api import expect

from diary.models import Notification, NotificationKind, ReadMark, SessionHandover, Turn
from rolls.engine.dice import ScriptedDice
from rolls.systems.forum1000.requests import RollRequest
from tests.browser.axe import violations
from tests.browser.conftest import log_in, wait_until_quiet
from tests.browser.test_polls import date_poll
from tests.conftest import PASSWORD, polish, polish_as
from tests.diary.recap.test_recap import percepcja
from tests.diary_entries import hp_entry
from tests.rolling import make_roll

pytestmark = pytest.mark.django_db(transaction=True)


def diary(page, session) -> None:
    page.goto(f"/sessions/{session.pk}/")
    wait_until_quiet(page)


def gm_sets_the_deadlines_rule(page, session) -> None:
    """Settings: the turn passes on, and the site opens the next turn by itself."""
    page.goto(f"/sessions/{session.pk}/edit/")
    page.locator('input[name="deadline_rule"][value="pass"]').check()
    page.locator('input[name="auto_next_turn"]').check()
    page.locator("form button[type=submit]").last.click()
    wait_until_quiet(page)
    diary(page, session)
    expect(page.get_by_test_id("deadline-rule")).to_have_text(
        polish("After the deadline: the turn passes on; the site opens the next turn by itself")
    )


def gm_sets_the_deadline(page, session, when: datetime) -> None:
    field = page.locator('input[name="deadline"]')
    field.fill(timezone.localtime(when).strftime("%Y-%m-%dT%H:%M"))
    field.locator("xpath=ancestor::form").locator("button[type=submit]").click()
    wait_until_quiet(page)
    expect(page.get_by_test_id("deadline")).to_be_visible()


def gm_writes(page, text: str) -> None:
    page.locator('textarea[name="narration"]').fill(text)
    page.get_by_role("button", name=polish("Publish"), exact=True).click()
    page.wait_for_url(re.compile(r"#post-\d+$"))


def player_declares_an_absence(page, session, days: int) -> None:
    today = timezone.localdate()
    page.goto("/sessions/absences/")
    form = page.get_by_test_id("absence-form")
    form.locator('select[name="session"]').select_option(str(session.pk))
    form.locator('input[name="starts_on"]').fill(today.isoformat())
    form.locator('input[name="ends_on"]').fill((today + timedelta(days=days - 1)).isoformat())
    form.locator('input[name="note"]').fill("Wyjazd służbowy")
    form.locator("button[type=submit]").click()
    wait_until_quiet(page)
    expect(page.get_by_test_id("my-absences")).to_contain_text("Wyjazd służbowy")


def days_pass(session, turn: Turn, days: int) -> None:
    """The turn was opened `days` ago and its deadline passed an hour ago."""
    now = timezone.now()
    Turn.objects.filter(pk=turn.pk).update(
        opened_at=now - timedelta(days=days), deadline=now - timedelta(hours=1)
    )


def test_two_weeks_of_a_game_that_does_not_die(page, player_page, table, make_user):
    session, gm, alice, bob = table.session, table.gm, table.alice, table.bob
    kasia = make_user("kasia")
    first_turn = session.current_turn

    # Day 1. The GM's rule: the turn passes on at the deadline, the site opens the next one.
    log_in(page, gm.username, PASSWORD)
    gm_sets_the_deadlines_rule(page, session)
    gm_sets_the_deadline(page, session, timezone.now() + timedelta(days=3))
    gm_writes(page, "Karawana rusza o świcie.")

    # Alicja will be away for a week: she says so, and the diary shows it to the table.
    log_in(player_page, alice.username, PASSWORD)
    player_declares_an_absence(player_page, session, days=7)
    diary(player_page, session)
    away = player_page.get_by_test_id(f"absent-{table.lirael.pk}")
    until = (timezone.localdate() + timedelta(days=6)).strftime("%d.%m")
    expect(away).to_contain_text(polish_as("feminine", "away until %(date)s", date=until))
    expect(player_page.get_by_test_id("awaited")).not_to_contain_text("Lirael")
    player_page.goto("/sessions/absences/")  # she leaves: an open diary would read on live

    # Day 2. Bartek is silent: the GM nudges him, once (not Lirael: she is away).
    diary(page, session)
    expect(page.get_by_test_id(f"nudge-{table.lirael.pk}")).to_have_count(0)
    page.get_by_test_id(f"nudge-{table.borys.pk}").click()
    expect(page.get_by_test_id(f"nudged-{table.borys.pk}")).to_be_visible()
    nudged = Notification.objects.filter(kind=NotificationKind.NUDGE, recipient=bob)
    assert nudged.count() == 1
    assert not violations(page)

    # Day 4. The GM narrates an ambush, and the roll lands on Lirael while Alicja is away.
    gm_writes(page, "Z wąwozu wypadają zbóje.")
    opposed = RollRequest(kind="opposed", a=percepcja(table.borys), b=percepcja(table.lirael))
    roll = make_roll(session, gm, opposed, dice=ScriptedDice([200, 900])).roll
    hp_entry(session, gm, table.lirael, -5, reason="Zasadzka w wąwozie")

    # Day 5. The deadline passed: the site's periodic work opens the next turn, as the GM's
    # turn change would, and the closed turn says who waited.
    days_pass(session, first_turn, days=5)
    call_command("advance_turns", verbosity=0)
    session.refresh_from_db()
    assert session.current_turn.number == first_turn.number + 1
    diary(page, session)
    expect(page.get_by_text(polish("%(name)s waits this turn", name="Borys"))).to_be_visible()
    expect(page.get_by_text(polish("%(name)s waits this turn", name="Lirael"))).to_be_visible()
    expect(page.get_by_test_id("opened-by-site").first).to_have_text(
        polish("The site opened this turn (the deadline passed)")
    )

    # Day 8. Alicja is back early: she ends her absence, and since her last visit days ago
    # the diary greets her with the recap, which names the roll against Lirael.
    player_page.reload()
    player_page.get_by_test_id("absence-end").click()
    wait_until_quiet(player_page)
    ReadMark.objects.filter(user=alice, session=session).update(
        moved_at=timezone.now() - timedelta(days=7)
    )
    diary(player_page, session)
    expect(player_page.get_by_test_id(f"absent-{table.lirael.pk}")).to_have_count(0)
    recap = player_page.get_by_test_id("recap")
    expect(recap).to_be_visible()
    rolls = recap.get_by_test_id("recap-rolls")
    against_her = rolls.get_by_role("link", name=re.compile("Lirael"))
    expect(against_her).to_contain_text("Borys")
    expect(against_her).to_have_attribute("href", re.compile(rf"roll={roll.seq}#roll-{roll.seq}$"))
    expect(rolls).to_contain_text(polish("(your character)"))
    expect(recap.get_by_test_id("recap-changes")).to_contain_text("Zasadzka w wąwozie")
    assert not violations(player_page)

    # Day 10. The GM asks when to play next; Alicja votes for a date.
    poll = date_poll(session, gm, "Kiedy następna sesja na czacie?")
    first = poll.options.order_by("position").first()
    player_page.goto(poll.get_absolute_url())
    player_page.locator(f"#choice-{first.pk}").check()
    player_page.get_by_role("button", name=polish("Vote")).click()
    wait_until_quiet(player_page)
    expect(player_page.get_by_test_id("poll-count").first).to_have_text("1")

    # Day 12. The GM names Kasia co-GM, then hands her the session and steps down.
    page.goto(f"/sessions/{session.pk}/co-gms/")
    page.locator('input[name="username"]').fill(kasia.username)
    page.get_by_role("button", name=polish("Name the co-GM")).click()
    wait_until_quiet(page)
    expect(page.get_by_test_id("co-gms")).to_contain_text(kasia.username)
    page.get_by_role("link", name=polish("Hand the session to a co-GM (step down)")).click()
    wait_until_quiet(page)
    page.locator('input[name="username"]').fill(kasia.username)
    page.locator('textarea[name="reason"]').fill("Nowa praca, brak czasu na prowadzenie.")
    page.get_by_role("button", name=polish("Hand the session over")).click()
    wait_until_quiet(page)
    session.refresh_from_db()
    assert session.gm == kasia
    handover = SessionHandover.objects.get(session=session)
    assert (handover.from_gm, handover.to_gm) == (gm, kasia)
    assert Notification.objects.filter(
        kind=NotificationKind.SESSION_HANDED_OVER, recipient=alice
    ).exists()

    # Day 14. Kasia, now the GM, closes the poll: the date is chosen, the poll read-only.
    log_in(page, kasia.username, PASSWORD)
    page.goto(poll.get_absolute_url())
    page.get_by_test_id("poll-close").click()
    wait_until_quiet(page)
    expect(page.get_by_test_id("poll-closed")).to_have_text(polish("Poll closed"))
    player_page.reload()
    wait_until_quiet(player_page)
    expect(player_page.get_by_test_id("poll-closed")).to_have_text(polish("Poll closed"))
    expect(player_page.locator('input[name="choices"]')).to_have_count(0)
    assert not violations(page)
