"""The chain's one writer: every row of a session's chain is appended by `chain_append`,
under the session's row lock (`lock_session`) that its caller holds.

Rolls of every system (rolls.services), free-form rolls, secret rolls and their reveals,
diary entries and a turn's dice seeds all come through here, so the envelope, the hash, the
signature and the head's move are written once.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from diary.models import GameSession, Post, SessionWebhook
from diary.notifications import webhooks
from diary.notifications.notices import notify_character_changed
from rolls.ledger import signing
from rolls.ledger.chain import chain_hash
from rolls.ledger.secret import SECRET_TEST, secret_split
from rolls.models import Roll, SecretRoll


class ChainHeadMoved(Exception):
    """The session's head was not the one this writer read: it did not hold the session's
    lock. The transaction rolls back; nothing is stored."""


def lock_session(
    session: GameSession | int, *, related: tuple[str, ...] = (), annotations: dict | None = None
) -> GameSession:
    """The session row, locked (one chain at a time; other sessions never wait), fresh, with
    its current turn (and the `related` rows and `annotations` a caller asks for: read with
    the row, they may be as old as the wait for the lock). Only the session's row is
    locked, not the turn's. `wants_roll_webhook`: the table chat hears of rolls, so a roll
    queues its message when it commits (read here, in the same statement, rather than looked
    up again at each commit). GameSession.DoesNotExist for a session id that is not there.

    A session this same transaction already locked comes back as it is: the roll panel's
    POST reads its session locked once (rolls.views.panel), and roll_make asks again."""
    if isinstance(session, GameSession) and _locked_here(session):
        return session
    webhook = SessionWebhook.objects.filter(session_id=OuterRef("pk"), on_roll=True)
    locked = (
        GameSession.objects.select_for_update(of=("self",))
        .select_related("current_turn", *related)
        .annotate(wants_roll_webhook=Exists(webhook), **(annotations or {}))
        .get(pk=session.pk if isinstance(session, GameSession) else session)
    )
    # What else a roll reads under the lock is read after it, never joined here: a statement
    # that waited for the lock re-reads only the locked row (rolls.selectors.locked_reads).
    locked.reread_stale_turn()
    if isinstance(session, GameSession):
        # Who runs the session (its co-GMs), as the caller's row read it: no query again.
        for known in ("co_gm_list", "_co_gm_ids"):
            if known in session.__dict__:
                locked.__dict__[known] = session.__dict__[known]
    locked._locked_in = _transaction()
    return locked


def _transaction():
    """The open transaction, as its outermost atomic block: a row lock lasts until it ends."""
    connection = transaction.get_connection()
    return connection.atomic_blocks[0] if connection.atomic_blocks else None


def _locked_here(session: GameSession) -> bool:
    held_in = getattr(session, "_locked_in", None)
    return held_in is not None and held_in is _transaction()


def chain_append(
    session: GameSession,
    by,
    *,
    post: Post | None,
    turn_number: int,
    character_id: int | None,
    test: str,
    is_action: bool,
    token: uuid.UUID,
    digest: str,
    body: Callable[[int], dict],
    announce: Callable[[Roll, str], str] | None,
    secret: bool = False,
) -> Roll:
    """One row appended to the session's chain, under the session's row lock the caller
    holds: the envelope (`_envelope`), then the record's own keys from `body(seq)` (kind,
    characters, result…; it may roll and write in the same transaction: healing needs the
    roll's number), signed as it is written; the head moves only from the one it read.

    `announce(roll, session_title)`: the line the table's chat hears of a row that lands in a
    post, where the session has a webhook (rolls.presenters.roll_announcement); the ledger
    writes rows and does not word them. None: the chat hears nothing of this row.

    `secret` (rolls.ledger.secret): the chain gets only the envelope, the test and a
    commitment to the full record; the full record and its salt go to SecretRoll. The row
    names no character and is no action roll: nothing in the diary may tell what it was."""
    seq = session.chain_seq + 1
    prev_hash = session.chain_hash
    content = body(seq)
    now = timezone.now()
    record = {**_envelope(session, by, seq, turn_number, post, now), **content}
    hidden = None
    if secret:
        hidden, record = _secret_split(session, record, content, test)
        character_id, test, is_action = None, SECRET_TEST, False
    roll = _signed_row(
        session,
        record,
        prev_hash,
        seq=seq,
        post=post,
        rolled_by=by,
        character_id=character_id,
        test=test,
        turn_number=turn_number,
        is_action=is_action,
        token=token,
        request_digest=digest,
        created_at=now,
    )
    _move_head(session, seq, roll.hash, now)
    if hidden is not None:
        SecretRoll.objects.create(roll=roll, **hidden)
    session.chain_seq, session.chain_hash, session.activity_at = seq, roll.hash, now
    # A turn's own entry (its dice seed) lands in no post: no post changed, nothing to announce.
    if post is not None:
        characters = None if secret else content.get("characters")
        _landed(session, post, by, roll, characters=characters, announce=announce)
    return roll


def _envelope(session: GameSession, by, seq: int, turn_number: int, post, now) -> dict:
    """What every row's record starts with: format, session, seq, turn, post, who and when."""
    return {
        "format": 1,
        "session": session.pk,
        "seq": seq,
        "turn": turn_number,
        "post": post.pk if post is not None else None,
        "rolled_by": {"id": by.pk, "username": by.get_username()},
        "rolled_at": now.isoformat(),
    }


def _secret_split(session: GameSession, record: dict, content: dict, test: str):
    """(SecretRoll's fields, the public record) of a secret row (rolls.ledger.secret)."""
    # The stub names the roll's own system, as its record will (a free-form roll's is
    # "free", whatever the session's).
    result = content.get("result")
    system = result.get("system", session.system) if isinstance(result, dict) else None
    return secret_split(record, system=system or session.system, test=test)


def _signed_row(session: GameSession, record: dict, prev_hash: str, **columns) -> Roll:
    """The row, its hash chained to the previous row's and signed (rolls.ledger.signing)."""
    row_hash = chain_hash(prev_hash, record)
    key_id, signature = signing.sign(row_hash)
    return Roll.objects.create(
        session=session,
        system=session.system,
        record=record,
        prev_hash=prev_hash,
        hash=row_hash,
        key_id=key_id,
        signature=signature,
        **columns,
    )


def _landed(session: GameSession, post: Post, by, roll: Roll, *, characters, announce) -> None:
    """The row is in the post (post_changed); the table's chat hears of it, if it listens."""
    post_changed(session, post, by, seq=roll.seq, characters=characters)
    # A session not read by lock_session says nothing of its webhook: ask at commit.
    if announce is not None and getattr(session, "wants_roll_webhook", True):
        webhooks.announce(session.pk, "roll", lambda: announce(roll, session.title))


def _move_head(session: GameSession, seq: int, row_hash: str, now) -> None:
    """The head comes from the locked session row (lock_session), not from a "last roll"
    query; one UPDATE moves it and the activity marker, and only if it is still the head
    this writer read (else ChainHeadMoved: the insert rolls back, the head never drifts)."""
    moved = GameSession.objects.filter(pk=session.pk, chain_seq=seq - 1).update(
        chain_seq=seq, chain_hash=row_hash, activity_at=now
    )
    if moved != 1:
        raise ChainHeadMoved(f"session {session.pk}: the head is not #{seq - 1}")


def post_changed(
    session: GameSession, post: Post, by, *, seq: int, characters: dict | None
) -> None:
    """A row landed in the post: it reads as new to everyone whose mark saw an older chain
    head (diary/reading.py), and, in a post that was already there, the owners of the
    characters the row names hear of it (a secret row names none)."""
    Post.objects.filter(pk=post.pk).update(changed_seq=seq)
    post.changed_seq = seq
    if getattr(post, "made_for_rolls", False) or not characters:
        return
    notify_character_changed(post, session=session, by=by, character_ids=_character_ids(characters))


def _character_ids(characters: dict) -> set[int]:
    """The ids a record's `characters` names, by part (one sheet or a list of them)."""
    ids = set()
    for value in characters.values():
        for named in value if isinstance(value, list) else [value]:
            if isinstance(named, dict) and named.get("id") is not None:
                ids.add(named["id"])
    return ids
