"""The roll ledger: append-only at every layer, hash-chained per session, verifiable."""

import pytest
from django.core.management import call_command
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import ProtectedError

from characters.models import Attribute
from diary.services import post_edit, post_hide
from rolls.engine.dice import ScriptedDice
from rolls.ledger import triggers as ledger_sql
from rolls.ledger.chain import GENESIS_HASH, chain_hash
from rolls.ledger.verify import verify_session
from rolls.models import LedgerError, Roll
from rolls.selectors import chain_head
from rolls.systems.forum1000.requests import RollRequest, SideRequest
from tests.rolling import make_roll

pytestmark = pytest.mark.django_db


def percepcja_request(character, **side) -> RollRequest:
    attribute = Attribute.objects.get(system="forum1000", name="Percepcja")
    return RollRequest(
        kind="attribute",
        a=SideRequest(
            character_id=character.pk, test="attribute", attribute_ids=(attribute.pk,), **side
        ),
    )


def make_rolls(table, faces):
    return [
        make_roll(
            table.session,
            table.gm,
            percepcja_request(table.lirael),
            dice=ScriptedDice([face]),
            # RULES 1.5: the GM allows every roll after the first (one action roll a turn).
            extra_action_reason="kolejny rzut testowy",
        ).roll
        for face in faces
    ]


def test_rolls_are_numbered_and_chained(table):
    first, second, third = make_rolls(table, [412, 650, 999])
    assert [r.seq for r in (first, second, third)] == [1, 2, 3]
    assert first.prev_hash == GENESIS_HASH
    assert second.prev_hash == first.hash and third.prev_hash == second.hash
    for roll in (first, second, third):
        roll.refresh_from_db()
        assert chain_hash(roll.prev_hash, roll.record) == roll.hash
    assert first.record["result"]["roll"] == 412
    assert first.record["result"]["threshold"] == 600  # Lirael's Percepcja


def test_head_hash_changes_with_every_roll(table):
    heads = [chain_head(table.session).hash]
    for face in (10, 20, 30):
        make_rolls(table, [face])
        heads.append(chain_head(table.session).hash)
    assert heads[0] is None
    assert len(set(heads)) == 4
    assert chain_head(table.session).count == 3


def test_each_session_has_its_own_chain(table, make_session, make_character):
    # Borys plays in the first session; the other one has a character of its own.
    bronislaw = make_character(table.bob, "Bronisław")
    other = make_session(table.gm, [bronislaw])
    make_rolls(table, [1, 2])
    roll = make_roll(other, table.gm, percepcja_request(bronislaw)).roll
    assert (roll.seq, roll.prev_hash) == (1, GENESIS_HASH)


def test_the_model_refuses_changes(table):
    (roll,) = make_rolls(table, [500])
    roll.record = {"forged": True}
    with pytest.raises(LedgerError):
        roll.save()
    with pytest.raises(LedgerError):
        roll.delete()
    with pytest.raises(LedgerError):
        Roll.objects.filter(pk=roll.pk).update(hash="0" * 64)
    with pytest.raises(LedgerError):
        Roll.objects.filter(pk=roll.pk).delete()
    # bulk_update opens an atomic block without a savepoint; give it one of its own.
    with pytest.raises(LedgerError), transaction.atomic():
        Roll.objects.bulk_update([roll], ["record"])
    roll.refresh_from_db()
    assert roll.record["result"]["roll"] == 500


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE rolls_roll SET hash = 'x'",
        "UPDATE rolls_roll SET record = '{}'",
        "DELETE FROM rolls_roll",
    ],
)
def test_the_database_refuses_raw_changes(table, sql):
    make_rolls(table, [500])
    with (
        pytest.raises((DatabaseError, IntegrityError)),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql)
    assert Roll.objects.count() == 1
    assert verify_session(table.session.pk).ok


def test_the_database_refuses_emptying_the_table(table):
    make_rolls(table, [500])
    # PostgreSQL empties a table with TRUNCATE; SQLite's equivalent is an unqualified DELETE.
    sql = (
        "TRUNCATE rolls_roll CASCADE"
        if connection.vendor == "postgresql"
        else "DELETE FROM rolls_roll"
    )
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql)
    assert Roll.objects.count() == 1


def test_the_flush_permit_exists_only_because_this_is_a_test_database(settings):
    assert ledger_sql.permit_table_exists(connection)
    settings.ROLL_LEDGER_TEST_FLUSH = False
    assert not ledger_sql.is_test_database(connection)
    # The production triggers carry no hatch at all.
    production = " ".join(ledger_sql.install_sql(connection.vendor, test_flush_hatch=False))
    assert ledger_sql.PERMIT_TABLE not in production


def test_a_post_holding_rolls_cannot_be_deleted(table):
    (roll,) = make_rolls(table, [500])
    with pytest.raises(ProtectedError):
        roll.post.delete()
    with pytest.raises((DatabaseError, IntegrityError)):
        _raw_delete_post(roll.post_id)
    assert roll.post.__class__.objects.filter(pk=roll.post_id).exists()


def _raw_delete_post(post_id):
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM diary_post WHERE id = %s", [post_id])
        # Django's foreign keys are deferred; check them now, as the commit would.
        connection.check_constraints()


def _tamper(sql, params=()):
    with connection.cursor() as cursor:
        for statement in ledger_sql.drop_sql(connection.vendor):
            cursor.execute(statement)
        cursor.execute(sql, params)


def test_verification_finds_a_changed_record(table):
    rolls = make_rolls(table, [100, 200, 300])
    forged = dict(rolls[1].record, rolled_by={"id": 0, "username": "ktoś"})
    _tamper("UPDATE rolls_roll SET record = %s WHERE id = %s", [_json(forged), rolls[1].pk])
    report = verify_session(table.session.pk)
    assert (report.ok, report.broken_seq, report.problem) == (False, 2, "changed_record")
    assert report.count == 1


def test_verification_finds_a_deleted_roll_as_a_gap(table):
    rolls = make_rolls(table, [100, 200, 300])
    _tamper("DELETE FROM rolls_roll WHERE id = %s", [rolls[1].pk])
    report = verify_session(table.session.pk)
    assert (report.broken_seq, report.problem) == (2, "missing_number")


def test_verification_finds_a_bad_link(table):
    rolls = make_rolls(table, [100, 200, 300])
    # A forger who recomputes roll 3's own hash but cannot know to fix the link.
    record = rolls[2].record
    _tamper(
        "UPDATE rolls_roll SET prev_hash = %s, hash = %s WHERE id = %s",
        ["f" * 64, chain_hash("f" * 64, record), rolls[2].pk],
    )
    report = verify_session(table.session.pk)
    assert (report.broken_seq, report.problem) == (3, "bad_link")


def test_verify_rolls_command(table, capsys):
    make_rolls(table, [100, 200])
    call_command("verify_rolls", "--session", str(table.session.pk))
    assert "OK, 2 rolls" in capsys.readouterr().out
    _tamper("DELETE FROM rolls_roll WHERE seq = 1 AND session_id = %s", [table.session.pk])
    with pytest.raises(SystemExit) as exit_info:
        call_command("verify_rolls")
    assert exit_info.value.code == 1
    assert "BROKEN at #1: missing_number" in capsys.readouterr().out


def test_editing_or_hiding_a_post_keeps_its_rolls(table, client_for):
    (roll,) = make_rolls(table, [412])
    post = roll.post
    post_edit(post=post, by=table.gm, character=None, narration="Nowa treść", nc_note="")
    post_hide(post=post, by=table.gm, reason="porządki")
    body = client_for(table.bob).get(f"/sessions/{table.session.pk}/").content.decode()
    assert "Nowa treść" not in body
    assert 'id="roll-1"' in body and "412 ≤ próg 600" in body
    assert Roll.objects.get(pk=roll.pk).post_id == post.pk


def _json(value):
    import json

    return json.dumps(value)


@pytest.mark.parametrize(
    "forged",
    [
        '["not", "a", "record"]',
        '{"kind": "attribute", "result": "x", "characters": {"a": {"id": 1, "name": "X"}}}',
        '{"kind": "attribute", "result": {}, "characters": {"a": {"id": 1, "name": "X"}}}',
    ],
)
def test_a_mangled_record_is_reported_not_a_server_error(table, client_for, forged):
    (roll,) = make_rolls(table, [500])
    _tamper("UPDATE rolls_roll SET record = %s WHERE id = %s", [forged, roll.pk])
    assert verify_session(table.session.pk).problem == "changed_record"
    assert client_for(table.bob).get(f"/sessions/{table.session.pk}/").status_code == 200
    audit = f"/sessions/{table.session.pk}/rolls/audit/"
    assert client_for(table.moderator).get(audit).status_code == 200


def test_the_admin_shows_rolls_read_only(table, client):
    from django.contrib.auth import get_user_model

    (roll,) = make_rolls(table, [500])
    admin = get_user_model().objects.create_superuser("admin", password="x-Admin-1000")
    client.force_login(admin)
    change = f"/admin/rolls/roll/{roll.pk}/change/"
    page = client.get(change)
    assert page.status_code == 200
    assert 'name="_save"' not in page.content.decode()
    assert client.post(change, {"hash": "0" * 64}).status_code == 403
    assert client.post(f"/admin/rolls/roll/{roll.pk}/delete/", {"post": "yes"}).status_code == 403
    assert client.get("/admin/rolls/roll/add/").status_code == 403
    roll.refresh_from_db()
    assert roll.hash != "0" * 64
