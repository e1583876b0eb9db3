"""A new turn read, answered and rolled on, walked in one go in Chromium, as a player and the
GM live it: notifications, the first unread post, quoting, the preview, portraits, search,
and a secret roll revealed and verified.

The player wants new turns by e-mail. The GM opens turn 4 and writes; the player's bell
counts it and the e-mail arrives over SMTP. The player follows the home page's unread count
to the first new post, quotes it, previews and publishes a reply, which shows her
character's portrait. She searches a word from turn 3 and finds it, and a word from a session
she cannot read and finds nothing. The GM makes a secret roll the player sees only as a
commitment, reveals it, and the standalone verification script passes on the export.
"""

import io
import re

import pytest
from PIL import Image
from playwright.sync_api import expect

from characters.portraits import portrait_check_and_encode
from characters.services import character_portrait_set
from diary import services
from diary.models import NotificationKind, Post
from diary.notifications.delivery import notification_mark_all_read, notification_preferences_save
from rolls.models import Roll
from tests.browser.conftest import log_in, open_turn, roll_button
from tests.browser.test_quote import _select_from
from tests.browser.test_roll_panel import COUNT_REDRAWS, choose, open_panel, open_tab, redraw
from tests.browser.test_secret_roll import export_verified
from tests.conftest import PASSWORD, polish
from tests.smtp import run_worker

pytestmark = pytest.mark.django_db(transaction=True)


def _portrait_png() -> bytes:
    image = Image.new("RGB", (240, 320), (40, 90, 140))
    image.paste((230, 210, 170), (60, 50, 180, 200))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture
def campaign(table, make_user, make_character, make_session, media_root):
    """Turns 2 and 3 played (turn 3 names the basilisk), Lirael's portrait on her sheet, and
    a session Alicja is not in whose diary names a manticore."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    for narration in ("Droga wiedzie przez wrzosowisko.", "W ruinach śpi bazyliszek."):
        services.turn_open_next(session=table.session, by=table.gm)  # turns 2 and 3
        services.post_create(
            session=table.session, author=table.gm, character=None, narration=narration, nc_note=""
        )
    upload = SimpleUploadedFile("lirael.png", _portrait_png(), content_type="image/png")
    character_portrait_set(
        character_pk=table.lirael.pk, by=table.alice, portrait=portrait_check_and_encode(upload)
    )
    notification_preferences_save(
        user=table.alice,
        email="alicja@example.com",
        kinds={NotificationKind.TURN_OPENED},
        digest="immediately",
    )
    notification_mark_all_read(user=table.alice)  # turns 2 and 3: told and read
    stranger = make_user("cudzy_mg")
    elsewhere = make_session(stranger, [make_character(make_user("celina"), "Cyra")])
    services.post_create(
        session=elsewhere,
        author=stranger,
        character=None,
        narration="Za rzeką poluje mantykora.",
        nc_note="",
    )
    return table


def test_a_new_turn_is_told_read_answered_and_rolled_on_in_secret(
    page, player_page, campaign, smtp_server, tmp_path
):
    table = campaign
    session = table.session
    # The player has read everything so far.
    log_in(player_page, table.alice.username, PASSWORD)
    player_page.goto(f"/sessions/{session.pk}/")
    player_page.reload()
    expect(player_page.get_by_test_id("jump-unread")).to_have_count(0)

    # The GM opens turn 4 and writes in it.
    log_in(page, table.gm.username, PASSWORD)
    open_turn(page, table, 4)
    page.get_by_label("Narracja").fill("Most trzeszczy pod kopytami. Z mgły wyłania się strażnik.")
    page.get_by_role("button", name="Opublikuj").click()
    expect(page.locator("article.post", has_text="wyłania się")).to_have_count(1)
    gm_post = Post.objects.get(session=session, author=table.gm, turn__number=4)

    # The player's bell counts the new turn and the e-mail arrives.
    player_page.goto("/")
    expect(player_page.get_by_test_id("unread-count")).to_have_text("1")
    run_worker()
    (message,) = smtp_server.wait_for(1)
    assert message["To"] == "alicja@example.com"
    assert "4" in message["Subject"] and session.title in message["Subject"]

    # The home page's unread count leads to the first unread post, marked "Nowe".
    player_page.get_by_test_id(f"session-unread-{session.pk}").click()
    player_page.wait_for_url(re.compile(rf"#post-{gm_post.pk}$"))
    first_new = player_page.locator(f"#post-{gm_post.pk}")
    expect(first_new.get_by_test_id("first-unread")).to_contain_text(polish("New"))
    expect(first_new).to_be_in_viewport()

    # She quotes its second sentence, previews the reply in place, and publishes it.
    _select_from(player_page, gm_post, "Z mgły")
    first_new.get_by_role("link", name=polish("Quote")).click()
    reply = player_page.locator("#write textarea[name=narration]")
    expect(reply).to_have_value(re.compile(r"> Z mgły wyłania się strażnik\."))
    reply.press("End")
    reply.type("Lirael unosi dłoń w pokojowym geście.")
    player_page.get_by_role("button", name=polish("Preview")).click()
    preview = player_page.get_by_test_id("post-preview")
    expect(preview.locator("blockquote")).to_contain_text("Z mgły wyłania się strażnik.")
    assert Post.objects.filter(session=session, author=table.alice).count() == 0
    player_page.get_by_role("button", name=polish("Publish")).click()
    mine = player_page.locator("article.post", has_text="Lirael unosi dłoń")
    expect(mine.locator("blockquote")).to_contain_text("Z mgły wyłania się strażnik.")

    # Her character's portrait is beside the reply, loaded from the site's media.
    portrait = mine.locator(".post-head img")
    expect(portrait).to_have_attribute("alt", "Lirael")
    expect(portrait).to_be_visible()
    assert portrait.evaluate("(img) => img.complete && img.naturalWidth > 0")

    # The search finds the word from turn 3, and nothing from the session she cannot read.
    header = player_page.get_by_test_id("header-search")
    header.get_by_label(polish("Search the posts of my sessions")).fill("bazyliszek")
    header.get_by_role("button", name=polish("Search")).click()
    results = player_page.get_by_test_id("search-results")
    expect(results.get_by_role("listitem")).to_have_count(1)
    expect(results).to_contain_text(polish("turn %(number)s", number=3))
    header = player_page.get_by_test_id("header-search")
    header.get_by_label(polish("Search the posts of my sessions")).fill("mantykora")
    header.get_by_role("button", name=polish("Search")).click()
    expect(player_page.get_by_test_id("search-nothing")).to_be_visible()

    # The GM rolls Lirael's perception in secret from the panel.
    page.add_init_script(COUNT_REDRAWS)
    open_panel(page, table)
    open_tab(page, "Attributes")
    choose(page, "a-character", value=str(table.lirael.pk))
    choose(page, "a-attribute", label="Percepcja")
    redraw(page, page.get_by_label(polish("Secret roll")).check)
    roll_button(page).click()
    page.wait_for_url(re.compile(rf"/sessions/{session.pk}/rolls/\d+/$"))
    secret = Roll.objects.filter(session=session).latest("seq")
    assert secret.record["kind"] == "secret"

    # The player sees only the commitment: no die, no result.
    player_page.goto(secret.post.get_absolute_url(anchor=f"roll-{secret.seq}"))
    entry = player_page.locator(f"#roll-{secret.seq}")
    expect(entry.get_by_test_id("secret-commitment")).to_contain_text(
        secret.record["secret"]["commitment"][:16]
    )
    expect(entry.get_by_test_id("roll-line")).to_have_count(0)

    # The GM reveals it; the player sees the result now.
    page.get_by_role("button", name=polish("Reveal the roll")).click()
    page.get_by_role("button", name=polish("Yes, reveal the roll")).click()
    page.wait_for_url(re.compile(rf"#roll-{secret.seq + 1}$"))
    player_page.reload()
    revealed = player_page.locator(f"#roll-{secret.seq + 1}")
    expect(revealed.get_by_test_id("revealed")).to_contain_text(f"#{secret.seq}")
    expect(revealed.get_by_test_id("roll-line")).to_contain_text("Lirael")

    # Anyone may check: the export verifies with the standalone script, both states known.
    assert "Secret rolls: 1, revealed: 1" in export_verified(player_page, session, tmp_path)
