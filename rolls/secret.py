"""Commitments for secret GM rolls (issue 13, first step).

A secret roll's chain entry carries only a commitment to its full record; the
record and the salt stay hidden until the GM reveals them. Anyone holding the
revealed record and salt can recompute the commitment and compare it with the
one chained before. The bytes hashed are exactly

    sha256(salt_hex.encode("ascii") + b"\\n" + canonical_json(record))

so the standalone verifier can do the same without Django.
"""

import hashlib
import hmac
import secrets

from rolls.ledger import canonical_json

SALT_BYTES = 32


def new_salt_hex() -> str:
    # 32 random bytes from the OS CSPRNG: the record cannot be guessed from the
    # commitment even when its possible values are few (a d100 result).
    return secrets.token_hex(SALT_BYTES)


def commitment_for(record: dict, salt_hex: str) -> str:
    return hashlib.sha256(salt_hex.encode("ascii") + b"\n" + canonical_json(record)).hexdigest()


def commitment_matches(commitment: str, record: dict, salt_hex: str) -> bool:
    return hmac.compare_digest(commitment, commitment_for(record, salt_hex))
