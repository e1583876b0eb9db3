#!/usr/bin/env python3
"""Verify a Codziennik roll ledger exported as JSON, without the site.

Download /sessions/<id>/rolls/ledger.json ("Download the ledger (JSON)"), then:

    python3 verify_ledger.py codziennik-ledger-<id>.json
    python3 verify_ledger.py codziennik-ledger-<id>.json --head <hash noted earlier>

Standard library only. The chain is recomputed exactly as rolls/ledger/chain.py does:
    canonical_json(v) = json.dumps(v, sort_keys=True, separators=(",", ":"),
                                   ensure_ascii=False, allow_nan=False).encode("utf-8")
    hash = sha256(canonical_json({"prev_hash": prev_hash, "record": record})).hexdigest()
and the first roll's prev_hash is 64 zeros (this script's own constant, not the file's).
Numbers run 1..N without gaps, each prev_hash is the previous roll's hash, and each
record names its own session and number.

Prints "OK: N rolls, head <hash>" and exits 0, or names the first broken number and
what is wrong, and exits 1. --head also requires the file's head to be a hash you
noted earlier: the full hash (audit page, `verify_rolls`) or the start the diary page
shows (16 characters at least). A mismatch means the rolls were rewritten wholesale,
unless the noted hash is an earlier roll's (it says so): then rolls were only added.
Exit 2: the file is not a ledger export.

Signatures: every roll is signed by the site's Ed25519 key over its hash (the 64 hex
characters as ASCII); `key_id` names the key (the first 16 hex digits of the SHA-256 of the
raw public key). Pass the site's published public key(s) with --public-key (the audit page and
/sessions/ledger-keys.json show them) to check that no row was written without the site's key;
without --public-key the keys listed in the file itself are used, which proves less (whoever
could forge the file could list their own key). Uses the `cryptography` package when it is
installed, else the verification of RFC 8032 section 5.1.7 below (pure Python, slower).

Secret GM rolls: a secret roll's entry (record kind "secret") holds only
record["secret"]["commitment"] = sha256(salt_hex.encode("ascii") + b"\n" +
canonical_json(full_record)).hexdigest(); it is checked like any entry. A reveal entry (kind
"reveal") holds record["reveals"] = {"seq", "commitment", "salt", "record"}: it must name an
earlier secret roll of this file not revealed before, repeat its commitment, give that
commitment when recomputed from its record and salt, and its record must name that number
and this session. Anything else is "bad reveal".

Provably fair dice (docs/audit.md, "Provably fair dice"): when a turn opens the site chains a
"dice_commit" entry, record["dice_commit"] = {"scheme": "hmac-sha256-v1", "turn": t,
"public": c, "secret": c}, where for each stream ("public", "secret") the seed is 64 lowercase
hex digits and
    c = sha256(b"codziennik/dice-seed/v1\n" + canonical_json({"seed": seed, "session": s,
                                                              "stream": stream, "turn": t}))
When the turn closes a "dice_reveal" entry gives record["dice_reveal"] = {"turn": t,
"commit": <the dice_commit's seq>, "seeds": {"public": seed[, "secret": seed]}}. A roll with
dice carries record["fair"] = {"scheme", "commit", "stream", "client_seed", "client_seed_by",
"draws": [[low, high, face], ...]} (a secret roll: in the record its reveal shows, stream
"secret"). Draw number i (from 0) of roll number `seq` must be
    v = int.from_bytes(HMAC-SHA256(key=bytes.fromhex(seed),
            msg=b"codziennik/die/v1\n" + canonical_json({"attempt": a, "client_seed": cs,
                "die": i, "high": high, "low": low, "seq": seq, "session": s})), "big")
taking the first attempt a = 0, 1, ... with v < 2**256 - 2**256 % n, n = high - low + 1, and
face = low + v % n. Checked: one dice_commit per turn, naming its own turn; a dice_reveal
names an earlier dice_commit of its turn, reveals each stream once, and each seed gives the
commitment ("bad seed reveal"); a fair part names an earlier dice_commit of the roll's turn
("bad fair part"), and once that stream's seed is revealed every draw is recomputed ("die N
does not follow from the revealed seed" at the roll's number). A roll whose seed is not yet
revealed awaits its turn's reveal: counted, not an error. Also ("bad fair part" at the roll):
its draws are exactly the dice its rules ask for (docs/audit.md, "The dice each test asks
for": dice_requests_problem below walks them), it comes before its seed's reveal, and a roll
of a turn after the first committed one has its turn's commitment before it; a dice_commit
is for the turn after the last committed one, and a dice_reveal is an entry of the turn it
reveals.

The session's end: a "session_end" entry, record["session_end"] = {"status": "finished"},
is the chain's last; at it every secret roll and every committed seed is revealed ("bad
session end"), and any entry after it is "an entry after the session's end".
"""

import argparse
import base64
import hashlib
import hmac
import json
import re
import sys

GENESIS_HASH = "0" * 64

# -- Ed25519 verification (RFC 8032, section 5.1.7), used when `cryptography` is missing ------

_P = 2**255 - 19
_D = -121665 * pow(121666, _P - 2, _P) % _P
_Q = 2**252 + 27742317777372353535851937790883648493
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)


def _add(a, b):
    """Point addition in extended coordinates (X, Y, Z, T)."""
    e1 = (a[1] - a[0]) * (b[1] - b[0]) % _P
    e2 = (a[1] + a[0]) * (b[1] + b[0]) % _P
    e3 = 2 * a[3] * b[3] * _D % _P
    e4 = 2 * a[2] * b[2] % _P
    e, f, g, h = e2 - e1, e4 - e3, e4 + e3, e2 + e1
    return (e * f % _P, g * h % _P, f * g % _P, e * h % _P)


def _multiply(scalar, point):
    result = (0, 1, 1, 0)
    while scalar:
        if scalar & 1:
            result = _add(result, point)
        point = _add(point, point)
        scalar >>= 1
    return result


def _same(a, b):
    return (a[0] * b[2] - b[0] * a[2]) % _P == 0 and (a[1] * b[2] - b[1] * a[2]) % _P == 0


def _recover_x(y, sign):
    if y >= _P:
        return None
    x2 = (y * y - 1) * pow(_D * y * y + 1, _P - 2, _P)
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P:
        x = x * _SQRT_M1 % _P
    if (x * x - x2) % _P:
        return None
    return _P - x if (x & 1) != sign else x


def _decompress(raw: bytes):
    if len(raw) != 32:
        return None
    y = int.from_bytes(raw, "little")
    sign, y = y >> 255, y & ((1 << 255) - 1)
    x = _recover_x(y, sign)
    return None if x is None else (x, y, 1, x * y % _P)


_G_Y = 4 * pow(5, _P - 2, _P) % _P
_G = (_recover_x(_G_Y, 0), _G_Y, 1, _recover_x(_G_Y, 0) * _G_Y % _P)


def ed25519_verify_pure(public: bytes, message: bytes, signature: bytes) -> bool:
    if len(public) != 32 or len(signature) != 64:
        return False
    a, r = _decompress(public), _decompress(signature[:32])
    s = int.from_bytes(signature[32:], "little")
    if a is None or r is None or s >= _Q:
        return False
    h = int.from_bytes(hashlib.sha512(signature[:32] + public + message).digest(), "little") % _Q
    return _same(_multiply(s, _G), _add(r, _multiply(h, a)))


def ed25519_verify(public: bytes, message: bytes, signature: bytes) -> bool:
    try:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    except ImportError:
        return ed25519_verify_pure(public, message, signature)
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


def key_id_of(public: bytes) -> str:
    return hashlib.sha256(public).hexdigest()[:16]


def signature_problem(roll: dict, keys: dict) -> str | None:
    key_id, signature = roll.get("key_id"), roll.get("signature")
    if not key_id or not signature:
        return "not signed (written without the site's signing key)"
    if key_id not in keys:
        return f"signed with a key not trusted here ({key_id})"
    try:
        raw = base64.b64decode(signature, validate=True)
    except ValueError:
        return "bad signature (not base64)"
    if not ed25519_verify(keys[key_id], roll["hash"].encode("ascii"), raw):
        return "bad signature (not made by the site's key)"
    return None


def canonical_json(value) -> bytes:
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def chain_hash(prev_hash: str, record: dict) -> str:
    return hashlib.sha256(canonical_json({"prev_hash": prev_hash, "record": record})).hexdigest()


def commitment_for(record: dict, salt_hex: str) -> str:
    return hashlib.sha256(salt_hex.encode("ascii") + b"\n" + canonical_json(record)).hexdigest()


def reveal_problem(record: dict, session, commitments: dict) -> str | None:
    """What is wrong with a reveal entry, or None (rolls/ledger/secret.py's reveal_problem)."""
    reveals = record["reveals"]
    seq, full, salt = reveals.get("seq"), reveals.get("record"), reveals.get("salt")
    if isinstance(seq, bool) or not isinstance(seq, int) or seq not in commitments:
        return f"bad reveal: #{seq} is not an earlier secret roll"
    if commitments[seq] is None:
        return f"bad reveal: #{seq} revealed a second time"
    if not isinstance(full, dict) or not isinstance(salt, str):
        return "bad reveal: the revealed record or salt is missing"
    if reveals.get("commitment") != commitments[seq]:
        return f"bad reveal: names another commitment than #{seq}'s"
    try:
        recomputed = commitment_for(full, salt)
    except (UnicodeEncodeError, TypeError, ValueError):
        recomputed = None
    if recomputed != commitments[seq]:
        return f"bad reveal: the revealed record and salt do not give #{seq}'s commitment"
    if full.get("seq") != seq or full.get("session") != session:
        return f"bad reveal: the revealed record does not name #{seq} of this session"
    return None


# -- provably fair dice -----------------------------------------------------------------------

FAIR_SCHEME = "hmac-sha256-v1"
STREAMS = ("public", "secret")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_CLIENT_SEED = re.compile(r"^[0-9a-f]{32,128}$")
_SPACE = 2**256


def _whole(value) -> bool:
    return type(value) is int


def seed_commitment(session, turn, stream, seed) -> str:
    payload = {"seed": seed, "session": session, "stream": stream, "turn": turn}
    return hashlib.sha256(b"codziennik/dice-seed/v1\n" + canonical_json(payload)).hexdigest()


def derive_face(seed, session, seq, client_seed, die, low, high) -> int:
    faces, key, attempt = high - low + 1, bytes.fromhex(seed), 0
    limit = _SPACE - _SPACE % faces
    while True:
        payload = {
            "attempt": attempt,
            "client_seed": client_seed,
            "die": die,
            "high": high,
            "low": low,
            "seq": seq,
            "session": session,
        }
        message = b"codziennik/die/v1\n" + canonical_json(payload)
        value = int.from_bytes(hmac.new(key, message, hashlib.sha256).digest(), "big")
        if value < limit:
            return low + value % faces
        attempt += 1


class FairDice:
    """The dice entries and fair parts seen so far. A fair part waits for its seed; when the
    seed is revealed its draws are recomputed."""

    def __init__(self, session) -> None:
        self.session = session
        self.commits = {}  # dice_commit seq -> its dice_commit part
        self.turns = set()  # turns with a dice_commit
        self.seeds = {}  # (commit seq, stream) -> revealed seed
        self.revealed_at = {}  # (commit seq, stream) -> seq of the reveal
        self.waiting = {}  # (commit seq, stream) -> [(roll seq, fair part), ...]
        self.recomputed = 0
        self.ended = None  # seq of the session's end entry

    @property
    def awaiting(self) -> int:
        return sum(len(parts) for parts in self.waiting.values())

    def commit_problem(self, record: dict, seq: int) -> str | None:
        part, turn = record["dice_commit"], record.get("turn")
        if part.get("scheme") != FAIR_SCHEME:
            return f"bad dice commit: unknown scheme {part.get('scheme')!r}"
        if not _whole(part.get("turn")) or part["turn"] != turn:
            return "bad dice commit: names another turn than its own"
        if turn in self.turns:
            return f"bad dice commit: turn {turn} was committed before"
        if not all(isinstance(part.get(s), str) and _HEX64.match(part[s]) for s in STREAMS):
            return "bad dice commit: a stream's commitment is not 64 hex digits"
        # A turn opens after the one before it closed: every earlier public seed is out.
        for earlier, committed in self.commits.items():
            if (earlier, "public") not in self.seeds:
                return f"bad dice commit: turn {committed['turn']}'s seed was never revealed"
        # Every turn opened after the first commitment is committed as it opens.
        if self.turns and turn != max(self.turns) + 1:
            if turn > max(self.turns):
                return f"bad dice commit: turn {max(self.turns) + 1} was never committed"
            return f"bad dice commit: turn {turn} is committed after turn {max(self.turns)}"
        self.turns.add(turn)
        self.commits[seq] = part
        return None

    def reveal_problem(self, record: dict) -> tuple[int, str] | None:
        """(seq, problem) at the reveal itself or, once a seed is known, at the first roll
        whose dice do not follow from it."""
        part, seq = record["dice_reveal"], record["seq"]
        commit, seeds = part.get("commit"), part.get("seeds")
        if not _whole(commit) or commit not in self.commits:
            return seq, f"bad seed reveal: #{commit} is not an earlier dice commit"
        turn = self.commits[commit]["turn"]
        if part.get("turn") != turn:
            return seq, f"bad seed reveal: #{commit} committed turn {turn}, not this one"
        if record.get("turn") != turn:
            return (
                seq,
                f"bad seed reveal: an entry of turn {record.get('turn')} reveals turn {turn}",
            )
        if not isinstance(seeds, dict) or not seeds or not set(seeds) <= set(STREAMS):
            return seq, "bad seed reveal: no seeds, or a stream other than public and secret"
        for stream, seed in sorted(seeds.items()):
            if (commit, stream) in self.seeds:
                return seq, f"bad seed reveal: the {stream} seed was revealed before"
            if not isinstance(seed, str) or not _HEX64.match(seed):
                return seq, f"bad seed reveal: the {stream} seed is not 64 hex digits"
            if seed_commitment(self.session, turn, stream, seed) != self.commits[commit][stream]:
                return (
                    seq,
                    f"bad seed reveal: the {stream} seed does not give #{commit}'s commitment",
                )
            self.seeds[commit, stream] = seed
            self.revealed_at[commit, stream] = seq
            for roll_seq, fair in self.waiting.pop((commit, stream), []):
                if problem := self.draws_problem(roll_seq, fair, seed):
                    return roll_seq, problem
        return None

    def fair_problem(self, record: dict, stream: str) -> str | None:
        """Check a roll's fair part (a plain roll's, or a revealed secret roll's record), and
        recompute its draws now or when its seed is revealed."""
        fair, seq, turn = record["fair"], record.get("seq"), record.get("turn")
        if not isinstance(fair, dict) or fair.get("scheme") != FAIR_SCHEME:
            return "bad fair part: not the hmac-sha256-v1 scheme"
        commit = fair.get("commit")
        if not _whole(commit) or commit not in self.commits or commit >= seq:
            return f"bad fair part: #{commit} is not an earlier dice commit"
        if self.commits[commit]["turn"] != turn:
            return f"bad fair part: #{commit} committed another turn than the roll's"
        if fair.get("stream") != stream:
            return f"bad fair part: stream {fair.get('stream')!r}, not {stream!r}"
        client_seed, draws = fair.get("client_seed"), fair.get("draws")
        if not isinstance(client_seed, str) or not _CLIENT_SEED.match(client_seed):
            return "bad fair part: the client seed is not 32 to 128 hex digits"
        if not isinstance(draws, list) or not all(
            isinstance(d, list) and len(d) == 3 for d in draws
        ):
            return "bad fair part: no list of draws"
        result = record.get("result")
        if not isinstance(result, dict) or result.get("dice") != [d[2] for d in draws]:
            return "bad fair part: its result's dice are not its draws"
        if problem := dice_requests_problem(result, draws):
            return f"bad fair part: {problem}"
        if (commit, stream) in self.seeds:
            # A seed is public once revealed: a roll drawn from it after that proves nothing.
            if seq > self.revealed_at[commit, stream]:
                return (
                    "bad fair part: drawn after its seed was revealed "
                    f"(#{self.revealed_at[commit, stream]})"
                )
            return self.draws_problem(seq, fair, self.seeds[commit, stream])
        self.waiting.setdefault((commit, stream), []).append((seq, fair))
        return None

    def unfair_problem(self, record: dict, seq: int) -> str | None:
        """A roll with dice but no fair part, in a turn committed before it, or in a turn
        opened after the first commitment that was never committed: a site that steered it
        cannot simply leave its fair part out."""
        if not isinstance(record.get("result"), dict):
            return None
        turn = record.get("turn")
        commit = next((c for c, part in self.commits.items() if part["turn"] == turn), None)
        if commit is not None and commit < seq:
            return "bad fair part: a roll of a committed turn without fair dice"
        first = min((part["turn"] for part in self.commits.values()), default=None)
        if first is not None and _whole(turn) and turn > first:
            return (
                f"bad fair part: a roll of turn {turn}, which has no dice commitment "
                f"(every turn from turn {first} on is committed)"
            )
        return None

    def end_problem(self, commitments: dict) -> str | None:
        """At the session's end nothing stays sealed: every secret roll is revealed, and
        every committed turn's seeds, both streams."""
        sealed = sorted(seq for seq, commitment in commitments.items() if commitment is not None)
        if sealed:
            return f"bad session end: secret roll #{sealed[0]} is still sealed"
        for commit, part in sorted(self.commits.items()):
            for stream in STREAMS:
                if (commit, stream) not in self.seeds:
                    return f"bad session end: turn {part['turn']}'s {stream} seed is still held"
        return None

    def draws_problem(self, seq: int, fair: dict, seed: str) -> str | None:
        for die, draw in enumerate(fair["draws"]):
            well_formed = isinstance(draw, list) and len(draw) == 3 and all(map(_whole, draw))
            if not well_formed or draw[1] < draw[0]:
                return (
                    f"die {die + 1} does not follow from the revealed seed (not [low, high, face])"
                )
            low, high, face = draw
            if face != derive_face(seed, self.session, seq, fair["client_seed"], die, low, high):
                return f"die {die + 1} does not follow from the revealed seed"
        self.recomputed += 1
        return None


# -- the dice each test asks for (docs/audit.md, "The dice each test asks for") ----------------

EXPLOSION_CAP = 10  # free notation: extra dice one die may add by exploding
REROLL_CAP = 10  # free notation: times `r` rerolls one die (`ro`: once)
_COMPARES = {
    "=": lambda face, value: face == value,
    "<": lambda face, value: face < value,
    "<=": lambda face, value: face <= value,
    ">": lambda face, value: face > value,
    ">=": lambda face, value: face >= value,
}


class _NotAsked(Exception):
    """The draws are not the dice the rules ask for (the message says where)."""


class _Draws:
    """A roll's draws handed out in order as its rules ask for dice: each die asked for on
    low..high must be the next draw, on exactly that range."""

    def __init__(self, draws: list) -> None:
        self.draws, self.used = draws, 0

    def roll(self, low: int, high: int) -> int:
        if self.used >= len(self.draws):
            raise _NotAsked(
                f"its rules ask for die {self.used + 1} ({low}..{high}), "
                f"but only {len(self.draws)} were drawn"
            )
        drawn_low, drawn_high, face = self.draws[self.used]
        if (drawn_low, drawn_high) != (low, high):
            raise _NotAsked(
                f"die {self.used + 1} was drawn on {drawn_low}..{drawn_high}, "
                f"its rules ask for {low}..{high}"
            )
        self.used += 1
        return face


def _sum_of(items, key: str) -> int:
    return sum(item[key] for item in items or [])


def _forum1000_dice(test: str, data: dict, roll) -> None:
    """One d1000 per tested side: one for a single test or healing, two for an opposed test
    (side a, then b), one per listed character for initiative, in their order."""
    counts = {"attribute": 1, "combined": 1, "skill": 1, "healing": 1, "opposed": 2}
    count = len(data["characters"]) if test == "initiative" else counts[test]
    for _ in range(count):
        roll(1, 1000)


def _q10_dice(test: str, data: dict, roll) -> None:
    """X d10, X the pool's dice (x, else attribute + skill, plus every pool modifier's dice,
    at least 0, at most 10); then one more d10 for every 10 among them, and one more again
    for every 10 among those, one at a time."""
    if test != "pool":
        raise KeyError(test)
    base = data["x"] if data.get("x") is not None else data["attribute"] + data["skill"]
    pool = min(10, max(0, base + _sum_of(data.get("pool_modifiers"), "dice")))
    owed = sum(roll(1, 10) == 10 for _ in range(pool))
    while owed:
        owed += (roll(1, 10) == 10) - 1


def _ciernie_threshold(test: str, data: dict) -> int:
    modifiers = _sum_of(data.get("modifiers"), "value")
    if test in ("attribute", "effect"):
        return data["attribute"] + modifiers
    if test == "combined":
        return sum(data["attributes"]) // len(data["attributes"]) + modifiers
    if test == "comparative":
        own = data["own"] + _sum_of(data.get("own_modifiers"), "value")
        opposing = data["opposing"] + _sum_of(data.get("opposing_modifiers"), "value")
        return 10 + own - opposing + modifiers
    if test == "skill":
        attributes = data.get("attributes")
        tested = (
            data["attribute"]
            if data.get("attribute") is not None
            else sum(attributes) // len(attributes)
        )
        return tested + 3 * (data["skill"] - data["factor"]) + modifiers
    raise KeyError(test)


def _ciernie_die(test: str, data: dict, roll, bonus: int = 0):
    """A base test's d20, or None when the test is decided without one."""
    threshold = _ciernie_threshold(test, data) + bonus
    if test == "skill":
        if abs(data["skill"] - data["factor"]) >= 3:
            return None
    elif threshold < 1:
        return None
    return roll(1, 20)


def _ciernie_failed(test: str, data: dict, face: int) -> bool:
    threshold = _ciernie_threshold(test, data)
    if face in (1, 20):
        return face == 20
    delay = 3 if test == "skill" else 0  # a skill test's delay band succeeds, slowly
    return face > threshold + delay


def _ciernie_dice(test: str, data: dict, roll) -> None:
    """A base test: one d20 unless decided without it (a skill test whose skill and factor
    differ by 3 or more; any other test whose threshold is below 1). A reroll: the base
    test's die, then, if that die was drawn and failed, a second d20. A reroll chosen after
    the roll: one d20."""
    if test in ("reroll", "reroll_of"):
        base = data["base"]
        kind, bonus = base["test"], 3 * (data["reroll_sources"] - 1)
        if test == "reroll":
            first = _ciernie_die(kind, base, roll)
            if first is None or not _ciernie_failed(kind, base, first):
                return
        _ciernie_die(kind, base, roll, bonus)
        return
    _ciernie_die(test, data, roll)


def _arsmagica_dice(test: str, data: dict, roll) -> None:
    """A simple die: one d10 (0..9). A stress die: one d10; after a 0, `botch_dice` more
    (1 when the input names none); after a 1, more d10 until one is not a 1."""
    if test == "simple":
        roll(0, 9)
    elif test == "stress":
        first = roll(0, 9)
        if first == 0:
            for _ in range(data.get("botch_dice", 1)):
                roll(0, 9)
        elif first == 1:
            while roll(0, 9) == 1:
                pass
    else:
        raise KeyError(test)


def _free_dice(test: str, data: dict, roll, terms: list) -> None:
    """The result's `terms` in order, a product's factors and a group's items in order:
    each dice term's `count` dice on 1..faces (Fate dice "F": -1..1), each followed by its
    rerolls while it matches the reroll (at most 10 times, `once`: 1) and, exploding, by
    one more die while the last shows the highest face, or matches the trigger
    `explode_on` where there is one (at most 10 more)."""
    if test != "notation":
        raise KeyError(test)
    for term in terms:
        kind = term["kind"]
        if kind == "product":
            for factor in term["factors"]:
                _free_dice(test, data, roll, factor["terms"])
        elif kind == "group":
            for item in term["items"]:
                _free_dice(test, data, roll, item["terms"])
        elif kind == "dice":
            _free_term_dice(term, roll)
        elif kind != "constant":
            raise KeyError(kind)


def _free_term_dice(term: dict, roll) -> None:
    low, high = (-1, 1) if term["faces"] == "F" else (1, term["faces"])
    reroll, trigger = term.get("reroll"), term.get("explode_on")

    def explodes(face: int) -> bool:
        if trigger:
            return _COMPARES[trigger["compare"]](face, trigger["value"])
        return face == high

    def draw() -> int:
        face = roll(low, high)
        if reroll:
            matches, times = _COMPARES[reroll["compare"]], 1 if reroll["once"] else REROLL_CAP
            while times and matches(face, reroll["value"]):
                face, times = roll(low, high), times - 1
        return face

    for _ in range(term["count"]):
        face, added = draw(), 0
        while term["explode"] and explodes(face) and added < EXPLOSION_CAP:
            face, added = draw(), added + 1


_DICE_RULES = {
    "forum1000": _forum1000_dice,
    "q10": _q10_dice,
    "ciernie": _ciernie_dice,
    "arsmagica": _arsmagica_dice,
}


def dice_requests_problem(result, draws: list) -> str | None:
    """None when `draws` are exactly the dice the result's test asks for (system, test and
    input; free notation: its terms), in order and on the same ranges; else what differs."""
    if not isinstance(result, dict):
        return "no result to read its dice from"
    system, test, data = result.get("system"), result.get("test"), result.get("input")
    if system not in (*_DICE_RULES, "free"):
        return f"docs/audit.md does not say which dice system {system!r} asks for"
    asked = _Draws(draws)
    try:
        if system == "free":
            _free_dice(test, data, asked.roll, result["terms"])
        else:
            _DICE_RULES[system](test, data, asked.roll)
    except _NotAsked as wrong:
        return str(wrong)
    except (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError, AttributeError):
        return f"its rules cannot read what it tested ({system} {test!r})"
    extra = len(draws) - asked.used
    if extra:
        return f"{extra} {'die' if extra == 1 else 'dice'} drawn beyond the dice its rules ask for"
    return None


def _kind(record: dict, kind: str, part: str) -> bool:
    return record.get("kind") == kind and isinstance(record.get(part), dict)


def verify(ledger: dict, keys: dict | None = None, dice: FairDice | None = None):
    """(count, head, None) if the chain holds, else (count, head, (seq, problem)) at its break.
    `keys` (key_id → raw public key) checks every roll's signature; `dice` collects the fair
    dice's counts."""
    session, expected, head, count = ledger["session"], 1, GENESIS_HASH, 0
    commitments = {}  # secret rolls seen: seq -> commitment (None once revealed)
    dice = FairDice(session) if dice is None else dice
    for roll in ledger["rolls"]:
        seq, record = roll["seq"], roll["record"]
        if seq != expected:
            return count, head, (expected, f"missing number (a roll is gone; next found: #{seq})")
        if roll["prev_hash"] != head:
            return count, head, (seq, "bad link to the previous roll")
        if chain_hash(roll["prev_hash"], record) != roll["hash"]:
            return count, head, (seq, "changed record (its hash does not match)")
        if record.get("seq") != seq or record.get("session") != session:
            return count, head, (seq, "wrong position (the record's session or number differs)")
        if keys is not None and (problem := signature_problem(roll, keys)):
            return count, head, (seq, problem)
        if dice.ended is not None:
            return count, head, (seq, f"an entry after the session's end (#{dice.ended})")
        if record.get("kind") == "session_end":
            part = record.get("session_end")
            if not isinstance(part, dict) or part.get("status") != "finished":
                return count, head, (seq, "bad session end: no finished status")
            if problem := dice.end_problem(commitments):
                return count, head, (seq, problem)
            dice.ended = seq
        if _kind(record, "reveal", "reveals"):
            if problem := reveal_problem(record, session, commitments):
                return count, head, (seq, problem)
            commitments[record["reveals"]["seq"]] = None
            revealed = record["reveals"]["record"]
            if "fair" in revealed and (problem := dice.fair_problem(revealed, "secret")):
                return revealed["seq"] - 1, head, (revealed["seq"], problem)
            if "fair" not in revealed and (
                problem := dice.unfair_problem(revealed, revealed["seq"])
            ):
                return revealed["seq"] - 1, head, (revealed["seq"], problem)
        for kind, problem in (
            ("dice_commit", "bad dice commit"),
            ("dice_reveal", "bad seed reveal"),
        ):
            if record.get("kind") == kind and not isinstance(record.get(kind), dict):
                return count, head, (seq, f"{problem}: no {kind} part")
        is_commit = _kind(record, "dice_commit", "dice_commit")
        if is_commit and (problem := dice.commit_problem(record, seq)):
            return count, head, (seq, problem)
        is_seed_reveal = _kind(record, "dice_reveal", "dice_reveal")
        if is_seed_reveal and (broken := dice.reveal_problem(record)):
            return broken[0] - 1, head, broken
        if "fair" in record and (problem := dice.fair_problem(record, "public")):
            return count, head, (seq, problem)
        if "fair" not in record and (problem := dice.unfair_problem(record, seq)):
            return count, head, (seq, problem)
        if _kind(record, "secret", "secret"):
            commitments[seq] = record["secret"].get("commitment")
        expected, head, count = seq + 1, roll["hash"], count + 1
    return count, head, None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Verify an exported Codziennik roll ledger.")
    parser.add_argument("file", help="the downloaded ledger.json")
    parser.add_argument("--head", help="the head hash noted earlier (full, or 16+ characters)")
    parser.add_argument(
        "--public-key",
        action="append",
        default=[],
        help="a public key the site publishes (base64); repeat for retired keys",
    )
    args = parser.parse_args(argv)
    try:
        with open(args.file, encoding="utf-8") as f:
            ledger = json.load(f)
        given = args.public_key or list(ledger.get("public_keys", {}).values())
        keys = {key_id_of(raw): raw for raw in (base64.b64decode(k) for k in given)}
        dice = FairDice(ledger["session"])
        count, head, broken = verify(ledger, keys, dice)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        print(f"ERROR: not a readable ledger export: {error!r}")
        return 2
    if broken:
        seq, problem = broken
        print(f"BROKEN at #{seq}: {problem}; {count} rolls verified before it")
        return 1
    fair = ""
    if dice.recomputed or dice.awaiting:
        fair = (
            f"; dice recomputed from the revealed seeds: {dice.recomputed} rolls, "
            f"awaiting their turn's reveal: {dice.awaiting}"
        )
    print(f"OK: {count} rolls, head {head}{fair}")
    if dice.ended is not None:
        print(f"The session ended in #{dice.ended}: nothing stays sealed.")
    secret = [r for r in ledger["rolls"] if _kind(r["record"], "secret", "secret")]
    revealed = sum(_kind(r["record"], "reveal", "reveals") for r in ledger["rolls"])
    if secret:
        print(
            f"Secret rolls: {len(secret)}, revealed: {revealed} (each reveal matches its "
            "commitment); the rest stay commitments."
        )
    trusted = "the keys given" if args.public_key else "the keys listed in the file"
    print(f"Every signature checks out against {trusted}.")
    if args.head is None:
        return 0
    noted = args.head.strip().rstrip(".…").lower()
    if len(noted) >= 16 and head.startswith(noted):
        print("Head matches the noted hash.")
        return 0
    print(f"HEAD MISMATCH: the file's head is {head}, not the noted {args.head.strip()}")
    earlier = [
        r["seq"] for r in ledger["rolls"] if len(noted) >= 16 and r["hash"].startswith(noted)
    ]
    if earlier:
        print(f"(the noted hash is roll #{earlier[0]}'s; rolls after it: {count - earlier[0]})")
    return 1


if __name__ == "__main__":
    sys.exit(main())
