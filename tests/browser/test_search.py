"""In Chromium: a player searches a word from turn 3 of their session, finds the
post and lands on it; a word only in a session they cannot read finds nothing. The header's
box, the diary sidebar's box (this session only) and the results page, on a desktop and on a
phone, with no axe violations."""

import pytest
from playwright.sync_api import expect

from diary import services as diary_services
from tests.browser.axe import violations
from tests.browser.conftest import log_in
from tests.conftest import PASSWORD, polish

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def words(table, make_user, make_character, make_session):
    """Turn 3 of the table's session has "żurawiem"; a session Alicja is not in has "jemioły"."""
    for _ in range(2):
        diary_services.turn_open_next(session=table.session, by=table.gm)
    diary_services.post_create(
        session=table.session,
        author=table.gm,
        character=None,
        narration="Brama skrzypi.",
        nc_note="",
    )
    found = diary_services.post_create(
        session=table.session,
        author=table.bob,
        character=table.borys,
        narration="Borys widzi na tarczy herb ze złotym żurawiem.",
        nc_note="",
    )
    other_gm = make_user("inny_mg")
    cyra = make_character(make_user("celina"), "Cyra")
    elsewhere = make_session(other_gm, [cyra], title="Cudza sesja")
    diary_services.post_create(
        session=elsewhere,
        author=other_gm,
        character=None,
        narration="Nad brodem wisi wieniec z jemioły.",
        nc_note="",
    )
    return found


def test_a_player_finds_a_word_from_turn_3_and_nothing_from_a_session_they_cannot_read(
    page, table, words
):
    log_in(page, table.alice.username, PASSWORD)
    page.goto("/")
    header = page.get_by_test_id("header-search")
    header.get_by_label(polish("Search the posts of my sessions")).fill("żurawiem")
    header.get_by_role("button", name=polish("Search")).click()

    results = page.get_by_test_id("search-results")
    expect(results.get_by_role("listitem")).to_have_count(1)
    expect(results).to_contain_text(polish("turn %(number)s", number=3))
    expect(results).to_contain_text(table.session.title)
    expect(results.locator("mark")).to_have_text("żurawiem")
    assert not violations(page)

    results.get_by_test_id("search-result-link").click()
    post = page.locator(f"#post-{words.pk}")
    expect(post).to_be_in_viewport()
    expect(post).to_contain_text("herb ze złotym żurawiem")
    assert page.url.endswith(f"#post-{words.pk}")

    # A word only in a session Alicja cannot read: nothing, and the page says so.
    page.get_by_test_id("header-search").get_by_role("searchbox").fill("jemioły")
    page.get_by_test_id("header-search").get_by_role("button").click()
    expect(page.get_by_test_id("search-nothing")).to_have_text(polish("Nothing found."))
    expect(page.get_by_test_id("search-results")).to_have_count(0)


def test_the_diary_sidebar_searches_only_this_session(
    page, table, make_session, make_character, words
):
    # Lirael plays in the first session; a character plays in one running session at a time.
    second = make_session(table.gm, [make_character(table.alice, "Ilse")], title="Druga sesja")
    diary_services.post_create(
        session=second, author=table.gm, character=None, narration="Żuraw kołuje.", nc_note=""
    )
    log_in(page, table.alice.username, PASSWORD)
    page.goto(f"/sessions/{table.session.pk}/")
    side = page.get_by_test_id("session-search")
    side.get_by_label(polish("Search this session")).fill("żuraw")
    side.get_by_role("button", name=polish("Search")).click()
    results = page.get_by_test_id("search-results")
    expect(results.get_by_role("listitem")).to_have_count(1)
    expect(results).to_contain_text(table.session.title)
    # The page keeps the session chosen; choosing all sessions finds the other post too.
    where = page.get_by_label(polish("Where"))
    expect(where).to_have_value(str(table.session.pk))
    where.select_option("")
    page.get_by_role("main").get_by_role("button", name=polish("Search")).click()
    expect(page.get_by_test_id("search-results").get_by_role("listitem")).to_have_count(2)


def test_a_too_long_query_is_an_error_next_to_the_field(page, table):
    log_in(page, table.alice.username, PASSWORD)
    page.goto("/sessions/search/?q=" + "a" * 201)
    error = page.locator("#id_q_error")
    expect(error).to_have_text(
        polish("Keep the search to %(limit_value)d characters at most.", limit_value=200)
    )
    expect(page.get_by_test_id("search-results")).to_have_count(0)
    assert not violations(page)


@pytest.fixture
def phone(browser, live_server):
    context = browser.new_context(
        locale="pl-PL", base_url=live_server.url, viewport={"width": 375, "height": 740}
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


def test_on_a_phone_the_search_box_and_results_do_not_scroll_sideways(phone, table, words):
    log_in(phone, table.alice.username, PASSWORD)
    for url in ["/", f"/sessions/{table.session.pk}/", "/sessions/search/?q=żurawiem"]:
        phone.goto(url)
        phone.wait_for_load_state("load")
        assert not phone.evaluate(
            "document.documentElement.scrollWidth > document.documentElement.clientWidth"
        ), url
    # A phone's header has a link to the search page instead of the box.
    phone.goto("/")
    expect(phone.get_by_test_id("header-search")).to_be_hidden()
    phone.get_by_test_id("search-link").click()
    phone.locator("#id_q").fill("żurawiem")
    phone.get_by_role("main").get_by_role("button", name=polish("Search")).click()
    expect(phone.get_by_test_id("search-results").get_by_role("listitem")).to_have_count(1)
