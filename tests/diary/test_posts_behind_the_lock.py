"""A post or an NPC's change that waits for its session's row lock while the GM opens the next
turn sees that turn: the statement that waited re-reads only the session's row, so the turn
joined to it is the one from before the wait (GameSession.reread_stale_turn)."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import transaction

from diary import access
from diary.models import GameSession, Post
from diary.services import post_create, turn_open_next
from tests.rolls.concurrency import in_thread, waiting_for_a_lock

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]


def _while_the_gm_opens_a_turn(table, waiting_work):
    """Runs `waiting_work()` in a transaction of its own that queues behind the GM's, which
    opens the next turn once the work waits. Returns (the new turn, the work's result)."""
    holding, queued = threading.Event(), threading.Event()

    @in_thread
    def gm():
        with transaction.atomic():
            GameSession.objects.select_for_update().get(pk=table.session.pk)
            holding.set()
            assert queued.wait(timeout=30)
            return turn_open_next(session=table.session, by=table.gm)

    @in_thread
    def work():
        with transaction.atomic():
            return waiting_work()

    with ThreadPoolExecutor(max_workers=2) as pool:
        opened = pool.submit(gm)
        assert holding.wait(timeout=20)
        waited = pool.submit(work)
        waiting_for_a_lock()
        assert not waited.done()
        queued.set()
        return opened.result(timeout=30), waited.result(timeout=30)


def test_a_post_waiting_on_the_lock_lands_in_the_turn_opened_meanwhile(table):
    turn, post = _while_the_gm_opens_a_turn(
        table,
        lambda: post_create(
            session=table.session,
            author=table.alice,
            character=table.lirael,
            narration="Lirael wchodzi w mgłę.",
            nc_note="",
        ),
    )
    assert turn.number == 2
    assert Post.objects.get(pk=post.pk).turn_id == turn.pk


def test_a_locked_session_read_waiting_on_the_lock_has_the_turn_opened_meanwhile(table):
    turn, session_access = _while_the_gm_opens_a_turn(
        table, lambda: access.access_session(table.gm, table.session.pk, lock=True)
    )
    assert session_access.session.current_turn == turn
