"""A roll's reads under the session's lock (rolls.selectors.locked_reads) see what committed
while it waited for the lock: they are one statement issued after the lock's own
`SELECT ... FOR UPDATE`, never subqueries of it (in READ COMMITTED, a statement that waited
for a row lock re-reads only the locked row; its subqueries keep the snapshot from before
the wait).

Each test holds the session's lock in one thread, lets the GM's roll POST queue behind it
(PostgreSQL shows it waiting), commits a change under the lock, and checks the waiting roll
saw it: the first roll of the same token, the character's action roll, the turn just opened
and its seed.
"""

import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection, transaction
from django.test import Client
from django.urls import reverse

from diary.models import GameSession
from diary.services import turn_open_next
from rolls.access import sign_token
from rolls.ledger.verify import verify_session
from rolls.models import Roll, TurnSeed
from tests.conftest import polish
from tests.rolls.concurrency import in_thread, waiting_for_a_lock
from tests.rolls.conftest import PLAN_INPUT, described_plan
from tests.rolls.test_append_costs import forum1000_roll

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]


def _signed(table, data: dict) -> dict:
    """The GM's roll as the page sends it: its token signed, and the digest of the roll the
    line above the button described (rolls.roll_plan), read before the lock is held."""
    data = {**data, "token": sign_token(table.gm, table.session, uuid.UUID(data["token"]))}
    url = reverse("rolls:panel", args=[table.session.pk])
    return {**data, "plan": described_plan(_client(table.gm), url, data)}


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _behind_the_lock(table, while_held, data: dict):
    """The GM's roll POST of `data`, sent while another transaction holds the session's lock
    and waited for it; `while_held(client)` runs in that transaction once the roll waits.
    Returns what each answered: the holder's result and the waiting roll's response."""
    url = reverse("rolls:panel", args=[table.session.pk])
    holding, queued = threading.Event(), threading.Event()

    @in_thread
    def hold():
        client = _client(table.gm)
        with transaction.atomic():
            GameSession.objects.select_for_update().get(pk=table.session.pk)
            holding.set()
            assert queued.wait(timeout=30)
            return while_held(client)

    @in_thread
    def roll():
        client = _client(table.gm)
        return client.post(url, data)

    with ThreadPoolExecutor(max_workers=2) as pool:
        held = pool.submit(hold)
        assert holding.wait(timeout=20)
        waiting = pool.submit(roll)
        waiting_for_a_lock()
        assert not waiting.done()
        queued.set()
        return held.result(timeout=30), waiting.result(timeout=30)


def test_a_double_submit_waiting_on_the_lock_answers_with_the_first_roll(table):
    assert connection.vendor == "postgresql"
    unsigned = forum1000_roll(table, table.lirael)
    data = _signed(table, unsigned)
    url = reverse("rolls:panel", args=[table.session.pk])
    before = Roll.objects.filter(session=table.session).count()

    first, second = _behind_the_lock(table, lambda client: client.post(url, data), data)

    assert Roll.objects.filter(session=table.session).count() == before + 1
    roll = Roll.objects.filter(session=table.session).latest("seq")
    assert roll.token == uuid.UUID(unsigned["token"])
    # Both answers point at the one roll.
    assert first.status_code == second.status_code == 302
    assert first["Location"] == second["Location"]
    assert first["Location"].endswith(f"#roll-{roll.seq}")
    assert verify_session(table.session.pk).ok


def test_a_roll_waiting_on_the_lock_counts_the_action_roll_made_meanwhile(table):
    """forum1000 refuses a second action roll in a turn outside a fight (RULES 1.5): the
    waiting roll, of another token, must count the one committed while it waited."""
    url = reverse("rolls:panel", args=[table.session.pk])
    first = _signed(table, forum1000_roll(table, table.lirael))
    second = _signed(table, forum1000_roll(table, table.lirael))
    before = Roll.objects.filter(session=table.session).count()

    made, refused = _behind_the_lock(table, lambda client: client.post(url, first), second)

    assert made.status_code == 302
    assert refused.status_code == 400
    assert Roll.objects.filter(session=table.session).count() == before + 1
    roll = Roll.objects.filter(session=table.session).latest("seq")
    assert f"#{roll.seq}" in refused.content.decode()  # the refusal names the earlier roll


@pytest.mark.fair_dice
def test_a_roll_waiting_on_the_lock_rolls_with_the_turn_opened_meanwhile(table):
    """The GM opens the next turn while the roll waits: the waiting roll reads the new turn,
    so it is no longer the roll its line described (turn 1) and is refused with the line as
    it is now; rolled again from that line, it lands in the new turn and its dice come from
    the new turn's seed, committed a moment ago."""
    data = _signed(table, forum1000_roll(table, table.lirael))

    turn, refused = _behind_the_lock(
        table, lambda _client: turn_open_next(session=table.session, by=table.gm), data
    )

    assert refused.status_code == 409, refused.content.decode()[-2000:]
    page = refused.content.decode()
    assert polish("a new post at the end of the diary (turn %(turn)s)", turn=turn.number) in page
    assert not Roll.objects.filter(session=table.session, test="attribute").exists()
    url = reverse("rolls:panel", args=[table.session.pk])
    made = _client(table.gm).post(url, {**data, "plan": PLAN_INPUT.search(page).group(1)})
    assert made.status_code == 302, made.content.decode()[-2000:]
    roll = Roll.objects.filter(session=table.session, test="attribute").latest("seq")
    seed = TurnSeed.objects.select_related("commit").get(
        session=table.session, turn_number=turn.number
    )
    assert roll.turn_number == turn.number
    assert roll.record["fair"]["commit"] == seed.commit.seq
    assert verify_session(table.session.pk).ok
