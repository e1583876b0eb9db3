"""A player's post costs few queries, the first and the next alike: the rate limiter is one
statement for both its keys (config/rate_limits.py), the write reads the session, its turn and
the author's place once, and the readers' notices are one query and one insert."""

import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from config import rate_limits
from diary.models import Notification, NotificationKind, Post
from diary.services import post_create

pytestmark = pytest.mark.django_db

# The login session and the user; the limiter; the session (with its turn) and the player's
# place in it for the form; under the session's lock (a savepoint in a test) the session and
# the author's participations again, the post, its draft's deletion, its first revision, the
# session's marker; who hears of it (one query) and their notices (one insert). Before the
# limiter was one statement and these reads were shared, the first post cost 36 and the next 56.
POST_MAX = 16


def _post(client, table, text) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        response = client.post(
            reverse("diary:post_create", args=[table.session.pk]),
            {"character": table.lirael.pk, "narration": text, "nc_note": "", "token": uuid.uuid4()},
            REMOTE_ADDR="10.0.0.1",
        )
    assert response.status_code == 302, response.content.decode()[:2000]
    post = Post.objects.latest("pk")
    assert response["Location"].endswith(f"#post-{post.pk}")
    return [query["sql"] for query in queries.captured_queries]


def test_a_players_post_and_the_next_are_few_queries(table, client_for):
    # The table has been writing: the GM and the other player hear of each new post.
    post_create(
        session=table.session, author=table.gm, character=None, narration="Noc.", nc_note=""
    )
    post_create(
        session=table.session, author=table.bob, character=table.borys, narration="Hm.", nc_note=""
    )
    alice = client_for(table.alice)
    first = _post(alice, table, "Lirael rozgląda się po izbie.")
    following = _post(alice, table, "Lirael siada przy ogniu.")

    mine = Post.objects.filter(session=table.session, author=table.alice)
    assert list(mine.values_list("narration", flat=True)) == [
        "Lirael rozgląda się po izbie.",
        "Lirael siada przy ogniu.",
    ]
    told = Notification.objects.filter(post__in=mine, kind=NotificationKind.REPLY)
    assert sorted(told.values_list("recipient__username", flat=True)) == [
        "bartek",
        "bartek",
        "mg",
        "mg",
    ]
    assert rate_limits.hits(f"post.user:{table.alice.pk}") == 2
    assert len(first) <= POST_MAX, "\n".join(first)
    assert len(following) <= POST_MAX, "\n".join(following)
