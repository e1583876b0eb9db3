"""A session worth archiving, for the archive's tests: posts with narration, a public roll, a
secret roll and its reveal, a diary entry, table talk, and dice of the fair scheme (a turn's
commitment, a roll whose every die follows from the turn's seed, the seed's reveal).

The dice are the roll path's own (rolls.ledger.fair_dice): the turn's seeds committed, rolls made
with the browser's seed, every seed revealed as the session's end does."""

from __future__ import annotations

import uuid

from django.db import transaction

from diary import services as diary_services
from diary.services import current_turn
from diary.talk import services as talk_services
from rolls.engine import fair
from rolls.engine import notation as free_notation
from rolls.engine.dice import ScriptedDice
from rolls.entries import services as entries
from rolls.ledger import fair_dice
from rolls.ledger.chain_writer import chain_append, lock_session
from rolls.services import secret_roll_reveal
from tests.rolling import make_roll
from tests.rolls.ledger.test_ledger import percepcja_request

CLIENT_SEED = "0123456789abcdef" * 2
NARRATION = "Mgła nad **Czarnym Brodem** gęstnieje; ktoś woła „Stój!” <script>alert(1)</script>"
TALK = "Gramy dalej w czwartek?"


def _append(session, by, post, turn, test, content_for, *, secret=False):
    with transaction.atomic():
        locked = lock_session(session)
        return chain_append(
            locked,
            by,
            post=post,
            turn_number=turn,
            character_id=None,
            test=test,
            is_action=False,
            token=uuid.uuid4(),
            digest="0" * 64,
            body=content_for,
            announce=None,
            secret=secret,
        )


# Values the canonical JSON must encode exactly as Python does: escapes, control and
# non-ASCII characters, keys that sort by code point, floats that keep their form, an int
# past 2**53, nesting.
AWKWARD = {
    "label": 'Zażółć "gęślą" \\ jaźń\n\t\u0001\u007f\u2028 😀 </script><!--',
    "values": {
        "ą": 1.0,
        "z": 1e-07,
        "Z": -0.5,
        "é": 2**70,
        "😀": [True, False, None],
        "\uffff": {},
    },
}


def _fair_roll(session, gm, post, turn, commit_seq, *, stream, seed, secret=False):
    def body(seq: int) -> dict:
        dice = fair.SeededDice(seed=seed, session=session.pk, seq=seq, client_seed=CLIENT_SEED)
        result = free_notation.roll_notation(free_notation.parse_notation("3k6+1"), dice)
        return {
            "kind": free_notation.TEST,
            "characters": {},
            "label": "Uczciwe kości",
            "result": result.to_dict(),
            "fair": {
                "scheme": fair.SCHEME,
                "commit": commit_seq,
                "stream": stream,
                "client_seed": CLIENT_SEED,
                "client_seed_by": "browser",
                "draws": dice.draws,
            },
        }

    return _append(session, gm, post, turn, free_notation.TEST, body, secret=secret)


def _roll_path_fair_dice(session, gm, table):
    """The roll path's own fair dice (rolls.ledger.fair_dice): the turn's
    seeds committed, a roll and a secret roll made with the browser's seed, the secret roll
    revealed, then every seed (as the session's end does)."""
    turn = current_turn(session).number
    with transaction.atomic():
        fair_dice.dice_commit(lock_session(session), gm, turn)
    # Borys: Lirael has had her action roll of the turn (a secret roll is no action).
    public = make_roll(session, gm, percepcja_request(table.borys), client_seed=CLIENT_SEED).roll
    hidden = make_roll(
        session, gm, percepcja_request(table.lirael), client_seed=CLIENT_SEED, secret=True
    ).roll
    secret_roll_reveal(session=session, by=gm, seq=hidden.seq)
    with transaction.atomic():
        fair_dice.reveal_all(lock_session(session), gm)
    assert "fair" in public.record
    return public, hidden


def archived_session(table):
    """Fills the table's session; returns what the tests look for by number."""
    session, gm = table.session, table.gm
    opening = diary_services.post_create(
        session=session, author=gm, character=None, narration=NARRATION, nc_note=""
    )
    players_post = diary_services.post_create(
        session=session,
        author=table.alice,
        character=table.lirael,
        narration="Lirael nasłuchuje.",
        nc_note="",
    )
    public = make_roll(session, gm, percepcja_request(table.lirael), dice=ScriptedDice([412])).roll
    secret = make_roll(
        session, gm, percepcja_request(table.lirael), dice=ScriptedDice([137]), secret=True
    ).roll
    revealed = secret_roll_reveal(session=session, by=gm, seq=secret.seq).roll
    entry = entries.damage_deal(
        session=session,
        by=gm,
        character_id=table.borys.pk,
        delta=-3,
        reason="Upadek",
        token=uuid.uuid4(),
        digest="1" * 64,
    ).entry
    talk_services.ooc_message_create(
        session=session, author=table.bob, text=TALK, token=uuid.uuid4()
    )
    turn = current_turn(session).number
    awkward = _append(
        session,
        gm,
        opening,
        turn,
        free_notation.TEST,
        lambda _seq: {"kind": "note", "characters": {}, **AWKWARD},
    )
    dice_roll, secret_dice_roll = _roll_path_fair_dice(session, gm, table)
    return {
        "opening": opening,
        "players_post": players_post,
        "public": public,
        "secret": secret,
        "revealed": revealed,
        "entry": entry,
        "awkward": awkward,
        "dice_roll": dice_roll,
        "secret_dice_roll": secret_dice_roll,
    }
