"""A turn of each rule system played with fair dice and closed, then verified independently
of the site: the standalone script on each export, and verify.html in Chromium from disk
(file://, WebCrypto), recompute every die from the revealed seed and the roller's seed; a
changed die is named by both."""

import copy
import json

import pytest
from django.utils import translation
from playwright.sync_api import expect

from diary import services as diary_services
from rolls import archive, selectors, signing
from tests.browser.test_session_archive import _offline_page, _resigned, _verdict
from tests.rolls.test_fair_dice_play import a_roll_of_each_system
from tests.rolls.test_signing import load_script

pytestmark = [pytest.mark.django_db, pytest.mark.fair_dice]


def _another_face(record):
    low, high, face = record["fair"]["draws"][0]
    record["fair"]["draws"][0][2] = low if face != low else high


def test_every_system_s_dice_recompute_outside_the_site(browser, table, make_user, tmp_path):
    made = a_roll_of_each_system(table, make_user)
    script = load_script()
    public_key = signing.current_public_key()
    context, offline, elsewhere, failed = _offline_page(browser)
    try:
        for session, gm, roll in made:
            diary_services.turn_open_next(session=session, by=gm)
            ledger = json.loads(json.dumps(selectors.ledger_export(session), default=str))
            path = tmp_path / f"ledger-{session.system}.json"
            path.write_text(json.dumps(ledger), encoding="utf-8")
            assert script.main([str(path), "--public-key", public_key]) == 0, session.system

            page = tmp_path / f"verify-{session.system}.html"
            with translation.override("pl"):
                page.write_text(archive.verify_page(ledger), encoding="utf-8")
            status, text, _seq = _verdict(offline, page)
            assert status == "ok", (session.system, text)
            expect(offline.locator("#details")).to_contain_text(
                "Przeliczone kości z odsłoniętych ziaren: rzutów 1;"
            )

            forged = _resigned(copy.deepcopy(ledger), roll.seq, _another_face)
            path.write_text(json.dumps(forged), encoding="utf-8")
            assert script.main([str(path), "--public-key", public_key]) == 1, session.system
            with translation.override("pl"):
                page.write_text(archive.verify_page(forged), encoding="utf-8")
            status, text, named = _verdict(offline, page)
            assert (status, named) == ("broken", str(roll.seq)), (session.system, text)
            assert "kość 1 nie wynika" in text
    finally:
        context.close()
    assert elsewhere == [] and failed == []
