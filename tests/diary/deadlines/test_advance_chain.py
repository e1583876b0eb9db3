"""A turn the site opens goes into the roll chain exactly as the GM's turn change does: the
closed turn's dice seed revealed, the new turn's committed, by the GM; the chain verifies
with every die recomputed. And two runs at once open one turn (PostgreSQL: the session's
row lock)."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import transaction

from diary.models import DeadlineRule, GameSession, Turn
from diary.services import turn_open_due, turn_open_next
from rolls.ledger.verify import verify_session
from rolls.models import Roll
from tests.diary.deadlines.helpers import deadline_passes, set_rule, write
from tests.rolling import make_roll
from tests.rolls.concurrency import in_thread, waiting_for_a_lock
from tests.rolls.ledger.test_ledger import percepcja_request

CLIENT_SEED = "c0ffee" * 6


def _chain(session) -> list[tuple]:
    """What each chain row is, leaving out what differs between sessions (ids, hashes,
    seeds): its kind, turn, post, roller and the record's keys."""
    return [
        (
            r.test,
            r.turn_number,
            r.post_id is None,
            r.rolled_by_id == session.gm_id,
            sorted(r.record),
        )
        for r in Roll.objects.filter(session=session).order_by("seq")
    ]


def _play_a_turn(table):
    """A roll in turn 1, Lirael posts, Borys does not; the deadline passes."""
    set_rule(table, DeadlineRule.PASS, auto=True)
    make_roll(table.session, table.gm, percepcja_request(table.lirael), client_seed=CLIENT_SEED)
    write(table, table.alice, table.lirael)
    deadline_passes(table)


@pytest.mark.django_db
@pytest.mark.fair_dice
def test_the_sites_turn_is_chained_as_the_gms(table, make_user, make_character, make_session):
    _play_a_turn(table)
    assert turn_open_due(session_id=table.session.pk) is not None
    by_site = _chain(table.session)

    class Other:
        pass

    other = Other()
    other.gm, other.alice, other.bob = make_user(), make_user(), make_user()
    other.lirael = make_character(other.alice, "Lirael")
    other.borys = make_character(other.bob, "Borys")
    other.session = make_session(other.gm, [other.lirael, other.borys])
    _play_a_turn(other)
    turn_open_next(session=other.session, by=other.gm)
    assert by_site == _chain(other.session)
    assert [row[0] for row in by_site][-2:] == ["dice_reveal", "dice_commit"]
    for session in (table.session, other.session):
        report = verify_session(session.pk, recompute=True)
        assert report.ok, report.problem_label
        assert (report.dice_recomputed, report.dice_awaiting) == (1, 0)


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_two_runs_at_once_open_one_turn(table):
    _play_a_turn(table)
    holding, queued = threading.Event(), threading.Event()

    @in_thread
    def first():
        with transaction.atomic():
            GameSession.objects.select_for_update().get(pk=table.session.pk)
            holding.set()
            assert queued.wait(timeout=30)
            return turn_open_due(session_id=table.session.pk)

    @in_thread
    def second():
        return turn_open_due(session_id=table.session.pk)

    with ThreadPoolExecutor(max_workers=2) as pool:
        opened = pool.submit(first)
        assert holding.wait(timeout=20)
        waited = pool.submit(second)
        waiting_for_a_lock()
        assert not waited.done()
        queued.set()
        results = [opened.result(timeout=30), waited.result(timeout=30)]
    assert [turn.number for turn in results if turn is not None] == [2]
    assert Turn.objects.filter(session=table.session).count() == 2
    assert verify_session(table.session.pk).ok
