"""The session's ledger as a file (docs/audit.md): the export and the archive carry it."""

from __future__ import annotations

from rolls.ledger import chain, signing
from rolls.models import (
    Roll,
)


def ledger_export(session) -> dict:
    """The session's whole ledger as the export and the archive give it (docs/audit.md): every
    row with its hashes and signature, the chain's rules and the keys that verify it."""
    rows = (
        Roll.objects.filter(session=session)
        .order_by("seq")
        .values("seq", "prev_hash", "hash", "record", "key_id", "signature")
    )
    return {
        "session": session.pk,
        "title": session.title,
        "genesis_hash": chain.GENESIS_HASH,
        "hash_rule": 'sha256(canonical_json({"prev_hash": prev_hash, "record": record}))',
        "signature_rule": signing.SIGNATURE_RULE,
        # key_id → base64 public key; compare them with the ones the site publishes.
        "public_keys": signing.trusted_public_keys(),
        "rolls": list(rows),
    }
