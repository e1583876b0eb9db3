"""Case-system rolls on PostgreSQL's row locks: concurrent rolls chain one after the other,
and identical posts of one form make one roll."""

import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from rolls.access import sign_token
from rolls.ledger.verify import verify_session
from rolls.models import Roll
from rolls.plugins import Case
from rolls.services import roll_make
from tests.rolls.concurrency import in_thread, post_at_once

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]


def test_two_concurrent_case_rolls_chain_one_after_the_other(q10):
    assert connection.vendor == "postgresql"
    start = threading.Barrier(2)

    @in_thread
    def roll(character_id):
        case = Case(
            system="q10",
            mode="pool",
            test="pool",
            input={"attribute": 3, "skill": 2, "difficulty": 15, "raises": 0},
            people={"a": character_id},
            what="Siła + Atletyka",
        )
        start.wait()
        made = roll_make(session=q10.session, by=q10.gm, case=case, token=uuid.uuid4())
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
    answers = post_at_once(q10.gm, f"/sessions/{q10.session.pk}/rolls/panel/", data)

    assert Roll.objects.count() == 1
    assert set(answers) == {(302, answers[0][1])}
    assert verify_session(q10.session.pk).ok
