"""Ed25519 signatures on the ledger's rows.

The hash chain proves that no row was changed or removed, but anyone who can INSERT into
the table could append a forged row with a correct hash. Each row is therefore signed, as it
is written, with a key the app holds outside the database (LEDGER_SIGNING_KEY_FILE). The
signature covers the row's hash (64 hex characters, as ASCII), which covers its record and
the previous row's hash; `key_id` names the key. A database user without the key cannot sign,
so `verify_rolls` and docs/verify_ledger.py find such a row.

The keys that verify come from configuration, never from the database: the current key's
public half and LEDGER_RETIRED_PUBLIC_KEYS (after a rotation, docs/audit.md).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import logging
import os
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from django.conf import settings

log = logging.getLogger(__name__)

SIGNATURE_RULE = "Ed25519 over the row's hash as 64 ASCII hex characters"


def public_key_text(public_key: Ed25519PublicKey) -> str:
    """The raw 32-byte public key, base64 (what is published and configured)."""
    raw = public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return base64.b64encode(raw).decode("ascii")


def key_id_of(public_text: str) -> str:
    """A short, stable name for a public key: the first 16 hex digits of its SHA-256."""
    return hashlib.sha256(base64.b64decode(public_text)).hexdigest()[:16]


def _create_key_file(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pem = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    # O_EXCL: two workers starting at once cannot both write a key.
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
    log.warning("Created a new ledger signing key at %s: back it up (docs/audit.md).", path)


@functools.cache
def _signing_key(path_text: str) -> Ed25519PrivateKey:
    path = Path(path_text)
    if not path.exists():
        _create_key_file(path)
    key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise ValueError(f"{path} does not hold an Ed25519 private key")
    return key


def signing_key() -> Ed25519PrivateKey:
    return _signing_key(str(settings.LEDGER_SIGNING_KEY_FILE))


def current_public_key() -> str:
    return public_key_text(signing_key().public_key())


def trusted_public_keys() -> dict[str, str]:
    """key_id → public key (base64) of every key whose signatures count."""
    keys = [current_public_key(), *settings.LEDGER_RETIRED_PUBLIC_KEYS]
    return {key_id_of(key): key for key in keys}


def sign(row_hash: str) -> tuple[str, str]:
    """(key_id, signature base64) for a row's hash."""
    key = signing_key()
    signature = key.sign(row_hash.encode("ascii"))
    return key_id_of(public_key_text(key.public_key())), base64.b64encode(signature).decode()


def signature_problem(row_hash: str, key_id: str, signature: str, keys: dict[str, str]):
    """None if the signature is good, else the problem's code (rolls.ledger.verify.PROBLEMS)."""
    if not signature or not key_id:
        return "unsigned"
    public = keys.get(key_id)
    if public is None:
        return "unknown_key"
    try:
        Ed25519PublicKey.from_public_bytes(base64.b64decode(public)).verify(
            base64.b64decode(signature, validate=True), row_hash.encode("ascii")
        )
    except (InvalidSignature, ValueError):
        return "bad_signature"
    return None
