"""LOG_LEVEL governs every log line, Django's own loggers included.

Settings are read once at import, so each case runs in a fresh interpreter.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# A 404 from the project's URLs, a 403 from the CSRF check and a 403 from a view
# that raises PermissionDenied (which Django logs with a traceback).
PROBE = """
import django
from django.core.exceptions import PermissionDenied
from django.test import Client, override_settings
from django.urls import include, path

django.setup()


def forbidden(request):
    raise PermissionDenied


urlpatterns = [path("forbidden/", forbidden), path("", include("config.urls"))]

# No collectstatic here: plain static names instead of the production manifest.
PLAIN_STATIC = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

with override_settings(ROOT_URLCONF=__name__, STORAGES=PLAIN_STATIC):
    assert Client().get("/no-such-page/").status_code == 404
    assert Client(enforce_csrf_checks=True).post("/accounts/login/").status_code == 403
    assert Client().get("/forbidden/").status_code == 403
print("probe done")
"""


def run_probe(log_level: str, tmp_path) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "LOG_LEVEL": log_level,
        "DEBUG": "0",
        "SECRET_KEY": "x",
        "ALLOWED_HOSTS": "testserver",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'log.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "STATIC_ROOT": str(tmp_path),
        "PYTHONPATH": str(ROOT),
    }
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "probe done" in result.stdout, result.stderr
    return result


def test_critical_silences_404_and_403(tmp_path):
    result = run_probe("CRITICAL", tmp_path)
    assert result.stderr == ""


@pytest.mark.parametrize("level", ["WARNING", "warning"])
def test_warning_logs_the_404_and_the_403s(tmp_path, level):
    stderr = run_probe(level, tmp_path).stderr
    assert "Not Found: /no-such-page/" in stderr
    assert "Forbidden (CSRF cookie not set.)" in stderr
    assert "Forbidden (Permission denied): /forbidden/" in stderr
