"""A player's post costs few queries, the first and the next alike: the rate limiter is one
statement a key (config/rate_limits.py), and the post's write path reads what it needs once."""

import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from diary.models import Post
from diary.services import post_create

pytestmark = pytest.mark.django_db

# The login session and the user, the limiter's two counters (the player and the address),
# the session with the viewer's place in it, the post's write (the turn, the token, the row,
# the session's marker), the readers' notifications, and the savepoints around them.
POST_MAX = 15


def _post(client, table, text):
    with CaptureQueriesContext(connection) as queries:
        response = client.post(
            reverse("diary:post_create", args=[table.session.pk]),
            {
                "character": table.lirael.pk,
                "narration": text,
                "nc_note": "",
                "token": uuid.uuid4(),
            },
            REMOTE_ADDR="10.0.0.1",
        )
    assert response.status_code == 302, response.content.decode()[:2000]
    return [query["sql"] for query in queries.captured_queries]


def test_a_players_post_and_the_next_are_few_queries(table, client_for):
    # The table has been writing: the GM and the other player hear of each new post.
    post_create(session=table.session, author=table.gm, character=None, narration="Noc.", nc_note="")
    post_create(
        session=table.session, author=table.bob, character=table.borys, narration="Hm.", nc_note=""
    )
    alice = client_for(table.alice)
    first = _post(alice, table, "Lirael rozgląda się po izbie.")
    following = _post(alice, table, "Lirael siada przy ogniu.")
    assert Post.objects.filter(session=table.session, author=table.alice).count() == 2
    print(len(first), len(following)); print("\n".join(q[:150] for q in first)); print("-----"); print("\n".join(q[:150] for q in following))
    assert len(first) <= POST_MAX, "\n".join(first)
    assert len(following) <= POST_MAX, "\n".join(following)
