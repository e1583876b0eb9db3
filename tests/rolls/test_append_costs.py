"""What a roll POST and the panel's preview cost, and that the cost is flat.

Each test measures at a small session and again after growing it (tests/scale_rolls.py:
posts and valid chained rolls, in the current turn), and asserts the same number of queries
at both, under a small bound. The preview also reads no more roll rows at 5,000 rolls in the
turn than at 10: it counts, it never loads the turn's rolls. Speed itself is the benchmark's
(bench/), not a test's.
"""

import re
import uuid

import pytest
from django.db import connection
from django.urls import reverse

from characters.models import Attribute
from rolls import access
from rolls.ledger.verify import verify_session
from rolls.models import Roll
from tests.rolls.conftest import described_plan
from tests.rolls.systems.q10.test_panel_q10 import pool
from tests.scale_rolls import add_posts, add_rolls

pytestmark = pytest.mark.django_db

# The bounds keep per-request work to the few queries that must run; the code before the
# speed work made 34 and 25 (forum1000), 30 and 15 (q10), and grew in rows read
# (docs/performance.md). The test's transaction adds a SAVEPOINT and its RELEASE to a POST.
# A roll into a post already there also marks the post changed and notifies the owner of
# the character it concerns (diary.notifications.notices.notify_character_changed: who hears, in one
# query, and the insert); a roll that needs a new GM post writes that post instead.
# The POST reads its turn's dice seed (rolls.ledger.fair_dice), and the whole panel shows the turn's
# dice commitment before the roll: one query each.
BOUNDS = {"forum1000": (18, 33), "q10": (15, 30)}  # (preview, POST)
# 1 k posts and rolls, then 100 k posts and this many rolls: the chain's length no longer
# enters an append (its head is on the session row); each copy is hashed and signed, which
# is what a larger number would cost the suite.
GROWN_ROLLS = 10_000


class RollRowsRead:
    """An execute wrapper: how many rows the SELECTs on the roll table return to Python
    (each one re-run as SELECT COUNT(*) over it), and the queries themselves."""

    def __init__(self):
        self.selects: list[tuple[str, object]] = []

    def __call__(self, execute, sql, params, many, context):
        if sql.lstrip().upper().startswith("SELECT") and re.search(r'"rolls_roll"', sql):
            self.selects.append((sql, params))
        return execute(sql, params, many, context)

    @property
    def rows(self) -> int:
        total = 0
        with connection.cursor() as cursor:
            for sql, params in self.selects:
                cursor.execute(f"SELECT COUNT(*) FROM ({sql}) AS counted", params)
                total += cursor.fetchone()[0]
        return total


def panel_url(session):
    return reverse("rolls:panel", args=[session.pk])


def forum1000_roll(table, character, **extra):
    percepcja = Attribute.objects.get(system="forum1000", name="Percepcja").pk
    return {
        "token": str(uuid.uuid4()),
        "mode": "attribute",
        "a-character": character.pk,
        "a-attribute": percepcja,
        "a-action_value": "0",
        "a-gm_difficulty": "0",
        "a-gm_bonus": "0",
        **extra,
    }


def htmx_preview(client, user, session, data):
    """The panel's redraw as htmx asks for it: the fields and a token issued to the user."""
    return client.get(
        panel_url(session),
        {**data, "token": access.issue_token(user, session)},
        HTTP_HX_REQUEST="true",
    )


def roll_post(client, user, session, data):
    """The panel's roll, its token signed for the user as the panel issues it, carrying the
    digest of the roll its line described (read from its preview unless given)."""
    data = {**data, "token": access.sign_token(user, session, uuid.UUID(data["token"]))}
    if "plan" not in data:
        data["plan"] = described_plan(client, panel_url(session), data)
    return client.post(panel_url(session), data)


def sample(django_assert_max_num_queries, client, user, session, data):
    """(queries of the htmx preview, queries of the roll POST), each under its bound."""
    preview_bound, post_bound = BOUNDS[session.system]
    data = {**data, "token": str(uuid.uuid4())}  # a new roll each time, not a replay
    with django_assert_max_num_queries(preview_bound) as preview:
        shown = htmx_preview(client, user, session, data)
    assert shown.status_code == 200 and 'data-testid="chance"' in shown.text
    # The roll the preview's line described, as the page's form carries it.
    data["plan"] = re.search(r'name="plan" value="([0-9a-f]+)"', shown.text).group(1)
    with django_assert_max_num_queries(post_bound) as post:
        made = roll_post(client, user, session, data)
    assert made.status_code == 302, made.text
    return len(preview.captured_queries), len(post.captured_queries)


# The GM rolls for Lirael again in the same turn (the reason allows it, RULES 1.5): the
# action-limit check sees every earlier roll of hers, the chain has all of them.
REASON = {"extra_action_reason": "Drugi cios"}


def test_forum1000_roll_post_and_preview_are_flat_from_1k_to_100k(
    table, client_for, django_assert_max_num_queries
):
    session, gm = table.session, table.gm
    client = client_for(gm)
    data = forum1000_roll(table, table.lirael, **REASON)

    def first_roll():
        made = roll_post(client, gm, session, forum1000_roll(table, table.lirael))
        assert made.status_code == 302

    add_posts(session, table.alice, 1_000)
    add_rolls(session, 1_000, make_first=first_roll)
    small = sample(django_assert_max_num_queries, client, gm, session, data)
    add_posts(session, table.alice, 99_000)
    # The same request at both sizes: a roll lands in the GM's resolution post below the
    # players' posts, which a roll opens (a new post costs other queries than one reused).
    assert roll_post(client, gm, session, {**data, "token": str(uuid.uuid4())}).status_code == 302
    add_rolls(session, GROWN_ROLLS - 1_000 - 2)
    large = sample(django_assert_max_num_queries, client, gm, session, data)
    # The preview is flat; the POST lands in an earlier post at 1 k and in a new GM post at
    # 100 k (the newest post is then a player's): two paths, each under the bound.
    assert small[0] == large[0]
    assert Roll.objects.filter(session=session).count() == GROWN_ROLLS + 1
    assert verify_session(session.pk).ok


def test_q10_roll_post_and_preview_are_flat_from_1k_to_100k(
    q10, client_for, django_assert_max_num_queries
):
    session, gm = q10.session, q10.gm
    client = client_for(gm)

    def first_roll():
        assert roll_post(client, gm, session, pool(q10)).status_code == 302

    add_posts(session, q10.alice, 1_000)
    add_rolls(session, 1_000, make_first=first_roll)
    small = sample(django_assert_max_num_queries, client, gm, session, pool(q10))
    add_posts(session, q10.alice, 99_000)
    first_roll()  # the resolution post below the players' posts again, as at 1 k
    add_rolls(session, GROWN_ROLLS - 1_000 - 2)
    large = sample(django_assert_max_num_queries, client, gm, session, pool(q10))
    # The preview is flat; the POST lands in an earlier post at 1 k and in a new GM post at
    # 100 k (the newest post is then a player's): two paths, each under the bound.
    assert small[0] == large[0]
    assert verify_session(session.pk).ok


def _preview_reads(client, user, session, data):
    reads = RollRowsRead()
    with connection.execute_wrapper(reads):
        response = htmx_preview(client, user, session, data)
    assert response.status_code == 200 and 'data-testid="chance"' in response.text
    return len(reads.selects), reads.rows


def test_the_preview_reads_the_same_roll_rows_at_10_and_5000_rolls_in_the_turn(
    table, client_for, q10
):
    """forum1000 (the action-limit check and warning) and q10 (the action count shown)."""
    forum = client_for(table.gm)
    forum_data = forum1000_roll(table, table.lirael, **REASON)
    case = client_for(q10.gm)

    add_rolls(
        table.session,
        10,
        make_first=lambda: roll_post(
            forum, table.gm, table.session, forum1000_roll(table, table.lirael)
        ),
    )
    add_rolls(q10.session, 10, make_first=lambda: roll_post(case, q10.gm, q10.session, pool(q10)))
    small = (
        _preview_reads(forum, table.gm, table.session, forum_data),
        _preview_reads(case, q10.gm, q10.session, pool(q10)),
    )
    add_rolls(table.session, 4_990)
    add_rolls(q10.session, 4_990)
    large = (
        _preview_reads(forum, table.gm, table.session, forum_data),
        _preview_reads(case, q10.gm, q10.session, pool(q10)),
    )
    assert small == large
    # A handful of counted rows, not the turn's rolls.
    assert all(rows <= 5 for _queries, rows in large)
