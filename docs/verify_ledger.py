#!/usr/bin/env python3
"""Verify a Codziennik roll ledger exported as JSON, without the site.

Download /sessions/<id>/rolls/ledger.json ("Download the ledger (JSON)"), then:

    python3 verify_ledger.py codziennik-ledger-<id>.json
    python3 verify_ledger.py codziennik-ledger-<id>.json --head <hash noted earlier>

Standard library only. The chain is recomputed exactly as rolls/chain.py does:
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
"""

import argparse
import base64
import hashlib
import json
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
    """What is wrong with a reveal entry, or None (rolls/secret.py's reveal_problem)."""
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


def _kind(record: dict, kind: str, part: str) -> bool:
    return record.get("kind") == kind and isinstance(record.get(part), dict)


def verify(ledger: dict, keys: dict | None = None):
    """(count, head, None) if the chain holds, else (count, head, (seq, problem)) at its break.
    `keys` (key_id → raw public key) checks every roll's signature."""
    session, expected, head, count = ledger["session"], 1, GENESIS_HASH, 0
    commitments = {}  # secret rolls seen: seq -> commitment (None once revealed)
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
        if _kind(record, "reveal", "reveals"):
            if problem := reveal_problem(record, session, commitments):
                return count, head, (seq, problem)
            commitments[record["reveals"]["seq"]] = None
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
        count, head, broken = verify(ledger, keys)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        print(f"ERROR: not a readable ledger export: {error!r}")
        return 2
    if broken:
        seq, problem = broken
        print(f"BROKEN at #{seq}: {problem}; {count} rolls verified before it")
        return 1
    print(f"OK: {count} rolls, head {head}")
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
