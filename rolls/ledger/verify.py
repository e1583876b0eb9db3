"""Verification of a session's chain of rolls: every link (rolls.ledger.chain), every signature,
every secret roll's commitment, every row's place (its post, turn and characters as its record
names them) and, on request, every result recomputed from its record."""

from dataclasses import dataclass

from django.utils.translation import gettext_lazy as _

from characters.models import Character
from diary.models import Post
from rolls.ledger import recompute as recomputing
from rolls.ledger import secret as secrets_
from rolls.ledger import signing
from rolls.ledger.chain import GENESIS_HASH, chain_hash
from rolls.ledger.fair_check import FairDiceCheck
from rolls.ledger.secret import commitment_matches
from rolls.models import SESSION_END_KIND, Roll, SecretRoll, is_entry_record

# What verification can find wrong with a roll, as stable codes with labels.
PROBLEMS = {
    "missing_number": _("missing number (a roll is gone)"),
    "bad_link": _("bad link to the previous roll"),
    "changed_record": _("changed record (its hash does not match)"),
    "wrong_position": _("record does not match its row (session or number)"),
    # rolls.ledger.signing.
    "unsigned": _("not signed (written without the site's signing key)"),
    "unknown_key": _("signed with a key the site does not trust"),
    "bad_signature": _("bad signature (not made by the site's key)"),
    # rolls.ledger.recompute (verify_rolls --recompute).
    "wrong_result": _("its result is not what its stored case and dice give"),
    # rolls.ledger.secret.
    "bad_reveal": _("a reveal that does not match the secret roll's commitment"),
    "hidden_changed": _("a secret roll's hidden record no longer gives its commitment"),
    # rolls.ledger.fair_check: a turn's dice seeds and every die drawn from them.
    "bad_dice_commit": _("a turn's dice commitment that is not one per turn"),
    "bad_seed_reveal": _("a revealed dice seed that is not the committed one"),
    "unfair_die": _("a die that does not follow from its turn's seed and the roller's seed"),
    # The session's end entry (rolls.services.session_finishing).
    "sealed_at_end": _("the session ended with a secret roll or a dice seed still sealed"),
    "after_end": _("an entry after the session's end"),
    # The row's place against its record (verify_session): a post or a row moved.
    "wrong_post": _("record does not match its post (the post or the roll was moved)"),
    "wrong_turn": _("record does not match its turn (the post or the roll was moved)"),
    "unknown_character": _("names a character that does not exist"),
}


@dataclass(frozen=True)
class ChainReport:
    count: int
    head_hash: str
    broken_seq: int | None = None
    problem: str | None = None
    detail: str = ""
    # Fair dice (rolls.ledger.fair_check): rolls whose every die was recomputed from a
    # revealed seed, and rolls whose turn's seed is not revealed yet.
    dice_recomputed: int = 0
    dice_awaiting: int = 0

    @property
    def ok(self) -> bool:
        return self.problem is None

    @property
    def problem_label(self) -> str:
        if not self.problem:
            return ""
        label = str(PROBLEMS[self.problem])
        return f"{label}: {self.detail}" if self.detail else label


def verify_chain(
    rows, session_id: int, keys: dict[str, str] | None = None, *, recompute: bool = False
) -> ChainReport:
    """Walk `rows` (seq, prev_hash, hash, record, key_id, signature, in seq order) and stop at
    the first break. `keys` (key_id → public key) checks every signature; `recompute` rolls
    every stored case again through the engine.

    A secret roll's entry is checked like any other (it holds a commitment, no
    die); a reveal entry must reveal an earlier, not yet revealed secret roll with a record
    and salt that give its commitment, and with `recompute` the revealed record is rolled
    again like any roll."""
    expected_seq, prev_hash, count = 1, GENESIS_HASH, 0
    commitments: dict[int, str | None] = {}  # secret rolls seen: seq → commitment
    dice = FairDiceCheck(session_id)
    ended = None  # the session's end entry: nothing may follow it
    for seq, row_prev_hash, row_hash, record, key_id, signature in rows:
        if seq != expected_seq:
            return ChainReport(count, prev_hash, broken_seq=expected_seq, problem="missing_number")
        if row_prev_hash != prev_hash:
            return ChainReport(count, prev_hash, broken_seq=seq, problem="bad_link")
        if not isinstance(record, dict) or chain_hash(row_prev_hash, record) != row_hash:
            return ChainReport(count, prev_hash, broken_seq=seq, problem="changed_record")
        if record.get("seq") != seq or record.get("session") != session_id:
            return ChainReport(count, prev_hash, broken_seq=seq, problem="wrong_position")
        if keys is not None and (
            problem := signing.signature_problem(row_hash, key_id, signature, keys)
        ):
            return ChainReport(count, prev_hash, broken_seq=seq, problem=problem)
        if ended is not None:
            return ChainReport(
                count, prev_hash, broken_seq=seq, problem="after_end", detail=f"#{ended}"
            )
        if record.get("kind") == SESSION_END_KIND:
            if detail := _sealed_at_end(record, commitments, dice):
                return ChainReport(
                    count, prev_hash, broken_seq=seq, problem="sealed_at_end", detail=detail
                )
            ended = seq
        if secrets_.is_reveal_record(record):
            if detail := secrets_.reveal_problem(record, commitments):
                return ChainReport(
                    count, prev_hash, broken_seq=seq, problem="bad_reveal", detail=detail
                )
            commitments[record["reveals"]["seq"]] = None
        if recompute and (detail := recomputing.recompute_problem(record, is_entry_record)):
            return ChainReport(
                count, prev_hash, broken_seq=seq, problem="wrong_result", detail=detail
            )
        if fault := dice.see(seq, record):
            return ChainReport(
                count, prev_hash, broken_seq=fault.seq, problem=fault.problem, detail=fault.detail
            )
        if secrets_.is_secret_record(record):
            commitments[seq] = record["secret"].get("commitment")
        expected_seq, prev_hash, count = seq + 1, row_hash, count + 1
    return ChainReport(
        count, prev_hash, dice_recomputed=dice.recomputed, dice_awaiting=dice.awaiting
    )


def _sealed_at_end(record: dict, commitments: dict, dice: FairDiceCheck) -> str:
    """What the session's end entry leaves sealed ("" for nothing): by the end every secret
    roll is revealed, then every seed."""
    part = record.get(SESSION_END_KIND)
    if not isinstance(part, dict) or part.get("status") != "finished":
        return "no finished status"
    sealed = sorted(seq for seq, commitment in commitments.items() if commitment is not None)
    if sealed:
        return f"secret roll #{sealed[0]} is still sealed"
    return dice.sealed_at_end() or ""


def verify_session(session_id: int, *, recompute: bool = False) -> ChainReport:
    """The session's chain, every row's place, every signature against the site's trusted
    keys and, with `recompute`, every roll against the engine. A fixed number of queries,
    however long the chain."""
    rows = (
        Roll.objects.filter(session_id=session_id)
        .order_by("seq")
        .values_list(
            "seq", "prev_hash", "hash", "record", "key_id", "signature", "post_id", "turn_number"
        )
        .iterator(chunk_size=2000)
    )
    places = _PlaceCheck(session_id)
    report = verify_chain(
        places.watch(rows), session_id, signing.trusted_public_keys(), recompute=recompute
    )
    report = places.earliest(report)
    return _hidden_records_checked(report, session_id) if report.ok else report


class _PlaceCheck:
    """Each row against what its record names, read as the chain is walked: the record's
    post is the row's post and that post is in this session; the record's turn is the row's
    turn and the post's turn; every character it names exists. The chain's own checks come
    first for a row; the earliest problem of either walk is the one reported."""

    def __init__(self, session_id: int):
        self.session_id = session_id
        # The session's posts with their turn numbers: one query by the session's index (a
        # subquery over the rows' posts let PostgreSQL pick a nested loop over both tables).
        self.posts = dict(
            Post.objects.filter(session_id=session_id).values_list("pk", "turn__number")
        )
        # A post a row names outside the session: the first row naming it (read after the walk).
        self.elsewhere: dict[int, tuple[int, int, str]] = {}
        self.found: ChainReport | None = None
        # Character id → the first row naming it (seq, rows before it, the hash before it).
        self.named: dict[int, tuple[int, int, str]] = {}

    def watch(self, rows):
        count, prev_hash = 0, GENESIS_HASH
        for seq, row_prev, row_hash, record, key_id, signature, post_id, turn in rows:
            if self.found is None and isinstance(record, dict):
                if found := self._place_problem(record, post_id, turn, (seq, count, prev_hash)):
                    problem, detail = found
                    self.found = ChainReport(
                        count, prev_hash, broken_seq=seq, problem=problem, detail=detail
                    )
                else:
                    self._note_characters(record, (seq, count, prev_hash))
            yield seq, row_prev, row_hash, record, key_id, signature
            count, prev_hash = count + 1, row_hash

    def _place_problem(self, record: dict, post_id, turn, where) -> tuple[str, str] | None:
        if record.get("post") != post_id:
            return "wrong_post", f"the record names post {record.get('post')}, the row {post_id}"
        if record.get("turn") != turn:
            return "wrong_turn", f"the record names turn {record.get('turn')}, the row {turn}"
        if post_id is None:  # a chain entry of no post (the turn's dice commitments)
            return None
        if post_id not in self.posts:
            self.elsewhere.setdefault(post_id, where)
            return None
        post_turn = self.posts[post_id]
        # A row lands in a post of its own turn or, for a secret roll's reveal, of an earlier
        # one (the result beside its commitment); never in a post of a later turn.
        if post_turn is None or post_turn == turn:
            return None
        if post_turn < turn and secrets_.is_reveal_record(record):
            return None
        return "wrong_turn", f"post {post_id} is in turn {post_turn}, the roll in turn {turn}"

    def _note_characters(self, record: dict, where: tuple[int, int, str]) -> None:
        characters = record.get("characters")
        if not isinstance(characters, dict):
            return
        for value in characters.values():
            for named in value if isinstance(value, list) else [value]:
                key = named.get("id") if isinstance(named, dict) else None
                if key is None:  # a sheet-less NPC is named without an id
                    continue
                if not _is_row_id(key):
                    key = repr(key)  # no character has it: reported, never a crash
                self.named.setdefault(key, where)

    def earliest(self, report: ChainReport) -> ChainReport:
        found = self.found
        sessions = dict(
            Post.objects.filter(pk__in=list(self.elsewhere)).values_list("pk", "session_id")
        )
        for post_id, (seq, count, prev_hash) in self.elsewhere.items():
            if found is None or seq < found.broken_seq:
                detail = (
                    f"post {post_id} is in session {sessions[post_id]}"
                    if post_id in sessions
                    else f"post {post_id} does not exist"
                )
                found = ChainReport(
                    count, prev_hash, broken_seq=seq, problem="wrong_post", detail=detail
                )
        ids = [key for key in self.named if _is_row_id(key)]
        existing = set(Character.objects.filter(pk__in=ids).values_list("pk", flat=True))
        for key, (seq, count, prev_hash) in self.named.items():
            if key not in existing and (found is None or seq < found.broken_seq):
                found = ChainReport(
                    count,
                    prev_hash,
                    broken_seq=seq,
                    problem="unknown_character",
                    detail=f"character {key!r} does not exist",
                )
        if found is None or (not report.ok and report.broken_seq <= found.broken_seq):
            return report
        return found


def _is_row_id(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 2**63


def _hidden_records_checked(report: ChainReport, session_id: int) -> ChainReport:
    """Each still-secret roll's hidden record and salt must give the commitment its
    chain entry holds: changed behind the chain's back, the reveal would show a lie (the
    export cannot check this; only the site, which holds the hidden half, can)."""
    hidden = (
        SecretRoll.objects.filter(roll__session_id=session_id, reveal__isnull=True)
        .order_by("roll__seq")
        .values_list("roll__seq", "roll__record", "record", "salt")
    )
    for seq, public, record, salt in hidden.iterator(chunk_size=500):
        if not commitment_matches(public["secret"]["commitment"], record, salt):
            return ChainReport(
                report.count, report.head_hash, broken_seq=seq, problem="hidden_changed"
            )
    return report
