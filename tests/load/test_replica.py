"""The database router against a real streaming replica (config/db_router.py).

The test starts a throwaway primary and a hot standby made from it by `pg_basebackup -R`
(scripts/pg-cluster start / replica), both logging every statement with the client's
application name, and `make serve` on the pair as production runs it (DATABASE_URL the
primary, DATABASE_REPLICA_URLS the standby). Which server answered a request is read
from the two servers' own logs: the statements the app's connections sent while the
request ran. With replay paused on the standby (`pg_wal_replay_pause()`) the replica
certainly lags, so what a page shows tells the two apart too:

- a reader's GET is served by the replica alone (and does not show a post written
  after replay stopped);
- a post is written on the primary, the author's next GET comes from the primary and
  shows it, until READ_YOUR_WRITES_SECONDS have passed, then from the replica again;
- once replay resumes, the post appears on the replica;
- inside a request, reads within `transaction.atomic`, `select_for_update` and writes
  go to the primary (tests/load/replica_probe.py asks the connection itself);
- with the replica stopped, GETs are served by the primary.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from tests.load.http_client import Browser, form_fields
from tests.load.test_faults import CLUSTER, DATABASE, Server
from tests.serving import free_port, make_serve, serve_environment

pytestmark = pytest.mark.postgres_only

APP = "codziennik-app"  # the app's application_name (PGAPPNAME), as the logs show it
WINDOW = 2  # READ_YOUR_WRITES_SECONDS for this server: short, so the test can outwait it
TIMEOUT = 20


@dataclass
class Node:
    directory: Path
    port: int

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{DATABASE}"

    def query(self, sql: str):
        with psycopg.connect(
            host="127.0.0.1", port=self.port, user="postgres", dbname=DATABASE,
            autocommit=True, connect_timeout=5, application_name="replica-test",
        ) as connection:  # fmt: skip
            return connection.execute(sql).fetchone()[0]

    def log_size(self) -> int:
        return (self.directory / "server.log").stat().st_size

    def app_statements(self, since: int) -> list[str]:
        """What the app's connections sent this server since the log was `since` long."""
        with (self.directory / "server.log").open("rb") as log:
            log.seek(since)
            lines = log.read().decode(errors="replace").splitlines()
        return [line for line in lines if line.startswith(f"{APP}|") and "statement:" in line]


@pytest.fixture
def pair():
    directory = Path(tempfile.mkdtemp(prefix="codziennik-replica-", dir="/tmp"))
    directory.chmod(0o755)  # the postgres user must reach both clusters' directories
    primary = Node(directory / "primary", free_port())
    replica = Node(directory / "replica", free_port())
    env = os.environ | {"PG_CLUSTER_OPTIONS": "-c log_statement=all -c log_line_prefix='%a|'"}

    def run(*args):
        subprocess.run([str(CLUSTER), *map(str, args)], check=True, timeout=120, env=env)

    try:
        run("start", primary.directory, primary.port)
        run("createdb", primary.directory, primary.port, DATABASE)
        run("replica", replica.directory, replica.port, primary.port)
        yield primary, replica
    finally:
        for node in (replica, primary):
            subprocess.run([str(CLUSTER), "stop", node.directory], check=False, timeout=60)
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def server(pair, tmp_path):
    """`make serve` on the pair (one worker, so one connection to each server)."""
    primary, replica = pair
    env = serve_environment(
        SECRET_KEY="replica-test-" + uuid.uuid4().hex,
        DATABASE_URL=primary.url,
        DATABASE_REPLICA_URLS=replica.url,
        READ_YOUR_WRITES_SECONDS=str(WINDOW),
        PGAPPNAME=APP,
        BIND=f"127.0.0.1:{free_port()}",
        WEB_CONCURRENCY="1",
        STATIC_ROOT=str(tmp_path / "static"),
    )
    with make_serve(env, tmp_path / "serve.log", timeout=120) as served:
        yield Server(served.url, served.env, served.process, served.log)


def caught_up(primary: Node, replica: Node) -> None:
    """Wait until the replica has replayed everything the primary has written so far."""
    target = primary.query("SELECT pg_current_wal_lsn()::text")
    deadline = time.monotonic() + TIMEOUT
    while not replica.query(f"SELECT pg_last_wal_replay_lsn() >= '{target}'::pg_lsn"):
        assert time.monotonic() < deadline, "the replica never caught up"
        time.sleep(0.1)


def served(primary: Node, replica: Node, request):
    """Run request(); return its answer and the app's statements on each server, leaving
    out the primary's writes a read makes (and the check of the connection they open).
    The task worker and the periodic commands beside the server are named apart
    (`<PGAPPNAME>-tasks`, scripts/serve): none of their statements is ever counted."""
    marks = primary.log_size(), replica.log_size()
    answer = request()
    on_primary = besides_reading_writes(primary.app_statements(marks[0]))
    return answer, on_primary, replica.app_statements(marks[1])


# A diary page read moves the reader's read mark and marks read the notifications about
# what it shows: the writes a read makes, which go to the primary like every write.
READING_WRITES = (
    'UPDATE "diary_readmark"',
    'INSERT INTO "diary_readmark"',
    'UPDATE "diary_notification"',
)


def besides_reading_writes(statements: list[str]) -> list[str]:
    """Everything a read does but its reading writes, which is still checked."""
    if not any(write in line for line in statements for write in READING_WRITES):
        return statements
    return [
        line
        for line in statements
        if "diary_readmark" not in line
        and not any(write in line for write in READING_WRITES)
        and not line.endswith("statement: SELECT 1")
    ]


def log_in(server: Server, username: str, password: str) -> Browser:
    browser = Browser(server.url, TIMEOUT)
    _action, fields = form_fields(browser.get("/accounts/login/").body)
    data = dict(fields) | {"username": username, "password": password}
    answer = browser.post("/accounts/login/", list(data.items()))
    assert answer.status == 302, answer.body[:500]
    return browser


def post_form(page: str, session: int) -> list[tuple[str, str]]:
    """The diary's "write a post" form (FormFields reads the form it is given)."""
    start = page.index(f'action="/sessions/{session}/posts/"')
    chunk = page[start : page.index("</form>", start)]
    return form_fields('<form method="post">' + chunk.split(">", 1)[1] + "</form>")[1]


def test_reads_go_to_the_replica_and_an_author_reads_their_own_writes(pair, server):
    primary, replica = pair
    seeded = server.manage("-m", "tests.load.server_db", "seed")
    assert seeded.returncode == 0, seeded.stderr
    seed = json.loads(seeded.stdout)
    diary = f"/sessions/{seed['session']}/"
    author = log_in(server, "gracz1", seed["password"])
    reader = log_in(server, "gracz2", seed["password"])
    assert "primary_reads" in author.cookies  # a log-in writes: its stamp is set
    caught_up(primary, replica)
    time.sleep(WINDOW + 0.5)  # the log-ins' stamps run out

    # A reader's GET: every statement on the replica, none on the primary.
    page, on_primary, on_replica = served(primary, replica, lambda: reader.get(diary))
    assert page.status == 200
    assert on_primary == [], on_primary
    assert any("diary_post" in line for line in on_replica), on_replica
    # That read cleared the reader's notifications about what it showed, a write: the
    # reader's next reads go to the primary for a while (their bell shows the clearing);
    # outwait it, so the reader below reads the replica.
    time.sleep(WINDOW + 0.5)

    # The replica stops replaying: from now on it certainly lags.
    form = post_form(author.get(diary).body, seed["session"])
    replica.query("SELECT pg_wal_replay_pause()")
    deadline = time.monotonic() + TIMEOUT
    while replica.query("SELECT pg_get_wal_replay_pause_state()") != "paused":
        assert time.monotonic() < deadline
        time.sleep(0.1)

    # The author writes: on the primary (a standby refuses writes anyway).
    marker = f"Znacznik {uuid.uuid4().hex}"
    fields = [(k, marker if k == "narration" else v) for k, v in form]
    written, on_primary, on_replica = served(
        primary, replica, lambda: author.post(diary + "posts/", fields)
    )
    assert written.status == 302, written.body[:1000]
    assert any('INSERT INTO "diary_post"' in line for line in on_primary)
    assert on_replica == []

    # The author's next read comes from the primary and shows the post at once.
    page, on_primary, on_replica = served(primary, replica, lambda: author.get(written.location))
    assert marker in page.body
    assert on_primary and on_replica == []

    # Another user's read comes from the lagging replica: no post yet.
    page, on_primary, on_replica = served(primary, replica, lambda: reader.get(diary))
    assert page.status == 200
    assert marker not in page.body
    assert on_primary == [] and on_replica, (on_primary, len(on_replica))

    # The author's window is bounded: once it has passed, the replica serves them too.
    time.sleep(WINDOW + 0.5)
    page, on_primary, on_replica = served(primary, replica, lambda: author.get(diary))
    assert marker not in page.body
    assert on_primary == [] and on_replica, (on_primary, len(on_replica))

    # Replay resumes: the write reaches the replica and the reader sees it there.
    replica.query("SELECT pg_wal_replay_resume()")
    caught_up(primary, replica)
    page, on_primary, on_replica = served(primary, replica, lambda: reader.get(diary))
    assert marker in page.body
    assert on_primary == [] and on_replica, (on_primary, len(on_replica))

    # Inside a request: transactions, locks and writes on the primary, reads on the replica.
    probe = server.manage("-m", "tests.load.replica_probe")
    assert probe.returncode == 0, probe.stderr
    assert json.loads(probe.stdout) == {
        "outside a request: read": False,
        "GET: read": True,
        "GET: queryset": True,
        "GET: select_for_update": False,
        "GET: read inside atomic": False,
        "GET: write": False,
        "POST: read": False,
    }

    # The replica dies: reads fall back to the primary, no error page.
    subprocess.run([str(CLUSTER), "stop", replica.directory], check=True, timeout=60)
    page, on_primary, _ = served(primary, replica, lambda: reader.get(diary))
    assert page.status == 200
    assert marker in page.body
    assert any("diary_post" in line for line in on_primary)
