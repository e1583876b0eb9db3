"""NPC voices: the GM speaks a whole post, or a block of one, as an NPC of the session; the
NPC's portrait, hardened as a character's is; quoted and searched as the NPC; a hidden
NPC's voice is never offered, and a player never speaks as an NPC."""

import io
import re

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from PIL import Image

from characters.portraits import portrait_check_and_encode
from diary import services
from diary.models import Notification, NotificationKind, Npc, Post
from diary.npcs import services as npc_services
from diary.posts import voices
from diary.posts.quoting import quote_markdown
from tests.conftest import polish, polish_as

pytestmark = pytest.mark.django_db


def image_bytes(fmt="PNG", size=(96, 96), colour=(150, 90, 40), **save) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, colour).save(buf, format=fmt, **save)
    return buf.getvalue()


def checked_portrait():
    return portrait_check_and_encode(SimpleUploadedFile("k.png", image_bytes()))


def add_npc(table, name, *, visible=True, portrait=False):
    npc = npc_services.npc_create(
        session=table.session, by=table.gm, name=name, description="", visible_to_players=visible
    )
    if portrait:
        npc = npc_services.npc_portrait_set(npc=npc, by=table.gm, portrait=checked_portrait())
    return npc


@pytest.fixture
def innkeeper(table, media_root):
    return add_npc(table, "Karczmarz", portrait=True)


@pytest.fixture
def spy(table):
    return add_npc(table, "Szpieg", visible=False)


def diary_url(table):
    return reverse("diary:session", args=[table.session.pk])


def publish(client, table, **data):
    form = client.get(diary_url(table)).context["post_form"]
    payload = {"token": form.initial["token"], "narration": "", "nc_note": "", **data}
    return client.post(reverse("diary:post_create", args=[table.session.pk]), payload)


def gm_post(table, narration, **kwargs):
    return services.post_create(
        session=table.session,
        author=table.gm,
        character=None,
        narration=narration,
        nc_note="",
        **kwargs,
    )


# ---------------------------------------------------------------------------
# A whole post


def test_the_gm_speaks_a_post_as_an_npc_and_its_header_shows_the_npc(table, client_for, innkeeper):
    response = publish(
        client_for(table.gm), table, npc=str(innkeeper.pk), narration="Czego sobie życzycie?"
    )
    assert response.status_code == 302
    post = Post.objects.get()
    assert post.npc == innkeeper and post.character is None and post.author == table.gm
    page = client_for(table.alice).get(diary_url(table)).content.decode()
    head = page[page.index(f'id="post-{post.pk}"') :][:2000]
    assert 'data-testid="post-npc">Karczmarz<' in head
    assert f'src="{innkeeper.portrait.url}"' in head and 'alt="Karczmarz"' in head
    assert polish("NPC voiced by the GM") in head
    # The GM is named as its writer, never as the post's speaker.
    assert "(mg)" in head


def test_the_speak_as_select_offers_only_npcs_players_see(table, client_for, innkeeper, spy):
    form = client_for(table.gm).get(diary_url(table)).context["post_form"]
    offered = dict(form.fields["npc"].choices)
    assert offered.get(str(innkeeper.pk)) == "Karczmarz"
    assert str(spy.pk) not in offered
    page = client_for(table.gm).get(diary_url(table)).content.decode()
    assert polish("Speak as") in page and ">Szpieg</option>" not in page


def test_a_hidden_npc_is_refused_in_words_and_nothing_is_posted(table, client_for, spy):
    response = publish(client_for(table.gm), table, npc=str(spy.pk), narration="Psst.")
    assert response.status_code == 400
    message = polish(
        "%(name)s is hidden from players: its voice is not offered while it is hidden "
        "(make it visible on the NPC page first).",
        name="Szpieg",
    )
    assert message in response.content.decode()
    assert not Post.objects.exists()
    with pytest.raises(ValidationError) as refused:
        gm_post(table, "Psst.", npc=spy)
    assert "npc" in refused.value.message_dict


def test_a_player_never_speaks_as_an_npc(table, client_for, innkeeper):
    form = client_for(table.alice).get(diary_url(table)).context["post_form"]
    assert "npc" not in form.fields
    with pytest.raises(ValidationError) as refused:
        services.post_create(
            session=table.session,
            author=table.alice,
            character=None,
            narration="Jestem karczmarzem.",
            nc_note="",
            npc=innkeeper,
        )
    assert "npc" in refused.value.message_dict
    # Nor a block of a post: refused next to the narration, nothing stored.
    response = publish(
        client_for(table.alice),
        table,
        character=str(table.lirael.pk),
        narration="[npc: Karczmarz]Darmowe piwo dla Lirael![/npc]",
    )
    assert response.status_code == 400
    assert polish("Only the GM speaks as an NPC: remove the [npc: …] block.") in (
        response.content.decode()
    )
    assert not Post.objects.exists()


def test_a_post_spoken_by_an_npc_narrates_no_character(table, innkeeper):
    with pytest.raises(ValidationError) as refused:
        voices.check_speaker(innkeeper, session=table.session, by=table.gm, character=table.lirael)
    assert refused.value.message_dict == {
        "character": [polish("A post spoken by an NPC narrates no character: choose one of them.")]
    }


def test_the_post_keeps_its_voice_when_the_npc_is_hidden_later_and_the_gm_edits_it(
    table, client_for, innkeeper
):
    post = gm_post(table, "Witajcie.", npc=innkeeper)
    npc_services.npc_update(
        npc=innkeeper, by=table.gm, name="Karczmarz", description="", visible_to_players=False
    )
    page = client_for(table.alice).get(diary_url(table)).content.decode()
    assert 'data-testid="post-npc">Karczmarz<' in page
    edited = services.post_edit(
        post=post, by=table.gm, character=None, narration="Witajcie!", nc_note="", npc=innkeeper
    )
    assert edited.npc == innkeeper


def test_a_renamed_npc_or_a_new_portrait_shows_at_once_in_its_posts(table, client_for, innkeeper):
    gm_post(table, "Witajcie.", npc=innkeeper)
    client = client_for(table.alice)
    assert 'data-testid="post-npc">Karczmarz<' in client.get(diary_url(table)).content.decode()
    npc_services.npc_update(
        npc=innkeeper, by=table.gm, name="Gospodarz", description="", visible_to_players=True
    )
    page = client.get(diary_url(table)).content.decode()
    assert 'data-testid="post-npc">Gospodarz<' in page
    new_face = portrait_check_and_encode(
        SimpleUploadedFile("n.png", image_bytes(colour=(10, 200, 30)))
    )
    npc = npc_services.npc_portrait_set(npc=innkeeper, by=table.gm, portrait=new_face)
    assert f'src="{npc.portrait.url}"' in client.get(diary_url(table)).content.decode()


# ---------------------------------------------------------------------------
# A block of a post


def test_a_block_of_a_post_is_drawn_as_the_npcs_speech(table, innkeeper):
    post = gm_post(
        table,
        "Wchodzicie do gospody.\n\n[npc: karczmarz]Witajcie w **Złotym Kuflu**![/npc]\n\nCisza.",
    )
    html = post.narration_html
    assert html.startswith("<p>Wchodzicie do gospody.</p>")
    block = re.search(r'<figure class="npc-voice".*?</figure>', html, re.S).group(0)
    assert '<strong class="npc-name">Karczmarz</strong>' in block
    assert f'src="{innkeeper.portrait.url}"' in block
    assert polish("NPC voiced by the GM") in block
    assert "<strong>Złotym Kuflu</strong>" in block
    assert html.endswith("<p>Cisza.</p>\n")


def test_the_npcs_words_are_sanitised_like_any_narration(table, innkeeper):
    post = gm_post(table, "[npc: Karczmarz]<script>alert(1)</script>[x](javascript:a)[/npc]")
    assert "<script>" not in post.narration_html and 'href="javascript' not in post.narration_html


@pytest.mark.parametrize(
    ("narration", "msgid", "params"),
    [
        (
            "[npc: Kowal]Hej![/npc]",
            "The session has no NPC named “%(name)s”.",
            {"name": "Kowal"},
        ),
        (
            "[npc: Szpieg]Psst.[/npc]",
            "%(name)s is hidden from players: its voice is not offered while it is hidden "
            "(make it visible on the NPC page first).",
            {"name": "Szpieg"},
        ),
        (
            "[npc: Karczmarz]Bez końca",
            "An NPC's words end with [/npc]: write [npc: Name]…[/npc], one block at a time.",
            {},
        ),
    ],
    ids=["unknown", "hidden", "unclosed"],
)
def test_a_bad_block_is_refused_next_to_the_narration(
    table, client_for, innkeeper, spy, narration, msgid, params
):
    response = publish(client_for(table.gm), table, narration=narration)
    assert response.status_code == 400
    content = response.content.decode()
    expected = polish(msgid, **params)
    assert expected in content or expected.replace("„", "&bdquo;") in content
    assert not Post.objects.exists()


def test_the_preview_draws_the_block_and_refuses_a_hidden_npc(table, client_for, innkeeper, spy):
    client = client_for(table.gm)
    url = reverse("diary:post_preview", args=[table.session.pk])
    token = client.get(diary_url(table)).context["post_form"].initial["token"]
    shown = client.post(
        url, {"token": token, "narration": "[npc: Karczmarz]Witajcie![/npc]", "nc_note": ""}
    )
    assert shown.status_code == 200 and 'class="npc-voice"' in shown.content.decode()
    refused = client.post(
        url, {"token": token, "narration": "[npc: Szpieg]Psst.[/npc]", "nc_note": ""}
    )
    assert refused.status_code == 400 and 'class="npc-voice"' not in refused.content.decode()


# ---------------------------------------------------------------------------
# Quoted and searched as the NPC


def test_a_quote_is_attributed_to_the_npc_and_notifies_the_real_author(
    table, client_for, innkeeper
):
    post = gm_post(table, "Czego sobie życzycie?", npc=innkeeper)
    quote = quote_markdown(post)
    header = polish_as("masculine", "[%(who)s wrote](%(link)s):", who="Karczmarz (NPC)", link="")
    assert quote.startswith("> " + header.removesuffix("():"))
    form = client_for(table.alice).get(diary_url(table), {"quote": post.pk}).context["post_form"]
    reply = form["narration"].value()
    assert reply == quote
    services.post_create(
        session=table.session,
        author=table.alice,
        character=table.lirael,
        narration=reply + "Piwa!",
        nc_note="",
    )
    assert Notification.objects.filter(
        kind=NotificationKind.QUOTE, recipient=table.gm, actor=table.alice
    ).exists()


def test_a_quoted_block_becomes_plain_words_a_player_may_post(table, innkeeper):
    post = gm_post(table, "Karczmarz odstawia kufel.\n\n[npc: Karczmarz]Płacić![/npc]")
    quote = quote_markdown(post)
    assert "[npc:" not in quote and "**Karczmarz (NPC):** Płacić!" in quote
    reply = services.post_create(
        session=table.session,
        author=table.alice,
        character=table.lirael,
        narration=quote + "Już płacę.",
        nc_note="",
    )
    assert 'class="npc-voice"' not in reply.narration_html


def test_search_finds_a_post_by_its_npcs_name_and_shows_it_as_the_npcs(
    table, client_for, innkeeper, spy
):
    post = gm_post(table, "Czego sobie życzycie, wędrowcy?", npc=innkeeper)
    client = client_for(table.alice)
    page = client.get(reverse("diary:search"), {"q": "Karczmarz"}).content.decode()
    assert f'href="{reverse("diary:post_link", args=[post.pk])}"' in page
    assert 'data-testid="search-result-link">Karczmarz (NPC)</a>' in page
    # A hidden NPC never spoke, so nothing of it is found or shown to players.
    with pytest.raises(ValidationError):
        gm_post(table, "[npc: Szpieg]Psst.[/npc]")
    found = client.get(reverse("diary:search"), {"q": "Szpieg"}).content.decode()
    assert 'data-testid="search-nothing"' in found
    assert "Szpieg" not in client.get(diary_url(table)).content.decode().replace(
        'value="Szpieg"', ""
    )


# ---------------------------------------------------------------------------
# The NPC's portrait, hardened as a character's


def npc_upload(client, npc, data: bytes, name="portret.png"):
    file = io.BytesIO(data)
    file.name = name
    return client.post(
        reverse("diary:npc_portrait_upload", args=[npc.session_id, npc.pk]), {"image": file}
    )


def test_the_npc_portrait_is_re_encoded_without_exif(table, client_for, media_root):
    npc = add_npc(table, "Karczmarz")
    exif = Image.Exif()
    exif[0x8825] = {2: (52.0, 13.0, 0.0)}  # GPS latitude
    response = npc_upload(client_for(table.gm), npc, image_bytes("JPEG", exif=exif), "k.jpg")
    assert response.status_code == 302
    npc = Npc.objects.get(pk=npc.pk)
    assert re.fullmatch(r"portraits/[0-9a-f]{32}\.webp", npc.portrait.name)
    with Image.open(media_root / npc.portrait.name) as stored:
        assert stored.format == "WEBP" and not stored.getexif()
    page = client_for(table.gm).get(reverse("diary:npcs", args=[table.session.pk]))
    assert npc.portrait.url in page.content.decode()


def test_an_svg_npc_portrait_is_refused_in_words_and_nothing_is_stored(
    table, client_for, media_root
):
    npc = add_npc(table, "Karczmarz")
    svg = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
    response = npc_upload(client_for(table.gm), npc, svg, "k.svg")
    assert response.status_code == 400
    assert polish("This file is not an image (JPEG, PNG, WebP or GIF).") in (
        response.content.decode()
    )
    assert not Npc.objects.get(pk=npc.pk).portrait
    assert not media_root.exists() or not any(media_root.rglob("*.*"))


def test_only_the_gm_sets_or_removes_an_npc_portrait(table, client_for, innkeeper):
    assert npc_upload(client_for(table.alice), innkeeper, image_bytes()).status_code == 403
    remove = reverse("diary:npc_portrait_remove", args=[table.session.pk, innkeeper.pk])
    assert client_for(table.alice).post(remove).status_code == 403
    assert Npc.objects.get(pk=innkeeper.pk).portrait
    assert client_for(table.gm).post(remove).status_code == 302
    assert not Npc.objects.get(pk=innkeeper.pk).portrait


@pytest.mark.postgres_only
def test_postgres_finds_the_npcs_posts_through_the_indexes(table, innkeeper):
    """The NPC's name is not a post's column: its posts join the GIN index's by their
    npc_id, still through the indexes."""
    from diary.search.selectors import posts_matching
    from tests.diary.search.test_search import crowd_the_session, search_plan

    crowd_the_session(table)
    spoken = gm_post(table, "Czego sobie życzycie?", npc=innkeeper)
    gm_post(table, "Karczmarz ociera kufel.")
    found = posts_matching(table.alice, "karczmarz")
    assert spoken in found and len(found) == 2
    plan = search_plan(found)
    assert "diary_post_search" in plan, plan


def test_an_npcs_name_is_escaped_in_the_block_and_the_header(table, client_for):
    name = '<img src=x onerror="alert(1)">'
    npc = add_npc(table, name)
    gm_post(table, f"[npc: {name}]Boo.[/npc]")
    gm_post(table, "Boo.", npc=npc)
    page = client_for(table.alice).get(diary_url(table)).content.decode()
    assert "<img src=x" not in page and "&lt;img src=x" in page
