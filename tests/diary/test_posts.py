"""Posts: who writes, Markdown made safe, revisions kept, hiding without deleting."""

import re
import uuid

import pytest
from django.urls import reverse

from config.markdown import render_narration
from diary.models import Post, PostRevision
from diary.services import post_create
from tests.conftest import polish

pytestmark = pytest.mark.django_db


def write(client, session, **data):
    data.setdefault("token", str(uuid.uuid4()))  # the form's one-time token
    return client.post(reverse("diary:post_create", args=[session.pk]), data)


def test_player_posts_as_own_character_into_the_current_turn(table, client_for):
    response = write(
        client_for(table.alice),
        table.session,
        character=table.lirael.pk,
        narration="Lirael *uśmiecha się*.",
        nc_note="Uwodzenie + Seksapil",
    )
    post = Post.objects.get()
    assert response.status_code == 302
    assert (post.author, post.character, post.turn.number) == (table.alice, table.lirael, 1)
    assert post.narration_html == "<p>Lirael <em>uśmiecha się</em>.</p>\n"
    assert post.revisions.count() == 1


def test_gm_posts_without_a_character(table, client_for):
    write(client_for(table.gm), table.session, narration="Mgła gęstnieje.")
    assert Post.objects.get().author == table.gm


@pytest.mark.parametrize("who", ["moderator", "outsider"])
def test_only_gm_and_players_post(table, client_for, who):
    # Both know the running session (a moderator reads it, an outsider sees its card): 403.
    response = write(client_for(getattr(table, who)), table.session, narration="Wtrącam się")
    assert response.status_code == 403
    assert not Post.objects.exists()


def test_no_posting_as_another_players_character(table, client_for):
    response = write(
        client_for(table.alice), table.session, character=table.borys.pk, narration="x"
    )
    assert response.status_code == 400
    assert response.context["post_form"].errors["character"]
    assert not Post.objects.exists()


def test_empty_post_is_refused_in_polish(table, client_for):
    response = write(client_for(table.alice), table.session, narration="   ", nc_note="")
    assert response.status_code == 400
    assert (
        polish("Write the narration or something out of character (OOC).")
        in response.content.decode()
    )
    assert not Post.objects.exists()


def test_no_posts_outside_a_running_session(make_user, make_character, make_session, client_for):
    gm = make_user()
    session = make_session(gm, status="accepted")
    response = write(client_for(gm), session, narration="Za wcześnie")
    assert response.status_code == 403
    assert not Post.objects.exists()


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        ("<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n"),
        (
            '<img src=x onerror="alert(1)">',
            '<p>&lt;img src=x onerror="alert(1)"&gt;</p>\n',
        ),
        ("[klik](javascript:alert(1))", "<p>[klik](javascript:alert(1))</p>\n"),
        ("<iframe src=//evil></iframe>", "<p>&lt;iframe src=//evil&gt;&lt;/iframe&gt;</p>\n"),
    ],
)
def test_raw_html_in_narration_is_shown_as_text(source, shown):
    """Raw HTML is off in the renderer: what a player typed is shown, never run."""
    assert render_narration(source) == shown


@pytest.mark.parametrize(
    ("source", "sanitised"),
    [
        # The renderer lets these schemes through; only the sanitiser's allowlist drops them.
        ("[x](data:image/png;base64,AAAA)", '<p><a rel="nofollow noopener noreferrer">x</a></p>\n'),
        ("[x](ftp://evil.example/a)", '<p><a rel="nofollow noopener noreferrer">x</a></p>\n'),
        ("[x](tel:123)", '<p><a rel="nofollow noopener noreferrer">x</a></p>\n'),
        # Attributes outside the allowlist go (the renderer writes a class on fenced code).
        ("```python\nx\n```", "<pre><code>x\n</code></pre>\n"),
    ],
)
def test_the_sanitiser_removes_what_the_renderer_lets_through(source, sanitised):
    assert render_narration(source) == sanitised


@pytest.mark.parametrize(
    ("source", "forbidden"),
    [
        ("<script>alert(1)</script>", "<script"),
        ('<img src=x onerror="alert(1)">', "<img"),
        ('<a href="javascript:alert(1)">x</a>', "javascript:"),
        ('<a href="https://x.pl" onclick="steal()">x</a>', "onclick"),
        ("<iframe src=//evil></iframe>", "<iframe"),
        ('<p style="position:fixed">x</p>', "style="),
    ],
)
def test_the_sanitiser_stops_raw_html_even_if_the_renderer_passed_it(
    monkeypatch, source, forbidden
):
    """Defence in depth: with raw HTML switched on in the renderer, nh3 still removes it."""
    from markdown_it import MarkdownIt

    from config import markdown

    monkeypatch.setattr(markdown, "_markdown", MarkdownIt("commonmark", {"html": True}))
    assert forbidden in markdown._markdown.render(source)  # the renderer alone lets it through
    assert forbidden not in render_narration(source)


def test_narration_keeps_safe_markdown():
    html = render_narration("# Tytuł\n\n**mocno** i [link](https://example.com)\n\n> cytat")
    assert "<h4>Tytuł</h4>" in html
    assert "<strong>mocno</strong>" in html
    assert 'href="https://example.com"' in html and 'rel="nofollow noopener noreferrer"' in html
    assert "<blockquote>" in html


def test_narration_headings_nest_under_the_post_without_skipping_a_level():
    """The page's outline is session h1, turn h2, post h3: narration starts at h4 and
    never jumps a level (axe's heading-order), whatever levels the player typed."""
    html = render_narration("## Pierwszy\n\n#### Głębiej\n\n# Znowu\n\n`<h1>` w kodzie")
    levels = [int(level) for level in re.findall(r"<h(\d)>", html)]
    assert levels == [4, 5, 4]
    assert "&lt;h1&gt;" in html  # code is text, not a heading


def test_editing_keeps_every_version(table, client_for):
    post = post_create(
        session=table.session,
        author=table.alice,
        character=table.lirael,
        narration="Pierwsza",
        nc_note="",
    )
    client = client_for(table.alice)
    url = reverse("diary:post_edit", args=[post.pk])
    client.post(url, {"character": table.lirael.pk, "narration": "Druga", "nc_note": ""})
    client.post(url, {"character": table.lirael.pk, "narration": "Trzecia", "nc_note": "NC"})
    post.refresh_from_db()
    assert (post.narration, post.version) == ("Trzecia", 3)
    assert list(post.revisions.values_list("narration", flat=True)) == [
        "Pierwsza",
        "Druga",
        "Trzecia",
    ]

    history = reverse("diary:post_history", args=[post.pk])
    for who in (table.alice, table.gm, table.moderator):
        body = client_for(who).get(history).content.decode()
        assert "Pierwsza" in body and "Druga" in body
    assert client_for(table.bob).get(history).status_code == 403


@pytest.mark.parametrize("who", ["gm", "bob", "moderator"])
def test_only_the_author_edits(table, client_for, who):
    post = post_create(
        session=table.session, author=table.alice, character=None, narration="Moje", nc_note=""
    )
    response = client_for(getattr(table, who)).post(
        reverse("diary:post_edit", args=[post.pk]), {"narration": "Cudze"}
    )
    assert response.status_code == 403
    post.refresh_from_db()
    assert post.narration == "Moje" and PostRevision.objects.count() == 1


@pytest.mark.parametrize("who", ["alice", "gm", "moderator"])
def test_author_gm_or_moderator_hides_and_moderators_still_read(table, client_for, who):
    post = post_create(
        session=table.session, author=table.alice, character=None, narration="Sekret", nc_note=""
    )
    client_for(getattr(table, who)).post(
        reverse("diary:post_hide", args=[post.pk]), {"reason": "spoiler"}
    )
    post.refresh_from_db()
    assert post.is_hidden and post.hidden_reason == "spoiler"
    diary = reverse("diary:session", args=[table.session.pk])
    player_view = client_for(table.bob).get(diary).content.decode()
    assert "Sekret" not in player_view
    assert "spoiler" in player_view  # the marker stays, with its reason
    assert "Sekret" in client_for(table.moderator).get(diary).content.decode()
    assert Post.objects.filter(pk=post.pk).exists()


def test_other_players_cannot_hide(table, client_for):
    post = post_create(
        session=table.session, author=table.alice, character=None, narration="Moje", nc_note=""
    )
    response = client_for(table.bob).post(
        reverse("diary:post_hide", args=[post.pk]), {"reason": ""}
    )
    assert response.status_code == 403
    post.refresh_from_db()
    assert not post.is_hidden


def test_the_nc_note_is_shown_apart(table, client_for):
    post_create(
        session=table.session,
        author=table.alice,
        character=None,
        narration="Fabuła",
        nc_note="Poza grą",
    )
    body = (
        client_for(table.gm).get(reverse("diary:session", args=[table.session.pk])).content.decode()
    )
    assert '<aside class="nc">' in body and "Poza grą" in body


def test_the_post_form_and_the_post_say_out_of_character_as_the_site_does(table, client_for):
    """The site calls it "Poza grą (OOC)" (the table talk's thread): the post form's field and
    the note under a post say the same, never "Notka NC" or a bare "NC"."""
    post_create(
        session=table.session, author=table.alice, character=None, narration="", nc_note="Pauza"
    )
    body = client_for(table.alice).get(f"/sessions/{table.session.pk}/").content.decode()
    ooc = polish("Out of character (OOC)")
    assert re.search(rf'<label for="id_nc_note">{re.escape(ooc)}:?</label>', body), body
    assert f'<span class="nc-label">{ooc}</span> Pauza' in body
    assert "Notka NC" not in body and ">NC<" not in body


def test_the_post_forms_hidden_token_has_no_visible_label(table, client_for):
    """A hidden field is only its input: no "Token:" label in the post form."""
    body = client_for(table.alice).get(f"/sessions/{table.session.pk}/").content.decode()
    form = body[body.index('id="write"') :]
    assert 'type="hidden" name="token"' in form
    assert 'for="id_token"' not in form
