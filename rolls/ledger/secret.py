"""Secret GM rolls: a commitment in the chain now, the record revealed later.

A secret roll's chain entry carries only a commitment to its full record; the
record and the salt stay hidden (rolls.models.SecretRoll) until the GM reveals them.
The reveal is a chain entry of its own, holding the record and the salt, so anyone
holding the export can recompute the commitment and compare it with the one chained
before. The bytes hashed are exactly

    sha256(salt_hex.encode("ascii") + b"\\n" + canonical_json(record))

so the standalone verifier (docs/verify_ledger.py) can do the same without Django.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import uuid

from django.utils.translation import gettext_lazy as _

from rolls.ledger.chain import canonical_json

logger = logging.getLogger(__name__)

SALT_BYTES = 32
HIDDEN_CHANGED = _(
    "This secret roll's hidden record no longer gives its commitment, so it is not revealed. "
    "A moderator's audit shows it; tell the moderators."
)
# Roll.test and the record's kind of the two chain entries.
SECRET_TEST = "secret"
REVEAL_TEST = "reveal"
# What a secret entry's public record keeps of the full one: where and when it was rolled
# and by whom (the chain's envelope, rolls.ledger.chain_writer.chain_append), nothing of
# what or whom.
PUBLIC_KEYS = ("format", "session", "seq", "turn", "post", "rolled_by", "rolled_at")
# The reveal's one-time token is derived from the secret roll, so the chain's unique
# (session, token) refuses a second reveal even past the lock.
REVEAL_TOKEN_NAMESPACE = uuid.UUID("5b0c6f51-3d0e-4a8e-9d59-0f3c2a7a1e13")


def new_salt_hex() -> str:
    # 32 random bytes from the OS CSPRNG: the record cannot be guessed from the
    # commitment even when its possible values are few (a d100 result).
    return secrets.token_hex(SALT_BYTES)


def commitment_for(record: dict, salt_hex: str) -> str:
    return hashlib.sha256(salt_hex.encode("ascii") + b"\n" + canonical_json(record)).hexdigest()


def commitment_matches(commitment: str, record: dict, salt_hex: str) -> bool:
    return hmac.compare_digest(commitment, commitment_for(record, salt_hex))


def is_secret_record(record: dict) -> bool:
    return record.get("kind") == SECRET_TEST and isinstance(record.get("secret"), dict)


def is_reveal_record(record: dict) -> bool:
    return record.get("kind") == REVEAL_TEST and isinstance(record.get("reveals"), dict)


def secret_split(full: dict, *, system: str, test: str) -> tuple[dict, dict]:
    """(SecretRoll's fields, the public record) for a full record about to be chained."""
    salt = new_salt_hex()
    public = {key: full[key] for key in PUBLIC_KEYS}
    public["kind"] = SECRET_TEST
    public["secret"] = {
        "system": system,
        "test": test,
        "commitment": commitment_for(full, salt),
    }
    return {"record": full, "salt": salt}, public


def reveal_problem(record: dict, commitments: dict[int, str | None]) -> str | None:
    """What is wrong with a reveal entry, or None. `commitments`: the secret entries seen so
    far in the chain, seq → commitment (None once revealed). The revealed record must be
    the one committed to (its commitment recomputed from the record and the salt) and must
    name the secret entry's own session and number."""
    reveals = record["reveals"]
    seq, full, salt = reveals.get("seq"), reveals.get("record"), reveals.get("salt")
    if isinstance(seq, bool) or not isinstance(seq, int) or seq not in commitments:
        return f"reveals #{seq}, which is not an earlier secret roll"
    committed = commitments[seq]
    if committed is None:
        return f"reveals #{seq} a second time"
    if not isinstance(full, dict) or not isinstance(salt, str):
        return "the revealed record or salt is missing"
    if reveals.get("commitment") != committed:
        return f"names another commitment than #{seq}'s"
    try:
        matches = commitment_matches(committed, full, salt)
    except (UnicodeEncodeError, TypeError, ValueError):
        matches = False
    if not matches:
        return f"the revealed record and salt do not give #{seq}'s commitment"
    if full.get("seq") != seq or full.get("session") != record.get("session"):
        return f"the revealed record does not name #{seq} of this session"
    return None


def reveal_token(secret_roll) -> uuid.UUID:
    return uuid.uuid5(REVEAL_TOKEN_NAMESPACE, secret_roll.hash)
