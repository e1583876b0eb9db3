"""A post the way forum players write one, in Chromium, as its people click it.

Alicja starts Lirael's post on her phone; her log-in runs out before she sends it. On the
desktop, logged in again, she finds the draft, adds a jump, `[[1k20+3 skok]]`, sees its odds
in the preview and publishes: the jump is rolled once into the chain and stands in the post.
The GM answers as the innkeeper, with a map of the inn attached and a line for Lirael's
eyes only. Bartek, whose diary is open, gets the answer by the live update: the innkeeper,
the map and "(tekst tylko dla wybranych)" — and nothing of the line's words, not in the page,
the search, his notifications and e-mails, the live poll, the export or the archive.
"""

import io
import re
import zipfile

import pytest
from django.contrib.sessions.models import Session
from django.core import mail
from django.urls import reverse
from PIL import Image, ImageDraw
from playwright.sync_api import expect

from diary.models import Draft, GameSession, Post, PostPicture
from diary.npcs import services as npc_services
from rolls.ledger import verify as ledger
from rolls.models import InlineRoll
from tests.browser.axe import violations
from tests.browser.conftest import _polish_page, log_in
from tests.conftest import PASSWORD, polish

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.fair_dice]

# The draft's save waits about 3 s after the last keystroke; a live update, a poll's round.
SAVED = 20_000
LIVE = 20_000

DRAFTED = "Lirael bierze rozbieg nad rozlewiskiem."
SECRET = "Na progu karczmy widzisz świeży ślad krwi"
SECRET_WORDS = ("ślad krwi", "progu karczmy")
MAP_ALT = "Mapa karczmy: sala, kuchnia i zejście do piwnicy"


def _map_png() -> bytes:
    image = Image.new("RGB", (900, 600), (225, 210, 170))
    draw = ImageDraw.Draw(image)
    draw.rectangle((100, 100, 500, 400), outline=(90, 60, 30), width=8)  # the hall
    draw.rectangle((520, 100, 800, 400), outline=(90, 60, 30), width=8)  # the kitchen
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _phone(browser, live_server):
    context = browser.new_context(
        locale="pl-PL",
        base_url=live_server.url,
        viewport={"width": 390, "height": 844},
        is_mobile=True,
        has_touch=True,
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    return context, page


def _no_secret(text: str, where: str) -> None:
    for words in SECRET_WORDS:
        assert words not in text, f"{where}: {words!r}"


def alicja_starts_on_her_phone(phone, diary: str) -> None:
    phone.goto(diary)
    reply = phone.locator("#write textarea[name=narration]")
    reply.click()
    reply.press_sequentially(DRAFTED)
    expect(phone.locator("#write [data-draft-status]")).to_contain_text(
        "szkic zapisany", timeout=SAVED
    )


def alicja_finds_the_draft_and_adds_a_jump(page, diary: str) -> InlineRoll:
    page.goto(diary)
    reply = page.locator("#write textarea[name=narration]")
    expect(reply).to_have_value(DRAFTED)
    reply.press("End")
    reply.press_sequentially(" [[1k20+3 skok]]")
    page.get_by_role("button", name=polish("Preview")).click()
    odds = page.get_by_test_id("inline-dice-preview")
    expect(odds).to_contain_text("1k20+3")
    expect(odds.get_by_test_id("inline-dice-mean")).to_have_text("13,50")
    expect(reply).to_have_value(f"{DRAFTED} [[1k20+3 skok]]")
    page.get_by_role("button", name=polish("Publish")).click()
    page.wait_for_url(re.compile(r"#post-\d+$"))
    roll = InlineRoll.objects.select_related("roll").get()
    shown = page.get_by_test_id("inline-roll")
    expect(shown).to_contain_text("1k20+3 skok")
    expect(shown.locator(".inline-roll-total")).to_have_text(
        str(roll.roll.record["result"]["total"])
    )
    return roll


def the_gm_answers_as_the_innkeeper(gm, diary: str) -> Post:
    gm.goto(diary)
    gm.get_by_label(polish("Speak as")).select_option(label="Karczmarz")
    gm.locator("#id_narration").fill(
        f"Karczmarz wskazuje wam stół pod oknem.\n\n[dla: Lirael]{SECRET}.[/dla]"
    )
    pictures = gm.get_by_test_id("post-pictures")
    if pictures.get_attribute("open") is None:
        pictures.locator("summary").click()
    gm.get_by_label(polish("Picture %(number)s", number=1)).set_input_files(
        {"name": "karczma.png", "mimeType": "image/png", "buffer": _map_png()}
    )
    gm.get_by_label(polish("Description of picture %(number)s (alt text)", number=1)).fill(MAP_ALT)
    gm.get_by_role("button", name=polish("Publish")).click()
    gm.wait_for_url(re.compile(r"#post-\d+$"))
    answer = Post.objects.get(npc__name="Karczmarz")
    expect(gm.locator(f"#post-{answer.pk}").get_by_test_id("for-eyes")).to_contain_text(SECRET)
    return answer


def test_a_post_from_a_phone_draft_to_the_innkeepers_answer_for_chosen_eyes(
    page, player_page, browser, live_server, table, media_root
):
    session = table.session
    GameSession.objects.filter(pk=session.pk).update(players_free_rolls=True)
    npc_services.npc_create(
        session=session, by=table.gm, name="Karczmarz", description="", visible_to_players=True
    )
    diary = f"/sessions/{session.pk}/"
    phone_context, phone = _phone(browser, live_server)
    gm_context, gm = _polish_page(browser, live_server)
    try:
        log_in(phone, table.alice.username, PASSWORD)
        alicja_starts_on_her_phone(phone, diary)
        assert Draft.objects.get(author=table.alice).text == DRAFTED

        # Her log-in runs out: the phone is sent to log in again.
        Session.objects.all().delete()
        phone.goto(diary)
        phone.wait_for_url(re.compile(r"/accounts/login/"))

        log_in(page, table.alice.username, PASSWORD)
        roll = alicja_finds_the_draft_and_adds_a_jump(page, diary)
        assert not Draft.objects.filter(author=table.alice).exists()
        assert InlineRoll.objects.count() == 1 and roll.roll.seq
        assert ledger.verify_session(session.pk).ok

        # Bartek reads the diary while the GM writes: the answer comes to him live.
        log_in(player_page, table.bob.username, PASSWORD)
        player_page.goto(diary)
        log_in(gm, table.gm.username, PASSWORD)
        answer = the_gm_answers_as_the_innkeeper(gm, diary)
        assert PostPicture.objects.get(post=answer).alt == MAP_ALT
        assert violations(gm) == []

        arrived = player_page.locator(f"#post-{answer.pk}")
        expect(arrived.get_by_test_id("post-npc")).to_have_text("Karczmarz", timeout=LIVE)
        expect(arrived.get_by_test_id("for-eyes-hidden")).to_have_text(
            "(tekst tylko dla wybranych)"
        )
        expect(arrived.get_by_test_id("picture-thumb")).to_have_attribute("alt", MAP_ALT)
        _no_secret(player_page.content(), "Bartek's diary, live")
        player_page.reload()
        expect(
            player_page.locator(f"#post-{answer.pk}").get_by_test_id("picture-thumb")
        ).to_be_visible()
        _no_secret(player_page.content(), "Bartek's diary")
        assert violations(player_page) == []

        # Alicja reads the line meant for her.
        page.goto(diary)
        expect(page.locator(f"#post-{answer.pk}").get_by_test_id("for-eyes")).to_contain_text(
            SECRET
        )

        # Every other surface Bartek reads.
        player_page.goto(reverse("diary:search") + "?q=krwi")
        expect(player_page.locator("main")).to_be_visible()
        expect(player_page.locator(f"a[href*='#post-{answer.pk}']")).to_have_count(0)
        _no_secret(player_page.content(), "search")
        player_page.goto(reverse("notifications:list"))
        _no_secret(player_page.content(), "notifications")
        for message in mail.outbox:
            if table.bob.email in message.to:
                _no_secret(message.subject + message.body, "e-mail")
        live = player_page.request.get(reverse("diary:session_live", args=[session.pk]) + "?seen=0")
        assert live.ok
        _no_secret(live.text(), "the live poll")
        export = player_page.request.get(reverse("rolls:export", args=[session.pk]))
        assert export.ok
        _no_secret(export.text(), "the export")
        archive = player_page.request.get(reverse("rolls:archive", args=[session.pk]))
        assert archive.ok
        with zipfile.ZipFile(io.BytesIO(archive.body())) as files:
            names = files.namelist()
            assert any(name.startswith("pictures/") for name in names), names
            for name in names:
                _no_secret(files.read(name).decode("utf-8", "replace"), f"the archive's {name}")
            diary_pages = "".join(
                files.read(name).decode() for name in names if name.endswith(".html")
            )
            assert "(tekst tylko dla wybranych)" in diary_pages
            assert MAP_ALT in diary_pages
    finally:
        phone_context.close()
        gm_context.close()
