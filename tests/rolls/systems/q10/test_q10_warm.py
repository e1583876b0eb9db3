"""The Q10 odds tables are built when the app starts, not in a request."""

import os
import subprocess
import sys
from pathlib import Path

from rolls.engine import q10

ROOT = Path(__file__).resolve().parents[4]
POOLS = 66  # 0 ≤ Y ≤ X ≤ 10


def test_warm_builds_every_pool_table():
    q10.clear_caches()
    assert q10.built_pools() == 0
    assert q10.warm() == POOLS
    # Built, not merely counted: the odds afterwards add no table.
    q10.pool_probability(10, 10, 47)
    q10.pool_probability(0, 0, 3)
    assert q10.built_pools() == POOLS


def _probe(code: str) -> str:
    env = os.environ | {"DJANGO_SETTINGS_MODULE": "config.settings"}
    env.pop("DEBUG", None)
    env.setdefault("SECRET_KEY", "x")
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_management_process_does_not_pay_for_the_tables():
    """manage.py commands, the task worker and the tests set Django up without the server's
    entry point: they build no table they will not use."""
    out = _probe(
        "import django\ndjango.setup()\nfrom rolls.engine import q10\nprint(q10.built_pools())\n"
    )
    assert int(out) == 0


def test_the_started_app_has_every_pool_table():
    """A fresh process that loads the app as gunicorn does (config.wsgi) has all 66 tables
    before it serves anything."""
    probe = (
        "import config.wsgi\n"
        "from rolls.engine import q10\n"
        "print(q10.built_pools(), q10.pool_probability.cache_info().currsize)\n"
    )
    tables, odds = map(int, _probe(probe).split())
    assert tables == POOLS
    assert odds == 0  # the tables only: every odds call still computes its exact Fraction
