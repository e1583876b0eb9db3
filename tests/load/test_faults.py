"""Faults and load against the real production server, on a PostgreSQL of its own.

The test starts a throwaway PostgreSQL cluster (scripts/pg-cluster) that it may kill
connections in and restart without touching the suite's database, and `make serve` on
it exactly as production runs it (gunicorn, 4 workers, persistent connections). It seeds
a running forum1000 session through the services (tests/load/server_db.py), then 16
browsers log in through the log-in page and roll through the roll panel, as people do:
GET the panel, take its one-time token from the form, POST "Roll".

- 8 browsers are the GM's (one GM, eight browsers), each rolling for one of four
  characters no client plays, with the panel's "allow a second action roll — reason"
  filled in (RULES 1.5), so every one of their rolls is allowed.
- 8 browsers are players (policy "players may also roll for their own characters"),
  each rolling for their own character: the first roll of the turn lands, every later
  one is refused (400, RULES 1.5), whatever the faults.

Phase 1: every browser makes ROLLS_EACH rolls under load (the throughput measured).
Phase 2: the browsers keep rolling while another thread kills every connection of the
database again and again (`pg_terminate_backend`) and restarts PostgreSQL once
(`pg_ctl restart -m fast`). A browser retries a failed request with the SAME form (the
same token: that is a user's retry, and the token makes it idempotent); every other
acknowledged roll is sent once more, as after a lost answer, and must answer the same
roll. Phase 3: the idle connections are killed once more, then each browser rolls once
with no retry allowed: the server must have recovered by itself.

Then the ledger is read back: every acknowledged roll stored exactly once (by token, at
the number its answer named), numbers 1..N without a gap, the chain valid
(`rolls.ledger.verify.verify_session` and `manage.py verify_rolls`), no roll-holding post
without its roll, and no roll from a token nobody sent. Bounded: request timeouts, a
deadline per roll, the server and the cluster always stopped.

docs/security.md lists the threats this proves; docs/performance.md the throughput.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

import pytest

from tests.load.http_client import Answer, Browser, form_fields
from tests.serving import Served, free_port, make_serve, serve_environment

pytestmark = pytest.mark.load

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = ROOT / "scripts" / "pg-cluster"
DATABASE = "codziennik"
GM_BROWSERS = 8
ROLLS_EACH = 3  # phase 1
STORM_SECONDS = 20  # phase 2
KILL_EVERY = 1.0  # seconds between two pg_terminate_backend sweeps
RESTART_AT = 8  # seconds into phase 2
REQUEST_TIMEOUT = 20  # a request answered later than this is a hang (gunicorn's is 30)
ROLL_DEADLINE = 45  # seconds one roll may take, retries included
EXTRA_ACTION_REASON = "Test obciążenia: MG pozwala na kolejny rzut akcji"
SECOND_ACTION_REFUSAL = "ma już rzut akcji w tej turze"  # RULES 1.5, the Polish message
SERVER_ERROR_PAGE = "Błąd serwera"  # templates/500.html
# The digest of the roll the panel's line describes, in its preview (rolls/roll_plan.py).
PLAN_INPUT = re.compile(r'name="plan" value="([0-9a-f]*)"')
DATABASE_UNAVAILABLE_PAGE = "Baza danych jest chwilowo niedostępna"  # templates/503.html
ROLL_ANCHOR = re.compile(r"#roll-(\d+)$")


# ---------------------------------------------------------------------------
# The cluster and the server


@dataclass
class Cluster:
    directory: str
    port: int

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{DATABASE}"

    def run(self, *args: str) -> None:
        subprocess.run([str(CLUSTER), *args], check=True, timeout=120)

    def terminate_backends(self) -> int:
        """Kill every connection to the site's database; how many there were."""
        import psycopg

        with psycopg.connect(
            host="127.0.0.1", port=self.port, user="postgres", dbname="postgres",
            autocommit=True, connect_timeout=3,
        ) as admin:  # fmt: skip
            (killed,) = admin.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE datname = %s AND pid <> pg_backend_pid()",
                [DATABASE],
            ).fetchone()
        return killed


@pytest.fixture
def cluster():
    directory = tempfile.mkdtemp(prefix="codziennik-load-", dir="/tmp")
    made = Cluster(directory, free_port())
    try:
        # Commits acknowledged only once on disk, as in production (the suite's cluster
        # turns that off for speed): "nothing acknowledged is lost" must not lean on the
        # restart being a clean one.
        subprocess.run(
            [str(CLUSTER), "start", directory, str(made.port)],
            check=True, timeout=120,
            env=os.environ | {"PG_CLUSTER_OPTIONS": "-c synchronous_commit=on"},
        )  # fmt: skip
        made.run("createdb", directory, str(made.port), DATABASE)
        yield made
    finally:
        subprocess.run([str(CLUSTER), "stop", directory], check=False, timeout=60)
        shutil.rmtree(directory, ignore_errors=True)


class Server(Served):
    def manage(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(ROOT / ".venv" / "bin" / "python"), *args],
            cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip


@pytest.fixture
def server(cluster, tmp_path):
    """`make serve` on the cluster, as production runs it (tests/serving.py)."""
    env = serve_environment(
        SECRET_KEY="load-test-" + uuid.uuid4().hex,
        DATABASE_URL=cluster.url,
        BIND=f"127.0.0.1:{free_port()}",
        WEB_CONCURRENCY="4",
        STATIC_ROOT=str(tmp_path / "static"),
    )
    with make_serve(env, tmp_path / "serve.log", timeout=120) as served:
        yield Server(served.url, served.env, served.process, served.log)


# ---------------------------------------------------------------------------
# The browsers


class Hang(AssertionError):
    """A request not answered within REQUEST_TIMEOUT."""


@dataclass
class Ledger:
    """What the browsers saw, shared by their threads."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    answers: list = field(default_factory=list)  # (phase, method, status, seconds)
    bad: list = field(default_factory=list)  # anything that is not a clean answer
    posted: set = field(default_factory=set)  # every token sent
    acknowledged: dict = field(default_factory=dict)  # token → seq its answer named
    refused: set = field(default_factory=set)
    resent: int = 0

    def note(self, phase: str, method: str, answer: Answer | None, problem: str = "") -> None:
        with self.lock:
            if answer is not None:
                self.answers.append((phase, method, answer.status, answer.seconds))
            if problem:
                self.bad.append(f"{phase} {method}: {problem}")


class Player:
    """One browser rolling for one character."""

    def __init__(self, server: Server, seed: dict, ledger: Ledger, username: str, character: int):
        self.browser = Browser(server.url, REQUEST_TIMEOUT)
        self.ledger = ledger
        self.username = username
        self.is_gm = username == seed["gm"]
        self.password = seed["password"]
        self.panel = f"/sessions/{seed['session']}/rolls/panel/"
        self.query = urlencode(
            {"mode": "attribute", "a-character": character, "a-attribute": seed["attribute"]}
        )

    def log_in(self) -> None:
        page = self.send("login", "GET", "/accounts/login/", ok={200}, retry=False)
        _action, fields = form_fields(page.body)
        data = dict(fields) | {"username": self.username, "password": self.password}
        answer = self.send("login", "POST", "/accounts/login/", list(data.items()), ok={302})
        assert "sessionid" in self.browser.cookies, answer

    def send(self, phase, method, path, fields=None, *, ok, retry=True, headers=None) -> Answer:
        """The request until it gets one of the `ok` answers. A 5xx (which must be the
        site's error page, 500, or its database-unavailable page, 503) is retried as it
        was; anything else, a dropped connection or no answer within REQUEST_TIMEOUT fails
        the test (gunicorn itself never goes away)."""
        deadline = time.monotonic() + ROLL_DEADLINE
        while True:
            try:
                answer = self.browser.request(method, path, fields, headers)
            except TimeoutError as error:
                self.ledger.note(phase, method, None, f"no answer in {REQUEST_TIMEOUT} s")
                raise Hang(f"{method} {path}: {error}") from error
            except (OSError, ConnectionError) as error:
                # The server's socket itself failing is not a clean answer either.
                self.ledger.note(phase, method, None, f"connection failed: {error!r}")
                raise
            if answer.status in ok:
                self.ledger.note(phase, method, answer)
                return answer
            if answer.status >= 500:
                page = SERVER_ERROR_PAGE if answer.status == 500 else DATABASE_UNAVAILABLE_PAGE
                clean = page in answer.body and "Traceback" not in answer.body
                self.ledger.note(phase, method, answer, "" if clean else "unclean 5xx page")
            else:
                self.ledger.note(phase, method, answer, f"unexpected {answer.status} for {path}")
                raise AssertionError(f"{self.username}: {method} {path} → {answer.status}")
            if not retry:
                raise AssertionError(f"{self.username}: {method} {path} → {answer.status}")
            if time.monotonic() > deadline:
                self.ledger.note(phase, method, None, f"no answer after {ROLL_DEADLINE} s")
                raise AssertionError(f"{self.username}: {method} {path} kept failing")
            time.sleep(0.2)

    def described(self, phase: str, fields, *, retry: bool) -> list[tuple[str, str]]:
        """The form once its preview is drawn again after a typed change, as htmx asks for
        it: the line above Roll, whose digest the roll carries (rolls/roll_plan.py)."""
        query = urlencode(
            [(k, v) for k, v in fields if k not in ("csrfmiddlewaretoken", "client_seed", "plan")]
        )
        headers = {"HX-Request": "true", "HX-Target": "preview"}
        preview = self.send(
            phase, "GET", f"{self.panel}?{query}", ok={200}, retry=retry, headers=headers
        )
        plan = PLAN_INPUT.search(preview.body)
        assert plan, preview.body[-1000:]
        return [(k, v) for k, v in fields if k != "plan"] + [("plan", plan.group(1))]

    def roll(self, phase: str, *, retry: bool = True, resend: bool = False) -> None:
        """Open the panel (a link: it redirects to a clean panel with a fresh token), read the
        form as a browser does, and click "Roll"."""
        link = self.send(phase, "GET", f"{self.panel}?{self.query}", ok={302}, retry=retry)
        page = self.send(phase, "GET", link.location, ok={200}, retry=retry)
        action, fields = form_fields(page.body, "panel-form")
        if self.is_gm:
            fields = [(k, v) for k, v in fields if k != "extra_action_reason"]
            fields.append(("extra_action_reason", EXTRA_ACTION_REASON))
            fields = self.described(phase, fields, retry=retry)
        token = str(uuid.UUID(dict(fields)["token"].rsplit(":", 1)[0]))
        with self.ledger.lock:
            self.ledger.posted.add(token)
        answer = self.send(phase, "POST", action, fields, ok={302, 400, 409}, retry=retry)
        while answer.status == 409:
            # Another browser's roll changed where this one would land since its line was
            # drawn: nothing rolled; the page shows the new line, read and clicked again.
            plan = PLAN_INPUT.search(answer.body)
            assert plan, answer.body[-1000:]
            fields = [(k, v) for k, v in fields if k != "plan"] + [("plan", plan.group(1))]
            answer = self.send(phase, "POST", action, fields, ok={302, 400, 409}, retry=retry)
        if answer.status == 400:
            if self.is_gm or SECOND_ACTION_REFUSAL not in answer.body:
                self.ledger.note(phase, "POST", None, f"{self.username}: refused roll")
            with self.ledger.lock:
                self.ledger.refused.add(token)
            return
        anchor = ROLL_ANCHOR.search(answer.location)
        assert anchor, answer.location
        seq = int(anchor.group(1))
        with self.ledger.lock:
            assert self.ledger.acknowledged.setdefault(token, seq) == seq
        if resend:
            # The same form again (a lost answer, a double click): the same roll answers.
            again = self.send(phase, "POST", action, fields, ok={302}, retry=retry)
            if again.location != answer.location:
                self.ledger.note(phase, "POST", None, f"resent token → {again.location}")
            with self.ledger.lock:
                self.ledger.resent += 1


class Stages:
    """How long each part of the test took (printed; `pytest -s` shows it)."""

    def __init__(self):
        self.last = time.monotonic()
        self.seconds: dict[str, float] = {}

    def mark(self, name: str) -> None:
        now = time.monotonic()
        self.seconds[name] = round(now - self.last, 1)
        self.last = now

    def __str__(self) -> str:
        return ", ".join(f"{name} {s}" for name, s in self.seconds.items())


def in_threads(players: list[Player], work) -> None:
    """Run work(player) for every player at once; re-raise the first failure."""
    errors: list[BaseException] = []

    def run(player):
        try:
            work(player)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=run, args=(p,), daemon=True) for p in players]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=ROLL_DEADLINE * 4)
        assert not thread.is_alive(), "a browser thread never finished"
    if errors:
        raise errors[0]


# ---------------------------------------------------------------------------
# The test


def test_rolls_survive_killed_connections_and_a_postgres_restart(cluster, server):
    stages = Stages()
    seeded = server.manage("-m", "tests.load.server_db", "seed")
    assert seeded.returncode == 0, seeded.stderr
    seed = json.loads(seeded.stdout)
    ledger = Ledger()
    gm_browsers = [
        Player(server, seed, ledger, seed["gm"], seed["companions"][n % len(seed["companions"])])
        for n in range(GM_BROWSERS)
    ]
    player_browsers = [
        Player(server, seed, ledger, name, character) for name, character in seed["players"].items()
    ]
    browsers = gm_browsers + player_browsers
    assert len(browsers) == 16

    # Each log-in hashes the password (PBKDF2, about a second of CPU on a busy machine):
    # four at a time, one per worker, so a log-in is never queued behind twelve others.
    logging_in = threading.Semaphore(4)

    def log_in(player: Player) -> None:
        with logging_in:
            player.log_in()

    stages.mark("seed")
    in_threads(browsers, log_in)
    stages.mark("log-ins")
    workers = server.workers()
    assert len(workers) == 4

    # Phase 1: load alone.
    started = time.monotonic()
    in_threads(browsers, lambda p: [p.roll("load") for _ in range(ROLLS_EACH)])
    elapsed = time.monotonic() - started
    stages.mark("phase 1")
    load_requests = sum(1 for a in ledger.answers if a[0] == "load")
    print(
        f"\nphase 1: {load_requests} requests, {len(ledger.acknowledged)} rolls in "
        f"{elapsed:.1f} s: {load_requests / elapsed:.1f} requests/s, "
        f"{len(ledger.acknowledged) / elapsed:.1f} rolls/s, slowest answer "
        f"{max(a[3] for a in ledger.answers if a[0] == 'load'):.1f} s"
    )
    assert not ledger.bad, ledger.bad
    # Without faults, load alone never makes an error: concurrent rolls wait for the
    # session's lock instead of colliding (a race would surface as a 500 here).
    load = Counter(a[2] for a in ledger.answers if a[0] == "load")
    assert all(status < 500 for status in load), load

    # Phase 2: the storm.
    storm_ends = time.monotonic() + STORM_SECONDS
    faults = {"sweeps": 0, "killed": 0, "restarts": 0, "failed_sweeps": 0}

    def break_the_database():
        restart_at = time.monotonic() + RESTART_AT
        while time.monotonic() < storm_ends:
            if not faults["restarts"] and time.monotonic() >= restart_at:
                cluster.run("restart", cluster.directory)
                faults["restarts"] += 1
                continue
            try:
                faults["killed"] += cluster.terminate_backends()
                faults["sweeps"] += 1
            except Exception:  # the cluster restarting: try again in a moment
                faults["failed_sweeps"] += 1
            time.sleep(KILL_EVERY)

    breaker = threading.Thread(target=break_the_database, daemon=True)
    breaker.start()

    def keep_rolling(player: Player) -> None:
        n = 0
        while time.monotonic() < storm_ends:
            n += 1
            player.roll("storm", resend=n % 2 == 1)

    in_threads(browsers, keep_rolling)
    breaker.join(timeout=60)
    assert not breaker.is_alive()
    stages.mark("phase 2")
    storm = Counter(a[2] for a in ledger.answers if a[0] == "storm")
    slowest = max(a[3] for a in ledger.answers if a[0] == "storm")
    print(
        f"phase 2: answers {dict(storm)}, slowest {slowest:.1f} s, faults {faults}, "
        f"resent {ledger.resent}"
    )
    assert faults["restarts"] == 1
    assert faults["killed"] >= 20, faults  # connections really were killed, many times
    assert sum(n for status, n in storm.items() if status >= 500) > 0, storm  # faults hit
    assert ledger.resent > 0
    assert not ledger.bad, ledger.bad

    # Phase 3: the server recovers by itself. Every worker's kept connection is killed
    # while idle; the next request on each must still be answered, first time.
    time.sleep(1)
    assert cluster.terminate_backends() >= 1
    time.sleep(0.5)
    before = len(ledger.acknowledged)
    in_threads(browsers, lambda p: p.roll("after", retry=False))
    assert len(ledger.acknowledged) == before + GM_BROWSERS
    stages.mark("phase 3")
    assert not ledger.bad, ledger.bad
    assert server.process.poll() is None, "make serve died"
    assert server.workers() == workers, "gunicorn replaced a worker (a crash or a hang)"
    assert "WORKER TIMEOUT" not in server.log.read_text()

    # The ledger.
    checked = server.manage("-m", "tests.load.server_db", "check", str(seed["session"]))
    assert checked.returncode == 0, checked.stderr
    stored = json.loads(checked.stdout)
    rolls = stored["rolls"]
    tokens = [r["token"] for r in rolls]
    assert len(tokens) == len(set(tokens)), "a token made two rolls"
    by_token = {r["token"]: r for r in rolls}
    for token, seq in ledger.acknowledged.items():
        assert token in by_token, f"acknowledged roll #{seq} is not in the ledger"
        assert by_token[token]["seq"] == seq, "the answer named another roll"
    assert set(tokens) <= ledger.posted, "a roll no browser asked for"
    assert not set(tokens) & ledger.refused, "a refused roll was stored"
    landed_unanswered = set(tokens) - set(ledger.acknowledged)
    assert len(rolls) == len(ledger.acknowledged) + len(landed_unanswered)
    # The session started under `make serve`: its turn's dice seed was committed first.
    entries = stored["turn_entries"]
    assert [e["kind"] for e in entries] == ["dice_commit"], entries
    numbers = sorted([r["seq"] for r in rolls] + [e["seq"] for e in entries])
    assert numbers == list(range(1, len(numbers) + 1)), "a gap in the numbers"
    assert all(r["post_session"] == seed["session"] for r in rolls)
    assert stored["fair"] == len(rolls), "a roll of the committed turn without fair dice"
    assert stored["verify"]["ok"], stored["verify"]
    assert stored["verify"]["count"] == len(numbers)
    assert stored["empty_posts"] == [], "a post made for a roll that never landed"
    # RULES 1.5 held under the storm: each player's character has its one action roll.
    for character in seed["players"].values():
        assert stored["per_character"].get(str(character)) == 1, stored["per_character"]

    verified = server.manage("manage.py", "verify_rolls", "--session", str(seed["session"]))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert f"OK, {len(numbers)} rolls, head {stored['verify']['head']}" in verified.stdout
    stages.mark("check")
    print(f"ledger: {len(rolls)} rolls, {len(landed_unanswered)} landed unanswered, chain OK")
    print(f"seconds: {stages}")
