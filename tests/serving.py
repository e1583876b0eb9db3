"""`make serve` on a free loopback port, as production runs it: started, waited for, stopped.

One helper for everything that needs the real production server: the production test
(tests/browser/test_production.py), the load test (tests/load/test_faults.py) and the HTTP
benchmark (bench/http_bench.py). The server runs in its own process group, so stopping it
ends make, gunicorn and every worker together.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


class ServeFailed(AssertionError):
    """`make serve` exited, or never answered; the message holds its log."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_environment(**settings: str) -> dict[str, str]:
    """This process's environment without the test runner's Django settings or DEBUG,
    plus plain-HTTP loopback defaults and the given settings (README's configuration)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "PYTEST_")) and key != "DEBUG"
    }
    env.update(
        {
            "ALLOWED_HOSTS": "127.0.0.1",
            "SECURE_COOKIES": "0",  # plain HTTP on loopback: no TLS proxy in front
            "LOG_LEVEL": "WARNING",
        }
    )
    env.update(settings)
    return env


@dataclass
class Served:
    url: str
    env: dict
    process: subprocess.Popen
    log: Path

    def children(self, pid: int) -> list[int]:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]

    def master(self) -> int:
        """gunicorn's master: the first gunicorn below make (scripts/serve execs it)."""
        queue = self.children(self.process.pid)
        while queue:
            candidate = queue.pop(0)
            if b"gunicorn" in Path(f"/proc/{candidate}/cmdline").read_bytes():
                return candidate
            queue += self.children(candidate)
        raise AssertionError(f"no gunicorn process under {self.process.pid}")

    def workers(self) -> set[int]:
        # Only gunicorn's own: scripts/serve's task-worker loop is the master's child too
        # (forked before the exec into gunicorn).
        return {
            pid
            for pid in self.children(self.master())
            if b"gunicorn" in Path(f"/proc/{pid}/cmdline").read_bytes()
        }


@contextmanager
def make_serve(
    env: dict[str, str],
    log: Path,
    *,
    ready_path: str = "/accounts/login/",
    timeout: float = 180,
) -> Iterator[Served]:
    """Run `make serve` with this environment (BIND must name a loopback port) until the
    block ends; ready once `ready_path` answers (it migrates and collects static first)."""
    url = "http://" + env["BIND"]
    with log.open("w") as output:
        process = subprocess.Popen(
            ["make", "--no-print-directory", "serve"],
            cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: gunicorn's workers stop with it
        )  # fmt: skip
        try:
            deadline = time.monotonic() + timeout
            while True:
                if process.poll() is not None:
                    raise ServeFailed("make serve exited:\n" + log.read_text())
                try:
                    urllib.request.urlopen(url + ready_path, timeout=15)
                    break
                except (urllib.error.URLError, OSError):  # refused, reset, or still starting
                    if time.monotonic() > deadline:
                        problem = "make serve never answered:\n" + log.read_text()
                        raise ServeFailed(problem) from None
                    time.sleep(0.5)
            yield Served(url, env, process, log)
        finally:
            stop(process)


def stop(process: subprocess.Popen) -> None:
    """End the server's own process group (make, gunicorn and its workers)."""
    for sig, wait in ((signal.SIGTERM, 30), (signal.SIGKILL, 10)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue
