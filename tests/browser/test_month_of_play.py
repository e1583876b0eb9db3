"""A month of a forum1000 session in Chromium, fast-forwarded: every step through the pages by
the person who would take it (the GM, Alicja who plays Lirael, Bartek who joins with Borys),
each in a browser of their own.

The database holds only what the month starts from: the users, the sheets and the running
session with Lirael in it. Then: Bartek finds the session, reads its public page and applies
with a message; the GM accepts with a note. Turn 1 (deadline in ten days): the GM allows the
players' free rolls in the session settings and opens the scene; Lirael answers and rolls
2k6 freely; Bartek and the GM talk out of character, the GM whispers to Alicja, who answers;
the deadline cron, run as the deadline nears, tells Bartek (who has not posted) and not Alicja.
Turn 2: Bartek asks for a roll; the GM answers it below Alicja's later post, in a resolution
post that is the diary's last. Turn 3: the GM's HP entry about Borys lands in the GM's earlier
post, above the players'; Bartek, who had read everything, is told, and the diary's "first unread"
leads him up to it. Then a fight with initiative and NPCs in the order (one hidden from the
players, one wounded); at last the month's final deadline passes.

Time moves only where the site depends on it, the turns' deadlines: the cron's run is given
the moment it runs at (as tests/diary/notifications/test_notifications.py does), and the passing of
the last deadline is its stored moment moved into the past (as tests/diary/test_turn_status.py
does).
"""

import re
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from diary.models import GameSession, Notification, NotificationKind, Turn
from diary.notifications.notices import notify_deadlines
from diary.npcs import services as npc_services
from rolls.initiative.forms import MAX_NPC_SCORE
from rolls.models import AskStatus, InitiativeEvent, Roll, RollAsk
from tests.browser.conftest import _polish_page, log_in, open_turn, wait_until_quiet
from tests.browser.steps import (
    apply_with,
    ask_for_a_skill_roll,
    free_roll,
    open_new_whisper,
    open_the_public_page,
    send_whisper,
)
from tests.browser.test_effects_and_potions import entry_form
from tests.browser.test_initiative_npcs import add_npc
from tests.browser.test_roll_panel import (
    COUNT_REDRAWS,
    open_panel,
    open_tab,
    roll_and_land_in_the_diary,
    type_in,
)
from tests.conftest import PASSWORD, polish

pytestmark = pytest.mark.django_db(transaction=True)

TITLE = "Mgły nad Ostrogiem"
EVENT = "Zasadzka w wąwozie"


@pytest.fixture
def second_player_page(browser, live_server):
    """A third browser of its own: Bartek, while `player_page` is Alicja and `page` the GM."""
    context, page = _polish_page(browser, live_server)
    yield page
    context.close()


# -- Small steps ---------------------------------------------------------------------------


def diary(page, session) -> None:
    page.goto(f"/sessions/{session.pk}/")


def bell(page) -> int:
    """The bell's count of unread notifications on the page as it is now (0: no badge): the
    server renders it, so the loaded page has it."""
    page.wait_for_load_state()
    badge = page.get_by_test_id("unread-count")
    return int(badge.inner_text()) if badge.count() else 0


def publish(page, session, text: str) -> int:
    """A post in the diary from the write form; returns its id."""
    diary(page, session)
    page.locator("#write textarea[name=narration]").fill(text)
    page.get_by_role("button", name=polish("Publish"), exact=True).click()
    page.wait_for_url(re.compile(r"#post-\d+$"))
    post_id = int(page.url.rsplit("#post-", 1)[1])
    expect(page.locator(f"#post-{post_id}")).to_contain_text(text)
    return post_id


def set_deadline(page, session, days: int):
    """The GM sets the current turn's deadline `days` ahead (Polish time, to the minute)."""
    moment = timezone.localtime(timezone.now() + timedelta(days=days))
    diary(page, session)
    page.get_by_label(polish("Turn deadline")).fill(moment.strftime("%Y-%m-%dT%H:%M"))
    page.get_by_role("button", name=polish("Save the deadline")).click()
    wait_until_quiet(page)
    turn = Turn.objects.filter(session=session).order_by("-number").first()
    assert turn.deadline == moment.replace(second=0, microsecond=0)
    expect(page.get_by_test_id("deadline")).to_contain_text(f"{days - 1} dni")
    return turn


def send_talk(page, text: str) -> None:
    page.locator("#id_text").fill(text)
    page.get_by_role("button", name=polish("Send"), exact=True).click()
    wait_until_quiet(page)
    expect(page.get_by_test_id("talk-message").filter(has_text=text)).to_have_count(1)


def last_post(page):
    return page.locator("article.post").last


# -- The month's parts ---------------------------------------------------------------------


def _recruiting(gm, bartek, session, bob) -> None:
    """Bartek reads the public page and applies; the GM accepts with a note."""
    open_the_public_page(bartek, TITLE)
    expect(bartek.get_by_test_id("session-pitch").locator("strong")).to_have_text(
        "Szukamy tropiciela."
    )
    expect(bartek.get_by_test_id("session-players")).to_have_text("1")  # Lirael, so far
    apply_with(bartek, "Borys zna każdy wąwóz w okolicy.")

    # The GM's bell counts the request; reading it on the participants page clears it.
    gm.goto("/")
    told = bell(gm)
    assert told == 1
    gm.get_by_test_id("bell").click()
    gm.locator("li.notification.unread a.notification-link").click()
    gm.wait_for_url(re.compile(rf"/sessions/{session.pk}/participants/"))
    assert bell(gm) == told - 1
    expect(gm.get_by_test_id("application-message")).to_have_text(
        "Borys zna każdy wąwóz w okolicy."
    )
    gm.get_by_label(polish("Note to the player")).fill("Witaj! Zaczynamy w poniedziałek.")
    gm.get_by_role("button", name=polish("Accept")).click()
    wait_until_quiet(gm)

    bartek.goto(f"/sessions/{session.pk}/join/")
    expect(bartek.get_by_test_id("my-applications")).to_contain_text("Zaczynamy w poniedziałek.")
    diary(bartek, session)
    expect(bartek.get_by_test_id("session-private")).to_have_count(0)
    expect(bartek.get_by_role("heading", name=TITLE)).to_be_visible()


def _free_rolls_allowed(gm, session) -> None:
    diary(gm, session)
    gm.get_by_role("link", name=polish("Session settings")).click()
    gm.get_by_label(polish("players may make free-form rolls")).check()
    gm.get_by_role("button", name=polish("Save"), exact=True).click()
    gm.wait_for_url(re.compile(rf"/sessions/{session.pk}/$"))
    assert GameSession.objects.get(pk=session.pk).players_free_rolls


def _free_roll(alicja, session, alice) -> Roll:
    roll = free_roll(alicja, session, "2k6", "wynik 2–12", "Ile kroków do brodu")
    assert roll.rolled_by == alice and roll.post.author == alice
    shown = alicja.locator(f"#roll-{roll.seq}")
    expect(shown.locator(".roll-kind")).to_have_text(polish("Player's free-form roll"))
    expect(shown.get_by_test_id("free-total")).to_have_text(str(roll.record["result"]["total"]))
    return roll


def _out_of_character(gm, bartek, session) -> None:
    diary(bartek, session)
    bartek.get_by_test_id("ooc-link").click()
    send_talk(bartek, "Czy w weekend mogę pisać rzadziej?")
    diary(gm, session)
    expect(gm.get_by_test_id("ooc-unread")).to_contain_text("1")
    expect(gm.get_by_text("pisać rzadziej")).to_have_count(0)  # never in the diary
    gm.get_by_test_id("ooc-link").click()
    expect(gm.get_by_test_id("talk-new")).to_have_count(1)
    send_talk(gm, "Jasne, termin tury to dziesięć dni.")

    # Bartek's badge counts the answer; reading the thread clears it, and the bell drops.
    diary(bartek, session)
    expect(bartek.get_by_test_id("ooc-unread")).to_contain_text("1")
    before = bell(bartek)
    bartek.get_by_test_id("ooc-link").click()
    expect(bartek.get_by_text("termin tury to dziesięć dni")).to_be_visible()
    assert bell(bartek) == before - 1
    diary(bartek, session)
    expect(bartek.get_by_test_id("ooc-unread")).to_have_count(0)


def _whisper(gm, alicja, bartek, session) -> None:
    open_new_whisper(gm, session)
    whisper_url = send_whisper(
        gm, session, "alicja", "Szept z mgły", "Lirael słyszy w mgle **znajomy głos**."
    )

    diary(alicja, session)
    expect(alicja.get_by_test_id("whispers-unread")).to_contain_text("1")
    before = bell(alicja)
    alicja.get_by_test_id("whispers-link").click()
    alicja.get_by_role("link", name="Szept z mgły").click()
    expect(alicja.locator("strong", has_text="znajomy głos")).to_be_visible()
    assert bell(alicja) == before - 1
    send_talk(alicja, "Lirael idzie za głosem.")

    diary(gm, session)
    expect(gm.get_by_test_id("whispers-unread")).to_contain_text("1")
    # Bartek is no member of the whisper: the page says so, without its text.
    bartek.goto(whisper_url)
    expect(bartek.get_by_test_id("talk-refused")).to_be_visible()
    expect(bartek.get_by_text("znajomy głos")).to_have_count(0)


def _deadline_near(alicja, bartek, session, turn, bob) -> None:
    """The cron runs two hours before turn 1's deadline: Bartek has not posted, Alicja has."""
    alicja.goto("/")
    alicja_before = bell(alicja)
    bartek.goto("/")
    before = bell(bartek)
    assert notify_deadlines(now=turn.deadline - timedelta(hours=2)) == 1
    assert notify_deadlines(now=turn.deadline - timedelta(hours=1)) == 0  # once a turn
    told = Notification.objects.get(kind=NotificationKind.DEADLINE_NEAR)
    assert told.recipient == bob
    bartek.reload()
    assert bell(bartek) == before + 1
    alicja.reload()
    assert bell(alicja) == alicja_before
    # Opening it from the list leads to the diary and the bell drops.
    bartek.get_by_test_id("bell").click()
    bartek.locator(f"#notification-{told.pk} a.notification-link").click()
    bartek.wait_for_url(re.compile(rf"/sessions/{session.pk}/"))
    assert bell(bartek) == before


def _request_answered_at_the_bottom(gm, alicja, bartek, session) -> Roll:
    """Bartek asks for a roll; Alicja writes after him; the GM's answer resolves below both."""
    publish(bartek, session, "Borys klęka przy tropach w błocie.")
    ask_for_a_skill_roll(bartek, "Otwieranie zamków", "Precyzyjny")
    ask = RollAsk.objects.get()
    later = publish(alicja, session, "Lirael osłania Borysa z łukiem w dłoni.")

    diary(gm, session)
    gm.get_by_test_id("open-asks").get_by_role("link", name=polish("Answer with a roll")).click()
    expect(gm.get_by_test_id("answering")).to_contain_text(ask.summary)
    roll = roll_and_land_in_the_diary(gm)
    ask.refresh_from_db()
    assert (ask.status, ask.answer) == (AskStatus.ANSWERED, roll)
    assert roll.post.author_id == session.gm_id and roll.post_id > later
    expect(last_post(gm)).to_have_attribute("id", f"post-{roll.post_id}")
    expect(last_post(gm).locator(f"#roll-{roll.seq}")).to_have_count(1)

    # Bartek is told; the diary shows the answer last, and the bell drops once he reads it.
    bartek.goto("/")
    before = bell(bartek)
    assert before >= 1
    diary(bartek, session)
    expect(bartek.get_by_test_id("roll-ask")).to_contain_text(
        polish("by roll #%(seq)s", seq=roll.seq)
    )
    expect(last_post(bartek)).to_have_attribute("id", f"post-{roll.post_id}")
    assert bell(bartek) < before
    return roll


def _entry_into_an_older_post(gm, alicja, bartek, session, borys) -> Roll:
    """The GM's scene opens turn 3; both players answer; Bartek reads everything; then the
    GM records the damage a falling stone deals Borys into the GM's own earlier post, above
    the players' posts (the entry form's explicit choice)."""
    scene = publish(gm, session, "Wąwóz się zwęża, a z góry sypią się kamienie.")
    publish(alicja, session, "Lirael przywiera do skały.")
    publish(bartek, session, "Borys skacze pod nawis.")
    bartek.goto("/")
    expect(bartek.get_by_test_id(f"session-unread-{session.pk}")).to_have_count(0)
    read_before = bell(bartek)

    diary(gm, session)
    form = entry_form(gm, "entry-hp", "Damage or HP")
    form.locator('[name="hp-character"]').select_option(label="Borys")
    form.locator('[name="hp-amount"]').fill("7")
    form.get_by_label(polish("Reason")).fill("Kamień z góry trafia Borysa w ramię")
    form.locator('[name="hp-post"]').select_option(label=polish("into my post #%(id)s", id=scene))
    form.get_by_role("button", name=polish("Record the HP change")).click()
    gm.wait_for_url(re.compile(r"#roll-\d+$"))
    roll = Roll.objects.latest("seq")
    assert (roll.test, roll.post_id) == ("hp", scene)
    newest = gm.locator("article.post").last.get_attribute("id")
    assert newest != f"post-{scene}"  # the players' posts stay below it

    # Bartek is told, and the session's "first unread" leads up to the older post.
    bartek.goto("/")
    expect(bartek.get_by_test_id(f"session-unread-{session.pk}")).to_have_text("1 nowy wpis")
    assert bell(bartek) == read_before + 1
    told = Notification.objects.filter(kind=NotificationKind.CHARACTER_CHANGED).get()
    assert (told.recipient_id, told.post_id) == (borys.owner_id, scene)
    bartek.get_by_test_id(f"session-unread-{session.pk}").click()
    bartek.wait_for_url(re.compile(rf"#post-{scene}$"))
    changed = bartek.locator(f"#post-{scene}")
    expect(changed.get_by_test_id("first-unread")).to_contain_text(polish("New"))
    expect(changed.locator(f"#roll-{roll.seq}")).to_be_visible()
    assert bell(bartek) == read_before
    bartek.goto("/")
    expect(bartek.get_by_test_id(f"session-unread-{session.pk}")).to_have_count(0)
    return roll


def _fight(gm, bartek, session) -> None:
    """A fight with initiative: the GM rolls it from the panel for the characters, adds the
    wolf and a hidden archer to the order with the values given them, wounds the wolf; both
    read the order (Bartek without the archer), the GM moves the marker and ends the event."""
    open_panel(gm, SimpleNamespace(session=session))
    open_tab(gm, "Initiative")
    type_in(gm, "event_name", EVENT)
    roll_and_land_in_the_diary(gm)
    assert InitiativeEvent.objects.get().name == EVENT

    for name, visible in (("Wilk", True), ("Łucznik", False)):
        npc_services.npc_create(
            session=session, by=session.gm, name=name, description="", visible_to_players=visible
        )
    table = SimpleNamespace(session=session)
    add_npc(gm, table, "Wilk", str(MAX_NPC_SCORE), "30")
    add_npc(gm, table, polish("%(name)s (hidden)", name="Łucznik"), str(-MAX_NPC_SCORE))
    diary(gm, session)
    form = entry_form(gm, "entry-hp", "Damage or HP")
    form.locator('[name="hp-character"]').select_option(label="Wilk (NPC)")
    form.locator('[name="hp-amount"]').fill("12")
    form.get_by_label(polish("Reason")).fill("Borys rąbie wilka toporem")
    form.get_by_role("button", name=polish("Record the HP change")).click()
    gm.wait_for_url(re.compile(r"#roll-\d+$"))

    fight = gm.get_by_test_id("fight")
    expect(fight.get_by_role("heading", name=EVENT)).to_be_visible()
    expect(fight.get_by_test_id("npc-hp")).to_have_text(
        polish("HP %(current)s/%(max)s", current=18, max=30)
    )
    names = gm.get_by_test_id("fight-order").locator("li strong")
    expect(names).to_have_count(4)
    order = names.all_inner_texts()
    assert order[0] == "Wilk" and order[-1] == "Łucznik"
    assert sorted(order[1:3]) == ["Borys", "Lirael"]
    marked = gm.get_by_test_id("fight-marked").locator("strong")
    expect(marked).to_have_text(order[0])
    diary(bartek, session)
    expect(bartek.get_by_test_id("fight-order").locator("li strong")).to_have_text(order[:3])
    expect(bartek.get_by_text("Łucznik")).to_have_count(0)
    expect(bartek.get_by_test_id("npc-hp")).to_have_count(0)  # the NPC's HP are the GM's
    expect(bartek.get_by_test_id("fight-next")).to_have_count(0)  # the marker is the GM's

    gm.get_by_role("button", name=polish("Resolved: mark the next")).click()
    gm.wait_for_url(re.compile(r"#fight$"))
    expect(marked).to_have_text(order[1])
    diary(bartek, session)
    expect(bartek.get_by_test_id("fight-marked").locator("strong")).to_have_text(order[1])

    gm.goto(f"/sessions/{session.pk}/rolls/initiative/")
    gm.get_by_text(polish("End the event"), exact=True).click()
    gm.get_by_role("button", name=polish("Yes, end the event")).click()
    expect(gm.get_by_test_id("no-fight")).to_be_visible()
    diary(bartek, session)
    expect(bartek.get_by_test_id("fight")).to_have_count(0)


# -- The month -----------------------------------------------------------------------------


def test_a_month_of_play_from_the_application_to_the_last_deadline(
    page, player_page, second_player_page, make_user, make_character, make_session
):
    gm, alicja, bartek = page, player_page, second_player_page
    mg, alice, bob = make_user("mg"), make_user("alicja"), make_user("bartek")
    lirael = make_character(alice, "Lirael")
    borys = make_character(bob, "Borys", skills={"Otwieranie zamków": 3}, traits=["Precyzyjny"])
    session = make_session(mg, [lirael], title=TITLE)
    GameSession.objects.filter(pk=session.pk).update(
        description="Mgła zeszła z gór. **Szukamy tropiciela.**"
    )
    # What setting the table up told everyone is old news: the bells count the month.
    Notification.objects.update(read_at=timezone.now())
    for who, user in ((gm, mg), (alicja, alice), (bartek, bob)):
        who.add_init_script(COUNT_REDRAWS)
        log_in(who, user.username, PASSWORD)

    # -- Day 1: recruiting, the settings, turn 1 with its deadline. --------------------------
    _recruiting(gm, bartek, session, bob)
    _free_rolls_allowed(gm, session)
    turn_1 = set_deadline(gm, session, days=10)
    publish(gm, session, "Karawana staje u brodu. Mgła gęstnieje.")
    publish(alicja, session, "Lirael liczy kroki do brodu.")
    _free_roll(alicja, session, alice)
    _out_of_character(gm, bartek, session)
    _whisper(gm, alicja, bartek, session)

    # -- Day 10: the deadline nears; Bartek is told and posts. -------------------------------
    _deadline_near(alicja, bartek, session, turn_1, bob)
    publish(bartek, session, "Borys dogania karawanę w ostatniej chwili.")

    # -- Day 10: turn 2, a request answered at the bottom. -----------------------------------
    open_turn(gm, SimpleNamespace(session=session), 2)
    set_deadline(gm, session, days=20)
    _request_answered_at_the_bottom(gm, alicja, bartek, session)

    # -- Day 20: turn 3, an entry in an older post, and a fight. --------------------------
    open_turn(gm, SimpleNamespace(session=session), 3)
    turn_3 = set_deadline(gm, session, days=30)
    _entry_into_an_older_post(gm, alicja, bartek, session, borys)
    _fight(gm, bartek, session)

    # -- Day 30: the month's last deadline passes; the diary says so. ------------------------
    Turn.objects.filter(pk=turn_3.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    diary(alicja, session)
    expect(alicja.get_by_test_id("deadline")).to_contain_text(polish("deadline passed"))
    # The free roll, the answer, Borys's damage in the older post, the initiative, the wolf's wound.
    assert Roll.objects.filter(session=session).count() == 5
