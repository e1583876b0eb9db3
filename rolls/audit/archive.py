"""A session carried away: one ZIP with the whole diary as static HTML, the ledger, the site's
public keys, and verify.html, a page that checks the ledger in the browser from disk.

Every page in the ZIP works opened from disk (file://) with no network: inline CSS, no script
but verify.html's own, portraits as files beside the pages, no link back to the site's own
addresses (a roll's number links to its line in the diary). verify.html carries the ledger
inside itself (file:// pages cannot fetch a file beside them); ledger.json is the export's
payload for other tools (docs/verify_ledger.py). docs/audit.md says what verify.html checks.
"""

from __future__ import annotations

import io
import json
import posixpath
import re
import zipfile
from dataclasses import dataclass, field

from django.contrib.staticfiles import finders
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext_lazy

from diary.access import session_access
from diary.eyes.reading import reader_of, visible_html
from diary.models import ParticipationStatus, Post, TalkKind, TalkThread
from rolls.engine import fair
from rolls.ledger import signing
from rolls.ledger.export import ledger_export
from rolls.models import Roll
from rolls.presenters import rendered_roll

DIARY_FILE = "index.html"
TALK_FILE = "ooc.html"
VERIFY_FILE = "verify.html"
LEDGER_FILE = "ledger.json"
KEYS_FILE = "ledger-keys.json"
PORTRAITS_DIR = "portraits"

# A roll's permalink on the site becomes its line in the archived diary; any other address
# of the site is dropped (the archive must not need the site).
_ROLL_LINK = re.compile(r'href="/sessions/\d+/rolls/(\d+)/"')
_SITE_ADDRESS = re.compile(r'\s(?:href|src|action)="/[^"]*"')


def offline_html(html: str) -> str:
    """Site HTML made to work from disk: roll permalinks point at the roll's line, other
    addresses of the site are removed (their text stays)."""
    html = _ROLL_LINK.sub(r'href="#roll-\1"', html)
    return _SITE_ADDRESS.sub("", html)


def script_json(value) -> str:
    """JSON to embed in a <script type="application/json"> block: no "<", ">" or "&" can
    end the block or open a comment (each is escaped as JSON's \\u form, read back as
    itself)."""
    text = json.dumps(value, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# What verify.html says (its script fills in %(name)s), by the key its script looks up.
VERIFIER_MESSAGES = {
    "checking": gettext_lazy("Checking the ledger…"),
    "ok": gettext_lazy(
        "OK: %(rows)s entries of the chain; every hash, link and signature checks out."
    ),
    "secrets": gettext_lazy(
        "Secret rolls: %(secret)s, revealed: %(revealed)s (each reveal matches its "
        "commitment); the rest stay commitments."
    ),
    "dice": gettext_lazy(
        "Dice recomputed from the revealed seeds: %(recomputed)s rolls; awaiting their "
        "seed's reveal: %(awaiting)s."
    ),
    "head": gettext_lazy("Head (the newest hash): %(head)s"),
    "keys": gettext_lazy(
        "Signatures checked against the keys listed in this archive: compare them with "
        "the ones the site publishes (ledger-keys.json)."
    ),
    "broken": gettext_lazy(
        "BROKEN at roll #%(seq)s: %(problem)s. Entries verified before it: %(rows)s."
    ),
    "missing": gettext_lazy("a number is missing (next found: #%(found)s)"),
    "bad_link": gettext_lazy("bad link to the previous roll"),
    "changed": gettext_lazy("changed record (its hash does not match)"),
    "position": gettext_lazy("wrong position (the record's session or number differs)"),
    "unsigned": gettext_lazy("not signed"),
    "unknown_key": gettext_lazy("signed with a key not listed in the archive"),
    "bad_signature": gettext_lazy("bad signature (not made by the site's key)"),
    "reveal_not_secret": gettext_lazy("bad reveal: #%(target)s is not an earlier secret roll"),
    "reveal_twice": gettext_lazy("bad reveal: #%(target)s is revealed a second time"),
    "reveal_mismatch": gettext_lazy(
        "bad reveal: the revealed record and salt do not give the commitment of #%(target)s"
    ),
    "reveal_elsewhere": gettext_lazy(
        "bad reveal: the revealed record does not name #%(target)s of this session"
    ),
    "commit_turn": gettext_lazy("bad dice commitment: its turn is not the entry's turn"),
    "commit_twice": gettext_lazy("bad dice commitment: a second one for turn %(turn)s"),
    "commit_streams": gettext_lazy("bad dice commitment: a stream's commitment is missing"),
    "seed_no_commit": gettext_lazy(
        "bad seed reveal: it names no earlier dice commitment of its turn"
    ),
    "seed_twice": gettext_lazy("bad seed reveal: the seed (stream: %(stream)s) is revealed again"),
    "seed_mismatch": gettext_lazy(
        "bad seed reveal: the seed (stream: %(stream)s) does not give the commitment of #%(commit)s"
    ),
    "stream_public": gettext_lazy("public"),
    "stream_secret": gettext_lazy("secret"),
    "bad_fair": gettext_lazy("the roll's fair dice name no commitment of its turn"),
    "no_fair": gettext_lazy("a roll of a committed turn without fair dice"),
    "result_not_draws": gettext_lazy("the roll's result shows other dice than its draws"),
    "seed_never": gettext_lazy("bad dice commitment: turn %(turn)s's seed was never revealed"),
    "bad_die": gettext_lazy("die %(die)s does not follow from the revealed seed"),
    "after_seed": gettext_lazy("a roll made after its seed was revealed (#%(reveal)s)"),
    "uncommitted_turn": gettext_lazy(
        "a roll of turn %(turn)s, a turn with no dice commitment (every turn from turn "
        "%(first)s on is committed)"
    ),
    "commit_skipped": gettext_lazy("bad dice commitment: turn %(turn)s was never committed"),
    "commit_order": gettext_lazy(
        "bad dice commitment: turn %(turn)s is committed after turn %(last)s"
    ),
    "seed_other_turn": gettext_lazy(
        "bad seed reveal: it is not an entry of the turn whose seeds it reveals"
    ),
    "not_asked": gettext_lazy("the roll's draws are not the dice its rules ask for: %(detail)s"),
    "asked_more": gettext_lazy(
        "its rules ask for die %(die)s (%(low)s..%(high)s), but only %(drawn)s were drawn"
    ),
    "asked_range": gettext_lazy(
        "die %(die)s was drawn on %(drawn_low)s..%(drawn_high)s, its rules ask for "
        "%(low)s..%(high)s"
    ),
    "asked_fewer": gettext_lazy("dice drawn beyond the dice its rules ask for: %(extra)s"),
    "asked_unknown": gettext_lazy(
        "docs/audit.md does not say which dice system %(system)s asks for"
    ),
    "asked_unreadable": gettext_lazy("its rules cannot read what it tested (%(system)s)"),
    "end_status": gettext_lazy("the session's end without its finished status"),
    "sealed_at_end": gettext_lazy(
        "the session ended with something still sealed: secret roll #%(target)s"
    ),
    "held_at_end": gettext_lazy(
        "the session ended with something still sealed: turn %(turn)s's seed (stream: %(stream)s)"
    ),
    "after_end": gettext_lazy("an entry after the session's end (#%(end)s)"),
    "ended": gettext_lazy("The session ended in entry #%(end)s: nothing stays sealed."),
    "unreadable": gettext_lazy("The ledger embedded in this page cannot be read."),
    "no_crypto": gettext_lazy(
        "This browser cannot check the signatures (WebCrypto with Ed25519 is missing): "
        "use docs/verify_ledger.py instead."
    ),
}


def verifier_messages() -> dict[str, str]:
    """What verify.html says, in the archive's language; %(name)s is filled in by its
    script."""
    return {key: str(message) for key, message in VERIFIER_MESSAGES.items()}


def verify_page(payload: dict) -> str:
    """verify.html for a ledger export's payload (the test writes tampered copies with it)."""
    return render_to_string(
        "rolls/archive/verify.html",
        {
            "title": payload.get("title", ""),
            "session_pk": payload.get("session"),
            "ledger_json": mark_safe(script_json(payload)),
            "messages_json": mark_safe(script_json(verifier_messages())),
            "scheme": fair.SCHEME,
            "language": get_language(),
        },
    )


def _site_css() -> str:
    # The site's own stylesheet, inline (it loads nothing else: no url(), no @import).
    path = finders.find("css/site.css")
    if not path:
        return ""
    with open(path, encoding="utf-8") as css:
        return css.read().replace("</", "<\\/")


@dataclass
class _Turn:
    number: int
    posts: list = field(default_factory=list)
    loose_rolls: str = ""  # chain entries of the turn in no post (the dice's seeds)


def _portrait_name(character) -> str:
    return f"{PORTRAITS_DIR}/{posixpath.basename(character.portrait.name)}"


def _rolls_html(rolls: list) -> str:
    if not rolls:
        return ""
    views = [rendered_roll(roll) for roll in rolls]
    return offline_html(render_to_string("rolls/post_rolls_block.html", {"views": views}))


def _diary_turns(access, posts: list, rolls: list) -> list[_Turn]:
    by_post: dict[int, list] = {}
    loose: dict[int, list] = {}
    for roll in rolls:
        if roll.post_id is None:
            loose.setdefault(roll.turn_number, []).append(roll)
        else:
            by_post.setdefault(roll.post_id, []).append(roll)
    turns: dict[int, _Turn] = {}
    reader = reader_of(access)  # the archive holds what its reader reads, and no more
    for post in posts:
        turn = turns.setdefault(post.turn.number, _Turn(post.turn.number))
        post.can_see_content = access.post(post).can_see_content
        post.narration_shown = visible_html(post, reader)
        post.rolls_html = mark_safe(_rolls_html(by_post.get(post.pk, [])))
        post.portrait_file = (
            _portrait_name(post.character) if post.character_id and post.character.portrait else ""
        )
        turn.posts.append(post)
    for number, turn_rolls in loose.items():
        turn = turns.setdefault(number, _Turn(number))
        turn.loose_rolls = mark_safe(_rolls_html(turn_rolls))
    return [turns[number] for number in sorted(turns)]


def session_archive(user, session) -> bytes:
    """The ZIP of a session this user reads (the caller checked that): what the diary shows
    them, the ledger as exported, the keys, and verify.html."""
    access = session_access(user, session, roster=True)
    posts = list(
        Post.objects.filter(session=session)
        .select_related("turn", "author", "character", "hidden_by")
        .order_by("turn__number", "created_at", "pk")
    )
    rolls = list(Roll.objects.filter(session=session).order_by("seq"))
    thread = TalkThread.objects.filter(session=session, kind=TalkKind.OOC).first()
    talk = list(thread.messages.select_related("author").order_by("id")) if thread else []
    payload = ledger_export(session)
    characters = _roster_characters(access)
    portraits = {
        _portrait_name(c): c.portrait
        for c in [*characters, *(p.character for p in posts if p.character_id)]
        if c.portrait
    }
    context = {
        "session": session,
        "turns": _diary_turns(access, posts, rolls),
        "characters": characters,
        "talk": talk,
        "talk_file": TALK_FILE if talk else "",
        "files": {
            "diary": DIARY_FILE,
            "verify": VERIFY_FILE,
            "ledger": LEDGER_FILE,
            "keys": KEYS_FILE,
        },
        "head": payload["rolls"][-1]["hash"] if payload["rolls"] else "",
        "roll_count": len(payload["rolls"]),
        "made_at": timezone.now(),
        "made_for": user,
        "language": get_language(),
        "site_css": mark_safe(_site_css()),
    }
    return _zipped(context, payload, portraits)


def _roster_characters(access) -> list:
    """The session's accepted characters by name, each with its portrait's file name in
    the archive ("" for none)."""
    characters = sorted(
        {
            p.character.pk: p.character
            for p in (access.roster or ())
            if p.status == ParticipationStatus.ACCEPTED
        }.values(),
        key=lambda c: c.name,
    )
    for character in characters:
        character.portrait_file = _portrait_name(character) if character.portrait else ""
    return characters


def _ledger_keys() -> dict:
    return {
        "signature_rule": signing.SIGNATURE_RULE,
        "current_key_id": signing.key_id_of(signing.current_public_key()),
        "public_keys": signing.trusted_public_keys(),
    }


def _zipped(context: dict, payload: dict, portraits: dict) -> bytes:
    """The archive's files: the diary (and its out-of-character talk, if any), verify.html,
    the ledger, the keys and the portraits."""
    keys = _ledger_keys()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(DIARY_FILE, render_to_string("rolls/archive/diary.html", context))
        if context["talk"]:
            archive.writestr(TALK_FILE, render_to_string("rolls/archive/talk.html", context))
        archive.writestr(VERIFY_FILE, verify_page(payload))
        archive.writestr(LEDGER_FILE, json.dumps(payload, ensure_ascii=False, indent=1))
        archive.writestr(KEYS_FILE, json.dumps(keys, indent=1))
        for name, portrait in portraits.items():
            try:
                with portrait.open("rb") as image:
                    archive.writestr(name, image.read())
            except OSError:
                continue  # a portrait file gone from the disk: the page shows its name only
    return buffer.getvalue()
