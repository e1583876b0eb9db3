#!/usr/bin/env python3
"""Verify a Codziennik roll ledger exported as JSON, without the site.

Download /sessions/<id>/rolls/ledger.json ("Download the ledger (JSON)"), then:

    python3 verify_ledger.py codziennik-ledger-<id>.json
    python3 verify_ledger.py codziennik-ledger-<id>.json --head <hash noted earlier>

Standard library only. The chain is recomputed exactly as rolls/ledger.py does:
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
"""

import argparse
import hashlib
import json
import sys

GENESIS_HASH = "0" * 64


def canonical_json(value) -> bytes:
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def chain_hash(prev_hash: str, record: dict) -> str:
    return hashlib.sha256(canonical_json({"prev_hash": prev_hash, "record": record})).hexdigest()


def verify(ledger: dict):
    """(count, head, None) if the chain holds, else (count, head, (seq, problem)) at its break."""
    session, expected, head, count = ledger["session"], 1, GENESIS_HASH, 0
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
        expected, head, count = seq + 1, roll["hash"], count + 1
    return count, head, None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Verify an exported Codziennik roll ledger.")
    parser.add_argument("file", help="the downloaded ledger.json")
    parser.add_argument("--head", help="the head hash noted earlier (full, or 16+ characters)")
    args = parser.parse_args(argv)
    try:
        with open(args.file, encoding="utf-8") as f:
            ledger = json.load(f)
        count, head, broken = verify(ledger)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        print(f"ERROR: not a readable ledger export: {error!r}")
        return 2
    if broken:
        seq, problem = broken
        print(f"BROKEN at #{seq}: {problem}; {count} rolls verified before it")
        return 1
    print(f"OK: {count} rolls, head {head}")
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
