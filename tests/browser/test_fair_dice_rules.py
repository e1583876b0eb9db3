"""verify.html, opened in Chromium from disk, applies the fair-dice rules of docs/audit.md as
the site's verifier and docs/verify_ledger.py do (tests/rolls/ledger/test_fair_ledger_script.py,
tests/rolls/ledger/test_fair_requests.py): on the same crafted chains it names the same entry, in
Polish; an honest session to its end, and every conformance vector's dice, hold."""

import json

import pytest
from django.utils import translation
from playwright.sync_api import expect

from rolls.audit import archive
from rolls.ledger.export import ledger_export
from tests.browser.test_session_archive import _offline_page, _verdict
from tests.rolls.ledger.fair_ledgers import (
    REFUSED,
    Chain,
    cut_short,
    ended_session,
    vector_seq,
    vectors_ledger,
)

pytestmark = pytest.mark.django_db


def _page_verdict(page, tmp_path, ledger, name="verify.html"):
    path = tmp_path / name
    with translation.override("pl"):
        path.write_text(archive.verify_page(ledger), encoding="utf-8")
    return _verdict(page, path)


def _export(session) -> dict:
    return json.loads(json.dumps(ledger_export(session), default=str))


@pytest.fixture
def offline(browser):
    context, page, elsewhere, failed = _offline_page(browser)
    yield page
    context.close()
    assert elsewhere == [] and failed == []


@pytest.mark.parametrize("case", REFUSED, ids=lambda case: case.name)
def test_verify_html_refuses_what_a_rule_forbids(offline, table, tmp_path, case):
    seq = case.build(Chain(table))
    status, text, named = _page_verdict(offline, tmp_path, _export(table.session))
    assert (status, named) == ("broken", str(seq)), text
    assert f"przy rzucie #{seq}" in text and case.page in text, text


def test_verify_html_accepts_a_session_to_its_end(offline, table, tmp_path):
    ended_session(table)
    status, text, _seq = _page_verdict(offline, tmp_path, _export(table.session))
    assert status == "ok", text
    details = offline.locator("#details")
    expect(details).to_contain_text("Przeliczone kości z odsłoniętych ziaren: rzutów 3;")
    expect(details).to_contain_text("Sesja zakończyła się we wpisie #10: nic nie pozostało")


def test_verify_html_reads_every_vectors_dice_as_the_engine_asks(offline, tmp_path):
    honest = vectors_ledger()
    status, text, _seq = _page_verdict(offline, tmp_path, honest, "honest.html")
    assert status == "ok", text
    awaiting = len(honest["rolls"]) - 1
    expect(offline.locator("#details")).to_contain_text(
        f"czekających na odsłonięcie ziarna: {awaiting}"
    )
    for system, test in (("q10", "pool"), ("arsmagica", "stress"), ("free", "notation")):
        seq = vector_seq(honest, system, test, extra=True)
        forged = vectors_ledger(lambda records, seq=seq: cut_short(records, seq))
        status, text, named = _page_verdict(offline, tmp_path, forged, f"{system}.html")
        assert (status, named) == ("broken", str(seq)), (system, text)
        assert "kości niezgodne z tym, o co proszą reguły" in text, text
