import hashlib

from rolls.ledger.chain import canonical_json
from rolls.ledger.secret import commitment_for, commitment_matches, new_salt_hex


def test_commitment_is_sha256_of_salt_newline_and_canonical_record():
    record = {"system": "forum1000", "result": 42, "dice": [4, 2]}
    salt = "ab" * 32
    expected = hashlib.sha256(salt.encode() + b"\n" + canonical_json(record)).hexdigest()
    assert commitment_for(record, salt) == expected


def test_salt_is_32_random_bytes_in_hex():
    first, second = new_salt_hex(), new_salt_hex()
    assert len(first) == 64 and first != second
    bytes.fromhex(first)


def test_changed_record_or_salt_does_not_match():
    record = {"result": 42}
    salt = new_salt_hex()
    commitment = commitment_for(record, salt)
    assert commitment_matches(commitment, record, salt)
    assert not commitment_matches(commitment, {"result": 43}, salt)
    assert not commitment_matches(commitment, record, new_salt_hex())
