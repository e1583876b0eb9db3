"""Provably fair dice in the chain: a turn's seeds committed when it opens, revealed when it
closes, and each roll's dice derived from them and the roller's own seed.

When a turn opens, the site draws two fresh seeds for it (the public stream for every
visible roll, the secret stream for the GM's secret rolls) and appends a `dice_commit`
entry holding only their commitments, before any roll of the turn. A roll takes a client
seed from the roller's page (the server draws one when the page sent none, and the record
says so); its faces are rolls.engine.fair's HMAC stream, and its record keeps every draw.
When the next turn opens (or the session ends) a `dice_reveal` entry publishes the public
seed, so anyone recomputes every die of that turn. The secret stream is revealed only when
none of the turn's secret rolls is still sealed: revealing it earlier would unseal them. At
the session's end every secret roll is revealed, then every seed still held.

The seeds stay in rolls_turnseed until revealed: no page, export or API shows them.
docs/audit.md describes the scheme for anyone writing their own verifier.
"""

from __future__ import annotations

import secrets
import uuid
from contextlib import contextmanager
from dataclasses import dataclass

from rolls.engine.fair import (
    CLIENT_SEED_PATTERN,
    SCHEME,
    SEED_BYTES,
    SeededDice,
    seed_commitment,
)
from rolls.ledger.chain_writer import chain_append
from rolls.ledger.fair_check import COMMIT_KIND, REVEAL_KIND
from rolls.models import SecretRoll, TurnSeed

PUBLIC, SECRET = "public", "secret"
# What the server draws for a roller whose page sent no seed (a browser without JavaScript).
SERVER_CLIENT_SEED_BYTES = 16


def valid_client_seed(value: str) -> bool:
    return bool(CLIENT_SEED_PATTERN.match(value))


def dice_commit(session, by, turn_number: int) -> TurnSeed:
    """Draw the turn's seeds and chain their commitments (the caller holds the session's
    lock). Nothing else of the seeds leaves this table until they are revealed."""
    seed, secret_seed = secrets.token_hex(SEED_BYTES), secrets.token_hex(SEED_BYTES)

    def body(_seq: int) -> dict:
        def commitment(stream, value):
            return seed_commitment(session=session.pk, turn=turn_number, stream=stream, seed=value)

        return {
            "kind": COMMIT_KIND,
            "dice_commit": {
                "scheme": SCHEME,
                "turn": turn_number,
                PUBLIC: commitment(PUBLIC, seed),
                SECRET: commitment(SECRET, secret_seed),
            },
        }

    entry = _append(session, by, turn_number, COMMIT_KIND, body)
    return TurnSeed.objects.create(
        session=session, turn_number=turn_number, seed=seed, secret_seed=secret_seed, commit=entry
    )


def dice_reveal(session, by, turn_seed: TurnSeed, streams: tuple[str, ...]) -> None:
    """Publish the named streams' seeds of a turn in one chain entry."""
    seeds = {PUBLIC: turn_seed.seed, SECRET: turn_seed.secret_seed}
    revealed = {stream: seeds[stream] for stream in streams}
    commit_seq = turn_seed.commit.seq

    def body(_seq: int) -> dict:
        return {
            "kind": REVEAL_KIND,
            "dice_reveal": {"turn": turn_seed.turn_number, "commit": commit_seq, "seeds": revealed},
        }

    entry = _append(session, by, turn_seed.turn_number, REVEAL_KIND, body)
    fields = []
    if PUBLIC in revealed:
        turn_seed.public_reveal = entry
        fields.append("public_reveal")
    if SECRET in revealed:
        turn_seed.secret_reveal = entry
        fields.append("secret_reveal")
    turn_seed.save(update_fields=fields)


def _append(session, by, turn_number: int, kind: str, body):
    return chain_append(
        session,
        by,
        post=None,
        turn_number=turn_number,
        character_id=None,
        test=kind,
        is_action=False,
        token=uuid.uuid4(),
        digest="",
        body=body,
        announce=None,
    )


def _sealed_secret_rolls(session, turn_number: int) -> bool:
    return SecretRoll.objects.filter(
        roll__session=session, roll__turn_number=turn_number, reveal__isnull=True
    ).exists()


# While this is above 0, turns open unseeded: they roll the server's dice, as turns opened
# before the site committed seeds did (docs/audit.md: such a turn holds no `fair` part). The
# demo's scripted scenes and the test suite's sessions that play as older ones did open
# their turns so (`turns_open_unseeded`). Process-wide, not per thread: a browser test's
# live server opens turns in a thread of its own.
_unseeded = {"depth": 0}


@contextmanager
def turns_open_unseeded():
    """Turns opened in this block, in this process, commit no dice seeds (and reveal none of
    the turns before them): they play as turns opened before the site committed seeds."""
    _unseeded["depth"] += 1
    try:
        yield
    finally:
        _unseeded["depth"] -= 1


def turn_opened(session, turn, by) -> None:
    """The turns before `turn` are closed: reveal what they still hold that may be revealed,
    then commit the new turn's seeds (the caller holds the session's lock)."""
    if _unseeded["depth"]:
        return
    held = TurnSeed.objects.select_related("commit").filter(
        session=session, turn_number__lt=turn.number, public_reveal__isnull=True
    )
    for turn_seed in held:
        streams = (PUBLIC,)
        if not _sealed_secret_rolls(session, turn_seed.turn_number):
            streams = (PUBLIC, SECRET)
        dice_reveal(session, by, turn_seed, streams)
    dice_commit(session, by, turn.number)


def secret_stream_freed(session, by, turn_number: int) -> None:
    """A secret roll was revealed: once its turn is closed and none of the turn's secret
    rolls is sealed any more, the turn's secret seed may be published too."""
    turn_seed = (
        TurnSeed.objects.select_related("commit")
        .filter(
            session=session,
            turn_number=turn_number,
            public_reveal__isnull=False,
            secret_reveal__isnull=True,
        )
        .first()
    )
    if turn_seed is not None and not _sealed_secret_rolls(session, turn_number):
        dice_reveal(session, by, turn_seed, (SECRET,))


def reveal_all(session, by) -> None:
    """The session ends: every seed still held is published (its secret rolls were revealed
    just before, rolls.services.session_finishing)."""
    held = TurnSeed.objects.select_related("commit").filter(session=session)
    for turn_seed in held:
        streams = tuple(
            stream
            for stream, reveal in (
                (PUBLIC, turn_seed.public_reveal_id),
                (SECRET, turn_seed.secret_reveal_id),
            )
            if reveal is None
        )
        if streams:
            dice_reveal(session, by, turn_seed, streams)


@dataclass(frozen=True)
class FairRoll:
    """One roll's dice: the turn's seed of its stream, the roller's seed, and the commitment
    entry that fixed the seed. `dice(seq)` gives the source the engine rolls with; `record`
    what the roll's record keeps of it."""

    seed: str
    commit_seq: int
    stream: str
    client_seed: str
    client_seed_by: str
    session_id: int

    def dice(self, seq: int) -> SeededDice:
        return SeededDice(
            seed=self.seed, session=self.session_id, seq=seq, client_seed=self.client_seed
        )

    def record(self, dice: SeededDice) -> dict:
        return {
            "scheme": SCHEME,
            "commit": self.commit_seq,
            "stream": self.stream,
            "client_seed": self.client_seed,
            "client_seed_by": self.client_seed_by,
            "draws": dice.draws,
        }


# A part of what a roll reads under the session's lock that the caller did not read
# (rolls.selectors.locked_reads): the function reads it itself.
class _NotRead:
    def __repr__(self) -> str:
        return "NOT_READ"


NOT_READ = _NotRead()


@dataclass(frozen=True)
class TurnSeedRead:
    """What a roll reads of its turn's TurnSeed: both streams' seeds and the commitment's
    number."""

    seed: str
    secret_seed: str
    commit_seq: int


def turn_seed_read(session, turn_number: int) -> TurnSeedRead | None:
    row = (
        TurnSeed.objects.filter(session=session, turn_number=turn_number)
        .values("seed", "secret_seed", "commit__seq")
        .first()
    )
    return (
        None if row is None else TurnSeedRead(row["seed"], row["secret_seed"], row["commit__seq"])
    )


def fair_roll(
    session, by, turn, client_seed: str = "", turn_seed=NOT_READ, *, secret: bool = False
) -> FairRoll | None:
    """The dice of a roll about to be made in `turn` (the caller holds the session's lock).
    None for a turn opened before the site committed seeds: committing now, with the
    roller's seed already known, would prove nothing; its rolls take the server's dice, as
    they did, and the next turn is fair. `turn_seed`: the turn's TurnSeedRead (or None)
    when the caller already read it after the lock, in its one statement."""
    if turn_seed is NOT_READ:
        turn_seed = turn_seed_read(session, turn.number)
    if turn_seed is None:
        return None
    by_browser = bool(client_seed) and valid_client_seed(client_seed)
    return FairRoll(
        seed=turn_seed.secret_seed if secret else turn_seed.seed,
        commit_seq=turn_seed.commit_seq,
        stream=SECRET if secret else PUBLIC,
        client_seed=client_seed if by_browser else secrets.token_hex(SERVER_CLIENT_SEED_BYTES),
        client_seed_by="browser" if by_browser else "server",
        session_id=session.pk,
    )
