"""Secret GM rolls: a commitment in the chain, the record hidden, the reveal, the
verification of both states (verify_rolls, docs/verify_ledger.py)."""

import base64
import hashlib
import html
import json
import uuid
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.management import call_command

from rolls.engine.dice import ScriptedDice
from rolls.ledger import signing
from rolls.ledger import verify as ledger
from rolls.ledger.chain import GENESIS_HASH, canonical_json, chain_hash
from rolls.models import Roll, SecretRoll
from rolls.services import secret_roll_reveal
from rolls.systems.forum1000.requests import RollRequest, SideRequest
from tests.conftest import polish
from tests.rolling import ask_roll, make_roll
from tests.rolls.audit.test_audit_script import export, run_script
from tests.rolls.ledger.test_ledger import percepcja_request

pytestmark = pytest.mark.django_db

SCRIPT = Path(settings.BASE_DIR) / "docs" / "verify_ledger.py"


def secret_roll(table, face=137, *, by=None, token=None, request=None, **kwargs):
    return make_roll(
        table.session,
        by or table.gm,
        request or percepcja_request(table.lirael),
        token=token or uuid.uuid4(),
        dice=ScriptedDice([face]),
        secret=True,
        **kwargs,
    )


def test_the_chain_gets_a_commitment_and_the_hidden_table_the_record(table):
    roll = secret_roll(table).roll
    record = roll.record
    assert record["kind"] == "secret" and "result" not in record and "characters" not in record
    assert set(record["secret"]) == {"system", "test", "commitment"}
    assert record["secret"]["test"] == "attribute"
    # Nothing on the row tells whom it concerns, and it is no action roll.
    assert (roll.test, roll.character_id, roll.is_action) == ("secret", None, False)
    hidden = SecretRoll.objects.get(roll=roll)
    assert hidden.record["result"]["roll"] == 137
    assert hidden.record["characters"]["a"]["name"] == "Lirael"
    # The envelope is the same in both: the full record is the roll as it would be public.
    assert {k: hidden.record[k] for k in ("seq", "session", "post", "rolled_at")} == {
        k: record[k] for k in ("seq", "session", "post", "rolled_at")
    }
    expected = hashlib.sha256(
        hidden.salt.encode("ascii") + b"\n" + canonical_json(hidden.record)
    ).hexdigest()
    assert record["secret"]["commitment"] == expected and len(hidden.salt) == 64
    assert ledger.verify_session(table.session.pk, recompute=True).ok


def test_a_secret_roll_is_not_the_characters_action(table):
    secret_roll(table)
    # Without a reason the GM could not make a second action roll for Lirael this turn:
    # the secret one did not count.
    made = make_roll(
        table.session, table.gm, percepcja_request(table.lirael), dice=ScriptedDice([500])
    )
    assert made.roll.is_action and "extra_action" not in made.roll.record


def test_only_the_gm_rolls_in_secret_and_never_healing_or_initiative(table, settings):
    table.session.roll_policy = "players_own"
    table.session.save(update_fields=["roll_policy"])
    with pytest.raises(PermissionDenied):
        secret_roll(table, by=table.alice)
    from characters.models import Skill
    from rolls.systems.forum1000.requests import InitiativeLine

    heal = RollRequest(
        kind="healing",
        a=SideRequest(table.lirael.pk, "skill", skill_id=Skill.objects.get(name="Leczenie ran").pk),
        patient_id=table.borys.pk,
    )
    initiative = RollRequest(
        kind="initiative",
        initiative=(InitiativeLine(table.lirael.pk), InitiativeLine(table.borys.pk)),
    )
    for request in (heal, initiative):
        with pytest.raises(ValidationError) as refused:
            secret_roll(table, request=request)
        assert "secret" in refused.value.error_dict
    assert not Roll.objects.exists() and not SecretRoll.objects.exists()


def test_a_replayed_token_answers_with_the_secret_roll_and_the_box_changed_is_refused(table):
    from rolls.services import TokenReused

    token = uuid.uuid4()
    first = secret_roll(table, token=token)
    again = secret_roll(table, token=token)
    assert not again.created and again.roll.pk == first.roll.pk
    with pytest.raises(TokenReused):
        make_roll(
            table.session,
            table.gm,
            percepcja_request(table.lirael),
            token=token,
            dice=ScriptedDice([1]),
        )
    assert Roll.objects.count() == 1


def test_the_reveal_appends_an_entry_once(table):
    secret = secret_roll(table).roll
    made = secret_roll_reveal(session=table.session, by=table.gm, seq=secret.seq)
    reveal = made.roll
    assert made.created and (reveal.seq, reveal.test) == (2, "reveal")
    assert reveal.post_id == secret.post_id  # the result shows beside the commitment
    hidden = SecretRoll.objects.get(roll=secret)
    assert hidden.reveal_id == reveal.pk
    assert reveal.record["reveals"] == {
        "seq": 1,
        "commitment": secret.record["secret"]["commitment"],
        "salt": hidden.salt,
        "record": hidden.record,
    }
    twice = secret_roll_reveal(session=table.session, by=table.gm, seq=secret.seq)
    assert not twice.created and twice.roll.pk == reveal.pk
    assert Roll.objects.count() == 2
    assert ledger.verify_session(table.session.pk, recompute=True).ok


def test_only_the_gm_reveals_and_only_a_secret_roll(table):
    secret = secret_roll(table).roll
    for user in (table.alice, table.moderator, table.outsider):
        with pytest.raises(PermissionDenied):
            secret_roll_reveal(session=table.session, by=user, seq=secret.seq)
    public = make_roll(
        table.session, table.gm, percepcja_request(table.borys), dice=ScriptedDice([5])
    ).roll
    with pytest.raises(SecretRoll.DoesNotExist):
        secret_roll_reveal(session=table.session, by=table.gm, seq=public.seq)
    assert Roll.objects.count() == 2


def test_the_hidden_record_is_in_no_players_page_export_or_detail(table, client_for):
    roll = secret_roll(table, face=137).roll
    hidden = SecretRoll.objects.get(roll=roll)
    for user in (table.alice, table.bob):
        client = client_for(user)
        pages = [
            client.get(roll.post.get_absolute_url()),
            client.get(f"/sessions/{table.session.pk}/rolls/{roll.seq}/"),
            client.get(f"/sessions/{table.session.pk}/rolls/ledger.json"),
        ]
        for page in pages:
            assert page.status_code == 200
            body = page.content.decode()
            assert hidden.salt not in body and hidden.record["result"]["breakdown"][0]["name"]
            assert '"roll": 137' not in body and "137 ≤" not in body and "137 &gt;" not in body
    data = json.loads(
        client_for(table.alice).get(f"/sessions/{table.session.pk}/rolls/ledger.json").content
    )
    assert data["rolls"][0]["record"] == roll.record
    assert "characters" not in data["rolls"][0]["record"]


def test_the_gm_sees_the_hidden_result_on_the_detail_page_and_reveals_it(table, client_for):
    roll = secret_roll(table, face=137).roll
    url = f"/sessions/{table.session.pk}/rolls/{roll.seq}/"
    gm = client_for(table.gm)
    page = gm.get(url).content.decode()
    assert 'data-testid="secret-hidden"' in page and "137" in page
    assert 'data-testid="reveal"' in page
    # The button asks again first: one click reveals nothing.
    asked = gm.post(f"{url}reveal/")
    assert asked.status_code == 200 and not Roll.objects.filter(test="reveal").exists()
    page = asked.content.decode()
    assert 'name="confirm" value="yes"' in page and f'action="{url}reveal/"' in page
    assert polish("Yes, reveal the roll") in page
    response = gm.post(f"{url}reveal/", {"confirm": "yes"})
    assert response.status_code == 302
    assert Roll.objects.filter(test="reveal").count() == 1
    # A double submit: no second entry.
    assert gm.post(f"{url}reveal/", {"confirm": "yes"}).status_code == 302
    assert Roll.objects.filter(test="reveal").count() == 1
    player = client_for(table.alice).get(roll.post.get_absolute_url()).content.decode()
    assert "137" in player and 'data-testid="revealed"' in player


def test_a_player_cannot_reveal(table, client_for):
    roll = secret_roll(table).roll
    url = f"/sessions/{table.session.pk}/rolls/{roll.seq}/reveal/"
    assert client_for(table.alice).post(url).status_code == 403
    assert client_for(table.outsider).post(url).status_code == 404
    assert not Roll.objects.filter(test="reveal").exists()


def _reveal_pair(table):
    secret = secret_roll(table, face=137).roll
    secret_roll_reveal(session=table.session, by=table.gm, seq=secret.seq)
    return secret


def _rechain_and_resign(ledger_json: dict) -> None:
    """A forger's file: every hash recomputed, every row signed with their own key, listed in
    the file. Chain and signatures then pass; only the reveal check can tell."""
    forger = Ed25519PrivateKey.generate()
    public = base64.b64encode(
        forger.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    ).decode()
    prev_hash = GENESIS_HASH
    for roll in ledger_json["rolls"]:
        roll["prev_hash"] = prev_hash
        roll["hash"] = prev_hash = chain_hash(prev_hash, roll["record"])
        roll["key_id"] = signing.key_id_of(public)
        roll["signature"] = base64.b64encode(forger.sign(roll["hash"].encode())).decode()
    ledger_json["public_keys"] = {signing.key_id_of(public): public}


def test_the_script_verifies_both_states(table, client_for, tmp_path):
    secret_roll(table, face=400)
    _reveal_pair(table)
    done = run_script(tmp_path, export(table, client_for))
    assert done.returncode == 0, done.stdout
    assert "Secret rolls: 2, revealed: 1" in done.stdout


@pytest.mark.parametrize("tamper", ["result", "salt", "seq"])
def test_the_script_finds_a_tampered_reveal(table, client_for, tmp_path, tamper):
    _reveal_pair(table)
    data = export(table, client_for)
    _rechain_and_resign(data)
    assert run_script(tmp_path, data).returncode == 0  # the forged file, untampered: OK
    reveals = data["rolls"][1]["record"]["reveals"]
    if tamper == "result":
        reveals["record"]["result"]["roll"] = 999
    elif tamper == "salt":
        reveals["salt"] = "00" * 32
    else:
        reveals["seq"] = 2
    _rechain_and_resign(data)
    done = run_script(tmp_path, data)
    assert done.returncode == 1
    assert "BROKEN at #2: bad reveal" in done.stdout


def test_verify_rolls_finds_a_tampered_reveal(table, capsys):
    """A reveal row written past the ORM and the triggers' reach cannot be made here, so the
    chain is checked as rows: the same rows verify_session reads, one reveal changed and the
    chain recomputed (as a forger with the database would)."""
    _reveal_pair(table)
    call_command("verify_rolls", "--recompute")
    assert "OK, 2 rolls" in capsys.readouterr().out
    rows = list(
        Roll.objects.filter(session=table.session)
        .order_by("seq")
        .values_list("seq", "prev_hash", "hash", "record", "key_id", "signature")
    )
    seq, _prev, _hash, record, _key, _sig = rows[1]
    record["reveals"]["record"]["result"]["roll"] = 999
    rows[1] = (seq, rows[0][2], chain_hash(rows[0][2], record), record, None, None)
    report = ledger.verify_chain(rows, table.session.pk)
    assert report.problem == "bad_reveal" and report.broken_seq == 2
    record["reveals"]["record"]["result"]["roll"] = 137
    record["reveals"]["salt"] = "11" * 32
    rows[1] = (seq, rows[0][2], chain_hash(rows[0][2], record), record, None, None)
    report = ledger.verify_chain(rows, table.session.pk)
    assert report.problem == "bad_reveal"


def test_moderators_read_the_hidden_record_players_never_and_the_audit_verifies(table, client_for):
    roll = secret_roll(table, face=137).roll
    url = f"/sessions/{table.session.pk}/rolls/{roll.seq}/"
    moderator = client_for(table.moderator).get(url).content.decode()
    assert 'data-testid="secret-hidden"' in moderator and 'data-testid="reveal"' not in moderator
    for player in (table.alice, table.bob):
        page = client_for(player).get(url).content.decode()
        assert 'data-testid="secret-hidden"' not in page and 'data-testid="reveal"' not in page
    diary = client_for(table.alice).get(roll.post.get_absolute_url()).content.decode()
    assert 'data-testid="secret-commitment"' in diary
    assert roll.record["secret"]["commitment"][:16] in diary
    secret_roll_reveal(session=table.session, by=table.gm, seq=roll.seq)
    audit = client_for(table.moderator).get(f"/sessions/{table.session.pk}/rolls/audit/")
    assert audit.status_code == 200 and audit.context["report"].ok
    assert audit.context["report"].count == 2
    # Once revealed, the record is public: the roll's page says where, for everyone.
    page = client_for(table.alice).get(url).content.decode()
    assert 'data-testid="secret-revealed-in"' in page


def test_the_free_form_path_can_chain_a_secret_roll_through_chain_append(table):
    """rolls/free/services.py is another branch's: its roll reaches the chain through
    chain_append, which takes `secret` (the free-roll form can pass it later)."""
    from django.db import transaction

    from diary.services import current_turn
    from rolls.engine import notation
    from rolls.ledger.chain_writer import chain_append, lock_session
    from rolls.services import target_post

    with transaction.atomic():
        locked = lock_session(table.session)
        turn = current_turn(locked)
        parsed = notation.parse_notation("2d6+1")
        roll = chain_append(
            locked,
            table.gm,
            post=target_post(locked, table.gm, turn, None),
            turn_number=turn.number,
            character_id=None,
            test=notation.TEST,
            is_action=False,
            token=uuid.uuid4(),
            digest="free",
            body=lambda _seq: {
                "kind": notation.TEST,
                "characters": {},
                "label": "Pułapka: obrażenia",
                "result": notation.roll_notation(parsed, ScriptedDice([3, 5])).to_dict(),
            },
            announce=None,
            secret=True,
        )
    assert roll.record["secret"]["test"] == "notation" and "result" not in roll.record
    assert SecretRoll.objects.get(roll=roll).record["result"]["total"] == 9
    secret_roll_reveal(session=table.session, by=table.gm, seq=roll.seq)
    assert ledger.verify_session(table.session.pk, recompute=True).ok


def test_a_secret_roll_cannot_answer_a_players_request(table):
    from diary import services as diary_services
    from rolls.models import RollAsk

    post = diary_services.post_create(
        session=table.session,
        author=table.alice,
        character=table.lirael,
        narration="Lirael rozgląda się po sieni.",
        nc_note="",
    )
    request = percepcja_request(table.lirael)
    ask = ask_roll(table.session, table.alice, request.a, post=post)
    with pytest.raises(ValidationError) as refused:
        secret_roll(table, request=request, answers=ask)
    assert "secret" in refused.value.error_dict
    assert not Roll.objects.exists() and RollAsk.objects.get().is_open


# --- The hidden half cannot change behind the commitment ---------------------------------


def _hidden_tampered(sql: str, params) -> None:
    """An attacker with DDL rights: the guard's triggers dropped, the hidden row changed."""
    from django.db import connection

    from rolls.ledger import triggers as ledger_sql

    with connection.cursor() as cursor:
        for statement in ledger_sql.drop_secret_guard_sql(connection.vendor):
            cursor.execute(statement)
        cursor.execute(sql, params)


def test_the_hidden_record_and_salt_are_never_changed_or_deleted(table):
    from django.db import DatabaseError, IntegrityError, connection, transaction

    from rolls.models import LedgerError

    hidden = SecretRoll.objects.get(roll=secret_roll(table).roll)
    hidden.salt = "00" * 32
    with pytest.raises(LedgerError):
        hidden.save()
    with pytest.raises(LedgerError):
        SecretRoll.objects.filter(pk=hidden.pk).update(salt="00" * 32)
    with pytest.raises(LedgerError):
        hidden.delete()
    # Past the ORM, the database refuses too; setting the reveal once is all it allows.
    for sql in (
        "UPDATE rolls_secretroll SET salt = %s WHERE id = %s",
        "DELETE FROM rolls_secretroll WHERE id = %s",
    ):
        params = ["00" * 32, hidden.pk] if sql.startswith("UPDATE") else [hidden.pk]
        with (
            pytest.raises((DatabaseError, IntegrityError)),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(sql, params)
    hidden.refresh_from_db()
    assert len(hidden.salt) == 64 and hidden.salt != "00" * 32
    secret_roll_reveal(session=table.session, by=table.gm, seq=hidden.roll.seq)
    hidden.refresh_from_db()
    assert hidden.is_revealed
    with (
        pytest.raises((DatabaseError, IntegrityError)),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("UPDATE rolls_secretroll SET reveal_id = NULL WHERE id = %s", [hidden.pk])


def test_a_changed_hidden_record_is_found_by_verification_and_never_revealed(table):
    roll = secret_roll(table).roll
    assert ledger.verify_session(table.session.pk).ok
    _hidden_tampered(
        "UPDATE rolls_secretroll SET salt = %s WHERE roll_id = %s", ["00" * 32, roll.pk]
    )
    report = ledger.verify_session(table.session.pk, recompute=True)
    assert (report.ok, report.problem, report.broken_seq) == (False, "hidden_changed", roll.seq)
    with pytest.raises(ValidationError):
        secret_roll_reveal(session=table.session, by=table.gm, seq=roll.seq)
    assert Roll.objects.filter(session=table.session).count() == 1  # no lie chained


def test_the_gm_is_told_when_a_changed_secret_roll_is_not_revealed(table, client_for):
    from django.urls import reverse

    roll = secret_roll(table).roll
    _hidden_tampered(
        "UPDATE rolls_secretroll SET salt = %s WHERE roll_id = %s", ["00" * 32, roll.pk]
    )
    client = client_for(table.gm)
    answer = client.post(
        reverse("rolls:reveal", args=[table.session.pk, roll.seq]),
        {"confirm": "yes"},
        follow=True,
        HTTP_ACCEPT_LANGUAGE="pl",
    )
    assert answer.status_code == 200
    told = polish(
        "This secret roll's hidden record no longer gives its commitment, so it is not "
        "revealed. A moderator's audit shows it; tell the moderators."
    )
    assert html.escape(told) in answer.content.decode()
    assert Roll.objects.filter(session=table.session).count() == 1


@pytest.mark.parametrize("seq", [[1], {"n": 1}, "1", True, None, 1.0])
def test_a_reveal_naming_no_number_is_broken_not_a_crash(table, client_for, tmp_path, seq):
    _reveal_pair(table)
    data = export(table, client_for)
    data["rolls"][1]["record"]["reveals"]["seq"] = seq
    _rechain_and_resign(data)
    done = run_script(tmp_path, data)
    assert done.returncode == 1 and "BROKEN at #2: bad reveal" in done.stdout, done.stdout
    rows = [(r["seq"], r["prev_hash"], r["hash"], r["record"], None, None) for r in data["rolls"]]
    report = ledger.verify_chain(rows, table.session.pk)
    assert report.problem == "bad_reveal" and report.broken_seq == 2
