"""Every number the site writes with a sign uses the minus sign (U+2212), never the ASCII
hyphen: the demo's pages (diary, panel, rolls, audit, initiative, entries, NPCs, sheets,
catalogs) read as text, with no "-55" beside a "−55"."""

import re
from html.parser import HTMLParser

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from characters.models import Character
from diary.models import GameSession
from rolls.models import Roll

pytestmark = pytest.mark.django_db

# A hyphen right before a digit, not inside a word, a date, a time or a dice notation.
ASCII_MINUS = re.compile(r"(?<![\w\-/.:#–])-(?=\d)")


class _Text(HTMLParser):
    """The page's text nodes (what a reader sees), without scripts, styles, form fields
    and the stored record shown as JSON (<pre>, <code>: data, not prose)."""

    def __init__(self):
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "textarea", "pre", "code"):
            self._skip += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style", "textarea", "pre", "code") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def ascii_minuses(content: str) -> list[str]:
    parser = _Text()
    parser.feed(content)
    found = []
    for text in parser.parts:
        for match in ASCII_MINUS.finditer(text):
            found.append(text[max(0, match.start() - 30) : match.end() + 10].strip())
    return found


def pages_of(session: GameSession, gm) -> list[str]:
    pk = session.pk
    urls = [
        reverse("diary:session", args=[pk]),
        reverse("diary:npcs", args=[pk]),
        reverse("rolls:audit", args=[pk]),
        reverse("rolls:initiative", args=[pk]),
        reverse("rolls:entries", args=[pk]),
        reverse("rolls:panel", args=[pk]),
    ]
    client = Client()
    client.force_login(gm)
    last = client.get(urls[0]).context.get("page_obj")
    if last is not None:
        urls += [f"{urls[0]}?page={n}" for n in range(1, last.paginator.num_pages + 1)]
    urls += [
        reverse("rolls:detail", args=[pk, seq])
        for seq in Roll.objects.filter(session=session).values_list("seq", flat=True)
    ]
    return urls


def test_no_page_of_the_demo_writes_a_negative_number_with_a_hyphen():
    call_command("seed_demo")
    problems = {}
    for session in GameSession.objects.select_related("gm"):
        client = Client()
        client.force_login(session.gm)
        for url in pages_of(session, session.gm):
            response = client.get(url)
            if response.status_code != 200:
                continue
            found = ascii_minuses(response.content.decode())
            if found:
                problems[url] = found
    for character in Character.objects.select_related("owner"):
        client = Client()
        client.force_login(character.owner)
        url = reverse("characters:detail", args=[character.pk])
        found = ascii_minuses(client.get(url).content.decode())
        if found:
            problems[url] = found
    client = Client()
    client.force_login(GameSession.objects.first().gm)
    for system in ("forum1000", "q10", "ciernie", "arsmagica"):
        url = reverse("characters:catalog", args=[system])
        found = ascii_minuses(client.get(url).content.decode())
        if found:
            problems[url] = found
    assert Roll.objects.exists()
    assert not problems, "\n".join(f"{url}: {found}" for url, found in problems.items())
