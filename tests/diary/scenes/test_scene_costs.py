"""What scenes cost the diary page: nothing for a session that never splits (its row says
so), the scenes once per activity marker for one that does, and a page of one scene two
reads more for a reader with a mark (its first unread post, and another scene's)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from diary.live import page_cache
from diary.models import Post
from diary.reading import read_mark_advance
from tests.diary.scenes.helpers import split, write
from tests.diary.test_page_costs import PAGE_AFTER_CHANGE_MAX, PAGE_MAX

pytestmark = pytest.mark.django_db


def _counts(client, url, **query) -> tuple[int, int, list[str]]:
    """(queries of the view right after a change, of the next view, every statement)."""
    page_cache.clear()
    with CaptureQueriesContext(connection) as queries:
        first = client.get(url, query)
    after_change = [q["sql"] for q in queries.captured_queries]
    with CaptureQueriesContext(connection) as queries:
        again = client.get(url, query)
    assert first.status_code == again.status_code == 200
    cached = [q["sql"] for q in queries.captured_queries]
    return len(after_change), len(cached), after_change + cached


def _reads_scenes(statements) -> bool:
    return any(sql.startswith('SELECT "diary_scene".') for sql in statements)


def _table_played(table):
    for n in range(3):
        write(table, table.gm, None, f"Narracja {n}.")
        write(table, table.alice, table.lirael, f"Lirael {n}.")
        write(table, table.bob, table.borys, f"Borys {n}.")
    newest = Post.objects.filter(session=table.session).latest("pk").pk
    for user in (table.alice, table.gm):
        read_mark_advance(user=user, session_id=table.session.pk, post_id=newest)


def test_a_session_that_never_splits_reads_nothing_of_scenes(table, client_for):
    _table_played(table)
    url = reverse("diary:session", args=[table.session.pk])
    for user in (table.alice, table.gm):
        client = client_for(user)
        client.get(url)  # warm up
        after_change, cached, statements = _counts(client, url)
        assert after_change <= PAGE_AFTER_CHANGE_MAX and cached <= PAGE_MAX, (after_change, cached)
        assert not _reads_scenes(statements)


def test_a_split_session_costs_the_scenes_once_per_change(table, client_for):
    split(table)
    _table_played(table)
    url = reverse("diary:session", args=[table.session.pk])
    for user in (table.alice, table.gm):
        client = client_for(user)
        client.get(url)
        after_change, cached, statements = _counts(client, url)
        assert _reads_scenes(statements)
        assert after_change <= PAGE_AFTER_CHANGE_MAX + 1 and cached <= PAGE_MAX, (
            after_change,
            cached,
        )
        # One scene's page: its first unread post and another scene's, no more.
        after_change, cached = _counts(client, url, scena="0")[:2]
        assert after_change <= PAGE_AFTER_CHANGE_MAX + 3 and cached <= PAGE_MAX + 2, (
            after_change,
            cached,
        )
