"""The chain's primitives: canonical JSON and a roll's hash.

Each roll's hash is SHA-256 over the canonical JSON of
`{"prev_hash": <previous roll's hash>, "record": <the roll's record>}`;
the first roll of a session links to GENESIS_HASH. Canonical JSON: keys sorted,
no insignificant whitespace, UTF-8, no ASCII escaping. docs/audit.md shows how to
recompute it outside the site.
"""

import hashlib

# One encoding for the chain and the fair dice: the engine's, since the engine imports nothing.
from rolls.engine.fair import canonical_json

__all__ = ["GENESIS_HASH", "canonical_json", "chain_hash"]

GENESIS_HASH = "0" * 64


def chain_hash(prev_hash: str, record: dict) -> str:
    return hashlib.sha256(canonical_json({"prev_hash": prev_hash, "record": record})).hexdigest()
