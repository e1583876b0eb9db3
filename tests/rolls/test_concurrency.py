"""Concurrent requests against PostgreSQL's row locks: no double roll, no cross-session waits."""

import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection, transaction
from django.test import Client

from characters.models import Attribute
from diary.models import GameSession
from rolls.access import sign_token
from rolls.ledger.verify import verify_session
from rolls.models import Roll
from rolls.systems.forum1000.requests import RollRequest, SideRequest
from tests.rolling import make_roll
from tests.rolls.concurrency import in_thread, post_at_once

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]


def test_eight_concurrent_identical_posts_make_exactly_one_roll(table):
    assert connection.vendor == "postgresql"
    percepcja = Attribute.objects.get(system="forum1000", name="Percepcja").pk
    data = {
        # The panel's tokens are issued to their user (rolls.access).
        "token": sign_token(table.gm, table.session, uuid.uuid4()),
        "mode": "attribute",
        "a-character": table.lirael.pk,
        "a-attribute": percepcja,
        "a-action_value": "0",
        "a-gm_difficulty": "0",
        "a-gm_bonus": "0",
    }
    answers = post_at_once(table.gm, f"/sessions/{table.session.pk}/rolls/panel/", data)

    assert Roll.objects.count() == 1
    # Every request got the same answer: the one roll's place in the diary.
    assert set(answers) == {(302, answers[0][1])}
    assert answers[0][1].endswith("#roll-1")
    assert verify_session(table.session.pk).ok


def test_a_locked_session_does_not_hold_up_another_sessions_rolls(
    table, make_session, make_character
):
    bronislaw = make_character(table.bob, "Bronisław")
    other = make_session(table.gm, [bronislaw])
    percepcja = Attribute.objects.get(system="forum1000", name="Percepcja").pk
    holding, release = threading.Event(), threading.Event()

    @in_thread
    def hold_first_session():
        with transaction.atomic():
            GameSession.objects.select_for_update().get(pk=table.session.pk)
            holding.set()
            release.wait(timeout=30)

    @in_thread
    def roll_in_other_session():
        request = RollRequest(
            kind="attribute",
            a=SideRequest(character_id=bronislaw.pk, test="attribute", attribute_ids=(percepcja,)),
        )
        started = time.monotonic()
        make_roll(other, table.gm, request)
        return time.monotonic() - started

    with ThreadPoolExecutor(max_workers=2) as pool:
        holder = pool.submit(hold_first_session)
        assert holding.wait(timeout=10)
        elapsed = pool.submit(roll_in_other_session).result(timeout=20)
        # Still holding the first session's lock while the other session's roll finished.
        assert not holder.done()
        release.set()
        holder.result(timeout=10)
    assert Roll.objects.filter(session=other).count() == 1
    assert elapsed < 10


def test_two_concurrent_uses_of_the_last_potion_make_one_entry(table):
    """The session's row lock serialises item uses; the second finds none left."""
    from tests.diary_entries import grant_entry

    potion = grant_entry(table.session, table.gm, table.borys, 1, "+10 PŻ")
    url = f"/sessions/{table.session.pk}/items/use/"
    start = threading.Barrier(2)

    @in_thread
    def use(_):
        client = Client()
        client.force_login(table.bob)
        data = {"token": sign_token(table.bob, table.session, uuid.uuid4()), "potion": potion.pk}
        start.wait()
        return client.post(url, data).status_code

    with ThreadPoolExecutor(max_workers=2) as pool:
        answers = sorted(pool.map(use, range(2)))

    assert answers == [302, 400]
    assert Roll.objects.filter(test="item_use").count() == 1
    potion.refresh_from_db()
    assert potion.count == 0
    assert verify_session(table.session.pk).ok
