"""The composer: one toolbar partial on every form that writes Markdown (a new post, a post's
edit, the OOC thread, a whisper, the plan), hidden until its script shows it (so without
JS the textarea takes plain Markdown), its scripts loaded under the page's CSP nonce; and the
preview is exactly what publishing stores."""

import html
import re
import uuid

import pytest
from django.urls import reverse

from diary import services
from diary.models import SessionStatus
from diary.talk import services as talk_services
from tests.conftest import polish

pytestmark = pytest.mark.django_db

MARKUP = (
    "## Karczma\n\nLirael **skrada się** pod *okno*, [mapa](https://example.com/mapa).\n\n"
    "> Kto tam?\n\n- pierwszy\n- drugi\n\n`kod` <script>alert(1)</script>\n\n"
    "[spoiler]Karczmarz to **wilkołak**.[/spoiler]"
)


def toolbar(text: str) -> str:
    match = re.search(r'<div class="composer-toolbar"[^>]*>.*?</div>', text, re.S)
    assert match, "no composer toolbar"
    return match.group(0)


def composer_pages(table, make_user, make_session):
    post = services.post_create(
        session=table.session,
        author=table.alice,
        character=table.lirael,
        narration="Stare słowa.",
        nc_note="",
        token=uuid.uuid4(),
    )
    thread = talk_services.whisper_create(
        session=table.session,
        by=table.gm,
        players=[table.alice],
        subject="",
        text="Szept.",
        token=uuid.uuid4(),
    )
    planner = make_user("planista")
    draft_session = make_session(planner, status=SessionStatus.DRAFT)
    session = table.session.pk
    return [
        (table.alice, reverse("diary:session", args=[session]), "narration"),
        (table.alice, reverse("diary:post_edit", args=[post.pk]), "narration"),
        (table.alice, reverse("diary:ooc", args=[session]), "text"),
        (table.alice, reverse("diary:whisper", args=[session, thread.pk]), "text"),
        (table.alice, reverse("diary:whisper_new", args=[session]), "text"),
        (planner, reverse("diary:session_plan", args=[draft_session.pk]), "scenario"),
    ]


def test_every_composer_has_the_toolbar_hidden_until_its_script_shows_it(
    table, client_for, make_user, make_session
):
    for user, url, field in composer_pages(table, make_user, make_session):
        response = client_for(user).get(url)
        assert response.status_code == 200, url
        text = html.unescape(response.content.decode())
        bar = toolbar(text)
        # Without JS nothing of it shows: the textarea takes plain Markdown.
        assert re.search(r'data-composer-field="' + field + r'"\s+hidden', bar), url
        for label in ("Bold", "Italics", "Quotation", "For chosen eyes", "Dice"):
            assert polish(label) in bar, (url, label)
        assert ">Spoiler</button>" in bar
        # Real buttons that send nothing; Ctrl+B and Ctrl+I said to assistive technology.
        assert bar.count('<button type="button"') == 7
        assert 'aria-keyshortcuts="Control+B"' in bar and 'aria-keyshortcuts="Control+I"' in bar
        # The picture button waits for a form with a picture field (the script shows it).
        assert re.search(r"data-composer-picture hidden", bar)
        nonce = re.search(r'nonce="([^"]+)"', text).group(1)
        for script in ("js/composer.js", "js/drafts.js"):
            assert re.search(rf'<script src="[^"]*{script}" nonce="{nonce}" defer>', text), url


def test_the_preview_is_exactly_what_publishing_stores(table, client_for):
    alice = client_for(table.alice)
    form = {"character": table.lirael.pk, "narration": MARKUP, "nc_note": "", "token": uuid.uuid4()}
    session = table.session.pk
    for headers in ({}, {"HTTP_HX_REQUEST": "true"}):
        preview = alice.post(reverse("diary:post_preview", args=[session]), form, **headers)
        assert preview.status_code == 200
        shown = re.search(
            r'data-testid="post-preview"><h3>[^<]*</h3>'
            r'<div class="narration">(.*?)</div></section>',
            preview.content.decode(),
            re.S,
        ).group(1)
        assert "<strong>skrada się</strong>" in shown and "<script>" not in shown
        assert '<details class="spoiler">' in shown
    assert alice.post(reverse("diary:post_create", args=[session]), form).status_code == 302
    assert table.session.posts.get().narration_html == shown
