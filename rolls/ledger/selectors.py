"""Fair dice (rolls.ledger.fair_dice) as the pages show them: the current turn's commitment before
a roll, and whether a roll's dice follow from its revealed seed."""

from __future__ import annotations

from dataclasses import dataclass

from rolls.engine.fair import draws_match
from rolls.models import (
    Roll,
    TurnSeed,
)


@dataclass(frozen=True)
class TurnCommitment:
    """The current turn's dice commitment, as the roll forms show it before a roll."""

    turn: int
    seq: int
    public: str


def turn_commitment(session) -> TurnCommitment | None:
    """The commitment the current turn's dice come from; None for a turn without one."""
    turn = session.current_turn
    if turn is None:
        return None
    commit = (
        TurnSeed.objects.filter(session=session, turn_number=turn.number)
        .values_list("commit__seq", "commit__record")
        .first()
    )
    if commit is None:
        return None
    seq, record = commit
    return TurnCommitment(turn=turn.number, seq=seq, public=record["dice_commit"]["public"])


@dataclass(frozen=True)
class DiceCheck:
    """What a roll's page says of its dice: drawn from turn `turn`'s seed (committed in
    entry `commit_seq`) and the roller's seed; `reveal_seq` the entry that revealed the seed,
    None while the turn runs (or the secret stream is sealed); `follows` whether every
    draw is the face the seeds give, recomputed now."""

    turn: int
    stream: str
    commit_seq: int
    client_seed: str
    by_browser: bool
    draws: int
    reveal_seq: int | None
    follows: bool


def dice_check(roll: Roll, record: dict | None = None) -> DiceCheck | None:
    """The fair dice of a roll (of `record`, its revealed record for a secret roll), or None
    for a roll without them (an entry, a turn opened before seeds were committed)."""
    record = record if record is not None else roll.record
    fair = record.get("fair")
    if not isinstance(fair, dict):
        return None
    stream = fair.get("stream")
    seeds = (
        TurnSeed.objects.filter(session_id=roll.session_id, turn_number=record.get("turn"))
        .select_related("public_reveal", "secret_reveal")
        .first()
    )
    reveal = None
    if seeds is not None:
        reveal = seeds.secret_reveal if stream == "secret" else seeds.public_reveal
    follows = False
    if reveal is not None:
        seed = reveal.record["dice_reveal"]["seeds"][stream]
        follows = (
            draws_match(
                seed=seed,
                session=roll.session_id,
                seq=record["seq"],
                client_seed=fair["client_seed"],
                draws=fair["draws"],
            )
            is None
        )
    return DiceCheck(
        turn=record.get("turn"),
        stream=stream,
        commit_seq=fair.get("commit"),
        client_seed=fair.get("client_seed", ""),
        by_browser=fair.get("client_seed_by") == "browser",
        draws=len(fair.get("draws") or ()),
        reveal_seq=reveal.seq if reveal is not None else None,
        follows=follows,
    )
