"""In Chromium: a player selects part of the GM's post, quotes it into the reply,
previews and publishes it, and the reply's quote links back to the GM's post; the GM is told
(the bell)."""

import re

import pytest
from playwright.sync_api import expect

from diary import services
from tests.browser.conftest import log_in
from tests.conftest import PASSWORD, polish

pytestmark = pytest.mark.django_db(transaction=True)


def _select_from(page, post, first_words):
    """Select a post's narration from `first_words` to its end, as a reader would."""
    page.locator(f"#post-{post.pk} .narration").evaluate(
        """(el, first) => {
            const text = el.querySelector('p').firstChild;
            const range = document.createRange();
            range.setStart(text, text.data.indexOf(first));
            range.setEnd(text, text.data.length);
            const selection = window.getSelection();
            selection.removeAllRanges();
            selection.addRange(range);
        }""",
        first_words,
    )


def test_a_player_quotes_a_selection_of_the_gms_post_and_the_quote_links_back(page, table):
    gm_post = services.post_create(
        session=table.session,
        author=table.gm,
        character=None,
        narration="Most trzeszczy pod kopytami. Z mgły wyłania się strażnik.",
        nc_note="",
    )
    log_in(page, table.alice.username, PASSWORD)
    page.goto(f"/sessions/{table.session.pk}/")
    _select_from(page, gm_post, "Z mgły")
    page.locator(f"#post-{gm_post.pk}").get_by_role("link", name=polish("Quote")).click()
    reply = page.locator("#write textarea[name=narration]")
    expect(reply).to_be_focused()
    quoted = reply.input_value()
    assert "> Z mgły wyłania się strażnik." in quoted
    assert "Most trzeszczy" not in quoted
    assert f"/sessions/posts/{gm_post.pk}/" in quoted
    reply.press("End")
    reply.type("Lirael unosi dłoń w pokojowym geście.")
    # The preview (htmx) shows the reply as the diary will, and keeps the text.
    page.get_by_role("button", name=polish("Preview")).click()
    preview = page.get_by_test_id("post-preview")
    expect(preview.locator("blockquote")).to_contain_text("Z mgły wyłania się strażnik.")
    expect(preview).to_contain_text("Lirael unosi dłoń")
    assert page.url.endswith(f"/sessions/{table.session.pk}/")  # swapped in place
    # Quoting again after the swap inserts the quote once (the script is not loaded twice).
    _select_from(page, gm_post, "strażnik")
    page.locator(f"#post-{gm_post.pk}").get_by_role("link", name=polish("Quote")).click()
    assert reply.input_value().count("> strażnik.") == 1
    reply.fill(quoted + "Lirael unosi dłoń w pokojowym geście.")
    page.get_by_role("button", name=polish("Publish")).click()

    mine = page.locator("article.post").last
    expect(mine.locator("blockquote")).to_contain_text("Z mgły wyłania się strażnik.")
    expect(mine).to_contain_text("Lirael unosi dłoń")
    mine.locator("blockquote a").first.click()
    page.wait_for_url(re.compile(rf"#post-{gm_post.pk}$"))
    expect(page.locator(f"#post-{gm_post.pk}")).to_be_in_viewport()

    # The GM's bell counts the quote.
    log_in(page, table.gm.username, PASSWORD)
    page.goto("/notifications/")
    expect(page.get_by_role("main")).to_contain_text(
        polish(
            "%(actor)s quoted your post in “%(session)s”.",
            actor=table.alice.username,
            session=table.session.title,
        )
    )


def test_the_edit_form_previews_in_place_and_saves_only_on_save(page, table):
    post = services.post_create(
        session=table.session,
        author=table.alice,
        character=table.lirael,
        narration="Lirael czeka.",
        nc_note="",
    )
    log_in(page, table.alice.username, PASSWORD)
    page.goto(f"/sessions/posts/{post.pk}/edit/")
    page.get_by_label(polish("Narration")).fill("Lirael **biegnie** do mostu.")
    page.get_by_role("button", name=polish("Preview")).click()
    preview = page.get_by_test_id("post-preview")
    expect(preview.locator("strong")).to_have_text("biegnie")
    post.refresh_from_db()
    assert post.version == 1  # a preview stores nothing
    page.get_by_role("button", name=polish("Save")).click()
    expect(page.locator(f"#post-{post.pk} strong")).to_have_text("biegnie")
    post.refresh_from_db()
    assert post.version == 2


def test_a_quote_of_a_characters_post_agrees_with_her_grammatical_gender(page, table):
    """Lirael's sheet says feminine: the quote's header reads "Lirael napisała", in the
    selection the script quotes as in the server's pre-fill."""
    post = services.post_create(
        session=table.session,
        author=table.alice,
        character=table.lirael,
        narration="Lirael zsuwa kaptur. Wiatr niesie zapach dymu.",
        nc_note="",
    )
    log_in(page, table.bob.username, PASSWORD)
    page.goto(f"/sessions/{table.session.pk}/")
    _select_from(page, post, "Wiatr")
    page.locator(f"#post-{post.pk}").get_by_role("link", name=polish("Quote")).click()
    reply = page.locator("#write textarea[name=narration]")
    expect(reply).to_have_value(
        re.compile(rf"^> \[Lirael napisała\]\(/sessions/posts/{post.pk}/\):")
    )
    page.goto(f"/sessions/{table.session.pk}/?quote={post.pk}#write")
    expect(reply).to_have_value(re.compile(r"^> \[Lirael napisała\]\("))
