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
from rolls.audit import archive
from rolls.ledger import signing
from rolls.ledger.export import ledger_export
from tests.browser.test_session_archive import _offline_page, _resigned, _verdict
from tests.rolls.ledger.test_fair_dice_play import a_roll_of_each_system
from tests.rolls.ledger.test_signing import load_script

pytestmark = [pytest.mark.django_db, pytest.mark.fair_dice]


def _another_face(record):
    """A forger's die: the last draw and the result's last die changed alike, to a face that
    asks for no other dice (not a Q10 ten, nor an Ars Magica 0 or 1): the dice the rules ask
    for hold, only the seeds can tell."""
    low, _high, face = record["fair"]["draws"][-1]
    record["fair"]["draws"][-1][2] = record["result"]["dice"][-1] = (
        low + 2 if face != low + 2 else low + 3
    )


def test_every_system_s_dice_recompute_outside_the_site(browser, table, make_user, tmp_path):
    made = a_roll_of_each_system(table, make_user)
    script = load_script()
    public_key = signing.current_public_key()
    context, offline, elsewhere, failed = _offline_page(browser)
    try:
        for session, gm, roll in made:
            diary_services.turn_open_next(session=session, by=gm)
            ledger = json.loads(json.dumps(ledger_export(session), default=str))
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
            assert f"kość {len(roll.record['fair']['draws'])} nie wynika" in text, text
        # The three verifiers' other rules, on the first session's ledger (re-signed by a
        # forger with the site's key, so only these rules can tell).
        session, _gm, roll = made[0]
        ledger = json.loads(json.dumps(ledger_export(session), default=str))
        reveal = next(r for r in ledger["rolls"] if r["record"]["kind"] == "dice_reveal")

        def result_dice_changed(record):
            record["result"]["dice"][0] = record["result"]["dice"][0] % 1000 + 1

        def fair_left_out(record):
            del record["fair"]

        def reveal_emptied(record):
            record["dice_reveal"]["seeds"] = {}

        cases = [
            (roll.seq, result_dice_changed, "inne kości niż jego losowania"),
            (roll.seq, fair_left_out, "bez uczciwych kości"),
            (reveal["seq"], reveal_emptied, "błędne odsłonięcie ziarna"),
        ]
        for seq, change, words in cases:
            forged = _resigned(copy.deepcopy(ledger), seq, change)
            path.write_text(json.dumps(forged), encoding="utf-8")
            assert script.main([str(path), "--public-key", public_key]) == 1, change.__name__
            with translation.override("pl"):
                page.write_text(archive.verify_page(forged), encoding="utf-8")
            status, text, named = _verdict(offline, page)
            assert (status, named) == ("broken", str(seq)), (change.__name__, text)
            assert words in text, (change.__name__, text)
    finally:
        context.close()
    assert elsewhere == [] and failed == []
