from types import SimpleNamespace

from django.urls import reverse

from config.markdown import render_narration
from diary.posts.quoting import quote_markdown, quoted_post_pks


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
    text = quote_markdown(
        _post(character=SimpleNamespace(name="Ragnar", grammatical_gender="masculine")), "Druga"
    )
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


@pytest.mark.django_db
def test_an_htmx_preview_brings_back_only_the_post_form(table, client_for):
    from diary.services import post_create

    post_create(
        session=table.session,
        author=table.gm,
        character=None,
        narration="Mgła gęstnieje nad brodem.",
        nc_note="",
    )
    url = reverse("diary:post_preview", args=[table.session.pk])
    answer = client_for(table.alice).post(
        url,
        {"narration": "*Cicho*", "character": table.lirael.pk, "token": uuid.uuid4()},
        headers={"HX-Request": "true"},
    )
    body = answer.content.decode()
    assert answer.status_code == 200
    assert body.lstrip().startswith('<section class="card post-form" id="write"')
    assert render_narration("*Cicho*") in body
    # Neither the diary's posts nor its page around them are rendered for a swap.
    assert "Mgła gęstnieje" not in body
    assert "<html" not in body
    # The quote script stays outside what htmx swaps, so it is never loaded twice.
    assert "quote.js" not in body


def _edit_fields(table, narration):
    return {"character": table.lirael.pk, "narration": narration, "nc_note": ""}


@pytest.mark.django_db
def test_the_edit_form_previews_without_saving(table, client_for):
    from diary.services import post_create

    post = post_create(
        session=table.session,
        author=table.alice,
        character=table.lirael,
        narration="Pierwsza",
        nc_note="",
    )
    client = client_for(table.alice)
    url = reverse("diary:post_edit", args=[post.pk])
    fields = {**_edit_fields(table, "**Druga** <img src=x onerror=alert(1)>"), "preview": "1"}
    answer = client.post(url, fields)
    body = answer.content.decode()
    assert answer.status_code == 200
    assert 'data-testid="post-preview"' in body
    assert "<strong>Druga</strong>" in body
    shown = body.split('data-testid="post-preview"')[1].split("</section>")[0]
    assert "<img" not in shown and "&lt;img" in shown  # the sanitiser's escaping
    post.refresh_from_db()
    assert (post.narration, post.version) == ("Pierwsza", 1)

    htmx = client.post(url, fields, headers={"HX-Request": "true"})
    assert htmx.status_code == 200 and 'data-testid="post-preview"' in htmx.content.decode()

    # A refused preview: the error next to the field, nothing saved; htmx still gets a 200.
    from diary.forms import NARRATION_MAX_LENGTH

    too_long = {**_edit_fields(table, "x" * (NARRATION_MAX_LENGTH + 1)), "preview": "1"}
    assert client.post(url, too_long).status_code == 400
    refused = client.post(url, too_long, headers={"HX-Request": "true"})
    assert refused.status_code == 200
    assert 'id="id_narration_error"' in refused.content.decode()
    post.refresh_from_db()
    assert post.version == 1

    # Without "preview" the same form saves, as before.
    assert client.post(url, _edit_fields(table, "Druga")).status_code == 302
    post.refresh_from_db()
    assert (post.narration, post.version) == ("Druga", 2)


# --- the header agrees with the quoted character's grammatical gender -----------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("gender", "verb"),
    [("feminine", "napisała"), ("masculine", "napisał"), ("neuter", "napisało")],
)
def test_the_quote_header_follows_the_characters_grammatical_gender(
    table, client_for, gender, verb
):
    from characters.models import Character

    Character.objects.filter(pk=table.lirael.pk).update(grammatical_gender=gender)
    post = _write(table, table.alice, character=table.lirael, text="Lirael milknie.")
    url = reverse("diary:session", args=[table.session.pk])
    link = reverse("diary:post_link", args=[post.pk])
    # The link without JavaScript: the server's pre-fill.
    form = client_for(table.bob).get(url, {"quote": post.pk}).context["post_form"]
    assert form["narration"].value().startswith(f"> [Lirael {verb}]({link}):")
    # With JavaScript the header comes from the link (quote.js quotes a selection with it).
    page = client_for(table.bob).get(url).content.decode()
    assert f'data-quote-header="[Lirael {verb}]({link}):"' in page


@pytest.mark.django_db
def test_a_post_without_a_character_keeps_the_neutral_header(table, client_for):
    """The author's gender is nowhere on the site: the header keeps "napisał(a)"."""
    post = _write(table, table.gm, text="Zapada zmrok.")
    url = reverse("diary:session", args=[table.session.pk])
    form = client_for(table.bob).get(url, {"quote": post.pk}).context["post_form"]
    assert form["narration"].value().startswith(f"> [{table.gm.username} napisał(a)](")
