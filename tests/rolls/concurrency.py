"""Helpers of the PostgreSQL concurrency tests (forum1000's and the case systems')."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from django.db import connection, connections
from django.test import Client

from tests.rolls.conftest import described_plan


def in_thread(work):
    """Run `work` on its own database connection, closed afterwards."""

    def run(*args):
        try:
            return work(*args)
        finally:
            connections.close_all()

    return run


def post_at_once(user, url: str, data: dict, *, times: int = 8) -> list[tuple[int, str | None]]:
    """The same form posted `times` times at the same instant by one logged-in user:
    each request's status and Location. A roll panel's form carries the digest of the roll
    its line described, drawn before anyone clicks (rolls/roll_plan.py)."""
    start = threading.Barrier(times)
    if "/rolls/panel/" in url and "plan" not in data:
        drawn = Client()
        drawn.force_login(user)
        data = {**data, "plan": described_plan(drawn, url, data)}

    @in_thread
    def post(_):
        client = Client()
        client.force_login(user)
        start.wait()
        response = client.post(url, data)
        return response.status_code, response.get("Location")

    with ThreadPoolExecutor(max_workers=times) as pool:
        return list(pool.map(post, range(times)))


def waiting_for_a_lock(timeout: float = 20) -> None:
    """Until another connection waits for a lock not granted (the work queued behind the
    transaction that holds it)."""
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute("SELECT count(*) FROM pg_locks WHERE NOT granted")
            if cursor.fetchone()[0]:
                return
            time.sleep(0.02)
    raise AssertionError("nothing waited for the lock")
