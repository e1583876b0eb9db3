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
- anything but a redirect (a 400, 403, 404, 405, 429, or a 200 re-rendering the form with its
  errors) leaves every table exactly as it was; only a redirect, the site's answer to a
  successful POST, may have written.
Django's sessions and admin log and django-axes' counters are not compared (a failed log-in is
counted there on purpose); every example is rolled back, so no counter outlives it and the
log-in form's fuzzing locks nobody out.

Examples are derandomised, so CI and a laptop try the same bodies.
"""

import copy
import time
from html.parser import HTMLParser
from urllib.parse import quote_from_bytes, urlsplit

import pytest
from axes.models import AccessAttempt
from django.apps import apps
from django.db import transaction
from django.urls import reverse
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from characters.systems import RuleSystem
from tests.site.test_access_matrix import REFUSED, ROLES, World, documented_matrix

pytestmark = pytest.mark.django_db

EXAMPLES_PER_URL = 15
# The order "most privileged" means here: who may do the most in session S.
PREFERENCE = ["gm", "moderator", "player", "superuser", "other_player", "outsider", "anonymous"]
assert sorted(PREFERENCE) == sorted(ROLES)
NOT_COMPARED = {"sessions", "admin", "axes"}


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


def database_state() -> dict:
    state = {}
    for model in apps.get_models():
        if model._meta.app_label in NOT_COMPARED or not model._meta.managed:
            continue
        state[model._meta.label] = list(model._base_manager.order_by("pk").values_list())
    return state


def world_ids(world: World) -> list[int]:
    """Ids of the world's objects (any of them may be sent for any other), and ids of none."""
    objects = [
        world.session, world.character, world.invited, world.post, world.effect, world.potion,
        world.proposal, world.ask, world.roll, world.npc, world.npc_modifier, world.gm,
        world.player, world.other_player, world.moderator, world.participation, world.invitation,
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


def fuzz(client, url: str, role: str, fields: dict[str, list[str]], ids, before: dict) -> set:
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
            response = client.post(url, body, content_type="application/x-www-form-urlencoded")
            status = response.status_code
            seen.add(status)
            assert status < 500, (url, role, body[:300])
            if not 300 <= status < 400:
                assert database_state() == before, f"{role} POST {url} got {status} but wrote"
            transaction.set_rollback(True)
        # A log-out or a language switch changed the browser's cookies; the next body is
        # sent from the same browser as the first.
        client.cookies = cookies

    check()
    return seen


@pytest.fixture
def world(make_user, make_character, make_session):
    return World(make_user, make_character, make_session)


def test_every_post_url_survives_fuzzing(world):
    forms = forms_by_action(world)
    # Logged in before the snapshot: a log-in stamps the user's last_login.
    clients = {role: world.client(role) for role in ROLES}
    ids = world_ids(world)
    before = database_state()
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
                statuses[action] = fuzz(clients[role], action, role, fields, ids, before)
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
