"""Every environment variable the settings and `make serve` read is in README's table (26)."""

import re
from pathlib import Path

from config import settings as project_settings

ROOT = Path(__file__).resolve().parents[2]


def readme_table_variables() -> set[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("## Configuration (environment)", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `(\w+)` \|", table, flags=re.MULTILINE))


def variables_read() -> set[str]:
    settings_source = (ROOT / "config" / "settings.py").read_text(encoding="utf-8")
    names = set(
        re.findall(
            r"""(?:environ\.get|env_flag|env_list)\(\s*"(\w+)"|environ\["(\w+)"\]""",
            settings_source,
        )
    )
    found = {name for pair in names for name in pair if name}
    found |= {f"RATE_LIMIT_{name.upper()}" for name in project_settings.DEFAULT_RATE_LIMITS}
    serve = (ROOT / "scripts" / "serve").read_text(encoding="utf-8")
    found |= set(re.findall(r"\$\{(\w+):-", serve))
    return found


def test_every_variable_read_is_documented():
    read = variables_read()
    assert {"CONN_MAX_AGE", "SECURE_COOKIES", "LOG_LEVEL", "BIND", "WEB_CONCURRENCY"} <= read
    assert read - readme_table_variables() == set()
