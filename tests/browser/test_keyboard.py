"""The roll panel and the diary with the keyboard alone (Tab, Shift+Tab, Enter, Space, arrows).

A player of the demo session ("gracz", Lirael) starts every page at the skip link (the first
Tab stop), follows it into the main content, and from there reaches the panel's tabs and
modes, fills a roll, sees its chance and rolls; in the diary they jump to the post form,
write and publish. No click, no fill(): only key presses. Each focused element must show
a visible focus ring (the site's :focus-visible outline).
"""

import io

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from demo.ford.story import SESSION_TITLE
from demo.systems import SESSIONS
from demo.users import DEMO_USERS
from diary.models import GameSession, Post
from rolls.models import Roll
from tests.browser.axe import violations
from tests.browser.conftest import log_in

pytestmark = pytest.mark.django_db(transaction=True)

# Tab presses from the skip link's target to "Roll" in each panel's default mode, as
# measured on the demo: a player 12 (forum1000: back link, fight history, two tabs, two
# modes, character, attribute, one ability, post, "Show the chance", "Roll"), 12 (q10),
# 14 (ciernie), 11 (arsmagica); the GM 24, 28, 16, 19: every GM-only field (NPC,
# difficulty, bonus and the modifier rows, each with its reason) is a stop of its own.
PLAYER_TABS_TO_ROLL = 15
GM_TABS_TO_ROLL = 30
# Measured: 5 from the skip link's target to "Publish" (jump link, then the form's fields).
DIARY_TABS_TO_PUBLISH = 8

FOCUSED = """() => {
  const e = document.activeElement;
  const style = getComputedStyle(e);
  return {
    tag: e.tagName, id: e.id, name: e.getAttribute("name") || "",
    text: (e.innerText || "").trim(), testid: e.dataset.testid || "",
    classes: e.className || "",
    ring: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2,
    top: e.getBoundingClientRect().top,
  };
}"""


# True the first time the focus lands on this element (marks it).
ENTERING = """() => {
  const e = document.activeElement;
  const first = !e.dataset.keyboardSeen;
  e.dataset.keyboardSeen = "1";
  return first;
}"""


def focused(page) -> dict:
    return page.evaluate(FOCUSED)


def tab(page, *, backwards: bool = False) -> dict:
    page.keyboard.press("Shift+Tab" if backwards else "Tab")
    now = focused(page)
    assert now["ring"], f"no visible focus ring on {now}"
    return now


def tab_until(page, wanted, limit: int) -> tuple[int, dict]:
    """Tab (counting) until `wanted(focused)` holds; fails after `limit` presses."""
    seen = []
    for presses in range(1, limit + 1):
        now = tab(page)
        if wanted(now):
            return presses, now
        seen.append(now["text"] or now["name"] or now["tag"])
    raise AssertionError(f"not reached in {limit} Tab presses: {seen}")


def through_the_skip_link(page) -> None:
    """The first Tab stop is the skip link, visible once focused; Enter lands in <main>."""
    skip = page.locator("a.skip-link")
    assert skip.bounding_box()["y"] < 0  # off-screen until focused
    first = tab(page)
    assert first["classes"] == "skip-link" and first["text"] == "Przejdź do treści", first
    assert first["top"] >= 0  # shown on focus
    page.keyboard.press("Enter")
    assert focused(page)["id"] == "content"


COUNT_REDRAWS = """() => document.addEventListener("htmx:afterSettle", () => {
  const root = document.documentElement;
  root.dataset.redraws = String(Number(root.dataset.redraws || 0) + 1);
})"""


def wait_for_redraws(page, count: int) -> None:
    expect(page.locator("html")).to_have_attribute("data-redraws", str(count))


@pytest.fixture
def demo():
    call_command("seed_demo", stdout=io.StringIO())
    return GameSession.objects.get(title=SESSION_TITLE)


@pytest.mark.parametrize(
    ("user", "bound"), [("gracz", PLAYER_TABS_TO_ROLL), ("gm", GM_TABS_TO_ROLL)]
)
def test_the_roll_button_is_a_few_tab_presses_from_the_skip_link(page, demo, user, bound):
    """In every system's panel, in its default mode, for a player and for the GM."""
    titles = [SESSION_TITLE, *[spec["title"] for spec in SESSIONS.values()]]
    log_in(page, user, DEMO_USERS[user])
    measured = {}
    for title in titles:
        session = GameSession.objects.get(title=title)
        page.goto(f"/sessions/{session.pk}/rolls/panel/")
        through_the_skip_link(page)
        presses, button = tab_until(page, lambda f: f["classes"] == "roll-button", bound)
        assert button["text"] == "Wykonaj rzut"
        measured[session.system] = presses
        # And back: Shift+Tab walks the same order in reverse.
        assert tab(page, backwards=True)["testid"] == "show-chance"
    assert set(measured) == {"forum1000", *SESSIONS}, measured


def test_a_player_writes_and_publishes_a_post_by_keyboard(page, demo):
    log_in(page, "gracz", DEMO_USERS["gracz"])
    page.goto(f"/sessions/{demo.pk}/")
    through_the_skip_link(page)
    jump = tab(page)
    assert jump["text"] == "Napisz wpis", jump
    page.keyboard.press("Enter")
    assert focused(page)["id"] == "write"
    presses = 0
    # The narrating character: arrows on the select (the first choice is "none").
    presses += 1
    assert tab(page)["name"] == "character"
    page.keyboard.press("ArrowDown")
    assert page.locator("#write select[name=character]").input_value()
    # The composer's toolbar: one stop before the textarea (its arrows move inside it).
    presses += 1
    assert tab(page)["text"] == "Pogrubienie"
    presses += 1
    assert tab(page)["name"] == "narration"
    page.keyboard.type("Lirael przechodzi bród *bez słowa*.")
    more, _button = tab_until(page, lambda f: f["text"] == "Opublikuj", DIARY_TABS_TO_PUBLISH)
    assert presses + more <= DIARY_TABS_TO_PUBLISH
    before = Post.objects.filter(session=demo).count()
    page.keyboard.press("Enter")
    page.wait_for_load_state("load")
    expect(page.locator("article.post", has_text="Lirael przechodzi bród")).to_have_count(1)
    assert Post.objects.filter(session=demo).count() == before + 1
    post = Post.objects.filter(session=demo).order_by("-pk").first()
    assert post.character.owner.username == "gracz" and "bez słowa" in post.narration


def test_a_player_switches_tab_and_mode_and_rolls_a_combined_test_by_keyboard(page, demo):
    log_in(page, "gracz", DEMO_USERS["gracz"])
    page.goto(f"/sessions/{demo.pk}/rolls/panel/?mode=skill")
    through_the_skip_link(page)
    # Back to the "Cechy" (attributes) tab, then its "rzut łączony" (combined) mode.
    tab_until(page, lambda f: "tab" in f["classes"].split() and f["text"] == "Cechy", 6)
    page.keyboard.press("Enter")
    page.wait_for_url("**mode=attribute**")
    # The tab redraws the panel in place: the focus stays on the tab just chosen.
    expect(page.locator("a.tab.current")).to_have_text("Cechy")
    assert focused(page)["text"] == "Cechy"
    tab_until(page, lambda f: "mode" in f["classes"].split() and f["text"] == "rzut łączony", 8)
    page.keyboard.press("Enter")
    page.wait_for_url("**mode=combined**")
    expect(page.locator("a.mode.current")).to_have_text("rzut łączony")
    assert focused(page)["text"] == "rzut łączony"
    page.evaluate(COUNT_REDRAWS)
    # Two attributes, picked with the arrows (the second one twice down: another attribute).
    tab_until(page, lambda f: f["id"] == "id_a-attribute", 10)
    page.keyboard.press("ArrowDown")
    wait_for_redraws(page, 1)
    assert tab(page)["id"] == "id_a-attribute_2"
    page.keyboard.press("ArrowDown")
    wait_for_redraws(page, 2)
    page.keyboard.press("ArrowDown")
    wait_for_redraws(page, 3)
    assert focused(page)["id"] == "id_a-attribute_2"
    first = page.locator("#id_a-attribute").input_value()
    second = page.locator("#id_a-attribute_2").input_value()
    assert first and second and first != second
    chance = page.get_by_test_id("chance")
    expect(chance).to_have_count(1)
    assert chance.inner_text().endswith("%")
    # The panel with the chance shown passes axe too; then on to "Roll", pressed with Space.
    assert not violations(page)
    tab_until(page, lambda f: f["classes"] == "roll-button", 8)
    before = Roll.objects.filter(session=demo).count()
    page.keyboard.press("Space")
    expect(page.get_by_test_id("chance")).to_have_count(0)
    assert Roll.objects.filter(session=demo).count() == before + 1
    rolled = Roll.objects.filter(session=demo).order_by("-seq").first()
    assert rolled.test == "combined" and rolled.character.name == "Lirael"
    assert not violations(page)  # and the page after the roll


def test_every_tab_stop_shows_a_focus_ring(page, demo):
    """Every focusable element of the GM's busiest pages shows the :focus-visible outline."""
    log_in(page, "gm", DEMO_USERS["gm"])
    sheet = demo.participations.filter(status="accepted").first().character
    for url in [
        f"/sessions/{demo.pk}/",
        f"/sessions/{demo.pk}/rolls/panel/?mode=opposed",
        f"/sessions/{demo.pk}/plan/",
        f"/characters/{sheet.pk}/",
    ]:
        page.goto(url)
        stops = 0
        while True:
            page.keyboard.press("Tab")
            now = focused(page)
            if now["tag"] == "BODY" or (now["classes"] == "skip-link" and stops):
                break  # past the last stop (Chromium rests on the document once)
            # A date-time field is several stops (day, month, ..., the calendar button,
            # drawn by the browser): the site's ring shows as the focus enters it.
            entering = page.evaluate(ENTERING)
            assert now["ring"] or not entering, f"{url}: no visible focus ring on {now}"
            stops += 1
            assert stops < 400, url
        assert stops > 10, url
