"""The HTTP benchmark: the production server under wrk, beside a trivial
endpoint and pgbench's chain append on the same database, in one run.

    SECRET_KEY=bench scripts/with-postgres .venv/bin/python bench/http_bench.py
    make bench-http               # the same on a throwaway cluster of its own (durable commits)
    ... bench/http_bench.py --quick   # a two-minute smoke run

What it does (docs/performance.md, "HTTP benchmark", shows the figures):

1. Seeds the database (bench/http_seed.py): a running forum1000 session with 100 k posts
   (a player and the GM log in), and 8 more sessions the GM rolls in.
2. Starts the README's production command, `make serve` (tests/serving.py), DEBUG off,
   on a free port; each --variant is the same command with other settings.
3. Drives it with wrk at 1, 8 and 32 connections, cell after cell, the repeats interleaved
   so the shared machine's noise hits every cell alike: bare Django's "ok" view
   (bench/bare_django.py, gunicorn with the same workers and timeout: the baseline the
   goals are fractions of), /health/ (the trivial endpoint),
   the diary's newest page as the player, the live poll with nothing new, the panel
   preview (the htmx redraw), "Roll" in one session and spread over 8 (bench/wrk/*.lua),
   and pgbench running bench/chain_append.sql (one head, and 8) on the same database.
   For each cell, the CPU time the app's gunicorn workers spent per request (per stored roll).
4. After each roll cell: exact accounting (every acknowledged roll stored once, nothing
   stored that was not sent) and `manage.py verify_rolls` for the sessions rolled in.
5. Profiles one diary page and one roll in-process (pyinstrument), against the same data.
6. Writes bench/results/<UTC time>/results.json and results.md (medians of the repeats).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from html import unescape
from pathlib import Path
from urllib.parse import urlencode, urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.load.http_client import Browser, form_fields  # noqa: E402
from tests.serving import free_port, make_serve, serve_environment  # noqa: E402

LUA = ROOT / "bench" / "wrk"
CHAIN_SQL = ROOT / "bench" / "chain_append.sql"
CLUSTER = ROOT / "scripts" / "pg-cluster"
EXTRA_ACTION_REASON = "Benchmark: MG pozwala na kolejny rzut akcji"
# The reference figures and the goals (docs/performance.md) are at 8 connections.
TABLE_CONNECTIONS = 8
HTTP_CELLS = ("bare", "trivial", "page", "poll", "preview", "roll_one", "roll_spread")
PG_CELLS = ("pgbench_one", "pgbench_spread")


def log(message: str) -> None:
    print(f"[{datetime.now(UTC):%H:%M:%S}] {message}", flush=True)


# ---------------------------------------------------------------------------
# The database


def own_cluster(directory: str) -> str:
    """A throwaway cluster with production's durability (the suite's turns it off)."""
    port = free_port()
    options = "-c fsync=on -c synchronous_commit=on -c full_page_writes=on"
    env = os.environ | {"PG_CLUSTER_OPTIONS": options}
    subprocess.run([str(CLUSTER), "start", directory, str(port)], check=True, env=env)
    subprocess.run([str(CLUSTER), "createdb", directory, str(port), "codziennik"], check=True)
    return f"postgres://postgres@127.0.0.1:{port}/codziennik"


def setup_django(database_url: str) -> None:
    os.environ["DATABASE_URL"] = database_url
    os.environ.pop("DEBUG", None)
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    # The in-process profiles use Django's test client (host "testserver").
    os.environ["ALLOWED_HOSTS"] = "127.0.0.1,testserver"
    os.environ["SECURE_COOKIES"] = "0"  # plain HTTP, as the server is run here
    os.environ.setdefault("STATIC_ROOT", tempfile.mkdtemp(prefix="http-bench-static-"))
    import django

    django.setup()


def close_db() -> None:
    from django.db import connections

    connections.close_all()


def database_facts() -> dict:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT version()")
        (version,) = cursor.fetchone()
        facts = {"version": version.split(",")[0]}
        for name in ("fsync", "synchronous_commit", "max_connections", "shared_buffers"):
            cursor.execute(f"SHOW {name}")
            facts[name] = cursor.fetchone()[0]
    close_db()
    return facts


# ---------------------------------------------------------------------------
# The browsers: log-ins, forms and URLs for wrk


def log_in(url: str, username: str, password: str) -> Browser:
    browser = Browser(url, 60)
    _action, fields = form_fields(browser.get("/accounts/login/").body)
    data = dict(fields) | {"username": username, "password": password}
    answer = browser.post("/accounts/login/", list(data.items()))
    assert answer.status == 302 and "sessionid" in browser.cookies, answer.status
    return browser


def cookie_header(browser: Browser) -> str:
    return "; ".join(f"{k}={v}" for k, v in browser.cookies.items())


def panel_form(gm: Browser, session: int, character: int, attribute: int) -> dict:
    """The GM's panel for an attribute test of this character: its signed URL (the
    preview's) and the form "Roll" sends, with @TOKEN@ for the one-time token."""
    panel = f"/sessions/{session}/rolls/panel/"
    query = urlencode({"mode": "attribute", "a-character": character, "a-attribute": attribute})
    link = gm.get(f"{panel}?{query}")
    assert link.status == 302, link.status
    page = gm.get(link.location)
    assert page.status == 200, page.status
    action, fields = form_fields(page.body, "panel-form")
    fields = [(k, v) for k, v in fields if k not in {"extra_action_reason", "token"}]
    fields.append(("extra_action_reason", EXTRA_ACTION_REASON))
    body = urlencode(fields) + "&token=@TOKEN@"
    path = urlsplit(action).path if action else panel
    location = urlsplit(link.location)
    return {"path": path, "body": body, "preview": f"{location.path}?{location.query}"}


def poll_url(player: Browser, session: int) -> str:
    """The live poll the diary's newest page asks every few seconds (with its marker)."""
    page = player.get(f"/sessions/{session}/")
    assert page.status == 200, page.status
    found = re.search(r'hx-get="(/sessions/\d+/live/[^"]*)"', page.body)
    assert found, "the diary page has no live poll"
    return unescape(found.group(1))


# ---------------------------------------------------------------------------
# wrk and pgbench


def drain(url: str, limit: float = 60) -> float:
    """Wait until the server is idle again: wrk stops at its deadline, but requests it left
    in gunicorn's listen queue are still served, and would eat into the next cell. Idle:
    two /health/ answers in a row within 50 ms. Returns the seconds waited."""
    started = time.monotonic()
    quick = 0
    while quick < 2 and time.monotonic() - started < limit:
        asked = time.monotonic()
        try:
            urllib.request.urlopen(url + "/health/", timeout=limit).read()
        except OSError:
            time.sleep(0.2)
            continue
        quick = quick + 1 if time.monotonic() - asked < 0.05 else 0
    return time.monotonic() - started


@contextmanager
def bare_server(workers: int, log_file: Path) -> Iterator[str]:
    """bench/bare_django.py under gunicorn, `make serve`'s settings (workers, timeout,
    log level) but nothing of the app; yields its URL."""
    url = f"http://127.0.0.1:{free_port()}"
    command = [
        str(ROOT / ".venv/bin/gunicorn"), "bench.bare_django:application",
        "--bind", url.removeprefix("http://"), "--workers", str(workers),
        "--timeout", os.environ.get("GUNICORN_TIMEOUT", "30"), "--log-level", "warning",
    ]  # fmt: skip
    with log_file.open("w") as output:
        process = subprocess.Popen(
            command, cwd=ROOT, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    urllib.request.urlopen(url + "/health/", timeout=15).read()
                    break
                except OSError:
                    if process.poll() is not None or time.monotonic() > deadline:
                        problem = "bare Django never answered:\n" + log_file.read_text()
                        raise RuntimeError(problem) from None
                    time.sleep(0.3)
            yield url
        finally:
            os.killpg(process.pid, 15)
            process.wait(timeout=30)


def cpu_seconds(pids) -> dict[int, float]:
    """User + system CPU time of these processes (gone ones left out)."""
    tick = os.sysconf("SC_CLK_TCK")
    seconds = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        seconds[pid] = (int(fields[11]) + int(fields[12])) / tick
    return seconds


def wrk(url: str, path: str, *, connections: int, seconds: float, script: str, env: dict):
    drain(url)
    threads = min(connections, 2)
    out = Path(tempfile.mkstemp(suffix=".json")[1])
    run_env = (
        os.environ
        | env
        | {
            "BENCH_OUT": str(out),
            "BENCH_LUA_DIR": str(LUA),
            "BENCH_THREADS": str(threads),
        }
    )
    command = [
        "wrk", f"-t{threads}", f"-c{connections}", f"-d{round(seconds)}s", "--timeout", "25s",
        "-s", str(LUA / script), url + path,
    ]  # fmt: skip
    limit = seconds + 60
    done = subprocess.run(command, env=run_env, capture_output=True, text=True, timeout=limit)
    if done.returncode != 0 or not out.stat().st_size:
        raise RuntimeError(f"wrk failed: {done.stdout}{done.stderr}")
    result = json.loads(out.read_text())
    out.unlink()
    seconds_run = result["duration_us"] / 1e6
    threads_seen = result.get("threads", {})
    return {
        "connections": connections,
        "requests": result["requests"],
        "rps": result["requests"] / seconds_run,
        "p50_ms": result["p50_us"] / 1000,
        "p99_ms": result["p99_us"] / 1000,
        "max_ms": result["max_us"] / 1000,
        "errors": result["errors"],
        "statuses": threads_seen.get("statuses", {}),
        "sent": threads_seen.get("sent"),
        "acknowledged": threads_seen.get("acknowledged"),
        "exhausted": threads_seen.get("exhausted"),
        "seconds": seconds_run,
    }


def pg_args(database_url: str) -> list[str]:
    parts = urlsplit(database_url)
    return [
        "-h", parts.hostname or "127.0.0.1", "-p", str(parts.port or 5432),
        "-U", parts.username or "postgres", parts.path.lstrip("/"),
    ]  # fmt: skip


def pgbench_binary() -> str:
    found = shutil.which("pgbench")
    if found:
        return found
    return sorted(Path("/usr/lib/postgresql").glob("*/bin/pgbench"))[-1].as_posix()


def chain_tables(heads: int) -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS bench_chain_roll, bench_chain_head")
        cursor.execute("CREATE TABLE bench_chain_head (id int PRIMARY KEY, seq bigint, hash text)")
        cursor.execute(
            "CREATE TABLE bench_chain_roll (id bigserial PRIMARY KEY, head_id int NOT NULL"
            " REFERENCES bench_chain_head, seq bigint NOT NULL, prev_hash text NOT NULL,"
            " hash text NOT NULL, record jsonb NOT NULL, UNIQUE (head_id, seq))"
        )
        cursor.execute(
            "INSERT INTO bench_chain_head SELECT n, 0, repeat('0', 64)"
            " FROM generate_series(1, %s) n",
            [heads],
        )
    close_db()


def pgbench(database_url: str, *, clients: int, seconds: float, heads: int) -> dict:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM bench_chain_roll")
        (before,) = cursor.fetchone()
    close_db()
    with tempfile.TemporaryDirectory() as logs:
        command = [
            pgbench_binary(), "-n", "-M", "prepared", "-f", str(CHAIN_SQL),
            "-c", str(clients), "-j", str(min(clients, 2)), "-T", str(int(seconds)),
            "-D", f"heads={heads}", "--log", "--log-prefix", f"{logs}/tx",
            *pg_args(database_url),
        ]  # fmt: skip
        done = subprocess.run(command, check=True, capture_output=True, text=True, cwd=logs)
        latencies = sorted(
            int(line.split()[2]) / 1000
            for path in Path(logs).glob("tx*")
            for line in path.read_text().splitlines()
        )
    tps = float(re.search(r"tps = ([\d.]+) \(without initial connection time\)", done.stdout)[1])
    processed = int(re.search(r"number of transactions actually processed: (\d+)", done.stdout)[1])
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM bench_chain_roll")
        (after,) = cursor.fetchone()
    close_db()
    assert after - before == processed, (after - before, processed)  # every commit one row
    return {
        "connections": clients,
        "requests": processed,
        "rps": tps,
        "p50_ms": percentile(latencies, 50),
        "p99_ms": percentile(latencies, 99),
        "max_ms": latencies[-1] if latencies else 0.0,
        "errors": {},
        "statuses": {},
        "stored": after - before,
    }


def percentile(values: list[float], p: float) -> float:
    """Nearest rank."""
    if not values:
        return 0.0
    rank = max(1, round(p / 100 * len(values) + 0.5))
    return values[min(len(values), rank) - 1]


# ---------------------------------------------------------------------------
# The roll cells: tokens in, exact accounting out


def roll_cell(served, seed, forms, sessions, *, connections, seconds, cookie, tokens_per_s):
    from bench.http_seed import issue_tokens, rolls_after

    session_ids = [s["session"] for s in sessions]
    count = int(tokens_per_s * seconds)
    tokens = issue_tokens(seed["gm"], session_ids, count)
    drain(served.url)  # nothing of an earlier cell still rolling
    newest, _ = rolls_after(session_ids, 0)
    close_db()
    with tempfile.TemporaryDirectory() as work:
        forms_file, tokens_file = Path(work, "forms.tsv"), Path(work, "tokens.tsv")
        forms_file.write_text("".join(f"{f['path']}\t{f['body']}\n" for f in forms))
        tokens_file.write_text("".join(f"{index}\t{token}\n" for index, token in tokens))
        result = wrk(
            served.url, "/health/", connections=connections, seconds=seconds,
            script="roll.lua",
            env={"BENCH_COOKIE": cookie, "BENCH_FORMS": str(forms_file),
                 "BENCH_TOKENS": str(tokens_file)},
        )  # fmt: skip
    # The rolls wrk sent but stopped waiting for are still served: count them in.
    result["drained_seconds"] = drain(served.url)
    _, stored = rolls_after(session_ids, newest)
    close_db()
    issued = {str(read_uuid(token)) for _index, token in tokens}
    accounting = {
        "sent": result["sent"],
        "acknowledged": result["acknowledged"],
        "stored": len(stored),
        "duplicates": len(stored) - len(set(stored)),
        "not_sent": len(set(stored) - issued),
        "tokens_ran_out": bool(result["exhausted"]),
    }
    accounting["ok"] = (
        accounting["duplicates"] == 0
        and accounting["not_sent"] == 0
        and result["acknowledged"] <= len(stored) <= result["sent"]
    )
    verified = subprocess.run(
        [str(ROOT / ".venv/bin/python"), "manage.py", "verify_rolls",
         *[arg for pk in session_ids for arg in ("--session", str(pk))]],
        cwd=ROOT, env=served.env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    accounting["verify_rolls"] = "passed" if verified.returncode == 0 else verified.stdout[-2000:]
    result["accounting"] = accounting
    result["rps"] = result["acknowledged"] / result["seconds"]  # rolls/s: acknowledged only
    return result


def read_uuid(signed: str):
    import uuid

    return uuid.UUID(signed.split(":", 1)[0])


# ---------------------------------------------------------------------------
# Profiles, in-process


def profiles(seed: dict, directory: Path) -> dict:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from pyinstrument import Profiler

    from bench.http_seed import issue_tokens

    users = get_user_model().objects
    big = seed["big"]
    player, gm = Client(), Client()
    player.force_login(users.get(username=seed["player"]))
    gm.force_login(users.get(username=seed["gm"]))
    page_url = f"/sessions/{big['session']}/"
    panel = f"/sessions/{big['session']}/rolls/panel/"
    query = {"mode": "attribute", "a-character": big["character"], "a-attribute": seed["attribute"]}
    link = gm.get(panel, query)
    fields = dict(form_fields(gm.get(link["Location"]).content.decode(), "panel-form")[1])
    fields["extra_action_reason"] = EXTRA_ACTION_REASON
    written = {}

    def profile(name, make_request, expected):
        make_request()  # warm: imports, the template cache, the connection
        profiler = Profiler(interval=0.0005)
        with CaptureQueriesContext(connection) as queries:
            profiler.start()
            response = make_request()
            profiler.stop()
        assert response.status_code == expected, (name, response.status_code)
        written[f"{name}_queries"] = len(queries)
        (directory / f"profile-{name}.txt").write_text(
            profiler.output_text(unicode=True, color=False, show_all=False)
        )
        (directory / f"profile-{name}.html").write_text(profiler.output_html())
        written[name] = f"profile-{name}.txt"

    tokens = iter(t for _i, t in issue_tokens(seed["gm"], [big["session"]], 4))
    profile("page", lambda: player.get(page_url), 200)
    profile("roll", lambda: gm.post(panel, fields | {"token": next(tokens)}), 302)
    # The poll and the preview: their query counts only (docs/performance.md's table has them).
    page = player.get(page_url).content.decode()
    seen = unescape(re.search(r'hx-get="(/sessions/\d+/live/[^"]*)"', page).group(1))
    from diary.live.listener import markers

    markers.wait_listening()  # the poll's copy of the marker is this worker's (PostgreSQL)
    for name, make_request, expected in [
        ("poll", lambda: player.get(seen), 204),
        ("preview", lambda: gm.get(link["Location"], headers={"HX-Request": "true"}), 200),
    ]:
        make_request()  # the poll: the full check, which grants the "nothing new" cookie
        make_request()  # the poll: the marker's one query, which fills this worker's copy
        with CaptureQueriesContext(connection) as queries:
            response = make_request()
        assert response.status_code == expected, (name, response.status_code)
        written[f"{name}_queries"] = len(queries)
    markers.stop()
    close_db()
    return written


# ---------------------------------------------------------------------------
# The run


def parse_variant(text: str) -> tuple[str, dict]:
    name, _, settings = text.partition(":")
    env = dict(item.split("=", 1) for item in settings.split(",") if item)
    return name, env


def run(args) -> dict:
    from bench.http_seed import rolls_in_current_turn
    from bench.http_seed import seed as seed_database

    started = time.monotonic()
    log(f"seeding: {args.posts} posts in the big session, {args.spread} more sessions")
    subprocess.run(
        [str(ROOT / ".venv/bin/python"), "manage.py", "migrate", "--no-input", "-v", "0"],
        cwd=ROOT, check=True,
    )  # fmt: skip
    seed = seed_database(posts=args.posts, spread=args.spread)
    close_db()
    log(f"seeded in {time.monotonic() - started:.0f} s")
    chain_tables(heads=args.spread)
    cells = [c for c in args.cells.split(",") if c]
    variants = [parse_variant(v) for v in args.variant] or [("make-serve", {})]
    runs: list[dict] = []
    meta: dict = {"variants": {}}
    work = Path(tempfile.mkdtemp(prefix="http-bench-"))
    try:
        for repeat in range(args.repeats):
            for name, settings in variants:
                env = serve_environment(
                    SECRET_KEY=os.environ["SECRET_KEY"],
                    DATABASE_URL=os.environ["DATABASE_URL"],
                    BIND=f"127.0.0.1:{free_port()}",
                    STATIC_ROOT=os.environ["STATIC_ROOT"],  # the profiles' manifest too
                    **settings,
                )
                with make_serve(env, work / f"serve-{name}.log", ready_path="/health/") as served:
                    workers = len(served.workers())
                    meta["variants"][name] = {"settings": settings, "workers": workers}
                    log(f"repeat {repeat + 1}/{args.repeats}, {name}: {workers} workers")
                    with bare_server(workers, work / "bare.log") as bare_url:
                        runs += measure(args, served, seed, cells, name, repeat, bare_url)
                for cell in ("preview",):
                    if cell in cells:
                        meta.setdefault("rolls_in_turn", []).append(
                            rolls_in_current_turn(seed["big"]["session"])
                        )
                        close_db()
            if any(c in cells for c in PG_CELLS):
                runs += measure_pgbench(args, cells, repeat)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    meta["seconds"] = round(time.monotonic() - started)
    return {"seed": seed, "runs": runs, "meta": meta}


def measure(args, served, seed, cells, variant, repeat, bare_url) -> list[dict]:
    gm = log_in(served.url, seed["gm"], seed["password"])
    player = log_in(served.url, seed["player"], seed["password"])
    big = seed["big"]
    big_form = panel_form(gm, big["session"], big["character"], seed["attribute"])
    spread_forms = [
        panel_form(gm, s["session"], s["character"], seed["attribute"]) for s in seed["spread"]
    ]
    results = []
    for connections in args.connections:
        for cell in cells:
            base = {"cell": cell, "variant": variant, "repeat": repeat}
            common = {"connections": connections, "seconds": args.seconds}
            workers = served.workers()
            cpu_before = cpu_seconds(workers)
            if cell == "bare":
                result = wrk(bare_url, "/", script="get.lua", env={}, **common)
            elif cell == "trivial":
                result = wrk(served.url, "/health/", script="get.lua", env={}, **common)
            elif cell == "page":
                cookie = {"BENCH_COOKIE": cookie_header(player)}
                path = f"/sessions/{big['session']}/"
                result = wrk(served.url, path, script="get.lua", env=cookie, **common)
            elif cell == "poll":
                path = poll_url(player, big["session"])
                # A browser's first poll takes the full check, whose answer grants it
                # "nothing new" for 30 s (a signed cookie): wrk sends it with every request.
                assert player.get(path).status == 204
                cookie = {"BENCH_COOKIE": cookie_header(player)}
                result = wrk(served.url, path, script="get.lua", env=cookie, **common)
            elif cell == "preview":
                env = {"BENCH_COOKIE": cookie_header(gm), "BENCH_HTMX": "1"}
                result = wrk(served.url, big_form["preview"], script="get.lua", env=env, **common)
            elif cell in ("roll_one", "roll_spread"):
                one = cell == "roll_one"
                result = roll_cell(
                    served, seed, [big_form] if one else spread_forms,
                    [big] if one else seed["spread"], cookie=cookie_header(gm),
                    tokens_per_s=args.tokens_per_second, **common,
                )  # fmt: skip
            else:
                continue
            if cell != "bare":  # the app's workers' CPU time per request (per stored roll)
                cpu_after = cpu_seconds(workers)
                spent = sum(cpu_after[p] - cpu_before[p] for p in cpu_after if p in cpu_before)
                done = result.get("accounting", {}).get("stored") or result["requests"]
                result["cpu_ms"] = 1000 * spent / done if done else None
            results.append(base | result)
            log(describe(results[-1]))
    return results


def measure_pgbench(args, cells, repeat) -> list[dict]:
    results = []
    for connections in args.connections:
        for cell in PG_CELLS:
            if cell in cells:
                heads = 1 if cell == "pgbench_one" else args.spread
                result = pgbench(
                    os.environ["DATABASE_URL"], clients=connections, seconds=args.seconds,
                    heads=heads,
                )  # fmt: skip
                results.append({"cell": cell, "variant": "-", "repeat": repeat} | result)
                log(describe(results[-1]))
    return results


def describe(result: dict) -> str:
    text = (
        f"{result['variant']:>12} {result['cell']:<14} c={result['connections']:<3}"
        f" {result['rps']:8.1f}/s p50 {result['p50_ms']:7.1f} ms p99 {result['p99_ms']:7.1f} ms"
    )
    if result.get("cpu_ms"):
        text += f" cpu {result['cpu_ms']:.1f} ms/req"
    if result.get("statuses"):
        text += f" statuses {result['statuses']}"
    if errors := {k: v for k, v in (result.get("errors") or {}).items() if v}:
        text += f" errors {errors}"
    if accounting := result.get("accounting"):
        text += (
            f" | sent {accounting['sent']} ack {accounting['acknowledged']}"
            f" stored {accounting['stored']} ok={accounting['ok']}"
            f" verify={accounting['verify_rolls'] == 'passed'}"
        )
    return text


# ---------------------------------------------------------------------------
# The report


def medians(runs: list[dict]) -> dict:
    grouped: dict[tuple, list[dict]] = {}
    for run_ in runs:
        grouped.setdefault((run_["variant"], run_["cell"], run_["connections"]), []).append(run_)
    table = {}
    for key, group in grouped.items():
        table[key] = {
            "rps": statistics.median(r["rps"] for r in group),
            "p50_ms": statistics.median(r["p50_ms"] for r in group),
            "p99_ms": statistics.median(r["p99_ms"] for r in group),
            "cpu_ms": (
                statistics.median(r["cpu_ms"] for r in group if r.get("cpu_ms"))
                if any(r.get("cpu_ms") for r in group)
                else None
            ),
            "runs": [round(r["rps"], 1) for r in group],
        }
    return table


NAMES = {
    "bare": 'bare Django "ok" view (bench/bare_django.py)',
    "trivial": "trivial endpoint `/health/`",
    "page": "diary newest page, 100 k-post session (player)",
    "poll": "live poll, nothing new",
    "preview": "panel preview (htmx GET)",
    "roll_one": "roll append through the panel, one session (rolls/s)",
    "roll_spread": "roll append spread over 8 sessions (rolls/s)",
    "pgbench_one": "pgbench chain append, one session",
    "pgbench_spread": "pgbench chain append, 8 sessions",
}


def report(data: dict, args) -> str:
    table = medians(data["runs"])
    meta = data["meta"]
    lines = [
        f"# HTTP benchmark, {meta['date']}",
        "",
        f"Command: `{meta['command']}`",
        "",
        f"Machine: {meta['machine']}; PostgreSQL: {meta['database']}; "
        f"load average at start {meta['load_start']}, at end {meta['load_end']}; "
        f"{args.repeats} repeats of {args.seconds} s per cell, medians;"
        f" run took {meta['seconds']} s.",
        "",
    ]
    for variant, about in meta["variants"].items():
        lines.append(
            f"Server `{variant}`: {about['workers']} workers, settings {about['settings']}"
        )
    if meta.get("rolls_in_turn"):
        lines.append(f"Rolls in the big session's turn after each repeat: {meta['rolls_in_turn']}")
    lines += ["", "| server | what | c | req/s | p50 ms | p99 ms | CPU ms/req | runs (req/s) |"]
    lines.append("|---|---|---:|---:|---:|---:|---:|---|")
    for (variant, cell, connections), row in sorted(
        table.items(), key=lambda kv: (kv[0][0], list(NAMES).index(kv[0][1]), kv[0][2])
    ):
        lines.append(
            f"| {variant} | {NAMES[cell]} | {connections} | {row['rps']:.1f} |"
            f" {row['p50_ms']:.1f} | {row['p99_ms']:.1f} |"
            f" {'' if row.get('cpu_ms') is None else format(row['cpu_ms'], '.1f')} |"
            f" {', '.join(map(str, row['runs']))} |"
        )
    lines += ["", f"The goals, at c={TABLE_CONNECTIONS} (docs/performance.md):", ""]
    lines += ["| server | what | measured | goal | met |", "|---|---|---|---|---|"]
    for variant in meta["variants"]:
        for text, goal, verdict in ratios(table, variant, TABLE_CONNECTIONS):
            lines.append(f"| {variant} | {text} | {goal} | {verdict} |")
    lines += [
        "",
        "Accounting after each roll run (acknowledged ≤ stored ≤ sent, no duplicate):",
        "",
    ]
    for run_ in data["runs"]:
        if accounting := run_.get("accounting"):
            lines.append(
                f"- {run_['variant']} {run_['cell']} c={run_['connections']} repeat"
                f" {run_['repeat'] + 1}: sent {accounting['sent']}, acknowledged"
                f" {accounting['acknowledged']}, stored {accounting['stored']}, duplicates"
                f" {accounting['duplicates']}, not sent {accounting['not_sent']},"
                f" {'OK' if accounting['ok'] else 'FAILED'}; verify_rolls"
                f" {'passed' if accounting['verify_rolls'] == 'passed' else 'FAILED'}"
            )
    if profiled := data.get("profiles"):
        written = ", ".join(v for k, v in profiled.items() if not k.endswith("_queries"))
        lines += ["", f"Profiles (pyinstrument, in-process, one request each): {written}"]
        counts = ", ".join(
            f"{k.removesuffix('_queries')} {v}"
            for k, v in profiled.items()
            if k.endswith("_queries")
        )
        if counts:
            lines.append(f"SQL queries per request (in-process, after the run): {counts}")
    return "\n".join(lines) + "\n"


def ratios(table: dict, variant: str, c: int) -> list[tuple[str, str, str]]:
    """The speed goals (docs/performance.md, "The speed goals, side by side"): each
    measured against bare Django (or pgbench, or one session) in this same run, at c
    connections, except the preview's p99 (at one). Rows: what, measured, goal, met."""

    def row(cell, v=variant, n=c):
        return table.get((v, cell, n))

    def rps(cell, v=variant, n=c):
        found = row(cell, v, n)
        return found["rps"] if found else None

    def met(ok: bool) -> str:
        return "met" if ok else "**not met**"

    bare, pg_one = rps("bare"), rps("pgbench_one", "-")
    rows = []
    if bare and (trivial := rps("trivial")):
        rows.append((f"{NAMES['trivial']}, c={c} | {trivial / bare:.3f} × bare", "—", ""))
    for cell, floor in (("page", 0.08), ("poll", 0.7)):
        if bare and (value := rps(cell)):
            ratio = value / bare
            text = f"{NAMES[cell]}, c={c} | {value:.1f}/s = {ratio:.3f} × bare"
            rows.append((text, f"≥ {floor} × bare", met(ratio >= floor)))
    if (one := row("roll_one")) and pg_one:
        ratio = one["rps"] / pg_one
        text = f"{NAMES['roll_one']}, c={c} | {one['rps']:.1f}/s = {ratio:.3f} × pgbench"
        rows.append((text, "≥ 0.1 × pgbench (fsync on)", met(ratio >= 0.1)))
        if one.get("cpu_ms") is not None:
            text = f"… CPU of the app's workers per stored roll | {one['cpu_ms']:.1f} ms"
            rows.append((text, "≤ 8 ms", met(one["cpu_ms"] <= 8)))
    if (spread := rps("roll_spread")) and (one_rps := rps("roll_one")):
        ratio = spread / one_rps
        text = f"{NAMES['roll_spread']}, c={c} | {spread:.1f}/s = {ratio:.2f} × one session"
        rows.append((text, "≥ 1.5 × one session", met(ratio >= 1.5)))
    if preview := row("preview", n=1):
        text = (
            f"{NAMES['preview']}, c=1 | p50 {preview['p50_ms']:.1f} ms,"
            f" p99 {preview['p99_ms']:.1f} ms"
        )
        rows.append((text, "p99 ≤ 20 ms", met(preview["p99_ms"] <= 20)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run of about 2 minutes")
    parser.add_argument("--posts", type=int, default=100_000)
    parser.add_argument("--spread", type=int, default=8)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--connections", default="1,8,32")
    parser.add_argument("--cells", default=",".join(HTTP_CELLS + PG_CELLS))
    parser.add_argument(
        "--tokens-per-second",
        type=int,
        default=3000,
        help="roll tokens issued per second of a roll cell (enough to spare)",
    )
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        help="NAME:KEY=VALUE,... another `make serve` setting (repeatable)",
    )
    parser.add_argument("--no-profiles", action="store_true")
    parser.add_argument("--report", metavar="RESULTS_JSON", help="only rewrite its results.md")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args()
    if args.quick:  # fewer posts, shorter cells, one repeat, no 32 (unless asked)
        args.posts, args.seconds, args.repeats = min(args.posts, 10_000), 3, 1
        if "--connections" not in sys.argv:
            args.connections = "1,8"
    args.connections = [int(c) for c in args.connections.split(",")]
    if args.report:
        saved = Path(args.report)
        data = json.loads(saved.read_text())
        args.repeats = data["meta"].get("repeats", 3)
        args.seconds = data["meta"].get("cell_seconds", 5)
        (saved.parent / "results.md").write_text(report(data, args))
        return
    if not os.environ.get("SECRET_KEY"):
        raise SystemExit("SECRET_KEY must be set (the server and the seeded tokens share it)")
    subprocess.run([str(ROOT / "scripts" / "ensure-wrk")], check=True)

    cluster_dir = None
    database_url = os.environ.get("DATABASE_URL", "")
    if not database_url.startswith(("postgres://", "postgresql://")):
        cluster_dir = tempfile.mkdtemp(prefix="codziennik-bench-", dir="/tmp")
        database_url = own_cluster(cluster_dir)
    try:
        setup_django(database_url)
        meta = {
            "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "command": " ".join(["bench/http_bench.py", *sys.argv[1:]]),
            "machine": f"{os.cpu_count()} cores, {platform.processor() or platform.machine()},"
            f" Python {platform.python_version()}",
            "load_start": os.getloadavg()[0],
            "repeats": args.repeats,
            "cell_seconds": args.seconds,
            "database": database_facts(),
        }
        data = run(args)
        data["meta"] |= meta | {"load_end": os.getloadavg()[0]}
        directory = Path(args.out) / datetime.now(UTC).strftime("%Y-%m-%dT%H%MZ")
        directory.mkdir(parents=True, exist_ok=True)
        if not args.no_profiles:
            data["profiles"] = profiles(data["seed"], directory)
        data["medians"] = [
            {"variant": v, "cell": c, "connections": n} | row
            for (v, c, n), row in medians(data["runs"]).items()
        ]
        (directory / "results.json").write_text(json.dumps(data, indent=1, default=str))
        (directory / "results.md").write_text(report(data, args))
        print(report(data, args))
        log(f"results in {directory}")
        failed = [
            r
            for r in data["runs"]
            if r.get("accounting")
            and not (r["accounting"]["ok"] and r["accounting"]["verify_rolls"] == "passed")
        ]
        if failed:
            raise SystemExit(f"accounting failed in {len(failed)} roll runs (see results.md)")
    finally:
        if cluster_dir:
            close_db()
            subprocess.run([str(CLUSTER), "stop", cluster_dir], check=False)
            shutil.rmtree(cluster_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
