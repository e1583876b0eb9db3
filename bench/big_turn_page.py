"""The diary page of a big turn: its size and its first view after a change, against an
ordinary page.

    .venv/bin/python bench/big_turn_page.py                       # SQLite (in memory)
    scripts/with-postgres .venv/bin/python bench/big_turn_page.py # PostgreSQL (throwaway)

Two forum1000 sessions, each with a few narration posts in its first turn and the GM's post
opening the second: the ordinary one holds 5 rolls in that post, the big one --rolls (2,000).
The rolls are real: the first made through the GM's panel, the rest chained copies
(tests/scale_rolls.py); the chain verifies. For each page, as a player reads it: the bytes
of the answer, and the wall time of the first view after a change (the session's activity
marker moved before each view, as every post and roll moves it; and again with the diary's
whole cache emptied too, as a restarted worker has it), median of --repeats views after a
warm-up, in this process with Django's test client (the database's time is in it, the
network's is not). It runs in a test database of its own, created and dropped.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Count
from django.test import Client
from django.urls import reverse

from bench.roll_queries import bench_database, make_table, make_user
from characters.models import Attribute
from diary import services as diary_services
from diary.live import page_cache
from diary.models import GameSession
from rolls import access
from rolls.ledger.verify import verify_session
from rolls.models import Roll
from tests.scale_rolls import add_rolls


def gm_roll(client, table) -> None:
    data = {
        "mode": "attribute",
        "a-character": table.hero.pk,
        "a-attribute": Attribute.objects.get(system="forum1000", name="Percepcja").pk,
        "a-action_value": "0",
        "a-gm_difficulty": "0",
        "a-gm_bonus": "0",
        "token": access.sign_token(table.gm, table.session, uuid.uuid4()),
    }
    made = client.post(table.panel_url, data)
    assert made.status_code == 302, made.content[:2000]


def build(moderator, name: str, rolls: int):
    table = make_table("forum1000", moderator)
    # make_table names its people by system; the second table needs the names free.
    for user in get_user_model().objects.filter(username__endswith="-forum1000"):
        user.username = f"{user.username}-{name}"
        user.save(update_fields=["username"])
    for n in range(5):
        diary_services.post_create(
            session=table.session,
            author=table.player,
            character=table.hero,
            narration=f"Bohater idzie dalej ({n}).",
            nc_note="",
        )
    # The GM's post opens the next turn and is its only post, so every roll lands in it
    # (tests/scale_rolls.py spreads the copies over the turn's posts).
    diary_services.turn_open_next(session=table.session, by=table.gm)
    diary_services.post_create(
        session=table.session,
        author=table.gm,
        character=None,
        narration="Burza nad jaskinią.",
        nc_note="",
    )
    gm = Client()
    gm.force_login(table.gm)
    gm_roll(gm, table)
    add_rolls(table.session, rolls - 1)
    assert verify_session(table.session.pk).ok
    return table


def measure(table, repeats: int, *, cold: bool) -> tuple[int, float]:
    """(bytes, median ms) of the page's first view after a change: the session's activity
    marker moved (what every post and roll does: the rolls' own HTML stays cached), or with
    `cold` the whole diary cache emptied too (a restarted worker)."""
    client = Client()
    client.force_login(table.player)
    url = reverse("diary:session", args=[table.session.pk])
    client.get(url)  # warm up
    times, size = [], 0
    for _ in range(repeats):
        GameSession.objects.get(pk=table.session.pk).touch()
        if cold:
            page_cache.clear()
        started = time.perf_counter()
        response = client.get(url)
        times.append(time.perf_counter() - started)
        assert response.status_code == 200
        size = len(response.content)
    return size, statistics.median(times) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rolls", type=int, default=2_000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    with bench_database("big_turn"):
        moderator = make_user("moderator", moderator=True)
        ordinary = build(moderator, "ordinary", 5)
        big = build(moderator, "big", args.rolls)
        in_post = (
            Roll.objects.filter(session=big.session, post__isnull=False)
            .values("post")
            .annotate(n=Count("id"))
            .order_by("-n")[0]["n"]
        )
        size_o, ms_o = measure(ordinary, args.repeats, cold=False)
        size_b, ms_b = measure(big, args.repeats, cold=False)
        _, cold_o = measure(ordinary, args.repeats, cold=True)
        _, cold_b = measure(big, args.repeats, cold=True)
        print(f"database: {connection.vendor}; rolls in the big post: {in_post}")
        print("| page | bytes | first view after a change | the same, cache emptied |")
        print("|---|---:|---:|---:|")
        print(f"| ordinary (5 rolls) | {size_o:,} | {ms_o:.1f} ms | {cold_o:.1f} ms |")
        print(f"| big turn ({in_post:,} rolls) | {size_b:,} | {ms_b:.1f} ms | {cold_b:.1f} ms |")
        print(
            f"| big / ordinary | {size_b / size_o:.2f} × | {ms_b / ms_o:.2f} × "
            f"| {cold_b / cold_o:.2f} × |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
