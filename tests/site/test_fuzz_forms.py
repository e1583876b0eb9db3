"""Every URL taking a POST, fed what hypothesis invents: never a 5xx, no row from a refusal.

The URLs come from the URL configuration (through the access matrix's table in
docs/decisions.md), so a new URL is fuzzed without anyone adding it here. Each is posted to as
the most privileged role the table lets through (the GM, then the moderator, then the player
...; one the form answers, 200 or 400, before one only redirected: sign-up is fuzzed as the
anonymous visitor), in the access matrix's World: one running session with everything its
URLs point at. A URL no role may POST to in this world (a plan, once the session runs) is
fuzzed as the GM: it must refuse cleanly.

The field names (and their right values: hidden tokens, the options of a select) are read from
the forms the site's own pages render with that URL as their action. Hypothesis then sends
bodies built two ways: the right form with one field mutated (emptied, dropped, repeated,
replaced by something nasty), or any mix of the form's fields and unknown ones, each carrying
nasty values. The body is raw bytes, so a value may be a lone surrogate or no UTF-8 at all.

Properties, per example (each one in a transaction rolled back afterwards):
- the status is never 5xx;
- a 4xx is never a bare status: it is a page of the site that shows why (a form's error next to
  its field or above it, or the site's own "no access" / "not found" / "slow down" page);
- anything but a redirect (a 400, 403, 404, 405, 429, or a 200 re-rendering the form with its
  errors) writes no row (tests/site/table_writes.py: on PostgreSQL not even one it then
  undoes); only a redirect, the site's answer to a successful POST, may have written.
Django's sessions and admin log, django-axes' counters and the rate limits' counters are not
watched (a failed log-in is counted there on purpose, and the rate limits count every POST,
refused or not); every example is rolled back, so no counter outlives it and the
log-in form's fuzzing locks nobody out.

Examples are derandomised, so CI and a laptop try the same bodies.
"""

import copy
import html
import re
import time
from html.parser import HTMLParser
from urllib.parse import quote_from_bytes, urlsplit

import pytest
from axes.models import AccessAttempt
from django.db import transaction
from django.urls import reverse
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from characters.models import Attribute
from characters.systems import RuleSystem
from rolls import access
from rolls.models import AskStatus, Roll, RollAsk
from tests.conftest import polish
from tests.rolls.conftest import described_plan
from tests.site.table_writes import TableWrites
from tests.site.test_access_matrix import REFUSED, ROLES, World, documented_matrix

pytestmark = pytest.mark.django_db

EXAMPLES_PER_URL = 15
# The order "most privileged" means here: who may do the most in session S.
PREFERENCE = ["gm", "moderator", "player", "superuser", "other_player", "outsider", "anonymous"]
assert sorted(PREFERENCE) == sorted(ROLES)
NOT_COMPARED = {"sessions", "admin", "axes", "counters"}


def post_targets() -> list[tuple[str, str]]:
    """(URL name, role) for every URL some role may POST to: a row not 405 for everyone."""
    targets = []
    for (name, method), statuses in sorted(documented_matrix().items()):
        if method != "POST" or set(statuses.values()) <= {"405", "login"}:
            continue
        allowed = [role for role in PREFERENCE if statuses[role] not in REFUSED]
        # A role the form answers (200, 400) before one merely sent elsewhere (302): the
        # sign-up form is the anonymous visitor's; the GM is only redirected home.
        allowed.sort(key=lambda role: statuses[role] == "302")
        # A URL refused to everyone in this world (a plan for a session already running)
        # still takes POSTs in another state: fuzz it as the GM, it must refuse cleanly.
        targets.append((name, allowed[0] if allowed else "gm"))
    return targets


class _Forms(HTMLParser):
    """Every <form method=post> of a page: its action and, per field name, the values seen."""

    def __init__(self, page_path: str):
        super().__init__()
        self.page_path = page_path
        self.forms: list[tuple[str, dict[str, list[str]]]] = []
        self._fields: dict[str, list[str]] | None = None
        self._select: str | None = None
        self._textarea: str | None = None

    def _add(self, name, value):
        if self._fields is not None and name:
            values = self._fields.setdefault(name, [])
            if value not in values:
                values.append(value)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            if (a.get("method") or "get").lower() == "post":
                # The action as the browser would send it, query included.
                target = urlsplit(a.get("action") or self.page_path)
                action = (target.path or urlsplit(self.page_path).path) + (
                    f"?{target.query}" if target.query else ""
                )
                self._fields = {}
                self.forms.append((action, self._fields))
            return
        if tag in ("input", "button"):
            kind = (a.get("type") or "text").lower()
            if kind in ("checkbox", "radio", "submit") or tag == "button":
                self._add(a.get("name"), a.get("value") or "on")
            else:
                self._add(a.get("name"), a.get("value") or "")
        elif tag == "select":
            self._select = a.get("name")
        elif tag == "option" and self._select:
            self._add(self._select, a.get("value", ""))
        elif tag == "textarea":
            self._textarea = a.get("name")
            self._add(self._textarea, "")

    def handle_data(self, data):
        if self._textarea and data.strip():
            self._add(self._textarea, data)

    def handle_endtag(self, tag):
        if tag == "form":
            self._fields = None
        elif tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None


def forms_by_action(world: World) -> dict[str, dict[str, list[str]]]:
    """The site's own forms, from every page the table lets GM, player or moderator open."""
    found: dict[str, dict[str, list[str]]] = {}
    pages = []
    for (name, method), statuses in sorted(documented_matrix().items()):
        if method != "GET":
            continue
        path = reverse(name, kwargs=world.kwargs(name))
        pages += [(path, role) for role in ("gm", "player", "moderator", "anonymous")
                  if statuses[role] in ("200", "302")]  # fmt: skip
    # A character's sheet form opens once its system is chosen (?system=…).
    create = reverse("characters:create")
    pages += [(f"{create}?system={system}", "player") for system in RuleSystem.values]
    # The GM's panel opened to answer the player's request has the answer's own field
    # (answer_note), as the request's link in the diary opens it.
    panel = reverse("rolls:panel", args=[world.session.pk])
    pages.append((f"{panel}?mode=attribute&ask={world.ask.pk}", "gm"))
    for path, role in pages:
        # Followed: the panel's address redirects to itself, signed, with a fresh token.
        response = world.client(role).get(path, follow=True)
        if "html" not in response.get("Content-Type", ""):
            continue
        if response.redirect_chain:
            path = response.redirect_chain[-1][0]
        parser = _Forms(path)
        parser.feed(response.content.decode())
        for action, fields in parser.forms:
            merged = found.setdefault(action, {})
            for field, values in fields.items():
                merged.setdefault(field, [])
                merged[field] += [v for v in values if v not in merged[field]]
    return found


def world_ids(world: World) -> list[int]:
    """Ids of the world's objects (any of them may be sent for any other), and ids of none."""
    objects = [
        world.session, world.character, world.invited, world.post, world.effect, world.potion,
        world.proposal, world.ask, world.roll, world.npc, world.npc_modifier, world.gm,
        world.player, world.other_player, world.moderator, world.participation, world.invitation,
        world.whisper, world.absence, world.future_absence,
    ]  # fmt: skip
    return sorted({o.pk for o in objects} | {0, -1, 999_999, 2**31, 2**63, 10**30})


UNKNOWN_FIELDS = ["x", "pk", "id", "owner", "gm", "session", "is_superuser", "seq", "hash", "a-b"]
NASTY_TEXT = [
    "", " ", "\x00", "a\x00b", "-1", "0", "-0", "1e309", "NaN", "-inf", "9" * 40, "-" + "9" * 40,
    "0x1F", "1.5", "١٢٣", "true", "null", "[]", '{"a": 1}', "../../etc/passwd", "<script>",
    "%00", "\u202e", "\ufeff", "𝕏" * 50, "Ω" * 300, "2026-02-30", "25:61", "\r\n",
]  # fmt: skip
BAD_BYTES = [b"\xed\xa0\x80", b"x\xed\xb0\x80", b"\xff\xfe", b"\xc0\xaf", b"\xc3\x28", b"\x80"]


def nasty(ids: list[int]):
    return st.one_of(
        st.sampled_from(NASTY_TEXT).map(str.encode),
        st.sampled_from(ids).map(lambda n: str(n).encode()),
        st.integers(min_value=-(2**70), max_value=2**70).map(lambda n: str(n).encode()),
        st.text(max_size=40).map(str.encode),
        st.sampled_from(BAD_BYTES),  # lone surrogates (CESU), bytes that are no UTF-8
        st.binary(max_size=12),
        st.just(b"A" * 20_000),
    )


def bodies(fields: dict[str, list[str]], ids: list[int]):
    """A POST body as (name, value) byte pairs: a repeated name is a list."""
    value = nasty(ids)
    values = st.lists(value, min_size=1, max_size=3)
    right = {name: st.sampled_from(options or [""]) for name, options in fields.items()}

    @st.composite
    def mutated(draw):
        pairs = {name: [draw(strategy).encode()] for name, strategy in right.items()}
        if pairs:
            name = draw(st.sampled_from(sorted(pairs)))
            how = draw(st.sampled_from(["replace", "drop", "repeat", "empty"]))
            if how == "drop":
                del pairs[name]
            elif how == "empty":
                pairs[name] = [b""]
            elif how == "repeat":
                pairs[name] = pairs[name] + draw(values)
            else:
                pairs[name] = draw(values)
        if draw(st.booleans()):
            pairs[draw(st.sampled_from(UNKNOWN_FIELDS))] = draw(values)
        return pairs

    names = sorted(fields) + UNKNOWN_FIELDS
    anything = st.dictionaries(st.sampled_from(names), values, max_size=len(names))
    return st.one_of(mutated(), anything)


def encode(pairs: dict[str, list[bytes]]) -> bytes:
    return b"&".join(
        f"{quote_from_bytes(name.encode())}={quote_from_bytes(value)}".encode()
        for name, items in pairs.items()
        for value in items
    )


def fuzz(client, url: str, role: str, fields: dict[str, list[str]], ids, writes) -> set:
    """Hypothesis's bodies against one action; returns the statuses seen."""
    seen = set()

    @settings(
        max_examples=EXAMPLES_PER_URL,
        deadline=None,
        derandomize=True,
        database=None,
        # A failure is reported as found: shrinking many URLs' bodies would blow CI's budget.
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(pairs=bodies(fields, ids))
    def check(pairs):
        body = encode(pairs)
        cookies = copy.deepcopy(client.cookies)
        with transaction.atomic():
            writes.mark()
            response = client.post(url, body, content_type="application/x-www-form-urlencoded")
            status = response.status_code
            seen.add(status)
            assert status < 500, (url, role, body[:300])
            if not 300 <= status < 400:
                assert not writes.wrote(), f"{role} POST {url} got {status} but wrote"
            if 400 <= status < 500:
                assert refusal_shown(response), (
                    f"{role} POST {url}: a bare {status} page: {body[:300]!r}"
                )
            transaction.set_rollback(True)
        # A log-out or a language switch changed the browser's cookies; the next body is
        # sent from the same browser as the first.
        client.cookies = cookies

    check()
    return seen


# A refusal the site explains: a form's errors (each next to its field, or above the form),
# or the site's own page saying what happened (no access, not found, slow down).
ERROR_SHOWN = re.compile(r'class="error"|role="alert"|<h1>[^<]+</h1>\s*<p>[^<]+</p>')


def refusal_shown(response) -> bool:
    """A 4xx answer is a whole page of the site that says why, never a bare status."""
    if not response.get("Content-Type", "").startswith("text/html"):
        return False
    page = response.content.decode(errors="replace")
    main = page.split('<main id="content"', 1)
    return len(main) == 2 and ERROR_SHOWN.search(main[1]) is not None


def test_every_post_url_survives_fuzzing(world):
    forms = forms_by_action(world)
    # The GM's answer by judgment and the decline are fuzzed with their own fields.
    assert "answer_note" in forms[reverse("rolls:panel", args=[world.session.pk])]
    assert "reason" in forms[decline_url(world)]
    # Logged in before the snapshot: a log-in stamps the user's last_login.
    clients = {role: world.client(role) for role in ROLES}
    ids = world_ids(world)
    writes = TableWrites(NOT_COMPARED)
    failures, without_form, statuses = [], [], {}
    for name, role in post_targets():
        url = reverse(name, kwargs=world.kwargs(name))
        # The URL's own forms; a form whose action carries a query (the sheet of one
        # system) is fuzzed at that action.
        actions = {a: f for a, f in forms.items() if urlsplit(a).path == url}
        if not actions:
            # No page renders this URL's form in this world (a session plan, a wound the
            # GM now gives through the diary): fuzz it with every field name the site uses.
            without_form.append(name)
            actions = {url: {}}
            for other in forms.values():
                for field, values in other.items():
                    actions[url].setdefault(field, values)
        for action, fields in sorted(actions.items()):
            started = time.monotonic()
            try:
                statuses[action] = fuzz(clients[role], action, role, fields, ids, writes)
            except Exception as error:  # every URL's failure is collected, then reported
                failures.append(f"{name} as {role}: {type(error).__name__}: {error}"[:2000])
            seconds = time.monotonic() - started
            print(f"{action} as {role}: {seconds:.1f}s {sorted(statuses.get(action, ()))}")
    assert not failures, "\n\n".join(failures)
    # Every failed log-in the fuzzing counted was rolled back with its example: no lock-out
    # outlives this test.
    assert not AccessAttempt.objects.exists()
    # The forms are really found: most POST URLs have a page rendering theirs.
    print("without a form on any page:", without_form, flush=True)
    assert len(without_form) < len(post_targets()) / 2, without_form


# ---------------------------------------------------------------------------
# The GM's answer by judgment (answer_note) and a declined request (rolls:ask_decline):
# bad input comes back on the form's own page, refused in Polish next to its field — never
# a 5xx, never a bare error page — and nothing is written.

NOTE_TEXT = st.one_of(
    st.sampled_from([*NASTY_TEXT, "x" * 301, " " * 400, "\x00" * 3, "ok\x00", "  powód  "]),
    st.text(max_size=320),
)


def _property_settings(test):
    return settings(
        max_examples=25,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )(test)


def refused_next_to(response, field: str) -> str:
    """The error shown next to `field` on a re-rendered form (400) with that field."""
    page = html.unescape(response.content.decode())
    assert response.status_code == 400, response.status_code
    assert "<form" in page and f'name="{field}"' in page, "not the form's own page"
    error = re.search(rf'<p class="error" id="id_{field}_error">(.*?)</p>', page, re.S)
    assert error, f"no error next to {field}"
    return error.group(1).strip()


def django_refusal(field, value) -> tuple[str, str]:
    """A Django field's refusal of `value` in Polish and in English (they must differ)."""
    from django.core.exceptions import ValidationError
    from django.utils import translation

    texts = []
    for language in ("pl", "en"):
        with translation.override(language):
            try:
                field.clean(value)
            except ValidationError as error:
                texts.append(error.messages[0])
    return texts[0], texts[1]


def decline_url(world) -> str:
    return reverse("rolls:ask_decline", args=[world.session.pk, world.ask.pk])


def test_a_declined_requests_bad_reason_is_refused_in_polish_next_to_it(world):
    from django import forms

    client = world.client("gm")
    page = client.get(decline_url(world))
    assert page.status_code == 200 and 'name="reason"' in page.content.decode()
    too_long, too_long_en = django_refusal(forms.CharField(max_length=300), "x" * 301)
    null, null_en = django_refusal(forms.CharField(), "a\x00b")
    assert too_long != too_long_en and null != null_en
    needed = polish("Say why you decline the request: the player reads it.")
    for reason, message in [("", needed), ("   \r\n ", needed), ("x" * 301, too_long)]:
        assert refused_next_to(client.post(decline_url(world), {"reason": reason}), "reason") == (
            message
        )
    assert refused_next_to(client.post(decline_url(world), {"reason": "a\x00b"}), "reason") == null
    assert RollAsk.objects.get(pk=world.ask.pk).status == AskStatus.OPEN
    # A good reason declines it; the request, closed, is refused on the page (no 500).
    done = client.post(decline_url(world), {"reason": "Lepiej rzuć na Percepcję."})
    assert done.status_code == 302
    ask = RollAsk.objects.get(pk=world.ask.pk)
    assert (ask.status, ask.note) == (AskStatus.DECLINED, "Lepiej rzuć na Percepcję.")
    again = client.post(decline_url(world), {"reason": "jeszcze raz"})
    assert again.status_code == 400
    assert polish("This request is no longer open.") in html.unescape(again.content.decode())


def test_any_decline_reason_is_declined_or_refused_next_to_its_field(world):
    client = world.client("gm")
    url = decline_url(world)

    @_property_settings
    @example(reason="  ")
    @example(reason="Za późno na to.")
    @given(reason=NOTE_TEXT)
    def check(reason):
        with transaction.atomic():
            response = client.post(url, {"reason": reason})
            ask = RollAsk.objects.get(pk=world.ask.pk)
            if response.status_code == 302:
                assert ask.status == AskStatus.DECLINED and ask.note == reason.strip()
            else:
                assert refused_next_to(response, "reason")
                assert ask.status == AskStatus.OPEN
            transaction.set_rollback(True)

    check()


def answer_data(world, note=None, *, same=False) -> dict:
    """The GM's panel answering the world's request: the same test asked, or (default) the
    character's other attribute, with `note` as why the roll differs."""
    asked = int(world.ask.case_fields["a-attribute"])
    attribute = (
        asked
        if same
        else (
            Attribute.objects.filter(system="forum1000").exclude(pk=asked).order_by("pk").first().pk
        )
    )
    data = {
        "token": access.issue_token(world.gm, world.session),
        "mode": "attribute",
        "ask": str(world.ask.pk),
        "a-character": str(world.character.pk),
        "a-attribute": str(attribute),
        "a-action_value": "0",
        "a-gm_difficulty": "0",
        "a-gm_bonus": "0",
        # Cyra already has an action roll this turn (the world's): the GM allows another.
        "extra_action_reason": "odpowiedź na prośbę",
    }
    if note is not None:
        data["answer_note"] = note
    return data


def panel_url(world) -> str:
    return reverse("rolls:panel", args=[world.session.pk])


def test_an_answers_bad_note_is_refused_in_polish_next_to_it(world):
    from django import forms

    client = world.client("gm")
    rolls_before = Roll.objects.count()
    too_long, too_long_en = django_refusal(forms.CharField(max_length=300), "x" * 301)
    assert too_long != too_long_en
    needed = polish(
        "This roll differs from the request (%(what)s): say why in “Why the roll differs "
        "from the request”; the post shows both.",
        what=polish("the test"),
    )
    for note in (None, "", "  \r\n  "):
        response = client.post(panel_url(world), answer_data(world, note))
        assert refused_next_to(response, "answer_note") == needed
    error = refused_next_to(
        client.post(panel_url(world), answer_data(world, "x" * 301)), "answer_note"
    )
    assert error == too_long
    assert Roll.objects.count() == rolls_before
    assert RollAsk.objects.get(pk=world.ask.pk).status == AskStatus.OPEN
    # With a reason, the other roll answers it; the same roll needs none.
    data = answer_data(world, "Percepcja tu nie pomoże.")
    data["plan"] = described_plan(client, panel_url(world), data)  # the line the page drew
    done = client.post(panel_url(world), data)
    assert done.status_code == 302
    ask = RollAsk.objects.get(pk=world.ask.pk)
    assert (ask.status, ask.note) == (AskStatus.ANSWERED_DIFFERENTLY, "Percepcja tu nie pomoże.")


def test_any_answer_note_answers_or_is_refused_next_to_its_field(world):
    client = world.client("gm")
    url = panel_url(world)

    @_property_settings
    @example(note="x" * 301, same=True)
    @example(note="", same=True)
    @example(note="", same=False)
    @given(note=NOTE_TEXT, same=st.booleans())
    def check(note, same):
        with transaction.atomic():
            data = answer_data(world, note, same=same)
            data["plan"] = described_plan(client, url, data)  # the line the page drew
            response = client.post(url, data)
            ask = RollAsk.objects.get(pk=world.ask.pk)
            if response.status_code == 302:
                expected = AskStatus.ANSWERED if same else AskStatus.ANSWERED_DIFFERENTLY
                assert ask.status == expected and ask.answer is not None
                assert ask.note == ("" if same else note.strip())
            else:
                # The same roll needs no reason: only a note the field itself refuses.
                assert not same or "\x00" in note or len(note.strip()) > 300, note
                assert refused_next_to(response, "answer_note")
                assert ask.status == AskStatus.OPEN
            transaction.set_rollback(True)

    check()
