"""Polish first, English second; the Polish catalogue is complete."""

import gettext
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

pytestmark = pytest.mark.django_db

CATALOGUE = Path(settings.BASE_DIR) / "locale" / "pl" / "LC_MESSAGES" / "django.po"


def _entries(text: str):
    """(msgid, [msgstr…], flags) for each entry of a .po file."""
    for block in text.split("\n\n"):
        flags = " ".join(line for line in block.splitlines() if line.startswith("#,"))
        msgid = "".join(
            re.findall(r'^(?:msgid|msgid_plural)? ?"(.*)"$', block.split("msgstr")[0], re.M)
        )
        msgstrs = re.findall(r'msgstr(?:\[\d\])? "(.*)"((?:\n".*")*)', block)
        yield msgid, ["".join([a, *re.findall(r'"(.*)"', b)]) for a, b in msgstrs], flags


def test_every_polish_message_is_translated_and_none_fuzzy():
    entries = [e for e in _entries(CATALOGUE.read_text(encoding="utf-8")) if e[0]]
    assert len(entries) > 200
    untranslated = [msgid for msgid, msgstrs, _ in entries if not all(msgstrs)]
    fuzzy = [msgid for msgid, _, flags in entries if "fuzzy" in flags]
    assert untranslated == []
    assert fuzzy == []


def test_compiled_catalogue_matches_the_source():
    """The committed .mo was compiled from the current .po (run `make messages`)."""
    with CATALOGUE.with_suffix(".mo").open("rb") as compiled:
        catalogue = gettext.GNUTranslations(compiled)
    stale = []
    for block in CATALOGUE.read_text(encoding="utf-8").split("\n\n"):
        # A message with a context (pgettext, e.g. a rule system's own word for "Attribute").
        context = re.search(r'^msgctxt "(.*)"$', block, re.M)
        for msgid, msgstrs, _flags in _entries(block):
            if not msgid or len(msgstrs) != 1:
                continue
            compiled = (
                catalogue.pgettext(_unescape(context.group(1)), _unescape(msgid))
                if context
                else catalogue.gettext(_unescape(msgid))
            )
            if compiled != _unescape(msgstrs[0]):
                stale.append(msgid)
    assert stale == []


def _unescape(text: str) -> str:
    return text.replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")


def test_pages_speak_polish_by_default(client):
    body = client.get(reverse("login")).content.decode()
    assert '<html lang="pl">' in body
    assert "Zaloguj" in body


def test_english_on_request(client):
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    body = client.get(reverse("login")).content.decode()
    assert '<html lang="en">' in body
    assert "Log in" in body


def test_an_english_browser_still_gets_polish_until_the_user_switches(client):
    body = client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9").content.decode()
    assert '<html lang="pl">' in body


def test_pages_carry_a_content_security_policy_with_a_script_nonce(client):
    response = client.get(reverse("login"))
    policy = response.headers["Content-Security-Policy"]
    assert "default-src 'self'" in policy
    nonce = policy.split("'nonce-")[1].split("'")[0]
    assert f'nonce="{nonce}"' in response.content.decode()  # htmx's script tag carries it
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
