"""Accessibility of the pages people use every day, checked by axe-core in Chromium.

The demo session (seed_demo) has a roll of every tab, so every kind of roll line, the
initiative table, the audit and a roll's permalink are all on the pages walked here.
axe-core is the npm registry's, pinned and integrity-checked by scripts/ensure-axe, and
injected by tests/browser/axe.py through the DevTools protocol, which the site's Content
Security Policy does not govern. Every violation fails, whatever its impact.
"""

import io

import pytest
from django.core.management import call_command

from demo.ford.story import SESSION_TITLE
from demo.users import DEMO_USERS as DEMO_PASSWORDS
from diary.models import GameSession
from rolls.models import Roll
from tests.browser.axe import violations as _violations
from tests.browser.conftest import log_in

pytestmark = pytest.mark.django_db(transaction=True)


def _report(problems: dict[str, list[str]]) -> str:
    return "\n".join(f"{url}\n  " + "\n  ".join(found) for url, found in problems.items())


def _pages(session: GameSession) -> list[str]:
    roll = Roll.objects.filter(session=session).order_by("seq").first()
    entry = Roll.objects.filter(session=session, test="item_use").get()
    free = Roll.objects.filter(session=session, test="notation").order_by("seq").last()
    character = session.participations.filter(status="accepted").first().character
    panel = f"/sessions/{session.pk}/rolls/panel/"
    return [
        "/",
        "/sessions/",
        # The recruiting board (the demo's caravan is on it).
        "/sessions/recruiting/",
        # Its second tab (the demo's ad is on it), and the page of one's own ad.
        "/sessions/recruiting/players/",
        "/sessions/recruiting/my-ad/",
        f"/sessions/{session.pk}/",
        f"/sessions/{session.pk}/plan/",
        f"/sessions/{session.pk}/participants/",
        f"/sessions/{session.pk}/npcs/",
        *[f"/sessions/{session.pk}/npcs/{npc.pk}/" for npc in session.npcs.all()[:1]],
        # Every tab and every mode of the forum1000 panel.
        f"{panel}?mode=attribute",
        f"{panel}?mode=combined",
        f"{panel}?mode=opposed",
        f"{panel}?mode=skill",
        f"{panel}?mode=healing",
        f"{panel}?mode=initiative",
        # The demo's fight at the gate runs (its order also tops the diary).
        f"/sessions/{session.pk}/rolls/initiative/",
        f"/sessions/{session.pk}/rolls/{roll.seq}/",
        # The GM's diary entries and the item use, and an entry's permalink.
        f"/sessions/{session.pk}/entries/",
        f"/sessions/{session.pk}/items/use/",
        f"/sessions/{session.pk}/rolls/{entry.seq}/",
        "/characters/",
        f"/characters/{character.pk}/",
        f"/characters/{character.pk}/edit/",
        f"/characters/{character.pk}/history/",
        # The GM's free-form roll page, with a preview, and a free roll's permalink.
        f"/sessions/{session.pk}/rolls/free/?expression=4k6kh3%2B1",
        f"/sessions/{session.pk}/rolls/{free.seq}/",
        # The bell's list and the e-mail preferences.
        "/notifications/",
        "/notifications/preferences/",
        # The user's absences (the demo's nudge is in another session of the GM's).
        "/sessions/absences/",
        *[f"/sessions/{pk}/" for pk in _nudged_sessions()],
        # The notice board, the OOC thread with its polls, a new poll of each kind, each poll.
        f"/sessions/{session.pk}/board/",
        f"/sessions/{session.pk}/board/new/",
        *[f"/sessions/{session.pk}/board/{a.pk}/" for a in session.announcements.all()[:1]],
        f"/sessions/{session.pk}/ooc/",
        f"/sessions/{session.pk}/ooc/polls/new/",
        f"/sessions/{session.pk}/ooc/polls/new/?kind=dates",
        *[poll.get_absolute_url() for poll in session.polls.all()],
        # The scenes of the split party, and the diary of one scene.
        f"/sessions/{session.pk}/scenes/",
        *[f"/sessions/{session.pk}/?scena={scene.pk}" for scene in session.scenes.all()[:1]],
    ]


def _nudged_sessions() -> list[int]:
    from diary.models import Nudge

    return list(Nudge.objects.values_list("session_id", flat=True)[:1])


@pytest.fixture
def demo():
    call_command("seed_demo", stdout=io.StringIO())
    return GameSession.objects.get(title=SESSION_TITLE)


def test_the_gms_pages_have_no_axe_violations(page, demo):
    log_in(page, "gm", DEMO_PASSWORDS["gm"])
    problems = {}
    for url in _pages(demo):
        page.goto(url)
        page.wait_for_load_state("load")
        if found := _violations(page):
            problems[url] = found
    assert not problems, _report(problems)


def test_the_moderators_audit_has_no_axe_violations(page, demo):
    log_in(page, "moderator", DEMO_PASSWORDS["moderator"])
    problems = {}
    for url in [f"/sessions/{demo.pk}/", f"/sessions/{demo.pk}/rolls/audit/"]:
        page.goto(url)
        page.wait_for_load_state("load")
        if found := _violations(page):
            problems[url] = found
    assert not problems, _report(problems)


@pytest.fixture
def phone(browser, live_server):
    context = browser.new_context(
        locale="pl-PL", base_url=live_server.url, viewport={"width": 375, "height": 740}
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


def _scrolls_sideways(page) -> bool:
    return page.evaluate(
        "document.documentElement.scrollWidth > document.documentElement.clientWidth"
    )


def test_on_a_phone_the_diary_starts_with_the_posts_and_nothing_scrolls_sideways(phone, demo):
    log_in(phone, "gm", DEMO_PASSWORDS["gm"])
    phone.goto(f"/sessions/{demo.pk}/")
    first_post = phone.locator("article.post").first.bounding_box()
    # The first post is on the first screen, not ~1,000 px down below the sidebar; the GM's
    # pinned announcements come before it on purpose (diary/board/), and are not counted.
    board = phone.get_by_test_id("notice-board")
    pinned = board.bounding_box()["height"] if board.count() else 0
    # So do a split party's scene tabs and "Czekamy na" per scene (diary/scenes/): the demo
    # splits its party, a group that does not sees neither.
    split = sum(
        box["height"]
        for box in (
            element.bounding_box()
            for element in phone.locator(".scene-tabs, .awaited-scenes").all()
        )
        if box
    )
    assert first_post["y"] < 740 + pinned + split, (first_post, pinned, split)
    assert not _scrolls_sideways(phone)
    for url in [
        f"/sessions/{demo.pk}/rolls/panel/?mode=initiative",
        f"/sessions/{demo.pk}/rolls/initiative/",
    ]:
        phone.goto(url)
        phone.wait_for_load_state("load")
        assert not _scrolls_sideways(phone), url


def test_on_a_phone_the_audit_does_not_scroll_sideways(phone, demo):
    log_in(phone, "moderator", DEMO_PASSWORDS["moderator"])
    phone.goto(f"/sessions/{demo.pk}/rolls/audit/")
    assert not _scrolls_sideways(phone)


# -- the q10 panel, its request page, and a pool roll in the post ----------------------------


def _walk(page, urls) -> dict[str, list[str]]:
    problems = {}
    for url in urls:
        page.goto(url)
        page.wait_for_load_state("load")
        if found := _violations(page):
            problems[url] = found
    return problems


def test_the_q10_pages_have_no_axe_violations(browser, live_server, q10):
    from demo.systems.q10 import seed_q10_rolls
    from tests.conftest import PASSWORD

    rolls = seed_q10_rolls(q10.session, {"Eryk": q10.eryk, "Runa": q10.runa}, {"gm": q10.gm})
    session = q10.session.pk
    pages = {
        q10.gm: [
            f"/sessions/{session}/",
            f"/sessions/{session}/rolls/panel/?mode=pool",
            f"/sessions/{session}/rolls/{rolls[0].seq}/",
        ],
        q10.alice: [f"/sessions/{session}/rolls/ask/"],
        q10.moderator: [f"/sessions/{session}/rolls/audit/"],
    }
    problems = {}
    for user, urls in pages.items():
        context = browser.new_context(locale="pl-PL", base_url=live_server.url)
        page = context.new_page()
        page.set_default_timeout(15_000)
        log_in(page, user.username, PASSWORD)
        problems |= _walk(page, urls)
        context.close()
    assert not problems, _report(problems)


def test_a_request_answered_or_declined_has_no_axe_violations(browser, live_server, q10):
    """The GM's panel answering a request (with the note on a roll by judgment), the decline
    page with its refusal, and the player's post with the request declined."""
    from django.test import Client
    from django.urls import reverse

    from diary.services import post_create
    from rolls.models import RollAsk
    from rolls.selectors import ask_view
    from tests.conftest import PASSWORD

    session = q10.session
    post_create(
        session=session, author=q10.alice, character=q10.eryk, narration="Skok.", nc_note=""
    )
    player = Client()
    player.force_login(q10.alice)
    fields = {"mode": "pool", "character": q10.eryk.pk, "attribute": q10.sila.pk, "raises": 1}
    assert player.post(reverse("rolls:ask", args=[session.pk]), fields).status_code == 302
    ask = RollAsk.objects.get()
    problems = {}
    gm = browser.new_context(locale="pl-PL", base_url=live_server.url)
    page = gm.new_page()
    page.set_default_timeout(15_000)
    log_in(page, q10.gm.username, PASSWORD)
    problems |= _walk(page, [ask_view(ask, is_gm=True, user_id=q10.gm.pk).answer_url])
    page.goto(reverse("rolls:ask_decline", args=[session.pk, ask.pk]))
    page.get_by_test_id("decline-ask").click()  # no reason: refused next to the field
    page.wait_for_load_state("load")
    if found := _violations(page):
        problems["decline refused"] = found
    page.locator('[name="reason"]').fill("Najpierw lina.")
    page.get_by_test_id("decline-ask").click()
    page.wait_for_url(f"**#ask-{ask.pk}")
    gm.close()
    player_context = browser.new_context(locale="pl-PL", base_url=live_server.url)
    page = player_context.new_page()
    page.set_default_timeout(15_000)
    log_in(page, q10.alice.username, PASSWORD)
    problems |= _walk(page, [ask.post.get_absolute_url()])
    player_context.close()
    assert not problems, _report(problems)


def test_on_a_phone_the_q10_panel_does_not_scroll_sideways(phone, q10):
    from tests.conftest import PASSWORD

    log_in(phone, q10.gm.username, PASSWORD)
    phone.goto(f"/sessions/{q10.session.pk}/rolls/panel/?mode=pool")
    phone.wait_for_load_state("load")
    assert not _scrolls_sideways(phone)


# -- the ciernie panel (every test's tab) and its rolls in the post -------------------------


@pytest.fixture
def ciernie(make_user):
    from tests.rolls.systems.ciernie.ciernie_table import build_ciernie_table, flag_reroll_sources

    table = build_ciernie_table(make_user)
    flag_reroll_sources()
    return table


def test_the_ciernie_pages_have_no_axe_violations(browser, live_server, ciernie):
    from demo.systems.ciernie import seed_ciernie_rolls
    from rolls.systems.ciernie.forms import MODES
    from tests.conftest import PASSWORD
    from tests.rolls.systems.ciernie.test_ciernie_reroll import vera_fails

    rolls = seed_ciernie_rolls(ciernie.session, [ciernie.vera, ciernie.tomasz], {})
    failed = vera_fails(ciernie)  # the diary offers its reroll; its page has the form
    session = ciernie.session.pk
    pages = {
        ciernie.gm: [
            f"/sessions/{session}/",
            *(f"/sessions/{session}/rolls/panel/?mode={mode}" for mode, _label in MODES),
            f"/sessions/{session}/rolls/{rolls[-1].seq}/",
            f"/sessions/{session}/rolls/{failed.seq}/reroll/",
            f"/sessions/{session}/rolls/{rolls[-2].seq}/reroll/",  # rerolled: says so
        ],
        ciernie.alice: [f"/sessions/{session}/rolls/ask/"],
    }
    problems = {}
    for user, urls in pages.items():
        context = browser.new_context(locale="pl-PL", base_url=live_server.url)
        page = context.new_page()
        page.set_default_timeout(15_000)
        log_in(page, user.username, PASSWORD)
        problems |= _walk(page, urls)
        context.close()
    assert not problems, _report(problems)


def test_on_a_phone_the_ciernie_panel_does_not_scroll_sideways(phone, ciernie):
    from tests.conftest import PASSWORD

    log_in(phone, ciernie.gm.username, PASSWORD)
    phone.goto(f"/sessions/{ciernie.session.pk}/rolls/panel/?mode=skill")
    phone.wait_for_load_state("load")
    assert not _scrolls_sideways(phone)


# -- the Ars Magica panel (both dice) and its rolls in the post ----------------------------


def test_the_arsmagica_pages_have_no_axe_violations(browser, live_server, make_user):
    from demo.systems.arsmagica import seed_arsmagica_rolls
    from tests.conftest import PASSWORD
    from tests.rolls.systems.arsmagica.ars_table import demo_saga

    demo, characters, users = demo_saga(make_user)
    rolls = seed_arsmagica_rolls(demo, characters, users)
    session = demo.pk
    urls = [
        f"/sessions/{session}/",
        f"/sessions/{session}/rolls/panel/?mode=simple",
        f"/sessions/{session}/rolls/panel/?mode=stress",
        f"/sessions/{session}/rolls/{rolls[2].seq}/",
    ]
    context = browser.new_context(locale="pl-PL", base_url=live_server.url)
    page = context.new_page()
    page.set_default_timeout(15_000)
    log_in(page, users["gm"].username, PASSWORD)
    problems = _walk(page, urls)
    context.close()
    assert not problems, _report(problems)


def _catalog_and_system_pages(role: str) -> list[str]:
    """The catalogs (the moderator's with add and edit forms), the three new
    systems' sessions, sheets and sheet forms."""
    from characters.models import Character, Item, Skill
    from demo.systems import SESSIONS

    if role == "moderator":
        picks = Item.objects.get(system="ciernie", name="Uzbrojenie naprowadzane")  # in use
        skill = Skill.objects.get(system="q10", name="Magia")
        return [
            "/characters/catalog/",
            *[f"/characters/catalog/{system}/" for system in ("forum1000", *SESSIONS)],
            "/characters/catalog/q10/skill/new/",
            "/characters/catalog/ciernie/trait/new/",
            "/characters/catalog/arsmagica/attribute/new/",
            f"/characters/catalog/ciernie/item/{picks.pk}/edit/",
            f"/characters/catalog/q10/skill/{skill.pk}/edit/",
        ]
    sessions = [GameSession.objects.get(title=spec["title"]) for spec in SESSIONS.values()]
    sheets = [Character.objects.get(name=name) for name in ("Eragon", "Vera Kos", "Wilhelm")]
    return [
        "/characters/catalog/ciernie/",
        *[f"/sessions/{session.pk}/" for session in sessions],
        *[f"/characters/{sheet.pk}/" for sheet in sheets],
        *[f"/characters/new/?system={system}" for system in SESSIONS],
    ]


@pytest.mark.parametrize(("role", "user"), [("moderator", "moderator"), ("player", "gracz")])
def test_the_catalogs_and_the_new_systems_pages_have_no_axe_violations(page, demo, role, user):
    log_in(page, user, DEMO_PASSWORDS[user])
    problems = {}
    for url in _catalog_and_system_pages(role):
        response = page.goto(url)
        assert response.status == 200, url
        page.wait_for_load_state("load")
        if found := _violations(page):
            problems[url] = found
    assert not problems, _report(problems)


def test_on_a_phone_the_arsmagica_panel_does_not_scroll_sideways(phone, make_user):
    from tests.conftest import PASSWORD
    from tests.rolls.systems.arsmagica.ars_table import build_saga

    t = build_saga(make_user)
    log_in(phone, t.gm.username, PASSWORD)
    for mode in ("simple", "stress"):
        phone.goto(f"/sessions/{t.session.pk}/rolls/panel/?mode={mode}")
        phone.wait_for_load_state("load")
        assert not _scrolls_sideways(phone), mode


def test_a_page_with_a_flash_message_has_no_axe_violations(page, demo):
    """The message a redirect leaves on the next page: a list, read out as a status."""
    from playwright.sync_api import expect

    from tests.conftest import polish

    log_in(page, "gracz", DEMO_PASSWORDS["gracz"])
    page.goto("/notifications/")
    page.get_by_role("button", name=polish("Mark all as read")).click()
    expect(page.locator(".messages li")).to_have_text(
        polish("All notifications are marked as read.")
    )
    found = _violations(page)
    assert not found, _report({"/notifications/ with a message": found})
