"""A session carried away (rolls/audit/archive.py): the ZIP's pages, ledger and keys, for readers
only; verify.html's own checks run in Chromium (tests/browser/test_session_archive.py)."""

import io
import json
import re
import zipfile

import pytest

from diary import services as diary_services
from rolls.audit import archive
from tests.archive_session import TALK, archived_session
from tests.characters.test_portrait_pages import png, upload

pytestmark = pytest.mark.django_db


def download(client, session) -> zipfile.ZipFile:
    response = client.get(f"/sessions/{session.pk}/archive.zip")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    assert f"codziennik-sesja-{session.pk}.zip" in response["Content-Disposition"]
    return zipfile.ZipFile(io.BytesIO(response.content))


def test_a_player_carries_away_the_diary_the_ledger_and_the_verifier(table, client_for):
    made = archived_session(table)
    files = download(client_for(table.alice), table.session)
    names = set(files.namelist())
    assert {"index.html", "ooc.html", "verify.html", "ledger.json", "ledger-keys.json"} <= names
    ledger = json.loads(files.read("ledger.json"))
    export = client_for(table.alice).get(f"/sessions/{table.session.pk}/rolls/ledger.json")
    assert ledger == json.loads(export.content)  # one payload for both
    assert [row["seq"] for row in ledger["rolls"]] == list(range(1, len(ledger["rolls"]) + 1))
    keys = json.loads(files.read("ledger-keys.json"))
    assert keys["public_keys"] == ledger["public_keys"]

    diary = files.read("index.html").decode()
    assert "<strong>Czarnym Brodem</strong>" in diary  # the narration as the site renders it
    assert "<script>alert(1)</script>" not in diary and "<script" not in diary
    assert "Lirael nasłuchuje." in diary
    for roll in (made["public"], made["secret"], made["revealed"], made["entry"], made["awkward"]):
        assert f'id="roll-{roll.seq}"' in diary
    assert f'href="#roll-{made["public"].seq}"' in diary  # a roll's number links its line
    # Nothing points back at the site: every address is inside the archive.
    assert not re.search(r'(?:href|src)="/', diary)
    assert TALK in files.read("ooc.html").decode()
    verify = files.read("verify.html").decode()
    assert 'id="ledger"' in verify and made["dice_roll"].hash in verify


def test_portraits_travel_inside_the_zip(
    table, client_for, media_root, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        assert upload(client_for(table.alice), table.lirael, png()).status_code == 302
    archived_session(table)
    files = download(client_for(table.gm), table.session)
    portraits = [name for name in files.namelist() if name.startswith("portraits/")]
    assert len(portraits) == 1
    assert files.read(portraits[0])[8:12] == b"WEBP"
    diary = files.read("index.html").decode()
    assert f'src="{portraits[0]}"' in diary and 'data-testid="post-portrait"' in diary


def test_a_hidden_posts_text_stays_with_those_who_read_it_on_the_site(table, client_for):
    made = archived_session(table)
    diary_services.post_hide(post=made["players_post"], by=table.gm, reason="Spoiler")
    for reader, shown in ((table.bob, False), (table.moderator, True)):
        diary = download(client_for(reader), table.session).read("index.html").decode()
        assert "Spoiler" in diary  # the hiding is said to everyone, as on the site
        assert ("Lirael nasłuchuje." in diary) is shown


def test_only_readers_download_it(table, client_for):
    archived_session(table)
    assert (
        client_for(table.outsider).get(f"/sessions/{table.session.pk}/archive.zip").status_code
        == 404
    )


def test_the_embedded_ledger_cannot_end_its_script_block():
    page = archive.verify_page(
        {"session": 1, "title": "</script><script>alert(1)</script>", "rolls": []}
    )
    block = page.split('<script type="application/json" id="ledger">')[1].split("</script>")[0]
    assert json.loads(block)["title"] == "</script><script>alert(1)</script>"


def test_a_session_without_posts_or_rolls_still_carries_away(table, client_for, make_session):
    draft = make_session(table.gm, status="draft")
    files = download(client_for(table.gm), draft)
    assert "Nie ma jeszcze wpisów." in files.read("index.html").decode()
    assert "ooc.html" not in files.namelist()  # no talk, no page for it
    assert json.loads(files.read("ledger.json"))["rolls"] == []
    assert "verify.html" in files.namelist()
