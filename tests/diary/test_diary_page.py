"""The diary page: keyset pages grouped by turn, in a fixed number of queries."""

import pytest
from django.urls import reverse

from diary.models import DIARY_PAGE_SIZE
from diary.selectors import diary_page
from diary.services import post_create, turn_open_next

pytestmark = pytest.mark.django_db


def fill(table, count: int, per_turn: int = 7):
    for n in range(count):
        if n and n % per_turn == 0:
            turn_open_next(session=table.session, by=table.gm)
        author, character = [(table.alice, table.lirael), (table.bob, table.borys)][n % 2]
        post_create(
            session=table.session,
            author=author,
            character=character,
            narration=f"Wpis {n}",
            nc_note="",
        )


def test_newest_page_first_then_older_by_keyset(table):
    fill(table, 45)
    newest = diary_page(table.session)
    assert [p.narration for p in newest.posts] == [f"Wpis {n}" for n in range(25, 45)]
    assert newest.newer_cursor is None and newest.older_cursor == newest.posts[0].pk

    older = diary_page(table.session, before=newest.older_cursor)
    assert [p.narration for p in older.posts] == [f"Wpis {n}" for n in range(5, 25)]
    oldest = diary_page(table.session, before=older.older_cursor)
    assert [p.narration for p in oldest.posts] == [f"Wpis {n}" for n in range(5)]
    assert oldest.older_cursor is None and oldest.newer_cursor == oldest.posts[-1].pk

    forward = diary_page(table.session, after=oldest.newer_cursor)
    assert [p.narration for p in forward.posts] == [f"Wpis {n}" for n in range(5, 25)]


def test_posts_are_grouped_by_turn(table):
    fill(table, 10, per_turn=4)
    groups = diary_page(table.session).turns
    assert [(turn.number, len(posts)) for turn, posts in groups] == [(1, 4), (2, 4), (3, 2)]


def test_keyset_uses_no_offset(table, django_assert_max_num_queries, settings):
    fill(table, 3)
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        diary_page(table.session, before=10**6)
    assert not any("OFFSET" in q["sql"].upper() for q in queries.captured_queries)


def test_query_count_does_not_grow_with_the_session(table, client_for):
    client = client_for(table.gm)
    url = reverse("diary:session", args=[table.session.pk])
    client.get(url)  # warm caches (content types, translations)
    fill(table, 3)
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    # Both measured right after a change, when the diary's cache misses (the dearest view).
    with CaptureQueriesContext(connection) as small:
        assert client.get(url).status_code == 200
    fill(table, 60)
    with CaptureQueriesContext(connection) as large:
        response = client.get(url)
    assert len(response.context["page"].posts) == DIARY_PAGE_SIZE
    # Flat, or one less: a reader now behind by more than a page does not move the mark
    # past posts the newest page skipped (diary/reading.page_continues_reading).
    assert len(small.captured_queries) - 1 <= len(large.captured_queries)
    assert len(large.captured_queries) <= len(small.captured_queries)


@pytest.mark.parametrize(
    "query",
    [
        "?before=abc",
        "?after=-1",
        "?before=-5",
        "?before=99999999999999999999999",
        "?after=1e9",
        "?before=²",
        "?after=①",
        "?after=%EF%BC%91",  # a full-width digit one
        "?before=",
    ],
)
def test_bad_cursors_are_ignored_not_errors(table, client_for, query):
    """A cursor that is not plain digits is as if it were absent: the newest page, live."""
    fill(table, DIARY_PAGE_SIZE + 5)  # the newest page and the oldest differ
    client = client_for(table.alice)
    url = reverse("diary:session", args=[table.session.pk])
    newest = client.get(url).context
    response = client.get(url + query)
    assert response.status_code == 200
    shown = [post.pk for post in response.context["page"].posts]
    assert shown == [post.pk for post in newest["page"].posts]
    assert response.context["page"].posts[0].narration == "Wpis 5"
    assert response.context["live"] is True


def test_open_diaries_refresh_only_when_something_changed(table, client_for):
    client = client_for(table.bob)
    live = reverse("diary:session_live", args=[table.session.pk])
    table.session.refresh_from_db()
    seen = table.session.activity_marker
    assert client.get(live, {"seen": seen}).status_code == 204
    post_create(
        session=table.session, author=table.alice, character=None, narration="Nowość", nc_note=""
    )
    response = client.get(live, {"seen": seen})
    assert response.status_code == 200
    body = response.content.decode()
    assert "Nowość" in body and 'id="diary-posts"' in body
    table.session.refresh_from_db()
    assert table.session.activity_marker != seen
    assert f"seen={table.session.activity_marker}" in body


def test_live_refresh_is_for_readers_only(table, client_for):
    live = reverse("diary:session_live", args=[table.session.pk])
    # The outsider sees the running session's card, not its diary (the access table): 403.
    assert client_for(table.outsider).get(live, {"seen": "0"}).status_code == 403
