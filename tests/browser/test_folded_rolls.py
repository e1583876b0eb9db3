"""In Chromium: a post with a long run of rolls shows its newest 20; "Pokaż N wcześniejszych
rzutów" loads the earlier ones a hundred at a time in place; the live update that follows a
new roll keeps what the reader unfolded (and the reason they were typing to hide a post) and
loses no roll between; a link to a folded roll
(the site's, or an old one with only #roll-N) opens the run at that roll."""

import io
import re

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from demo.stand_in_session import DEMO_PACK_SIZE, STAND_IN_SESSION_TITLE
from demo.users import DEMO_USERS
from diary.models import GameSession
from rolls.models import Roll
from tests.browser.conftest import log_in
from tests.conftest import PASSWORD
from tests.diary.test_folded_rolls import grow
from tests.scale_rolls import add_rolls

pytestmark = pytest.mark.django_db(transaction=True)

# The live poll asks every 8 s.
POLL_WAIT = 25_000


def seqs_in(post):
    return list(Roll.objects.filter(post=post).order_by("seq").values_list("seq", flat=True))


def shown_seqs(page, post) -> list[int]:
    ids = page.locator(f"#post-{post.pk} .roll").evaluate_all("els => els.map(e => e.id)")
    return [int(i.removeprefix("roll-")) for i in ids]


def test_show_earlier_rolls_and_keep_them_through_a_live_update(page, table, client_for):
    post = grow(table, client_for, 250)
    seqs = seqs_in(post)
    log_in(page, table.gm.username, PASSWORD)
    page.goto(f"/sessions/{table.session.pk}/")
    more = page.get_by_test_id("roll-more")
    expect(more).to_have_text("Pokaż 230 wcześniejszych rzutów")
    assert shown_seqs(page, post) == seqs[-20:]

    more.click()
    expect(page.get_by_test_id("roll-more")).to_have_text("Pokaż 130 wcześniejszych rzutów")
    expect(page.locator(f"#roll-{seqs[-21]}")).to_be_visible()
    assert shown_seqs(page, post) == seqs[-120:]

    # The GM starts hiding the post, and types the reason.
    page.locator(f"#post-{post.pk} .hide-post summary").click()
    reason = page.locator(f"#hide-reason-{post.pk}")
    reason.fill("Za dużo rzutów")

    # Three more rolls land in the post: the live update shows them, keeps the hundred
    # unfolded, and the three rolls the new ones pushed into the fold stay in their place.
    add_rolls(table.session, 3)
    GameSession.objects.get(pk=table.session.pk).touch()  # as every roll's append does
    seqs = seqs_in(post)
    expect(page.locator(f"#roll-{seqs[-1]}")).to_be_attached(timeout=POLL_WAIT)
    expect(page.locator(f"#post-{post.pk} .roll")).to_have_count(123)
    assert shown_seqs(page, post) == seqs[-123:]
    expect(page.get_by_test_id("roll-more")).to_have_text("Pokaż 130 wcześniejszych rzutów")
    # What the GM was typing is still there.
    expect(reason).to_be_visible()
    expect(reason).to_have_value("Za dużo rzutów")


def test_a_link_to_a_folded_roll_opens_the_run_at_it(page, table, client_for):
    post = grow(table, client_for, 400)
    old = seqs_in(post)[30]
    log_in(page, table.alice.username, PASSWORD)
    # The link the roll's own page gives.
    page.goto(f"/sessions/{table.session.pk}/rolls/{old}/")
    page.get_by_role("link", name="wpis w codzienniku").first.click()
    page.wait_for_url(re.compile(rf"roll={old}#roll-{old}$"))
    expect(page.locator(f"#roll-{old}")).to_be_in_viewport()
    expect(page.locator(f"#roll-{old}")).to_have_css("outline-style", "solid")
    # An old link that names the roll by its anchor alone.
    page.goto(f"/sessions/{table.session.pk}/#roll-{old - 1}")
    page.wait_for_url(re.compile(rf"roll={old - 1}#roll-{old - 1}$"))
    expect(page.locator(f"#roll-{old - 1}")).to_be_in_viewport()


def test_the_demo_pack_charge_is_folded_and_unfolds(page):
    """seed_demo's wolf pack: thirty attack rolls in one GM post, the newest twenty shown."""
    call_command("seed_demo", stdout=io.StringIO())
    session = GameSession.objects.get(title=STAND_IN_SESSION_TITLE)
    post = Roll.objects.filter(session=session, test="notation").latest("seq").post
    seqs = seqs_in(post)
    assert len(seqs) == DEMO_PACK_SIZE
    log_in(page, "gracz2", DEMO_USERS["gracz2"])
    page.goto(f"/sessions/{session.pk}/")
    more = page.locator(f"#post-{post.pk}").get_by_test_id("roll-more")
    expect(more).to_have_text("Pokaż 10 wcześniejszych rzutów")
    assert shown_seqs(page, post) == seqs[-20:]
    expect(page.locator(f"#roll-{seqs[-1]}")).to_contain_text("Wilk 30: atak")
    more.click()
    expect(page.locator(f"#roll-{seqs[0]}")).to_contain_text("Wilk 1: atak")
    expect(page.locator(f"#post-{post.pk}").get_by_test_id("roll-more")).to_have_count(0)
    assert shown_seqs(page, post) == seqs
