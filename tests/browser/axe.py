"""axe-core, from the npm registry, injected into the page under test.

`scripts/ensure-axe` (run by scripts/test) fetches the pinned axe-core tarball from
https://registry.npmjs.org/, checks it against the registry's sha512 `dist.integrity`
and unpacks `axe.min.js` under var/. It is injected with `page.evaluate` (the DevTools
protocol), not a <script> tag: the site's Content Security Policy (a nonce on every
script) would rightly refuse an inline tag, and the policy stays on while axe looks.
"""

import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENSURE = ROOT / "scripts" / "ensure-axe"
VERSION = re.search(r'^VERSION = "(.+)"$', ENSURE.read_text(), re.M).group(1)
SOURCE = ROOT / "var" / f"axe-core-{VERSION}" / "axe.min.js"

# Every violation fails, whatever its impact (stricter than "no serious or critical"):
# the pages are small enough to be clean.
OPTIONS = {"resultTypes": ["violations"]}


@cache
def source() -> str:
    if not SOURCE.is_file():  # a run outside scripts/test: fetch it the same way
        subprocess.run([str(ENSURE)], check=False)
    if not SOURCE.is_file():
        pytest.fail(f"axe-core {VERSION} missing at {SOURCE}: run scripts/ensure-axe")
    return SOURCE.read_text(encoding="utf-8")


def violations(page) -> list[str]:
    """axe's violations on the page as it stands, one readable line each."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(source())
    assert page.evaluate("axe.version") == VERSION
    results = page.evaluate("options => axe.run(document, options)", OPTIONS)
    found = []
    for violation in results["violations"]:
        targets = [", ".join(node["target"]) for node in violation["nodes"]][:5]
        found.append(f"{violation['impact']}: {violation['id']} — {violation['help']} @ {targets}")
    return found
