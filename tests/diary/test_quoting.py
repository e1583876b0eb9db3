from types import SimpleNamespace

from django.urls import reverse

from diary.markdown import render_narration
from diary.quoting import quote_markdown, quoted_post_pks


def _post(pk=7, narration="Pierwsza linia.\nDruga linia.", character=None):
    author = SimpleNamespace(get_username=lambda: "mistrz")
    return SimpleNamespace(
        pk=pk,
        narration=narration,
        author=author,
        character=character,
        character_id=character and 1,
    )


def test_quote_is_a_blockquote_headed_by_a_link_to_the_permalink():
    text = quote_markdown(_post())
    link = reverse("diary:post_link", args=[7])
    assert text.startswith("> [mistrz")
    assert f"]({link})" in text
    assert "> Pierwsza linia.\n> Druga linia." in text


def test_quote_of_a_selection_keeps_only_the_selection_and_names_the_character():
    text = quote_markdown(_post(character=SimpleNamespace(name="Ragnar")), "Druga")
    assert "Ragnar" in text
    assert "Druga" in text and "Pierwsza" not in text


def test_quoted_post_pks_finds_each_permalink_once():
    text = quote_markdown(_post(pk=3)) + quote_markdown(_post(pk=3)) + quote_markdown(_post(pk=5))
    assert quoted_post_pks(text) == {3, 5}
    assert quoted_post_pks("[x](https://evil.example/posts/3/)") == set()


def test_rendered_quote_links_back_and_stays_inert():
    html = render_narration(quote_markdown(_post(narration="<script>alert(1)</script>")))
    assert "<blockquote>" in html
    assert f'href="{reverse("diary:post_link", args=[7])}"' in html
    assert "<script>" not in html


# --- the "Quote" link and the server's pre-fill ----------------------------------------

import pytest  # noqa: E402

from diary import services  # noqa: E402


def _write(table, author, character=None, text="Drzwi skrzypią."):
    return services.post_create(
        session=table.session, author=author, character=character, narration=text, nc_note=""
    )


@pytest.mark.django_db
def test_quote_link_prefills_the_reply_with_the_post_and_a_link_back(table, client_for):
    gm_post = _write(table, table.gm, text="Drzwi *skrzypią*.")
    url = reverse("diary:session", args=[table.session.pk])
    page = client_for(table.bob).get(url)
    assert f"quote={gm_post.pk}#write".encode() in page.content
    form = client_for(table.bob).get(url, {"quote": gm_post.pk}).context["post_form"]
    narration = form["narration"].value()
    assert narration.startswith("> [mg")
    assert f"]({reverse('diary:post_link', args=[gm_post.pk])})" in narration
    assert "> Drzwi *skrzypią*." in narration


@pytest.mark.django_db
def test_hidden_posts_and_other_sessions_posts_are_not_quoted(table, client_for, make_session):
    gm_post = _write(table, table.gm)
    services.post_hide(post=gm_post, by=table.gm, reason="spoiler")
    url = reverse("diary:session", args=[table.session.pk])
    page = client_for(table.bob).get(url)
    assert f"quote={gm_post.pk}#write".encode() not in page.content
    form = client_for(table.bob).get(url, {"quote": gm_post.pk}).context["post_form"]
    assert not form["narration"].value()
    for bad in ("abc", "99999", "1 OR 1=1", "<script>"):
        form = client_for(table.bob).get(url, {"quote": bad}).context["post_form"]
        assert not form["narration"].value()


import uuid  # noqa: E402

# --- the Markdown preview -------------------------------------------------------------


@pytest.mark.django_db
def test_the_preview_renders_like_the_diary_and_stores_nothing(table, client_for):
    from diary.models import Post

    url = reverse("diary:post_preview", args=[table.session.pk])
    text = "**Pół** kroku <script>alert(1)</script>\n\n> cytat"
    answer = client_for(table.alice).post(
        url, {"narration": text, "character": table.lirael.pk, "token": uuid.uuid4()}
    )
    assert answer.status_code == 200
    body = answer.content.decode()
    assert 'data-testid="post-preview"' in body
    assert render_narration(text) in body
    assert "<script>alert(1)</script>" not in body
    assert "&lt;script&gt;" in body  # the text is kept in the textarea, escaped
    assert not Post.objects.filter(session=table.session).exists()


@pytest.mark.django_db
def test_a_refused_preview_shows_the_error_next_to_the_field(table, client_for):
    from diary.forms import NARRATION_MAX_LENGTH
    from diary.models import Post

    url = reverse("diary:post_preview", args=[table.session.pk])
    answer = client_for(table.alice).post(url, {"narration": "x" * (NARRATION_MAX_LENGTH + 1)})
    assert answer.status_code == 400
    assert 'id="id_narration_error"' in answer.content.decode()
    assert 'data-testid="post-preview"' not in answer.content.decode()
    # htmx only swaps a 200: the same refusal comes back as one, errors and all.
    htmx = client_for(table.alice).post(url, {"narration": ""}, headers={"HX-Request": "true"})
    assert htmx.status_code == 200
    assert 'class="error"' in htmx.content.decode()
    assert not Post.objects.exists()
    assert client_for(table.outsider).post(url, {"narration": "x"}).status_code == 403
