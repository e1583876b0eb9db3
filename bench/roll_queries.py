"""SQL queries per request on the roll path, for each system and role, driven like a browser.

    make bench-queries                                           # both databases, about 75 s
    .venv/bin/python bench/roll_queries.py                       # SQLite (in memory)
    scripts/with-postgres .venv/bin/python bench/roll_queries.py # PostgreSQL (throwaway)

The figures are the ceilings in docs/performance.md ("Roll path: queries per request").

For forum1000, q10, ciernie and arsmagica, in a running session with history (a few hundred
posts and rolls), it counts the queries of:

- the panel's preview: the htmx GET the panel's form makes while someone edits it;
- a roll: the panel's form sent with its "Roll" button;
- a player's request for a roll (the ask page's form sent) and the GM's answer: the link the
  request shows the GM, opened (with its redirect), then the panel's form sent;

for the GM, and for a player (the sessions let players roll for their own characters).

Everything goes through URLs and HTML, as a browser would: the panel is opened at its URL
(rolls:panel), its <form> read with html.parser (inputs, selects, checkboxes as they stand),
a select a person still has to choose is chosen (its first option) through the htmx redraw,
and the fields go back as the form says: the htmx GET to its hx-get with the HX-Request
header, the POST to its action with the button's own name and value if it has one. Nothing
of the panel's code is imported, so the same script measures the roll path after it is
rewritten. The data are made through the characters' and diary's services, and the
history through tests/scale_rolls.py as the cost tests grow theirs.

Each step is checked before its count is kept: the preview shows a chance, a roll stores
exactly one roll, a request exactly one request, an answer one roll that answers it.
Each count is taken several times (after a warm-up round) and the median printed; the
script says so if the repetitions differ. Transaction control (BEGIN, COMMIT, SAVEPOINT,
RELEASE) is not counted. It runs in a test database of its own, created and dropped.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import uuid
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlencode, urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# DEBUG stays off (production's settings); the test client speaks plain HTTP.
os.environ.setdefault("SECRET_KEY", "bench-roll-queries")
os.environ.setdefault("SECURE_COOKIES", "0")
os.environ.setdefault("SECURE_SSL_REDIRECT", "0")
os.environ.setdefault("LOG_LEVEL", "ERROR")  # e.g. the new throwaway signing key's warning
# Rolls are signed with a throwaway key, never one in var/.
os.environ.setdefault(
    "LEDGER_SIGNING_KEY_FILE", str(Path(tempfile.mkdtemp()) / "ledger-signing-key.pem")
)

import django  # noqa: E402

django.setup()
# WhiteNoise looks for collected static files, which a count of queries does not need.
warnings.filterwarnings("ignore", message="No directory at", module="django.core.handlers")

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.contrib.auth.models import Group  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import (  # noqa: E402
    CaptureQueriesContext,
    override_settings,
    setup_test_environment,
    teardown_test_environment,
)
from django.urls import reverse  # noqa: E402

from characters import services as character_services  # noqa: E402
from characters.models import Attribute, Skill  # noqa: E402
from config.roles import MODERATOR_GROUP  # noqa: E402
from diary import services as diary_services  # noqa: E402
from diary.models import SessionStatus  # noqa: E402
from rolls.models import Roll, RollAsk  # noqa: E402
from tests.scale_rolls import add_posts, add_rolls  # noqa: E402

SYSTEMS = ("forum1000", "q10", "ciernie", "arsmagica")
HISTORY_POSTS = 300  # --posts, --rolls: a larger session must give the same counts
HISTORY_ROLLS = 300
REPEATS = 3
# A sheet in the middle of each system's ranges (characters.systems), every skill learnt.
SHEET = {  # system: (attribute value, skill level)
    "forum1000": (500, 2),
    "q10": (3, 2),
    "ciernie": (10, 2),
    "arsmagica": (1, 3),
}
# The buttons a person clicks, by the label they read (the site is Polish first).
ROLL_BUTTON = ("Wykonaj rzut", "Roll")
ASK_BUTTON = ("Wyślij prośbę", "Send the request")
ANSWER_LINK = ("Odpowiedz rzutem", "Answer with a roll")
# Transaction control is not a query of the request's work: Django records SQLite's BEGIN
# IMMEDIATE and COMMIT but not PostgreSQL's (the driver's), and a test's transaction turns
# every atomic block into SAVEPOINT / RELEASE. Left out, the two databases compare.
TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE SAVEPOINT")


# ---------------------------------------------------------------------------
# The page as a browser reads it: forms with their controls, links


@dataclass
class Control:
    tag: str  # input, select, textarea, button
    attrs: dict
    options: list[dict] = field(default_factory=list)  # a select's: value, selected, text
    text: str = ""  # a textarea's value, a button's label

    @property
    def name(self) -> str:
        return self.attrs.get("name") or ""

    @property
    def kind(self) -> str:
        default = "submit" if self.tag == "button" else "text"
        return (self.attrs.get("type") or default).lower()

    @property
    def disabled(self) -> bool:
        return "disabled" in self.attrs


@dataclass
class Form:
    attrs: dict
    controls: list[Control] = field(default_factory=list)

    def pairs(self) -> list[tuple[str, str]]:
        """The successful controls, in document order, as the browser sends them."""
        sent = []
        for c in self.controls:
            if not c.name or c.disabled or c.tag == "button":
                continue
            if c.tag == "input":
                if c.kind in {"submit", "button", "image", "reset", "file"}:
                    continue
                if c.kind in {"checkbox", "radio"}:
                    if "checked" in c.attrs:
                        sent.append((c.name, c.attrs.get("value", "on")))
                    continue
                sent.append((c.name, c.attrs.get("value", "")))
            elif c.tag == "select":
                chosen = [o for o in c.options if o["selected"]]
                if not chosen and c.options and "multiple" not in c.attrs:
                    chosen = c.options[:1]  # a single select shows (and sends) its first
                sent.extend((c.name, o["value"]) for o in chosen)
            elif c.tag == "textarea":
                sent.append((c.name, c.text.removeprefix("\n")))
        return sent

    def choose_blank_selects(self) -> list[str]:
        """What a person does before a test is complete: in each single select still on an
        empty choice, pick its first real option. The names changed."""
        changed = []
        for c in self.controls:
            if c.tag != "select" or c.disabled or "multiple" in c.attrs or not c.name:
                continue
            chosen = [o for o in c.options if o["selected"]] or c.options[:1]
            real = [o for o in c.options if o["value"]]
            if chosen and not chosen[0]["value"] and real:
                for o in c.options:
                    o["selected"] = o is real[0]
                changed.append(c.name)
        return changed

    def button(self, labels) -> Control:
        for c in self.controls:
            if c.tag in {"button", "input"} and c.kind == "submit" and not c.disabled:
                label = c.text if c.tag == "button" else c.attrs.get("value", "")
                if label.strip() in labels:
                    return c
        raise AssertionError(f"no button {labels} in the form")

    def submission(self, labels) -> list[tuple[str, str]]:
        """The fields a click on this button sends (with its own name, if it has one)."""
        button = self.button(labels)
        extra = [(button.name, button.attrs.get("value", ""))] if button.name else []
        return self.pairs() + extra


class PageParser(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.forms: list[Form] = []
        self.links: list[tuple[dict, str]] = []
        self.testids: set[str] = set()
        self._form: Form | None = None
        self._open: Control | None = None  # select, textarea or button being read
        self._option: dict | None = None
        self._link: tuple[dict, list[str]] | None = None

    def handle_starttag(self, tag, attrs):
        a = {k: (v if v is not None else "") for k, v in attrs}
        if "data-testid" in a:
            self.testids.add(a["data-testid"])
        if tag == "a" and "href" in a:
            self._link = (a, [])
        if tag == "form":
            self._form = Form(a)
            self.forms.append(self._form)
            return
        if self._form is None:
            return
        if tag == "input":
            self._form.controls.append(Control("input", a))
        elif tag in {"select", "textarea", "button"}:
            self._open = Control(tag, a)
            self._form.controls.append(self._open)
        elif tag == "option" and self._open is not None and self._open.tag == "select":
            self._option = {"value": a.get("value"), "selected": "selected" in a, "text": ""}
            self._open.options.append(self._option)

    def handle_data(self, data):
        if self._link is not None:
            self._link[1].append(data)
        if self._option is not None:
            self._option["text"] += data
        elif self._open is not None and self._open.tag in {"textarea", "button"}:
            self._open.text += data

    def handle_endtag(self, tag):
        if tag == "a" and self._link is not None:
            self.links.append((self._link[0], " ".join("".join(self._link[1]).split())))
            self._link = None
        elif tag == "option" and self._option is not None:
            if self._option["value"] is None:  # no value attribute: the option's text
                self._option["value"] = self._option["text"].strip()
            self._option = None
        elif tag in {"select", "textarea", "button"} and self._open is not None:
            self._open = None
        elif tag == "form":
            self._form = None


def parse(html: str) -> PageParser:
    parser = PageParser()
    parser.feed(html)
    parser.close()
    return parser


def live_form(page: PageParser) -> Form:
    """The form that redraws itself as it is edited (hx-get) and posts: the panel's, the
    ask page's."""
    forms = [f for f in page.forms if "hx-get" in f.attrs and f.attrs.get("method") == "post"]
    assert len(forms) == 1, f"expected one live form, found {len(forms)}"
    return forms[0]


def htmx_params(form: Form, pairs):
    """hx-params: which of the form's fields htmx sends with its request."""
    rule = (form.attrs.get("hx-params") or "*").strip()
    if rule == "*":
        return pairs
    if rule == "none":
        return []
    if rule.startswith("not "):
        left_out = {n.strip() for n in rule[4:].split(",")}
        return [(k, v) for k, v in pairs if k not in left_out]
    kept = {n.strip() for n in rule.split(",")}
    return [(k, v) for k, v in pairs if k in kept]


# ---------------------------------------------------------------------------
# A browser on Django's test client, and the query counter


def counted(queries) -> int:
    return sum(1 for q in queries if not q["sql"].lstrip().upper().startswith(TRANSACTION_CONTROL))


class Browser:
    def __init__(self, user):
        self.client = Client(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="pl")
        self.client.force_login(user)
        self.user = user

    def open(self, url: str):
        """GET, following redirects as a browser does (the panel signs its address)."""
        response = self.client.get(url, follow=True)
        assert response.status_code == 200, (url, response.status_code)
        return response

    def htmx_get(self, page_url: str, form: Form, pairs, *, target: str | None = None):
        """The htmx GET of the form's own trigger; `target` for a field's own redraw."""
        path = form.attrs["hx-get"] or page_url
        target = target or (form.attrs.get("hx-target") or "").removeprefix("#")
        headers = {"HX-Request": "true", "HX-Current-URL": f"http://testserver{page_url}"}
        if target:
            headers["HX-Target"] = target
        query = urlencode(htmx_params(form, pairs))
        return self.client.get(f"{path}?{query}" if query else path, headers=headers)

    def submit(self, page_url: str, form: Form, pairs):
        action = form.attrs.get("action") or urlsplit(page_url).path
        return self.client.post(action, urlencode(pairs), "application/x-www-form-urlencoded")


class Counter:
    """Each step's counts over the repetitions: one number per request of the step."""

    def __init__(self):
        self.counts: dict[tuple[str, str, str], list[tuple[int, ...]]] = {}

    def measure(self, key, request, *, keep: bool):
        with CaptureQueriesContext(connection) as queries:
            response = request()
        if keep:
            self.counts.setdefault(key, []).append((counted(queries.captured_queries),))
        return response

    def measure_following(self, key, browser: Browser, url: str, *, keep: bool):
        """A link opened: its request and each redirect the browser follows, counted apart."""
        counts = []
        for _ in range(5):
            with CaptureQueriesContext(connection) as queries:
                response = browser.client.get(url)
            counts.append(counted(queries.captured_queries))
            if response.status_code not in (301, 302, 303, 307, 308):
                break
            url = response["Location"]
        if keep:
            self.counts.setdefault(key, []).append(tuple(counts))
        return url, response


# ---------------------------------------------------------------------------
# The data: users, sheets and running sessions through the services that make them


def make_user(username: str, *, moderator: bool = False):
    user = get_user_model().objects.create_user(username=username)
    if moderator:
        Group.objects.get(name=MODERATOR_GROUP).user_set.add(user)
    return user


def make_sheet(system: str, owner, name: str):
    value, level = SHEET[system]
    return character_services.character_create(
        owner=owner,
        system=system,
        values={
            "name": name,
            "description": "",
            "hp_current": 10,
            "hp_max": 10,
            "attributes": dict.fromkeys(Attribute.objects.filter(system=system), value),
            "skills": dict.fromkeys(Skill.objects.filter(system=system), level),
            "traits": [],
            "items": {},
        },
    )


@dataclass
class Table:
    system: str
    session: object
    gm: object
    player: object
    hero: object  # the player's character
    panel_url: str
    ask_url: str


def make_table(system: str, moderator) -> Table:
    gm = make_user(f"mg-{system}")
    player = make_user(f"gracz-{system}")
    companion = make_user(f"towarzysz-{system}")
    hero = make_sheet(system, player, f"Bohater {system}")
    session = diary_services.session_create(
        gm=gm,
        title=f"Historia {system}",
        description="",
        system=system,
        criticals_enabled=True,
        npc_mode="fixed_modifiers",
        roll_policy="players_own",
    )
    for sheet in (hero, make_sheet(system, companion, f"Towarzysz {system}")):
        invitation = diary_services.participation_invite(session=session, by=gm, character=sheet)
        diary_services.participation_decide(participation=invitation, by=sheet.owner, accept=True)
    for status, by in [
        (SessionStatus.PLAN_SUBMITTED, gm),
        (SessionStatus.ACCEPTED, moderator),
        (SessionStatus.RUNNING, gm),
    ]:
        session = diary_services.session_transition(session=session, by=by, to=status)
    return Table(
        system,
        session,
        gm,
        player,
        hero,
        reverse("rolls:panel", args=[session.pk]),
        reverse("rolls:ask", args=[session.pk]),
    )


def new_turn(table: Table, *writers) -> None:
    """A new turn (each measured roll is its character's first action roll of a turn), and
    a post by each writer in it (a roll lands in the roller's post, as in play)."""
    diary_services.turn_open_next(session=table.session, by=table.gm)
    for user in writers:
        character = table.hero if user == table.player else None
        diary_services.post_create(
            session=table.session,
            author=user,
            character=character,
            narration="Rozglądam się i sięgam po kości.",
            nc_note="",
            token=uuid.uuid4(),
        )


# ---------------------------------------------------------------------------
# The steps


def redrawn_has_form(page) -> bool:
    """Whether a redraw brought the form back (a preview-only redraw leaves it as it was)."""
    try:
        live_form(page)
    except AssertionError:
        return False
    return True


def chance_shown(html: str) -> bool:
    ids = parse(html).testids
    return "chance" in ids and "preview-problems" not in ids


def settled_form(browser: Browser, url: str) -> tuple[str, Form]:
    """The live form of the page at `url` (after its redirects), with each select still on
    a blank choice set to its first option, one redraw at a time as the page asks for it
    (a choice may bring new fields)."""
    response = browser.open(url)
    query = response.request["QUERY_STRING"]
    page_url = response.request["PATH_INFO"] + (f"?{query}" if query else "")
    form = live_form(parse(response.content.decode()))
    for _ in range(6):
        if not form.choose_blank_selects():
            break
        # A choice others depend on redraws the whole panel (its field's own target); the
        # form's own trigger redraws only the preview.
        whole = "panel" if form.attrs.get("hx-target") == "#preview" else None
        redraw = browser.htmx_get(page_url, form, form.pairs(), target=whole)
        assert redraw.status_code == 200, redraw.status_code
        form = live_form(parse(redraw.content.decode()))
    return page_url, form


def preview_and_roll(counter: Counter, table: Table, role: str, *, keep: bool) -> None:
    user = table.gm if role == "GM" else table.player
    new_turn(table, user)
    browser = Browser(user)
    page_url, form = settled_form(browser, table.panel_url)
    key = (table.system, role, "preview")
    shown = counter.measure(key, lambda: browser.htmx_get(page_url, form, form.pairs()), keep=keep)
    assert shown.status_code == 200, shown.status_code
    assert chance_shown(shown.content.decode()), f"{key}: the preview shows no chance"
    redrawn = parse(shown.content.decode())
    if redrawn_has_form(redrawn):  # a redraw of the whole panel: the form as it left it
        form = live_form(redrawn)
    before = Roll.objects.count()
    key = (table.system, role, "roll POST")
    made = counter.measure(
        key, lambda: browser.submit(page_url, form, form.submission(ROLL_BUTTON)), keep=keep
    )
    assert made.status_code == 302, (key, made.status_code, made.content.decode()[-3000:])
    assert Roll.objects.count() == before + 1, f"{key}: not exactly one roll stored"


def ask_and_answer(counter: Counter, table: Table, *, keep: bool) -> None:
    new_turn(table, table.player)
    player, gm = Browser(table.player), Browser(table.gm)
    page_url, form = settled_form(player, table.ask_url)
    asks = RollAsk.objects.filter(session=table.session).count()
    key = (table.system, "player", "request POST")
    sent = counter.measure(
        key, lambda: player.submit(page_url, form, form.submission(ASK_BUTTON)), keep=keep
    )
    assert sent.status_code == 302, (key, sent.status_code, sent.content.decode()[-3000:])
    assert RollAsk.objects.filter(session=table.session).count() == asks + 1, key
    ask = RollAsk.objects.filter(session=table.session).latest("pk")

    # The GM reads the post the request is in, and follows its "answer" link.
    post_page = gm.open(sent["Location"])
    shown = parse(post_page.content.decode()).links
    links = [a["href"] for a, text in shown if text in ANSWER_LINK]
    assert links, "the GM sees no link to answer the request"
    link = links[-1]  # the newest request is the lowest on the page
    key = (table.system, "GM", "answer: open link")
    page_url, opened = counter.measure_following(key, gm, link, keep=keep)
    assert opened.status_code == 200, (key, opened.status_code)
    html = opened.content.decode()
    assert "answering" in parse(html).testids, f"{key}: the panel does not answer the request"
    form = live_form(parse(html))
    rolls = Roll.objects.count()
    key = (table.system, "GM", "answer: roll POST")
    made = counter.measure(
        key, lambda: gm.submit(page_url, form, form.submission(ROLL_BUTTON)), keep=keep
    )
    assert made.status_code == 302, (key, made.status_code, made.content.decode()[-3000:])
    assert Roll.objects.count() == rolls + 1, f"{key}: not exactly one roll stored"
    ask.refresh_from_db()
    assert ask.answer_id is not None, f"{key}: the roll does not answer the request"


def grow_history(table: Table, posts: int, rolls: int) -> None:
    """Posts and rolls in one turn: a GM's roll through the panel, the player's posts, and
    copies of the roll spread over them (tests/scale_rolls.py)."""
    preview_and_roll(Counter(), table, "GM", keep=False)
    add_posts(table.session, table.player, posts)
    add_rolls(table.session, rolls - 1)


# ---------------------------------------------------------------------------
# The run


STEPS = [
    ("GM", "preview"),
    ("GM", "roll POST"),
    ("player", "preview"),
    ("player", "roll POST"),
    ("player", "request POST"),
    ("GM", "answer: open link"),
    ("GM", "answer: roll POST"),
]


def report(counter: Counter, repeats: int) -> tuple[str, bool]:
    vendor = connection.vendor
    lines = [
        f"database: {vendor}; SQL queries per request, median of {repeats} (transaction "
        "control not counted)",
        "",
        "| step | " + " | ".join(SYSTEMS) + " |",
        "|---|" + "---:|" * len(SYSTEMS),
    ]
    steady = True
    for role, step in STEPS:
        cells = []
        for system in SYSTEMS:
            runs = counter.counts[(system, role, step)]
            parts = [statistics.median(run[i] for run in runs) for i in range(len(runs[0]))]
            cell = f"{sum(parts):g}"
            if len(parts) > 1:  # a link and its redirect: each request's share
                cell += f" ({' + '.join(f'{p:g}' for p in parts)})"
            if len(set(runs)) > 1:
                steady = False
                cell += " [" + ", ".join("+".join(map(str, run)) for run in runs) + "]"
            cells.append(cell)
        lines.append(f"| {role}: {step} | " + " | ".join(cells) + " |")
    return "\n".join(lines), steady


@contextmanager
def bench_database(name: str):
    """Run the body in a test database of its own, migrated and dropped at the end, so no
    real database is ever written: in memory on SQLite; on PostgreSQL named for this
    process, so a test suite's test database on the same server is never clobbered. Pages
    name their static files without `collectstatic`'s manifest (as in the tests)."""
    setup_test_environment()
    override_settings(
        STORAGES=settings.STORAGES
        | {"staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
    ).enable()
    if connection.vendor != "sqlite":
        connection.settings_dict["TEST"]["NAME"] = f"bench_{name}_{os.getpid()}"
    database = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        yield
    finally:
        connection.creation.destroy_test_db(database, verbosity=0)
        teardown_test_environment()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=REPEATS)
    parser.add_argument("--posts", type=int, default=HISTORY_POSTS)
    parser.add_argument("--rolls", type=int, default=HISTORY_ROLLS)
    args = parser.parse_args()

    with bench_database("roll_queries"):
        moderator = make_user("moderator", moderator=True)
        tables = [make_table(system, moderator) for system in SYSTEMS]
        for table in tables:
            grow_history(table, args.posts, args.rolls)
        counter = Counter()
        for round_number in range(args.repeats + 1):
            keep = round_number > 0  # the first round warms the process up
            for table in tables:
                preview_and_roll(counter, table, "GM", keep=keep)
                preview_and_roll(counter, table, "player", keep=keep)
                ask_and_answer(counter, table, keep=keep)
        text, steady = report(counter, args.repeats)
        print(text)
        sizes = {
            t.system: (t.session.posts.count(), Roll.objects.filter(session=t.session).count())
            for t in tables
        }
        print(
            "\nsessions at the end (posts, rolls): "
            + ", ".join(f"{s} {p}/{r}" for s, (p, r) in sizes.items())
        )
        if not steady:
            print("note: some counts varied between the repetitions [each run in brackets]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
