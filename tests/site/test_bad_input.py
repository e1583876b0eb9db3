"""No input produces a 500: every form and URL of the site, fed garbage."""

import uuid

import pytest
from django.urls import reverse

from diary.services import post_create

pytestmark = pytest.mark.django_db

GARBAGE = [
    {},
    {"x": "y"},
    {"title": "A" * 5000, "name": "\x00", "status": "💥", "character": "abc"},
    {
        "character": "999999999999999999999",
        "narration": "\u202e",  # right-to-left override
        "count": "-1",
    },
    {"hp_current": "1e99", "kind": "plague", "description": "", "reason": "r" * 1000},
]


def all_post_urls(table, post, effect_pk=1, potion_pk=1):
    s, c = table.session.pk, table.borys.pk
    return [
        reverse("signup"),
        reverse("login"),
        reverse("password_change"),
        reverse("characters:create"),
        reverse("characters:edit", args=[c]),
        reverse("characters:hp", args=[c]),
        reverse("characters:effect_add", args=[c]),
        reverse("characters:effect_free", args=[c, effect_pk]),
        reverse("characters:potion_grant", args=[c]),
        reverse("characters:potion_use", args=[c, potion_pk]),
        reverse("diary:session_create"),
        reverse("diary:session_edit", args=[s]),
        reverse("diary:session_status", args=[s]),
        reverse("diary:participants", args=[s]),
        reverse("diary:session_join", args=[s]),
        reverse("diary:turn_open", args=[s]),
        reverse("diary:post_create", args=[s]),
        reverse("diary:participation_accept", args=[1]),
        reverse("diary:participation_decline", args=[1]),
        reverse("diary:participation_withdraw", args=[1]),
        reverse("diary:post_edit", args=[post.pk]),
        reverse("diary:post_hide", args=[post.pk]),
        reverse("rolls:entries", args=[s]),
        reverse("rolls:item_use", args=[s]),
    ]


@pytest.mark.parametrize("who", ["gm", "bob", "outsider", "moderator"])
def test_garbage_posts_never_raise_server_errors(table, client_for, who):
    post = post_create(
        session=table.session, author=table.bob, character=None, narration="x", nc_note=""
    )
    client = client_for(getattr(table, who))
    for url in all_post_urls(table, post):
        for data in GARBAGE:
            response = client.post(url, data)
            assert response.status_code < 500, (url, data)


# What a browser or a script can send but a str cannot hold: a lone surrogate (UTF-8 as
# CESU writes it), bytes that are no UTF-8 at all, NUL (PostgreSQL refuses it in text).
RAW_GARBAGE = [
    b"narration=%ED%A0%80&nc_note=%ED%B0%80&title=%ED%A0%80&name=%ED%A0%80&reason=%ED%A0%80",
    b"narration=%FF%FE%C0%AF&description=%C3%28&title=%80&name=%F0%28%8C%28&comment=%FF",
    b"narration=a%00b&nc_note=%00&title=%00&name=%00&description=%00&reason=%00&effect=%00",
]


@pytest.mark.parametrize("who", ["gm", "bob"])
def test_undecodable_bytes_never_raise_server_errors(table, client_for, who):
    post = post_create(
        session=table.session, author=table.bob, character=None, narration="x", nc_note=""
    )
    client = client_for(getattr(table, who))
    for url in all_post_urls(table, post):
        for body in RAW_GARBAGE:
            response = client.post(url, body, content_type="application/x-www-form-urlencoded")
            assert response.status_code < 500, (url, body)


def test_a_lone_surrogate_reaches_a_post_as_replacement_characters(table, client_for):
    """The bytes are decoded, not dropped: the form sees (and stores) U+FFFD."""
    from diary.models import Post

    response = client_for(table.bob).post(
        reverse("diary:post_create", args=[table.session.pk]),
        b"narration=Borys%ED%A0%80&nc_note=&token=" + str(uuid.uuid4()).encode(),
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 302
    assert Post.objects.get(narration__startswith="Borys").narration == "Borys\ufffd\ufffd\ufffd"


def test_unknown_ids_are_404_not_500(client_for, make_user):
    client = client_for(make_user())
    for url in ["/characters/99999/", "/sessions/99999/", "/sessions/posts/99999/history/"]:
        assert client.get(url).status_code == 404
