"""The session's head on its row (chain_seq, chain_hash, current_turn).

Every chain writer moves it in the UPDATE that follows its INSERT, so it always equals the
last roll: after the panel's rolls, a case system's, the GM's diary entries, new turns,
concurrent appends (PostgreSQL, threads), and the migration's backfill of existing rows. A
writer holding a stale row is refused with nothing stored.
"""

import importlib
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.apps import apps
from django.db import IntegrityError, connections, transaction

from characters.models import Attribute
from diary import models as diary_models
from diary.models import GameSession, Turn
from diary.services import turn_open_next
from rolls.ledger import verify as ledger
from rolls.ledger.chain_writer import ChainHeadMoved, chain_append
from rolls.ledger.verify import verify_session
from rolls.models import Roll
from rolls.systems.forum1000.requests import RollRequest, SideRequest
from tests.rolling import make_roll
from tests.rolls.entries.test_entries import entries_url, hp
from tests.rolls.test_append_costs import forum1000_roll, pool, roll_post

pytestmark = pytest.mark.django_db


def head_of(session_pk: int) -> tuple:
    session = GameSession.objects.get(pk=session_pk)
    return session.chain_seq, session.chain_hash, session.current_turn_id


def last_of(session_pk: int) -> tuple:
    """The head as the rows give it: the last roll, the last turn."""
    roll = Roll.objects.filter(session_id=session_pk).order_by("-seq").first()
    turn = Turn.objects.filter(session_id=session_pk).order_by("-number").first()
    return (
        roll.seq if roll else 0,
        roll.hash if roll else ledger.GENESIS_HASH,
        turn.pk if turn else None,
    )


def attribute_roll(character, **extra) -> RollRequest:
    percepcja = Attribute.objects.get(system="forum1000", name="Percepcja").pk
    side = SideRequest(character_id=character.pk, test="attribute", attribute_ids=(percepcja,))
    return RollRequest(kind="attribute", a=side, **extra)


def test_the_diary_and_the_ledger_start_the_chain_alike():
    assert diary_models.GENESIS_HASH == ledger.GENESIS_HASH


def test_the_head_follows_rolls_case_rolls_entries_and_turns(table, q10, client_for):
    session = table.session
    assert head_of(session.pk) == last_of(session.pk)
    assert head_of(session.pk)[:2] == (0, ledger.GENESIS_HASH)
    gm = client_for(table.gm)
    assert roll_post(gm, table.gm, session, forum1000_roll(table, table.lirael)).status_code == 302
    assert head_of(session.pk) == last_of(session.pk)
    assert gm.post(entries_url(table), hp(table, table.borys, 5)).status_code == 302
    assert head_of(session.pk) == last_of(session.pk)
    turn_open_next(session=session, by=table.gm)
    assert head_of(session.pk) == last_of(session.pk)
    assert head_of(session.pk)[0] == 2
    assert roll_post(client_for(q10.gm), q10.gm, q10.session, pool(q10)).status_code == 302
    assert head_of(q10.session.pk) == last_of(q10.session.pk)
    assert head_of(q10.session.pk)[0] == 1


def test_a_writer_with_a_stale_row_stores_nothing(table):
    """A writer that did not lock reads a head that is not the row's: refused, rolled back."""
    make_roll(table.session, table.gm, attribute_roll(table.lirael))
    stale = GameSession.objects.select_related("current_turn").get(pk=table.session.pk)
    post = Roll.objects.get().post
    for seq, error in [(0, IntegrityError), (5, ChainHeadMoved)]:
        stale.chain_seq = seq  # behind the row (seq 1 is taken) or ahead of it
        with pytest.raises(error), transaction.atomic():
            chain_append(
                stale,
                table.gm,
                post=post,
                turn_number=1,
                character_id=None,
                test="hp",
                is_action=False,
                token=uuid.uuid4(),
                digest="x",
                body=lambda _seq: {"kind": "hp"},
                announce=None,
            )
    assert Roll.objects.count() == 1
    assert head_of(table.session.pk) == last_of(table.session.pk)
    assert verify_session(table.session.pk).ok


def test_the_migration_backfills_the_head_from_the_rolls_and_turns(table, make_session):
    other = make_session(table.gm, [])  # no rolls: the head stays at the chain's start
    for _ in range(3):
        make_roll(
            table.session,
            table.gm,
            attribute_roll(table.lirael),
            extra_action_reason="Kolejna próba",
        )
    turn_open_next(session=table.session, by=table.gm)
    expected = {pk: last_of(pk) for pk in (table.session.pk, other.pk)}
    GameSession.objects.update(chain_seq=0, chain_hash=ledger.GENESIS_HASH, current_turn=None)
    migration = importlib.import_module("diary.migrations.0009_session_head")
    migration.backfill(apps, None)
    assert {pk: head_of(pk) for pk in expected} == expected
    assert expected[table.session.pk][0] == 3 and expected[other.pk][0] == 0


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_the_head_equals_the_last_roll_after_concurrent_appends(
    table, make_session, make_character
):
    """Eight threads append to two sessions at once: every roll stored once, each chain
    unbroken, and each session's head exactly its last roll."""
    bronislaw = make_character(table.bob, "Bronisław")
    other = make_session(table.gm, [bronislaw])
    sessions = [table.session, other]
    start = threading.Barrier(8)

    def append(worker: int):
        try:
            start.wait()
            session = sessions[worker % 2]
            character = table.lirael if session is table.session else bronislaw
            for _ in range(6):
                make_roll(session, table.gm, attribute_roll(character), extra_action_reason="Seria")
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(append, range(8)))
    for session in sessions:
        assert Roll.objects.filter(session=session).count() == 24
        assert head_of(session.pk) == last_of(session.pk)
        assert head_of(session.pk)[0] == 24
        assert verify_session(session.pk).ok
