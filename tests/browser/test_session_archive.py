"""In Chromium: a player downloads the whole session from the diary as one ZIP, opens its
pages from disk (file://, no site, no network) and its verify.html checks the ledger with
WebCrypto: OK for the ledger as the site keeps it, and for each changed byte (a record, a
die, a signature, a revealed seed) the number of the roll that no longer holds."""

import copy
import io
import json
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import translation
from PIL import Image
from playwright.sync_api import expect

from characters.portraits import portrait_check_and_encode
from characters.services import character_portrait_set
from rolls.audit import archive
from rolls.ledger import signing
from rolls.ledger.chain import chain_hash
from tests.archive_session import NARRATION, TALK, archived_session
from tests.browser.conftest import log_in
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)


def _portrait():
    buf = io.BytesIO()
    Image.new("RGB", (120, 160), (140, 60, 30)).save(buf, format="PNG")
    upload = SimpleUploadedFile("lirael.png", buf.getvalue(), content_type="image/png")
    return portrait_check_and_encode(upload)


def _offline_page(browser):
    """A browser of its own that may load only files: any other request fails the test."""
    context = browser.new_context(locale="pl-PL")
    page = context.new_page()
    page.set_default_timeout(30_000)
    elsewhere = []
    context.route(
        lambda url: not url.startswith("file://"),
        lambda route: (elsewhere.append(route.request.url), route.abort()),
    )
    failed = []
    page.on("requestfailed", lambda request: failed.append(request.url))
    return context, page, elsewhere, failed


def _verdict(page, path) -> tuple[str, str, str | None]:
    page.goto(path.as_uri())
    result = page.get_by_test_id("verify-result")
    expect(result).not_to_have_attribute("data-status", "running")
    return (
        result.get_attribute("data-status"),
        result.inner_text(),
        result.get_attribute("data-seq"),
    )


def _resigned(ledger: dict, seq: int, change) -> dict:
    """A forger with the site's key: row `seq`'s record changed by `change`, and every hash
    from it on recomputed and signed again, so the chain and signatures hold."""
    forged = copy.deepcopy(ledger)
    rows = forged["rolls"]
    change(rows[seq - 1]["record"])
    for row in rows[seq - 1 :]:
        row["prev_hash"] = rows[row["seq"] - 2]["hash"] if row["seq"] > 1 else "0" * 64
        row["hash"] = chain_hash(row["prev_hash"], row["record"])
        row["key_id"], row["signature"] = signing.sign(row["hash"])
    return forged


def _flip_hex(text: str) -> str:
    return ("0" if text[0] != "0" else "1") + text[1:]


def test_the_archive_opens_from_disk_and_its_verifier_names_each_broken_roll(
    page, browser, live_server, table, media_root, tmp_path
):
    character_portrait_set(character_pk=table.lirael.pk, by=table.alice, portrait=_portrait())
    made = archived_session(table)
    dice_roll, public = made["dice_roll"], made["public"]

    log_in(page, table.alice.username, PASSWORD)
    page.goto(f"/sessions/{table.session.pk}/")
    with page.expect_download() as download:
        page.get_by_test_id("archive-link").click()
    zipped = tmp_path / "archive.zip"
    download.value.save_as(zipped)
    unpacked = tmp_path / "archive"
    with zipfile.ZipFile(zipped) as files:
        files.extractall(unpacked)

    context, offline, elsewhere, failed = _offline_page(browser)
    try:
        # The diary from disk: posts, roll lines, the portrait, the talk; nothing fetched
        # from anywhere but the archive's own files.
        offline.goto((unpacked / "index.html").as_uri())
        posts = offline.get_by_test_id("archive-post")
        expect(posts.first).to_contain_text("Mgła nad Czarnym Brodem gęstnieje")
        expect(offline.locator("strong", has_text="Czarnym Brodem")).to_be_visible()
        expect(posts.filter(has_text="Lirael nasłuchuje.")).to_have_count(1)
        for roll in (public, made["secret"], made["revealed"], made["entry"], dice_roll):
            expect(offline.locator(f"#roll-{roll.seq}")).to_be_visible()
        expect(offline.locator(f"#roll-{public.seq}")).to_contain_text("Percepcja")
        portrait = offline.get_by_test_id("post-portrait").first
        expect(portrait).to_be_visible()
        assert portrait.evaluate("(img) => img.complete && img.naturalWidth > 0")
        # The narration's <script> was text, sanitised away as on the site: no script runs.
        assert "<script>" in NARRATION and offline.locator("script").count() == 0
        offline.get_by_role("link", name="Poza grą (OOC)").click()
        expect(offline.get_by_test_id("archive-talk")).to_contain_text(TALK)

        # The verifier, as downloaded: every check passes.
        status, text, _seq = _verdict(offline, unpacked / "verify.html")
        assert status == "ok", text
        rows = len(json.loads((unpacked / "ledger.json").read_text(encoding="utf-8"))["rolls"])
        assert f"OK: wpisów łańcucha: {rows}" in text
        details = offline.locator("#details").inner_text()
        # The public roll's dice and the revealed secret roll's.
        assert "Przeliczone kości z odsłoniętych ziaren: rzutów 2;" in details
        assert "czekających na odsłonięcie ziarna: 0" in details

        ledger = json.loads((unpacked / "ledger.json").read_text(encoding="utf-8"))
        reveal_seq = next(
            row["seq"] for row in ledger["rolls"] if row["record"]["kind"] == "dice_reveal"
        )

        def one_byte_of_a_record(data):
            record = data["rolls"][public.seq - 1]["record"]
            record["rolled_by"]["username"] = _flip_hex(record["rolled_by"]["username"])
            return data

        def one_byte_of_a_signature(data):
            row = data["rolls"][public.seq - 1]
            row["signature"] = ("A" if row["signature"][0] != "A" else "B") + row["signature"][1:]
            return data

        def another_face(draw):
            low, high, face = draw
            draw[2] = low if face != low else high

        def a_die(record):
            # A forger's die: the draw and the result's dice changed alike.
            another_face(record["fair"]["draws"][0])
            record["result"]["dice"][0] = record["fair"]["draws"][0][2]

        def a_seed(record):
            seeds = record["dice_reveal"]["seeds"]
            seeds["public"] = _flip_hex(seeds["public"])

        def a_die_unsigned(data):
            another_face(data["rolls"][dice_roll.seq - 1]["record"]["fair"]["draws"][0])
            return data

        cases = [
            ("record", one_byte_of_a_record(copy.deepcopy(ledger)), public.seq, "zmieniony zapis"),
            ("signature", one_byte_of_a_signature(copy.deepcopy(ledger)), public.seq, "podpis"),
            ("die, hashes kept", a_die_unsigned(copy.deepcopy(ledger)), dice_roll.seq, "zapis"),
            ("die", _resigned(ledger, dice_roll.seq, a_die), dice_roll.seq, "kość 1 nie wynika"),
            ("seed", _resigned(ledger, reveal_seq, a_seed), reveal_seq, "ziarna"),
        ]
        for name, data, seq, problem in cases:
            forged = tmp_path / f"verify-{name.replace(' ', '-').replace(',', '')}.html"
            with translation.override("pl"):
                forged.write_text(archive.verify_page(data), encoding="utf-8")
            status, text, named = _verdict(offline, forged)
            assert (status, named) == ("broken", str(seq)), (name, text)
            assert f"przy rzucie #{seq}" in text and problem in text, (name, text)
    finally:
        context.close()
    assert elsewhere == [] and failed == []
