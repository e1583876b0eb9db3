"""A seeded random walk through the roll panel's states, in Chromium, in all four systems.

The GM answers players' requests the way a person does: tabs, modes, characters and
attributes picked, modifiers and reasons typed at a person's speed, boxes ticked, a request
answered and left, the chance looked at, the roll clicked — a few actions at a time, without
waiting for the page in between. Once the page is quiet after each step, the walk checks:

- nothing typed is lost: a field typed into shows what was typed, whenever it is on the page
  (a mode that lacks it keeps it for when the mode comes back);
- the request being answered is shown (and sent with the roll) until the GM leaves it with
  "Do not answer", and only then is it gone;
- a click on Roll stores at most one roll, and that roll is the one the line above the
  button described (its character, test, request, post and turn); a refused click stores
  nothing and says why.

The walk is seeded (`PANEL_WALK_SEED`, default fixed) and bounded (`PANEL_WALK_STEPS` steps a
system); a failure prints the seed and the steps that led to it.
"""

from __future__ import annotations

import os
import random
import re
import time
from dataclasses import dataclass, field

import pytest
from django.test import Client
from django.urls import reverse
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from characters.models import Attribute, Character, Trait
from diary.models import Post
from diary.services import post_create
from rolls.models import AskStatus, Roll, RollAsk, SecretRoll
from rolls.registry import system_for
from tests.browser.conftest import log_in, wait_until_quiet
from tests.conftest import PASSWORD, polish
from tests.rolls.systems.arsmagica.ars_table import build_saga
from tests.rolls.systems.ciernie.ciernie_table import build_ciernie_table
from tests.rolls.systems.q10.q10_table import build_q10_table

pytestmark = pytest.mark.django_db(transaction=True)

SEED = int(os.environ.get("PANEL_WALK_SEED", "20261207"))
STEPS = int(os.environ.get("PANEL_WALK_STEPS", "16"))

# Longer than the form's own `input delay:400ms`: a preview the typing scheduled has left.
QUIET_MS = 700


def settle(page) -> None:
    """Wait until the page is quiet: no request in flight, none about to leave."""
    wait_until_quiet(page, QUIET_MS)


WORDS = ["mgła", "brama", "strażnik", "nasłuch", "wiatr", "cisza", "skok", "lina", "kruk"]


@dataclass
class World:
    """What the walk expects of the page."""

    typed: dict[str, str] = field(default_factory=dict)  # field name → what was typed
    answering: int | None = None  # the request being answered
    log: list[str] = field(default_factory=list)


class Walk:
    def __init__(self, page, t, system: str, asks: list[RollAsk], rng: random.Random):
        self.page, self.t, self.system, self.rng = page, t, system, rng
        self.asks = asks
        self.world = World()
        self.panel = reverse("rolls:panel", args=[t.session.pk])
        # Documents the page has loaded (not htmx's address changes): a click that went
        # shows as one more.
        self.loads = 0

        def loaded(_page):
            self.loads += 1

        page.on("load", loaded)

    # -- steps ---------------------------------------------------------------------------

    def open_panel(self) -> None:
        self.page.goto(self.panel)
        settle(self.page)
        self.world.typed, self.world.answering = {}, None

    def open_answer(self) -> bool:
        links = self.page.locator(
            '[data-testid="open-asks"] a', has_text=polish("Answer with a roll")
        )
        if not links.count():
            return False
        links.nth(self.rng.randrange(links.count())).click()
        self.page.wait_for_url(re.compile(r"[?&]ask=\d+"))
        settle(self.page)
        self.world.typed = {}
        self.world.answering = int(self.page.locator('#panel-form input[name="ask"]').input_value())
        return True

    def click_tab(self) -> bool:
        tabs = self.page.locator("#panel nav.tabs a.tab")
        if tabs.count() < 2:
            return False
        tabs.nth(self.rng.randrange(tabs.count())).click()
        return True

    def click_mode(self) -> bool:
        modes = self.page.locator("#panel p.modes a.mode")
        if modes.count() < 2:
            return False
        modes.nth(self.rng.randrange(modes.count())).click()
        return True

    def choose(self) -> bool:
        selects = self.page.locator("#panel-form select:visible")
        if not selects.count():
            return False
        select = selects.nth(self.rng.randrange(selects.count()))
        values = select.locator("option").evaluate_all("os => os.map(o => o.value)")
        if not values:
            return False
        select.select_option(self.rng.choice(values))
        return True

    def type_text(self) -> bool:
        boxes = self.page.locator(
            '#panel-form input[type="text"]:visible, #panel-form textarea:visible'
        )
        text = " ".join(self.rng.sample(WORDS, self.rng.randint(1, 3)))
        return self._type(boxes, text, delay=self.rng.choice([20, 60, 120]))

    def type_number(self) -> bool:
        boxes = self.page.locator('#panel-form input[type="number"]:visible')
        if not boxes.count():
            return False
        box = boxes.nth(self.rng.randrange(boxes.count()))
        low = int(box.get_attribute("min") or -20)
        high = int(box.get_attribute("max") or 20)
        number = str(self.rng.randint(max(low, -30), min(high, 30)))
        return self._type(box, number, delay=self.rng.choice([40, 120]))

    def _type(self, boxes, text: str, *, delay: int) -> bool:
        """Type into one of these fields as a person does, into the very element found: a
        redraw keeps a typed field (hx-preserve), but a mode that lacks it takes it away,
        and what was typed into an element no longer on the page is not on it."""
        if not boxes.count():
            return False
        box = boxes.nth(self.rng.randrange(boxes.count())).element_handle()
        name = box.get_attribute("name")
        try:
            box.click()
            box.press("Control+a")
            box.type(text, delay=delay)
        except PlaywrightError:
            if box.evaluate("e => e.isConnected"):
                raise
            return True
        if box.evaluate("e => e.isConnected"):
            self.world.typed[name] = text
        return True

    def tick(self) -> bool:
        boxes = self.page.locator('#panel-form input[type="checkbox"]:visible:enabled')
        if not boxes.count():
            return False
        boxes.nth(self.rng.randrange(boxes.count())).click()
        return True

    def leave(self) -> bool:
        button = self.page.get_by_test_id("leave-answer")
        if not button.count():
            return False
        button.click()
        self.world.answering = None
        self.world.typed.pop("answer_note", None)
        return True

    def blur(self) -> bool:
        self.page.keyboard.press("Tab")
        return True

    def roll(self) -> bool:
        """Read the line and click Roll in one go (nothing can redraw between the two), now
        and then while the line is still being drawn (the click then waits for it, and is
        sent only if the roll is still the one read); then hold what was stored against the
        line read."""
        hurry = self.rng.random() < 0.4
        if not hurry:
            settle(self.page)
        rolls_before = Roll.objects.filter(session=self.t.session).count()
        last_post = Post.objects.filter(session=self.t.session).order_by("-id").first()
        loads = self.loads
        line, plan, state = self.page.evaluate(
            """() => {
                const line = document.querySelector('[data-testid="roll-plan"]').innerText;
                const plan = document.querySelector('[data-testid="plan-digest"]').value;
                const state = document.querySelector('#panel-form').dataset.preview;
                document.querySelector('.roll-button').click();
                return [line, plan, state];
            }"""
        )
        self.world.log.append(f"   {state} line: {line!r} (plan {plan[:12]})")
        held = self.page.get_by_test_id("plan-changed")
        deadline = time.monotonic() + 60
        while self.loads == loads and not held.is_visible():
            assert time.monotonic() < deadline, (
                "the click neither went nor said why not: "
                f"{self.page.evaluate('window.rollPlanState && window.rollPlanState()')}, "
                f"{self.page.evaluate("document.querySelector('#panel-form').dataset.preview")}"
            )
            self.page.wait_for_timeout(50)
        if self.loads == loads:  # held back: the roll changed while the line was drawn
            self.world.log.append("   held back: the line changed")
            assert Roll.objects.filter(session=self.t.session).count() == rolls_before
            return True
        self.page.wait_for_load_state("load")
        rolled = re.search(r"#roll-(\d+)$", self.page.url) or re.search(
            r"/rolls/(\d+)/$", self.page.url
        )
        made = Roll.objects.filter(session=self.t.session).count() - rolls_before
        if not rolled:
            assert made == 0, f"{made} roll(s) stored, yet the page stayed on the panel"
            refusal = self.page.locator(
                '[data-testid="refusal"], .form-errors, p.error, [data-testid="preview-problems"]'
            )
            assert refusal.count(), "a refused roll says why"
            settle(self.page)
            return True
        assert made == 1, f"one click stored {made} rolls"
        roll = Roll.objects.get(session=self.t.session, seq=int(rolled.group(1)))
        self.holds_the_line(roll, line, last_post.pk if last_post else 0)
        if self.world.answering is not None:
            ask = RollAsk.objects.get(pk=self.world.answering)
            assert ask.answer_id == roll.pk and ask.status != AskStatus.OPEN
        self.open_panel()
        return True

    def holds_the_line(self, roll: Roll, line: str, last_post: int) -> None:
        """The stored roll is the one the line described: kind, characters, test, request,
        post and turn."""
        record = roll.record
        system = system_for(self.t.session.system)
        if roll.test == "secret":
            record = SecretRoll.objects.get(roll=roll).record
            assert (
                polish("Secret roll (players see only its commitment): %(kind)s", kind="") in line
            )
        kind = system.mode_label(record["kind"])
        assert kind.lower() in line.lower(), (kind, line)
        for person in record.get("characters", {}).values():
            if isinstance(person, dict) and person.get("name"):
                assert person["name"] in line, (person["name"], line)
        if record.get("what"):
            assert record["what"] in line, (record["what"], line)
        answers = record.get("answers")
        if self.world.answering is None:
            assert answers is None, "a roll answered a request the page was not answering"
        else:
            assert answers and answers["ask"] == self.world.answering, (answers, line)
            assert polish("answering the request in post #%(post)s", post=answers["post"]) in line
        where = line.rsplit("; ", 1)[-1].strip()
        turn, post = record["turn"], record["post"]
        if post > last_post:
            assert where == polish("a new post at the end of the diary (turn %(turn)s)", turn=turn)
        else:
            assert where in {
                polish("into your post #%(post)s (turn %(turn)s)", post=post, turn=turn),
                polish("into post #%(post)s (turn %(turn)s)", post=post, turn=turn),
            }, (where, post)

    # -- invariants ------------------------------------------------------------------------

    def check(self) -> None:
        settle(self.page)
        for name, text in self.world.typed.items():
            box = self.page.locator(f'#panel-form [name="{name}"]:not([type="hidden"])')
            if box.count():
                shown = box.first.input_value()
                # A number field shows its default as the placeholder when a page comes
                # back with it (config.form_fields.DefaultNumberInput): the same number.
                if shown == "" and text == box.first.get_attribute("placeholder"):
                    continue
                assert shown == text, f"{name}: typed {text!r}, shows {shown!r}"
        banner = self.page.get_by_test_id("answering")
        sent = self.page.locator('#panel-form input[name="ask"]')
        if self.world.answering is None:
            assert not banner.count(), "the panel answers a request nobody chose"
            assert not sent.count() or sent.input_value() == ""
        else:
            expect(banner).to_be_visible()
            assert sent.input_value() == str(self.world.answering)

    STEPS = {
        "open_answer": 2,
        "click_tab": 3,
        "click_mode": 2,
        "choose": 4,
        "type_text": 4,
        "type_number": 3,
        "tick": 2,
        "leave": 1,
        "blur": 1,
        "roll": 2,
    }

    def run(self, steps: int) -> None:
        self.open_panel()
        names, weights = zip(*self.STEPS.items(), strict=True)
        for number in range(1, steps + 1):
            burst = self.rng.choice([1, 1, 2, 3])
            done = []
            for _ in range(burst):
                name = self.rng.choices(names, weights)[0]
                if getattr(self, name)():
                    done.append(name)
                if name in ("roll", "open_answer"):
                    break
            self.world.log.append(f"{number}. {' + '.join(done) or '(nothing to do)'}")
            self.check()


def ask_as(session, user, data) -> RollAsk:
    """The player writes a post and asks for a roll under it (one open request a post)."""
    character = Character.objects.get(pk=data.get("character") or data.get("a-character"))
    post_create(session=session, author=user, character=character, narration="Działam.", nc_note="")
    client = Client()
    client.force_login(user)
    response = client.post(reverse("rolls:ask", args=[session.pk]), data)
    assert response.status_code == 302, response.status_code
    return RollAsk.objects.latest("id")


def forum1000_world(make_user, make_character, make_session):
    gm, alice, bob = make_user("mg"), make_user("alicja"), make_user("bartek")
    lirael = make_character(alice, "Lirael", skills={"Uwodzenie": 1}, traits=["Seksapil"])
    lirael.traits.add(Trait.objects.get(system="forum1000", name="Dobry Wzrok"))
    borys = make_character(bob, "Borys", skills={"Otwieranie zamków": 3}, traits=["Precyzyjny"])
    session = make_session(gm, [lirael, borys])

    def attribute(name):
        return Attribute.objects.get(system="forum1000", name=name).pk

    def trait(name):
        return f"trait:{Trait.objects.get(system='forum1000', name=name).pk}"

    asks = [
        ask_as(session, alice, {"mode": "attribute", "a-character": lirael.pk} | fields)
        for fields in (
            {"a-attribute": attribute("Percepcja"), "a-sources": [trait("Dobry Wzrok")]},
            {"a-attribute": attribute("Charyzma"), "a-sources": [trait("Seksapil")]},
            {"a-attribute": attribute("Zręczność")},
        )
    ]
    return type("T", (), {"gm": gm, "session": session}), asks


def q10_world(make_user, *_):
    t = build_q10_table(make_user)
    data = {"mode": "pool", "character": t.eryk.pk, "attribute": t.sila.pk, "skill": t.atletyka.pk}
    data |= {"sources": [f"trait:{t.strong.pk}"]}
    return t, [ask_as(t.session, t.alice, data | {"raises": str(n)}) for n in range(3)]


def ciernie_world(make_user, *_):
    t = build_ciernie_table(make_user)
    sharp = Trait.objects.get(system="ciernie", name="Sokoli wzrok").pk

    def attribute(name):
        return Attribute.objects.get(system="ciernie", name=name).pk

    data = {"mode": "attribute", "character": t.vera.pk}
    return t, [
        ask_as(t.session, t.alice, data | fields)
        for fields in (
            {"attribute": attribute("Percepcja"), "sources": [f"trait:{sharp}"]},
            {"attribute": attribute("Siła")},
            {"attribute": attribute("Wola")},
        )
    ]


def ars_world(make_user, *_):
    t = build_saga(make_user)
    data = {"mode": "stress", "character": t.flambeau.pk}
    return t, [
        ask_as(t.session, t.player, data | fields)
        for fields in (
            {
                "characteristic": t.dex.pk,
                "ability": t.stealth.pk,
                "sources": [f"trait:{t.quick.pk}"],
            },
            {"characteristic": t.int.pk, "ability": t.latin.pk},
            {"characteristic": t.dex.pk, "ability": t.brawl.pk},
        )
    ]


# What the page's htmx did, newest last (a ring of the last 80 events, per document): a
# failing walk prints it, so an ordering that broke a promise under load can be read back.
HTMX_TRAIL = """
(() => {
  const trail = (window.__htmxTrail = []);
  const name = (el) => el && (el.name || el.id || el.getAttribute?.("data-testid") || el.tagName);
  const note = (kind) => (event) => {
    const d = event.detail || {};
    const elt = (d.requestConfig && d.requestConfig.elt) || d.elt || event.target;
    const form = document.querySelector("#panel-form");
    const ask = form && form.querySelector('input[name="ask"]');
    trail.push([
      Math.round(performance.now()), kind, name(elt),
      d.xhr ? d.xhr.status : "", d.shouldSwap === undefined ? "" : "swap=" + d.shouldSwap,
      "ask=" + (ask ? ask.value : "-"),
      document.querySelector('[data-testid="answering"]') ? "banner" : "",
    ].join(" "));
    if (trail.length > 80) { trail.shift(); }
  };
  for (const kind of ["htmx:beforeRequest", "htmx:beforeSwap", "htmx:afterSwap",
                      "htmx:abort", "htmx:sendError", "click", "change"]) {
    document.addEventListener(kind, note(kind), true);
  }
})();
"""


@pytest.mark.parametrize(
    ("system", "world"),
    [
        ("forum1000", forum1000_world),
        ("q10", q10_world),
        ("ciernie", ciernie_world),
        ("arsmagica", ars_world),
    ],
)
def test_a_random_walk_through_the_panel_keeps_its_promises(
    page, system, world, make_user, make_character, make_session
):
    t, asks = world(make_user, make_character, make_session)
    page.add_init_script(HTMX_TRAIL)
    log_in(page, t.gm.username, PASSWORD)
    seed = SEED + sum(map(ord, system))
    walk = Walk(page, t, system, asks, random.Random(seed))
    try:
        walk.run(STEPS)
    except Exception as error:
        steps = "\n".join(walk.world.log)
        try:
            trail = "\n".join(page.evaluate("() => window.__htmxTrail || []"))
        except PlaywrightError:
            trail = "(the page is gone)"
        raise AssertionError(
            f"{system}: the walk (PANEL_WALK_SEED={SEED}, seed {seed}) failed after:\n{steps}\n"
            f"-> {type(error).__name__}: {error}\nThe page's last events:\n{trail}"
        ) from error
