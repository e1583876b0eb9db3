"""Every page of the site carries the Content-Security-Policy with a script nonce.

The walk is the access matrix's (tests/site/test_access_matrix.py): every named URL of the
URL configuration, opened with GET by every role the matrix says gets 200 there, in the
same world. A new URL joins this test as soon as it has its matrix row. The pages a form
error answers (a POST that re-renders with 200) and the error pages (403, 404) are checked
too: an attacker meets those as well.
"""

import re

import pytest
from django.db import transaction
from django.urls import reverse

from tests.site.test_access_matrix import MATRIX, ROLES

pytestmark = pytest.mark.django_db

NONCE = re.compile(r"'nonce-([A-Za-z0-9+/=_-]+)'")
SCRIPT_TAG = re.compile(r"<script\b[^>]*>", re.I)
SCRIPT_NONCE = re.compile(r"""\bnonce=["']?([A-Za-z0-9+/=_-]+)""")


def policy_of(response) -> dict[str, list[str]]:
    header = response.headers.get("Content-Security-Policy")
    assert header, f"{response.request['PATH_INFO']} answers without a CSP header"
    directives = {}
    for part in header.split(";"):
        name, *values = part.split()
        directives[name] = values
    return directives


def check_page(response) -> list[str]:
    """What is wrong with this page's policy and scripts (nothing: an empty list)."""
    path = response.request["PATH_INFO"]
    problems = []
    policy = policy_of(response)
    script_src = policy.get("script-src", policy.get("default-src", []))
    nonces = [m.group(1) for m in map(NONCE.match, script_src) if m]
    content = response.content.decode()
    scripts = SCRIPT_TAG.findall(content)
    # Django adds the nonce when the page used it. An htmx fragment without a script (the
    # diary's live update) goes without: its policy then allows no inline script at all.
    fragment = "<html" not in content and not scripts
    if len(nonces) != 1 and not (fragment and not nonces):
        problems.append(f"{path}: script-src has no single nonce: {script_src}")
    for forbidden in ("'unsafe-inline'", "'unsafe-eval'", "*", "data:", "http:", "https:"):
        if forbidden in script_src:
            problems.append(f"{path}: script-src allows {forbidden}")
    if policy.get("object-src") != ["'none'"]:
        problems.append(f"{path}: object-src is not 'none'")
    if policy.get("base-uri") != ["'none'"]:
        problems.append(f"{path}: base-uri is not 'none'")
    for tag in scripts:
        found = SCRIPT_NONCE.search(tag)
        if not nonces or not found or found.group(1) != nonces[0]:
            problems.append(f"{path}: a script without the page's nonce: {tag}")
    return problems


def test_every_page_has_the_csp_with_a_nonce_and_every_script_carries_it(world):
    checked, problems, script_pages = set(), [], 0
    for (name, method), expected in MATRIX:
        url = reverse(name, kwargs=world.kwargs(name))
        for role in ROLES:
            if expected[role] not in {"200", "403", "404"}:
                continue
            with transaction.atomic():
                client = world.client(role)
                response = client.get(url) if method == "GET" else client.post(url, {})
                transaction.set_rollback(True)
            assert str(response.status_code) == expected[role], (name, method, role)
            if "text/html" not in response.headers.get("Content-Type", ""):
                continue  # the ledger's JSON: no page to script
            problems += check_page(response)
            script_pages += bool(SCRIPT_TAG.search(response.content.decode()))
            checked.add((name, method, role))
    assert problems == []
    # The walk reached the pages: every GET row with a 200 for someone, each with htmx.
    pages = {name for (name, method, _role) in checked if method == "GET"}
    assert {"home", "diary:session", "rolls:panel", "characters:detail"} <= pages
    assert script_pages > 50


def test_the_nonce_changes_with_every_response(client):
    first = NONCE.search(client.get(reverse("login")).headers["Content-Security-Policy"])
    second = NONCE.search(client.get(reverse("login")).headers["Content-Security-Policy"])
    assert first.group(1) != second.group(1)


def test_the_check_finds_a_script_without_the_nonce(client):
    """The test above can fail: a page whose script lacks the nonce is reported, and so is
    a whole page whose policy has no nonce or allows inline script."""
    response = client.get(reverse("login"))
    response.content = response.content.replace(b"<head>", b"<head><script>x()</script>", 1)
    assert any("without the page's nonce" in p for p in check_page(response))
    response = client.get(reverse("login"))
    policy = response.headers["Content-Security-Policy"]
    response.headers["Content-Security-Policy"] = NONCE.sub("'unsafe-inline'", policy)
    problems = check_page(response)
    assert any("no single nonce" in p for p in problems)
    assert any("allows 'unsafe-inline'" in p for p in problems)
