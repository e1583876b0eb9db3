"""A post's pictures on the pages: thumbnails that open the full picture, files only for
the diary's readers (a hidden post's only for moderators), the body's cache keyed by the
pictures, adding and removing them on an edit, the gallery the GM pins, and the archive."""

import io
import json
import re
import zipfile

import pytest
from django.urls import reverse

from diary import services as diary_services
from diary.models import Post, PostPicture
from diary.pictures.selectors import with_pictures
from diary.posts.rendering import post_body_html
from rolls.audit.archive import session_archive
from tests.diary.pictures.helpers import file, image_bytes, stored_files, write

pytestmark = pytest.mark.django_db


def gm_map(table, client_for, alt="Mapa Czarnego Brodu", colour=(40, 90, 160)) -> PostPicture:
    content = image_bytes((1200, 900), colour=colour)
    response = write(client_for(table.gm), table.session, pictures=[(content, "m.png", alt)])
    assert response.status_code == 302
    return PostPicture.objects.get(alt=alt)


def file_url(picture, which="image") -> str:
    name = picture.image_file if which == "image" else picture.thumb_file
    return reverse("diary:picture_file", args=[picture.session_id, name])


def test_a_player_sees_the_thumbnail_linked_to_the_full_picture(table, client_for, media_root):
    picture = gm_map(table, client_for)
    player = client_for(table.alice)
    page = player.get(reverse("diary:session", args=[table.session.pk])).content.decode()
    thumb = re.search(
        rf'<a href="{re.escape(file_url(picture))}" data-testid="picture-full">'
        rf'<img src="{re.escape(file_url(picture, "thumb"))}" width="400" height="300" '
        r'alt="Mapa Czarnego Brodu"',
        page,
    )
    assert thumb, "no thumbnail linked to the full picture"
    full = player.get(file_url(picture))
    assert full.status_code == 200 and full["Content-Type"] == "image/webp"
    assert "private" in full["Cache-Control"] and full["X-Content-Type-Options"] == "nosniff"
    assert b"".join(full.streaming_content) == (media_root / picture.image).read_bytes()


@pytest.mark.parametrize("who", ["outsider", "anonymous"])
def test_no_one_outside_the_diary_fetches_a_picture(table, client_for, who, make_user):
    picture = gm_map(table, client_for)
    client = client_for(table.outsider) if who == "outsider" else client_for(make_user("x"))
    if who == "anonymous":
        client.logout()
    for url in (file_url(picture), file_url(picture, "thumb")):
        response = client.get(url)
        if who == "anonymous":
            assert response.status_code == 302 and "/accounts/login/" in response["Location"]
        else:
            # The site's refusal page, not a bare status.
            assert response.status_code == 403
            assert 'data-testid="refusal"' in response.content.decode()
    # A name that is no picture of this session (a portrait's, another session's): 404 page.
    missing = client_for(table.alice).get(
        reverse("diary:picture_file", args=[table.session.pk, "0" * 32 + ".webp"])
    )
    assert missing.status_code == 404 and "<html" in missing.content.decode()


def test_a_hidden_posts_pictures_are_for_moderators_only(table, client_for, media_root):
    picture = gm_map(table, client_for)
    diary_services.post_hide(post=picture.post, by=table.gm, reason="Za wcześnie")
    player = client_for(table.alice)
    assert player.get(file_url(picture)).status_code == 404
    page = player.get(reverse("diary:session", args=[table.session.pk])).content.decode()
    assert picture.thumb_file not in page and picture.image_file not in page
    gallery = player.get(reverse("diary:gallery", args=[table.session.pk])).content.decode()
    assert picture.thumb_file not in gallery
    moderator = client_for(table.moderator)
    assert moderator.get(file_url(picture)).status_code == 200


def test_the_posts_cached_body_changes_with_its_pictures(table, client_for, media_root):
    picture = gm_map(table, client_for)
    post = with_pictures(Post.objects.filter(pk=picture.post_id).for_diary()).get()
    shown = post_body_html(post, gm_id=table.gm.pk, can_see_content=True)
    assert 'alt="Mapa Czarnego Brodu"' in shown
    # Only the pictures differ (the alt text here): the cache must not answer the old body.
    PostPicture.objects.filter(pk=picture.pk).update(alt="Mapa lochów")
    post = with_pictures(Post.objects.filter(pk=picture.post_id).for_diary()).get()
    again = post_body_html(post, gm_id=table.gm.pk, can_see_content=True)
    assert 'alt="Mapa lochów"' in again


def edit(client, post, **data):
    data.setdefault("narration", post.narration)
    return client.post(reverse("diary:post_edit", args=[post.pk]), data)


def test_the_author_adds_and_removes_pictures_while_the_turn_is_open(
    table, client_for, media_root, django_capture_on_commit_callbacks
):
    picture = gm_map(table, client_for)
    gm = client_for(table.gm)
    form = gm.get(reverse("diary:post_edit", args=[picture.post_id])).content.decode()
    assert 'name="remove_pictures"' in form and 'name="picture_3"' in form
    assert 'name="picture_4"' not in form  # four at most, one is there
    with django_capture_on_commit_callbacks(execute=True):
        response = edit(
            gm,
            picture.post,
            remove_pictures=[picture.pk],
            picture_1=file(image_bytes((500, 500), colour=(200, 10, 10)), "plan.png"),
            alt_1="Plan karczmy",
        )
    assert response.status_code == 302
    assert list(PostPicture.objects.values_list("alt", flat=True)) == ["Plan karczmy"]
    kept = PostPicture.objects.get()
    assert stored_files(media_root) == sorted(
        name.removeprefix("pictures/") for name in (kept.image, kept.thumb)
    )
    # Another player cannot remove it: the post is not theirs to edit.
    response = edit(client_for(table.alice), kept.post, remove_pictures=[kept.pk])
    assert response.status_code == 403 and PostPicture.objects.count() == 1
    # Once the turn is closed, the player's own post (and its pictures) stays as it was.
    player = client_for(table.alice)
    write(
        player,
        table.session,
        character=table.lirael.pk,
        pictures=[(image_bytes((300, 300)), "szkic.png", "Szkic Lirael")],
    )
    sketch = PostPicture.objects.get(alt="Szkic Lirael")
    diary_services.turn_open_next(session=table.session, by=table.gm)
    response = edit(player, sketch.post, remove_pictures=[sketch.pk])
    assert response.status_code == 403 and PostPicture.objects.filter(pk=sketch.pk).exists()


def test_only_who_runs_the_session_pins_a_picture_in_the_gallery(table, client_for, media_root):
    picture = gm_map(table, client_for)
    gallery_url = reverse("diary:gallery", args=[table.session.pk])
    pin_url = reverse("diary:picture_pin", args=[table.session.pk, picture.pk])
    player = client_for(table.alice)
    refused = player.post(pin_url, {"pinned": "on"})
    assert refused.status_code == 403 and 'data-testid="refusal"' in refused.content.decode()
    assert PostPicture.objects.get().pinned_at is None
    assert 'data-testid="gallery-no-pinned"' in player.get(gallery_url).content.decode()
    assert "picture-pin-" not in player.get(gallery_url).content.decode()
    gm = client_for(table.gm)
    assert f'data-testid="picture-pin-{picture.pk}"' in gm.get(gallery_url).content.decode()
    assert gm.post(pin_url, {"pinned": "on"}).status_code == 302
    assert PostPicture.objects.get().pinned_at is not None
    page = player.get(gallery_url).content.decode()
    pinned = page.split('data-testid="gallery-pinned"')[1].split("</ul>")[0]
    assert picture.thumb_file in pinned and "Mapa Czarnego Brodu" in pinned
    assert gm.post(pin_url, {"pinned": "off"}).status_code == 302
    assert PostPicture.objects.get().pinned_at is None
    # The diary's side links to the gallery.
    diary = player.get(reverse("diary:session", args=[table.session.pk])).content.decode()
    assert f'href="{gallery_url}" data-testid="gallery-link"' in diary


def test_the_archive_carries_the_pictures_as_files_linked_from_its_diary(
    table, client_for, media_root
):
    picture = gm_map(table, client_for)
    hidden = gm_map(table, client_for, alt="Tajny plan", colour=(150, 20, 20))
    diary_services.post_hide(post=hidden.post, by=table.gm, reason="")

    def archive(user) -> zipfile.ZipFile:
        return zipfile.ZipFile(io.BytesIO(session_archive(user, table.session)))

    player_zip = archive(table.alice)
    names = set(player_zip.namelist())
    assert {f"pictures/{picture.image_file}", f"pictures/{picture.thumb_file}"} <= names
    assert (
        player_zip.read(f"pictures/{picture.image_file}")
        == (media_root / picture.image).read_bytes()
    )
    diary = player_zip.read("index.html").decode()
    assert (
        f'<a href="pictures/{picture.image_file}"><img src="pictures/{picture.thumb_file}"' in diary
    )
    # The hidden post's picture follows the hidden post: not in a player's archive.
    assert f"pictures/{hidden.image_file}" not in names and "Tajny plan" not in diary
    moderator_zip = archive(table.moderator)
    assert f"pictures/{hidden.image_file}" in moderator_zip.namelist()
    json.loads(player_zip.read("ledger.json"))  # the rest of the archive is intact
