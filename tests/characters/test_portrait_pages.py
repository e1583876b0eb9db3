"""Uploading, replacing and removing a portrait on the sheet; who may; what a
refusal leaves (nothing); the portrait beside the character's posts, at once; serving it."""

import io
import re

import pytest
from django.urls import reverse
from PIL import Image

from characters import portraits
from characters.models import Character
from diary import services as diary_services
from tests.conftest import polish

pytestmark = pytest.mark.django_db


def png(size=(120, 90), colour=(30, 120, 60)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, colour).save(buf, format="PNG")
    return buf.getvalue()


def upload(client, character, data: bytes, name="portret.png"):
    file = io.BytesIO(data)
    file.name = name
    return client.post(reverse("characters:portrait_upload", args=[character.pk]), {"image": file})


def stored_files(media_root) -> list[str]:
    return sorted(p.name for p in media_root.rglob("*") if p.is_file())


def field_error(response) -> str:
    match = re.search(
        r'<p class="error" id="id_image_error">([^<]*)</p>', response.content.decode()
    )
    assert match, "no error next to the file field"
    return match.group(1)


def test_the_owner_uploads_a_portrait_and_the_sheet_shows_it(
    table, client_for, media_root, django_capture_on_commit_callbacks
):
    client = client_for(table.alice)
    response = upload(client, table.lirael, png((1024, 768)), name="moje zdjęcie.PNG")
    assert response.status_code == 302
    lirael = Character.objects.get(pk=table.lirael.pk)
    assert re.fullmatch(r"portraits/[0-9a-f]{32}\.webp", lirael.portrait.name)
    assert (lirael.portrait_width, lirael.portrait_height) == (512, 384)
    assert stored_files(media_root) == [lirael.portrait.name.removeprefix("portraits/")]
    with Image.open(media_root / lirael.portrait.name) as stored:
        assert stored.format == "WEBP" and stored.size == (512, 384)
    sheet = client.get(reverse("characters:detail", args=[lirael.pk])).content.decode()
    assert f'src="/media/{lirael.portrait.name}"' in sheet
    assert 'alt="Lirael"' in sheet and 'width="512" height="384"' in sheet
    # Others read the sheet and see the portrait, without the forms.
    other = client_for(table.gm).get(reverse("characters:detail", args=[lirael.pk]))
    assert f"/media/{lirael.portrait.name}" in other.content.decode()
    assert reverse("characters:portrait_upload", args=[lirael.pk]) not in other.content.decode()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            b"To nie jest obraz, tylko tekst.\n" * 20,
            "This file is not an image (JPEG, PNG, WebP or GIF).",
        ),
        (png((300, 300))[:200], "This file is not an image (JPEG, PNG, WebP or GIF)."),
        (png((16, 16)), "The image is too small (at least %(px)d×%(px)d pixels)."),
    ],
    ids=["text", "truncated", "tiny"],
)
def test_a_bad_file_gets_a_polish_error_next_to_the_field_and_nothing_is_stored(
    table, client_for, media_root, data, message
):
    response = upload(client_for(table.alice), table.lirael, data)
    assert response.status_code == 400
    assert field_error(response) == polish(message, px=portraits.PORTRAIT_MIN_SIDE)
    assert Character.objects.get(pk=table.lirael.pk).portrait.name == ""
    assert stored_files(media_root) == []


def test_an_oversized_upload_is_cut_off_by_the_handler_and_refused(
    table, client_for, media_root, monkeypatch
):
    monkeypatch.setattr(portraits, "PORTRAIT_MAX_BYTES", 2000)
    decoded = []
    checker = portraits.portrait_check_and_encode
    monkeypatch.setattr(
        portraits, "portrait_check_and_encode", lambda f: decoded.append(f) or checker(f)
    )
    response = upload(client_for(table.alice), table.lirael, png((400, 400)) + b"\0" * 5000)
    assert response.status_code == 400
    assert decoded == []  # cut off while it was read: never kept, never decoded
    assert field_error(response) == polish("The file is too large (at most %(mb)d MB).", mb=0)
    assert Character.objects.get(pk=table.lirael.pk).portrait.name == ""
    assert stored_files(media_root) == []


def test_no_file_at_all_is_a_field_error(table, client_for, media_root):
    response = client_for(table.alice).post(
        reverse("characters:portrait_upload", args=[table.lirael.pk]), {}
    )
    assert response.status_code == 400
    assert field_error(response)
    assert stored_files(media_root) == []


@pytest.mark.parametrize("who", ["gm", "bob", "moderator", "outsider"])
def test_only_the_owner_may_upload(table, client_for, media_root, who):
    response = upload(client_for(getattr(table, who)), table.lirael, png())
    assert response.status_code in (403, 404)
    assert Character.objects.get(pk=table.lirael.pk).portrait.name == ""
    assert stored_files(media_root) == []


def test_a_replaced_portrait_is_deleted(
    table, client_for, media_root, django_capture_on_commit_callbacks
):
    client = client_for(table.alice)
    with django_capture_on_commit_callbacks(execute=True):
        upload(client, table.lirael, png(colour=(200, 0, 0)))
    first = Character.objects.get(pk=table.lirael.pk).portrait.name
    with django_capture_on_commit_callbacks(execute=True):
        upload(client, table.lirael, png(colour=(0, 0, 200)))
    second = Character.objects.get(pk=table.lirael.pk).portrait.name
    assert second != first
    assert stored_files(media_root) == [second.removeprefix("portraits/")]


def test_the_same_image_uploaded_again_keeps_one_file(
    table, client_for, media_root, django_capture_on_commit_callbacks
):
    client = client_for(table.alice)
    for _ in range(2):
        with django_capture_on_commit_callbacks(execute=True):
            upload(client, table.lirael, png())
    name = Character.objects.get(pk=table.lirael.pk).portrait.name
    assert stored_files(media_root) == [name.removeprefix("portraits/")]


@pytest.mark.parametrize("who", ["alice", "moderator"])
def test_the_owner_or_a_moderator_removes_it_and_the_file_goes(
    table, client_for, media_root, django_capture_on_commit_callbacks, who
):
    with django_capture_on_commit_callbacks(execute=True):
        upload(client_for(table.alice), table.lirael, png())
    client = client_for(getattr(table, who))
    sheet = client.get(reverse("characters:detail", args=[table.lirael.pk])).content.decode()
    assert reverse("characters:portrait_remove", args=[table.lirael.pk]) in sheet
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("characters:portrait_remove", args=[table.lirael.pk]))
    assert response.status_code == 302
    lirael = Character.objects.get(pk=table.lirael.pk)
    assert lirael.portrait.name == "" and lirael.portrait_width == 0
    assert stored_files(media_root) == []


@pytest.mark.parametrize("who", ["gm", "bob"])
def test_the_gm_or_another_player_may_not_remove_it(table, client_for, media_root, who):
    upload(client_for(table.alice), table.lirael, png())
    name = Character.objects.get(pk=table.lirael.pk).portrait.name
    response = client_for(getattr(table, who)).post(
        reverse("characters:portrait_remove", args=[table.lirael.pk])
    )
    assert response.status_code in (403, 404)
    assert Character.objects.get(pk=table.lirael.pk).portrait.name == name
    assert stored_files(media_root) == [name.removeprefix("portraits/")]


def _narrate(table, character, text):
    return diary_services.post_create(
        session=table.session, author=character.owner, character=character,
        narration=text, nc_note="",
    )  # fmt: skip


def test_the_portrait_shows_beside_the_characters_posts_and_a_new_one_at_once(
    table, client_for, media_root
):
    _narrate(table, table.lirael, "Lirael patrzy w mgłę.")
    gm_post = diary_services.post_create(
        session=table.session, author=table.gm, character=None, narration="Mgła gęstnieje.",
        nc_note="",
    )  # fmt: skip
    reader = client_for(table.bob)
    diary = reverse("diary:session", args=[table.session.pk])
    assert 'data-testid="post-portrait"' not in reader.get(diary).content.decode()  # cached now

    upload(client_for(table.alice), table.lirael, png(colour=(200, 0, 0)))
    first = Character.objects.get(pk=table.lirael.pk).portrait.name
    page = reader.get(diary).content.decode()
    images = re.findall(r'<img class="portrait portrait-post"[^>]*>', page)
    assert len(images) == 1  # Lirael's post; the GM's has none
    assert f'src="/media/{first}"' in images[0]
    for attribute in ('alt="Lirael"', 'width="48"', 'height="48"', 'loading="lazy"'):
        assert attribute in images[0]
    gm_article = page.split(f'id="post-{gm_post.pk}"')[1].split("</article>")[0]
    assert "portrait" not in gm_article

    upload(client_for(table.alice), table.lirael, png(colour=(0, 0, 200)))
    second = Character.objects.get(pk=table.lirael.pk).portrait.name
    page = reader.get(diary).content.decode()
    assert f"/media/{second}" in page and f"/media/{first}" not in page


@pytest.mark.parametrize("debug", [False, True], ids=["make-serve", "make-run"])
def test_the_media_view_serves_a_portrait_with_safe_long_lived_headers(
    table, client_for, media_root, settings, debug
):
    settings.DEBUG = debug  # the same route serves under `make run` and `make serve`
    upload(client_for(table.alice), table.lirael, png())
    name = Character.objects.get(pk=table.lirael.pk).portrait.name
    response = client_for(table.bob).get(f"/media/{name}")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/webp"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert "immutable" in response["Cache-Control"]
    assert b"".join(response.streaming_content) == (media_root / name).read_bytes()


@pytest.mark.parametrize(
    "path",
    [
        "portraits/" + "0" * 32 + ".webp",  # no such file
        "portraits/../../config/settings.py",
        "portraits/" + "0" * 32 + ".html",
        "other/" + "0" * 32 + ".webp",
    ],
)
def test_the_media_view_serves_nothing_else(client, media_root, path):
    assert client.get(f"/media/{path}").status_code == 404


def test_the_upload_still_checks_the_csrf_token(table, media_root):
    """The view is csrf_exempt only to set its upload handler first; csrf_protect checks."""
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(table.alice)
    response = upload(client, table.lirael, png())
    assert response.status_code == 403
    assert Character.objects.get(pk=table.lirael.pk).portrait.name == ""
    assert stored_files(media_root) == []
    # With the token the sheet's form carries, the same upload goes through.
    sheet = client.get(reverse("characters:detail", args=[table.lirael.pk])).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', sheet).group(1)
    file = io.BytesIO(png())
    file.name = "p.png"
    response = client.post(
        reverse("characters:portrait_upload", args=[table.lirael.pk]),
        {"image": file, "csrfmiddlewaretoken": token},
    )
    assert response.status_code == 302
    assert Character.objects.get(pk=table.lirael.pk).portrait.name
