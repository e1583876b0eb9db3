"""Issue 10 on PostgreSQL's row locks: concurrent case rolls chain one after the other, and
identical posts of one form make one roll."""

import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection, connections
from django.test import Client

from rolls.access import sign_token
from rolls.cases import Case
from rolls.ledger import verify_session
from rolls.models import Roll
from rolls.services import roll_make_case

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]


def _in_thread(work):
    def run(*args):
        try:
            return work(*args)
        finally:
            connections.close_all()

    return run


def test_two_concurrent_case_rolls_chain_one_after_the_other(q10):
    assert connection.vendor == "postgresql"
    start = threading.Barrier(2)

    @_in_thread
    def roll(character_id):
        case = Case(
            system="q10",
            mode="pool",
            test="pool",
            input={"attribute": 3, "skill": 2, "difficulty": 15, "raises": 0},
            character_id=character_id,
            what="Siła + Atletyka",
        )
        start.wait()
        made = roll_make_case(session=q10.session, by=q10.gm, case=case, token=uuid.uuid4())
        return made.roll.seq

    with ThreadPoolExecutor(max_workers=2) as pool:
        seqs = sorted(pool.map(roll, [q10.eryk.pk, q10.runa.pk]))

    assert seqs == [1, 2]
    rows = list(Roll.objects.filter(session=q10.session).order_by("seq"))
    assert rows[1].prev_hash == rows[0].hash
    assert verify_session(q10.session.pk).ok


def test_eight_concurrent_identical_posts_make_exactly_one_case_roll(q10):
    data = {
        "token": sign_token(q10.gm, q10.session, uuid.uuid4()),
        "mode": "pool",
        "character": q10.eryk.pk,
        "attribute": q10.sila.pk,
        "skill": q10.atletyka.pk,
        "difficulty": "15",
        "raises": "1",
    }
    url = f"/sessions/{q10.session.pk}/rolls/panel/"
    start = threading.Barrier(8)

    @_in_thread
    def post(_):
        client = Client()
        client.force_login(q10.gm)
        start.wait()
        response = client.post(url, data)
        return response.status_code, response.get("Location")

    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(post, range(8)))

    assert Roll.objects.count() == 1
    assert set(answers) == {(302, answers[0][1])}
    assert verify_session(q10.session.pk).ok
