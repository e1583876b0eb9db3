"""No input produces a 500: every form and URL of the site, fed garbage."""

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
        "narration": "\ud800" if False else "\u202e",
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


def test_unknown_ids_are_404_not_500(client_for, make_user):
    client = client_for(make_user())
    for url in ["/characters/99999/", "/sessions/99999/", "/sessions/posts/99999/history/"]:
        assert client.get(url).status_code == 404
