"""In Chromium: the roller's seed leaves the browser only with the roll. Every preview of
every roll form (the panel's live redraws, its "Pokaż szansę" button, the free-form page's
live preview and its "Pokaż, co oznacza" button, the request page's redraws) goes without
it; the roll's own POST carries it, and the roll's fair dice are drawn from it. A site that
saw the seed before the roll could pick the roll's number or its turn's entries to suit it
(docs/audit.md, "Provably fair dice")."""

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

from rolls.models import Roll
from tests.browser.conftest import log_in
from tests.browser.test_roll_panel import (
    COUNT_REDRAWS,
    choose,
    open_ask_mode,
    open_panel,
    open_tab,
    roll_and_land_in_the_diary,
    type_in,
)
from tests.conftest import PASSWORD, polish

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.fair_dice]


class Requests:
    """Every request the page sends to one of the site's roll forms, with what it sent."""

    def __init__(self, page, path: str):
        self.sent: list[tuple[str, dict]] = []
        page.on("request", self._seen)
        self.path = path

    def _seen(self, request) -> None:
        url = urlsplit(request.url)
        if url.path != self.path:
            return
        fields = parse_qs(url.query)
        if request.method == "POST":
            fields.update(parse_qs(request.post_data or ""))
        self.sent.append((request.method, fields))

    def previews(self) -> list[dict]:
        return [fields for method, fields in self.sent if method == "GET" or "preview" in fields]

    def rolls(self) -> list[dict]:
        return [
            fields for method, fields in self.sent if method == "POST" and "preview" not in fields
        ]


def _the_rolls_seed(fields: dict, roll: Roll) -> None:
    (seed,) = fields["client_seed"]
    assert re.fullmatch(r"[0-9a-f]{32}", seed)
    fair = roll.record["fair"]
    assert (fair["client_seed"], fair["client_seed_by"]) == (seed, "browser")


def test_the_panels_previews_never_send_the_rollers_seed(page, table):
    page.add_init_script(COUNT_REDRAWS)
    log_in(page, table.gm.username, PASSWORD)
    sent = Requests(page, f"/sessions/{table.session.pk}/rolls/panel/")
    open_panel(page, table)
    open_tab(page, "Attributes")
    choose(page, "a-character", value=str(table.borys.pk))  # redraws the whole panel
    choose(page, "a-attribute", label="Zręczność")
    choose(page, "a-gm_difficulty", value="-150")
    type_in(page, "a-gm_difficulty_reason", "śliska klamka")  # redraws the preview
    # The preview without JavaScript's help: a POST answered by the panel's address.
    page.get_by_test_id("show-chance").click()
    page.wait_for_load_state("load")
    expect(page.get_by_test_id("preview")).to_be_visible()
    choose(page, "a-attribute", label="Zręczność")
    roll = roll_and_land_in_the_diary(page)

    previews = sent.previews()
    assert len(previews) >= 5, sent.sent
    assert any("preview" in fields for fields in previews)
    assert [fields for fields in previews if "client_seed" in fields] == []
    (rolled,) = sent.rolls()
    _the_rolls_seed(rolled, roll)


def test_the_free_roll_pages_previews_never_send_the_rollers_seed(page, table):
    log_in(page, table.gm.username, PASSWORD)
    sent = Requests(page, f"/sessions/{table.session.pk}/rolls/free/")
    page.goto(f"/sessions/{table.session.pk}/")
    page.get_by_test_id("free-roll-link").click()
    expression = page.get_by_label(polish("Dice expression"))
    expression.fill("3k6+1")
    expect(page.get_by_test_id("free-summary")).to_contain_text("3 kości k6")
    page.get_by_test_id("free-target").fill("12")
    expect(page.get_by_test_id("free-at-least")).to_be_visible()
    page.get_by_role("button", name=polish("Show what it means")).click()
    page.wait_for_load_state("load")
    expect(page.get_by_test_id("free-summary")).to_contain_text("3 kości k6")
    page.get_by_label(polish("What it is for")).fill("Pułapka")
    page.get_by_test_id("free-roll-submit").click()
    page.wait_for_url(re.compile(r"#roll-\d+$"))
    roll = Roll.objects.get(session=table.session, seq=int(page.url.rsplit("#roll-", 1)[1]))

    previews = sent.previews()
    assert any("preview" in fields for fields in previews), sent.sent
    assert any("expression" in fields for fields in previews if "preview" not in fields)
    assert [fields for fields in previews if "client_seed" in fields] == []
    (rolled,) = sent.rolls()
    _the_rolls_seed(rolled, roll)


def test_the_request_pages_redraws_never_send_a_seed(page, table):
    page.add_init_script(COUNT_REDRAWS)
    log_in(page, table.alice.username, PASSWORD)
    sent = Requests(page, f"/sessions/{table.session.pk}/rolls/ask/")
    page.goto(f"/sessions/{table.session.pk}/")
    page.get_by_role("link", name=polish("Ask the GM for a roll")).click()
    open_ask_mode(page, "attribute")
    choose(page, "a-attribute", label="Zręczność")
    assert [method for method, _fields in sent.sent].count("GET") >= 2, sent.sent
    assert [fields for _method, fields in sent.sent if "client_seed" in fields] == []
