"""The README's shell commands for verifying rolls work as written.

On a machine where `make run` was done (.venv exists), each documented command is
run by a shell from the repository root, with no DEBUG and no SECRET_KEY in the
environment, against a migrated temporary SQLite database holding the demo session.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def documented_commands(*needles: str) -> list[str]:
    """Shell commands in README.md: indented code lines and `inline code` spans."""
    indented = [line[4:] for line in README.splitlines() if line.startswith("    ")]
    inline = re.findall(r"`([^`\n]+)`", README)
    found = []
    for text in indented + inline:
        text = text.strip()
        if any(needle in text for needle in needles) and text not in found:
            found.append(text)
    return found


@pytest.fixture(scope="module")
def demo_database(tmp_path_factory):
    database = tmp_path_factory.mktemp("readme") / "db.sqlite3"
    env = {**os.environ, "DEBUG": "1", "DATABASE_URL": f"sqlite:///{database}"}
    env.pop("SECRET_KEY", None)
    for command in (["migrate", "--no-input"], ["seed_demo"]):
        subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
            timeout=300,
        )
    return database


def run_as_written(command: str, database: Path) -> subprocess.CompletedProcess:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DEBUG", "SECRET_KEY", "DJANGO_SETTINGS_MODULE", "VIRTUAL_ENV"}
    }
    env["DATABASE_URL"] = f"sqlite:///{database}"
    # A shell a developer opens: the virtualenv is not on its PATH.
    env["PATH"] = os.pathsep.join(
        part for part in env.get("PATH", "").split(os.pathsep) if ".venv" not in part
    )
    return subprocess.run(
        ["bash", "-c", command],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_readme_documents_verify_rolls_commands():
    commands = documented_commands("verify_rolls", "make verify")
    assert any("--session" in command for command in commands), commands
    assert len(commands) >= 2, commands


@pytest.mark.parametrize("command", documented_commands("verify_rolls", "make verify"))
def test_verify_rolls_as_written(command, demo_database):
    result = run_as_written(command, demo_database)
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"session 1 \(Mgły nad Czarnym Brodem\): OK, \d+ rolls", result.stdout)


@pytest.mark.parametrize("command", documented_commands("rolls.conformance"))
def test_conformance_runner_as_written(command, demo_database):
    result = run_as_written(command, demo_database)
    assert result.returncode == 0, result.stdout + result.stderr
