"""Checking a chain's fair dice (rolls.ledger.fair_dice) as it is walked: each turn's commitment,
each revealed seed against it, and every draw of every roll against the revealed seed.

A roll comes before its turn's reveal, so its draws wait until the seed is seen; a seed not
revealed yet (a running turn, a sealed secret stream) leaves its rolls awaiting, which is
no fault. docs/verify_ledger.py does the same outside the site (docs/audit.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rolls.engine.fair import CLIENT_SEED_PATTERN, SCHEME, draws_match, seed_commitment
from rolls.ledger.secret import is_reveal_record
from rolls.models import TURN_ENTRY_KINDS

COMMIT_KIND, REVEAL_KIND = TURN_ENTRY_KINDS
STREAMS = ("public", "secret")
SEED_PATTERN = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class DiceFault:
    seq: int
    problem: str  # a rolls.ledger.verify PROBLEMS code
    detail: str = ""


@dataclass
class FairDiceCheck:
    session_id: int
    commits: dict[int, dict] = field(default_factory=dict)  # commit seq → its record part
    commit_of_turn: dict[int, int] = field(default_factory=dict)  # turn → commit seq
    seeds: dict[tuple[int, str], str] = field(default_factory=dict)  # (commit, stream) → seed
    revealed_at: dict[tuple[int, str], int] = field(default_factory=dict)  # → its reveal's seq
    waiting: dict[tuple[int, str], list] = field(default_factory=dict)  # → [(seq, fair)]
    recomputed: int = 0

    @property
    def awaiting(self) -> int:
        return sum(len(rolls) for rolls in self.waiting.values())

    def see(self, seq: int, record: dict) -> DiceFault | None:
        """Check one chain entry; the first fault found, if any."""
        kind = record.get("kind")
        if kind == COMMIT_KIND:
            return self._commit(seq, record)
        if kind == REVEAL_KIND:
            return self._reveal(seq, record)
        if is_reveal_record(record):  # a secret roll revealed: its full record's dice
            revealed = record["reveals"].get("record")
            if not isinstance(revealed, dict):
                return None
            if type(revealed.get("seq")) is not int:
                return DiceFault(seq, "unfair_die", "the revealed roll has no number")
            return self._rolled(revealed["seq"], revealed, stream="secret")
        return self._rolled(seq, record, stream="public")

    def _rolled(self, seq: int, record: dict, *, stream: str) -> DiceFault | None:
        """A roll's dice: fair ones are checked; a roll with dice but none of the fair kind is
        a fault once its turn's seeds were committed before it, or in a turn opened after the
        first commitment that was never committed (a site that steered a roll cannot simply
        leave its fair part out)."""
        if "fair" in record:
            return self._roll(seq, record, stream=stream)
        if not isinstance(record.get("result"), dict):
            return None
        turn = record.get("turn")
        committed = self.commit_of_turn.get(turn)
        if committed is not None and committed < seq:
            return DiceFault(seq, "unfair_die", "a roll of a committed turn without fair dice")
        first = min(self.commit_of_turn, default=None)
        if first is not None and type(turn) is int and turn > first:
            return DiceFault(
                seq,
                "unfair_die",
                f"a roll of turn {turn}, which has no dice commitment "
                f"(every turn from turn {first} on is committed)",
            )
        return None

    def sealed_at_end(self) -> str | None:
        """What of the dice is still held at the session's end: every committed turn's
        seeds, both streams, are out by then."""
        for commit_seq, part in sorted(self.commits.items()):
            for stream in STREAMS:
                if (commit_seq, stream) not in self.seeds:
                    return f"turn {part['turn']}'s {stream} seed is still held"
        return None

    def _commit(self, seq: int, record: dict) -> DiceFault | None:
        part = record.get(COMMIT_KIND)
        turn = part.get("turn") if isinstance(part, dict) else None
        if type(turn) is not int or turn != record.get("turn") or turn in self.commit_of_turn:
            return DiceFault(seq, "bad_dice_commit", "not one commitment for its own turn")
        if part.get("scheme") != SCHEME or not all(
            isinstance(part.get(stream), str) and SEED_PATTERN.match(part[stream])
            for stream in STREAMS
        ):
            return DiceFault(seq, "bad_dice_commit", "not two hmac-sha256-v1 commitments")
        # A turn opens after the one before it closed: its public seed is out by now.
        for earlier_seq, earlier in self.commits.items():
            if (earlier_seq, "public") not in self.seeds:
                return DiceFault(
                    seq, "bad_dice_commit", f"turn {earlier['turn']}'s seed was never revealed"
                )
        # Every turn opened after the first commitment is committed as it opens.
        last = max(self.commit_of_turn, default=None)
        if last is not None and turn != last + 1:
            detail = (
                f"turn {last + 1} was never committed"
                if turn > last
                else f"turn {turn} is committed after turn {last}"
            )
            return DiceFault(seq, "bad_dice_commit", detail)
        self.commits[seq] = part
        self.commit_of_turn[turn] = seq
        return None

    def _reveal(self, seq: int, record: dict) -> DiceFault | None:
        part = record.get(REVEAL_KIND)
        if not isinstance(part, dict):
            return DiceFault(seq, "bad_seed_reveal", "no revealed seeds")
        commit_seq, seeds = part.get("commit"), part.get("seeds")
        commit = self.commits.get(commit_seq) if type(commit_seq) is int else None
        if commit is None or commit["turn"] != part.get("turn") or not isinstance(seeds, dict):
            return DiceFault(seq, "bad_seed_reveal", "it names no earlier commitment of its turn")
        if record.get("turn") != commit["turn"]:
            return DiceFault(
                seq,
                "bad_seed_reveal",
                f"an entry of turn {record.get('turn')} reveals turn {commit['turn']}",
            )
        if not seeds:
            return DiceFault(seq, "bad_seed_reveal", "it reveals no seed")
        for stream, seed in seeds.items():
            if stream not in STREAMS or (commit_seq, stream) in self.seeds:
                return DiceFault(seq, "bad_seed_reveal", f"stream {stream!r} revealed twice")
            if not self._committed(seed, commit, stream):
                return DiceFault(
                    seq, "bad_seed_reveal", f"the {stream} seed is not the committed one"
                )
            self.seeds[commit_seq, stream] = seed
            self.revealed_at[commit_seq, stream] = seq
            for roll_seq, fair in self.waiting.pop((commit_seq, stream), []):
                if fault := self._draws(roll_seq, fair, seed):
                    return fault
        return None

    def _committed(self, seed, commit: dict, stream: str) -> bool:
        if not isinstance(seed, str) or not SEED_PATTERN.match(seed):
            return False
        again = seed_commitment(
            session=self.session_id, turn=commit["turn"], stream=stream, seed=seed
        )
        return again == commit[stream]

    def _roll(self, seq: int, record: dict, *, stream: str) -> DiceFault | None:
        """A roll's fair part: a visible roll's draws come from the public stream, a revealed
        secret roll's from the secret one. A fault is named at the roll's own number."""
        fair = record["fair"]
        if not isinstance(fair, dict) or fair.get("scheme") != SCHEME:
            return DiceFault(seq, "unfair_die", "its dice are not of the hmac-sha256-v1 scheme")
        commit_seq = fair.get("commit")
        commit = self.commits.get(commit_seq) if type(commit_seq) is int else None
        # Earlier than the roll itself: a revealed secret roll is read after later commits.
        if commit is None or commit_seq >= seq or commit["turn"] != record.get("turn"):
            return DiceFault(seq, "unfair_die", "its dice name no earlier commitment of its turn")
        if fair.get("stream") != stream:
            return DiceFault(seq, "unfair_die", f"its dice are not of the {stream} stream")
        client_seed = fair.get("client_seed")
        if not isinstance(client_seed, str) or not CLIENT_SEED_PATTERN.match(client_seed):
            return DiceFault(seq, "unfair_die", "the roller's seed is not 32 to 128 hex digits")
        draws = fair.get("draws")
        if not isinstance(draws, list) or not all(
            isinstance(d, list) and len(d) == 3 for d in draws
        ):
            return DiceFault(seq, "unfair_die", "no list of draws")
        result = record.get("result")
        if not isinstance(result, dict) or result.get("dice") != [d[2] for d in draws]:
            # The dice shown are the draws: else honest draws could stand beside any result.
            return DiceFault(seq, "unfair_die", "its result's dice are not its draws")
        seed = self.seeds.get((commit_seq, stream))
        if seed is None:
            self.waiting.setdefault((commit_seq, stream), []).append((seq, fair))
            return None
        # A seed is public once revealed: a roll drawn from it after that proves nothing.
        if seq > self.revealed_at[commit_seq, stream]:
            return DiceFault(
                seq,
                "unfair_die",
                f"drawn after its seed was revealed (#{self.revealed_at[commit_seq, stream]})",
            )
        return self._draws(seq, fair, seed)

    def _draws(self, seq: int, fair: dict, seed: str) -> DiceFault | None:
        wrong = draws_match(
            seed=seed,
            session=self.session_id,
            seq=seq,
            client_seed=fair["client_seed"],
            draws=fair["draws"],
        )
        if wrong is not None:
            return DiceFault(
                seq, "unfair_die", f"die {wrong + 1} does not follow from the revealed seed"
            )
        self.recomputed += 1
        return None
