"""`manage.py check --deploy` is clean under the production settings docs/deploy.md
documents: HTTPS only, secure cookies, HSTS with subdomains and preload."""

import os
import re
import subprocess
import sys
from pathlib import Path

from django.conf import settings

DEPLOY = Path(settings.BASE_DIR) / "docs" / "deploy.md"


def documented_environment() -> dict[str, str]:
    """The `Environment=` lines of the systemd unit in docs/deploy.md, placeholders filled."""
    pairs = re.findall(r"^\s*Environment=(\w+)=(.*)$", DEPLOY.read_text(), flags=re.MULTILINE)
    environment = dict(pairs)
    assert {"SECRET_KEY", "ALLOWED_HOSTS", "SECURE_HSTS_SECONDS"} <= set(environment)
    environment["SECRET_KEY"] = "x" * 20 + "-a-long-random-production-key-0123456789"
    # The check needs no database connection; SQLite keeps it self-contained.
    environment["DATABASE_URL"] = "sqlite:///:memory:"
    return environment


def run_manage(*args: str, **extra: str) -> subprocess.CompletedProcess:
    keep = {"PATH", "HOME", "LANG", "PYTHONPATH"}
    env = {k: v for k, v in os.environ.items() if k in keep} | documented_environment() | extra
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_with_the_documented_settings():
    result = run_manage("check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_the_documented_settings_are_https_only():
    code = (
        "from django.conf import settings as s; "
        "print(s.DEBUG, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_SSL_REDIRECT, "
        "s.SECURE_HSTS_SECONDS, s.SECURE_HSTS_INCLUDE_SUBDOMAINS, s.SECURE_HSTS_PRELOAD, "
        "s.SESSION_COOKIE_HTTPONLY)"
    )
    result = run_manage("shell", "-c", code)
    assert result.returncode == 0, result.stderr
    expected = ["False", "True", "True", "True", "31536000", "True", "True", "True"]
    assert result.stdout.strip().splitlines()[-1].split() == expected


def test_without_hsts_the_check_says_so():
    """The check is live: dropping a documented setting makes it fail."""
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", SECURE_HSTS_SECONDS="0")
    assert result.returncode != 0
    assert "security.W004" in result.stdout + result.stderr
