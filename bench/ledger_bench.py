"""Roll ledger benchmark: appends per second, and whether sessions wait for each other.

Run against a throwaway PostgreSQL (the numbers in docs/performance.md):

    SECRET_KEY=bench scripts/with-postgres .venv/bin/python bench/ledger_bench.py

Each roll goes through `rolls.services.roll_make` (session row lock, chain head,
hash, insert) with production dice. Workers are processes (as app servers are),
so Python's GIL does not hide the database's behaviour. Three interleaved runs of:
  1 worker, 1 session;  2 workers into ONE session (they queue on its row lock);
  2 workers into 2 sessions (they should not wait for each other).
"""

import multiprocessing
import os
import statistics
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, connections  # noqa: E402

from characters import services as character_services  # noqa: E402
from characters.models import Attribute  # noqa: E402
from diary import services as diary_services  # noqa: E402
from rolls.services import roll_make  # noqa: E402
from rolls.systems.forum1000.cases import case_for  # noqa: E402
from rolls.systems.forum1000.requests import RollRequest, SideRequest  # noqa: E402

ROLLS_PER_WORKER = 200
WORKERS = 2  # the machine has 2 cores


def make_table(gm, moderator, number: int):
    attributes = dict.fromkeys(Attribute.objects.filter(system="forum1000"), 500)
    values = {"name": f"Bench {number}", "description": "", "hp_current": 10, "hp_max": 10,
              "attributes": attributes, "skills": {}, "traits": [], "items": {}}  # fmt: skip
    character = character_services.character_create(owner=gm, system="forum1000", values=values)
    session = diary_services.session_create(
        gm=gm, title=f"Bench {number}", description="", system="forum1000",
        criticals_enabled=True, npc_mode="fixed_modifiers", roll_policy="gm_only",
    )  # fmt: skip
    invite = diary_services.participation_invite(session=session, by=gm, character=character)
    diary_services.participation_decide(participation=invite, by=gm, accept=True)
    for status, by in (("plan_submitted", gm), ("accepted", moderator), ("running", gm)):
        session = diary_services.session_transition(session=session, by=by, to=status)
    percepcja = next(a.pk for a in attributes if a.name == "Percepcja")
    request = RollRequest(kind="attribute", a=SideRequest(character.pk, "attribute", (percepcja,)))
    return session, request


def append(gm, session, request, count: int, start) -> None:
    connections.close_all()  # never share the parent's socket
    start.wait()
    case = case_for(session, request)
    for _ in range(count):
        roll_make(session=session, by=gm, case=case, token=uuid.uuid4())
    connections.close_all()


def timed(gm, jobs) -> float:
    """Rolls per second for jobs [(session, request, count)], one process each."""
    context = multiprocessing.get_context("fork")
    start = context.Barrier(len(jobs) + 1)
    connections.close_all()
    workers = [context.Process(target=append, args=(gm, *job, start)) for job in jobs]
    for worker in workers:
        worker.start()
    start.wait()
    started = time.perf_counter()
    for worker in workers:
        worker.join()
        assert worker.exitcode == 0
    return sum(job[2] for job in jobs) / (time.perf_counter() - started)


def main() -> None:
    call_command("migrate", verbosity=0)
    User = get_user_model()
    gm = User.objects.create_user(f"bench-gm-{uuid.uuid4().hex[:6]}")
    moderator = User.objects.create_superuser(f"bench-mod-{uuid.uuid4().hex[:6]}")
    tables = [make_table(gm, moderator, n) for n in range(WORKERS)]
    one_session = f"{WORKERS} workers, 1 session"
    own_sessions = f"{WORKERS} workers, {WORKERS} sessions"
    scenarios = {
        "1 worker, 1 session": lambda: [(*tables[0], ROLLS_PER_WORKER)],
        one_session: lambda: [(*tables[0], ROLLS_PER_WORKER)] * WORKERS,
        own_sessions: lambda: [(*t, ROLLS_PER_WORKER) for t in tables],
    }
    results = {name: [] for name in scenarios}
    for _ in range(3):  # interleaved, so the machine's noise hits every scenario alike
        for name, jobs in scenarios.items():
            results[name].append(timed(gm, jobs()))
    print(f"database: {connection.vendor}, {ROLLS_PER_WORKER} rolls per worker, 3 runs")
    print("| scenario | rolls/s (median of 3) | runs |")
    print("|---|---:|---|")
    for name, runs in results.items():
        print(
            f"| {name} | {statistics.median(runs):,.0f} | {', '.join(f'{r:,.0f}' for r in runs)} |"
        )
    one = statistics.median(results[one_session])
    many = statistics.median(results[own_sessions])
    print(f"\n{WORKERS} sessions / 1 session, same {WORKERS} workers: {many / one:.2f}×")


if __name__ == "__main__":
    main()
