"""A roll stays where it was made: the post that holds it keeps its session and turn (a
trigger refuses moving it), and verification cross-checks every row's record against the
post, turn and characters it names (found even when the trigger is dropped)."""

import json

import pytest
from django.core.management import call_command
from django.db import DatabaseError, IntegrityError, connection, transaction

from diary.models import Post, Turn
from rolls.ledger import triggers as ledger_sql
from rolls.ledger.verify import verify_session
from tests.rolls.ledger.test_ledger import make_rolls

pytestmark = pytest.mark.django_db


def _execute(sql, params=()):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def _refused(sql, params=()):
    with (
        pytest.raises((DatabaseError, IntegrityError)),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql, params)


def _drop_post_guard():
    """What an attacker with DDL rights can do first."""
    with connection.cursor() as cursor:
        for statement in ledger_sql.drop_post_guard_sql(connection.vendor):
            cursor.execute(statement)


@pytest.fixture
def other_session(table, make_session, make_character):
    return make_session(table.gm, [make_character(table.bob, "Bronisław")])


def test_the_database_refuses_moving_a_post_that_holds_rolls(table, other_session):
    _first, roll = make_rolls(table, [100, 200])
    later = Turn.objects.create(session=table.session, number=2, opened_by=table.gm)
    _refused(
        "UPDATE diary_post SET session_id = %s WHERE id = %s", [other_session.pk, roll.post_id]
    )
    _refused("UPDATE diary_post SET turn_id = %s WHERE id = %s", [later.pk, roll.post_id])
    _refused(
        "UPDATE diary_post SET session_id = %s, turn_id = %s WHERE id = %s",
        [other_session.pk, other_session.turns.get().pk, roll.post_id],
    )
    post = Post.objects.get(pk=roll.post_id)
    assert (post.session_id, post.turn_id) == (table.session.pk, roll.post.turn_id)
    assert verify_session(table.session.pk).ok


def test_a_post_without_rolls_and_other_columns_may_still_change(table, other_session):
    (roll,) = make_rolls(table, [100])
    empty = Post.objects.create(
        session=table.session, turn=roll.post.turn, author=table.gm, narration="Pusty"
    )
    _execute("UPDATE diary_post SET turn_id = %s WHERE id = %s", [roll.post.turn_id, empty.pk])
    _execute("UPDATE diary_post SET narration = 'Zmieniona' WHERE id = %s", [roll.post_id])
    # Saving the whole row (session and turn as they were) is no move.
    post = Post.objects.get(pk=roll.post_id)
    post.save()
    assert Post.objects.get(pk=roll.post_id).narration == "Zmieniona"


def test_verification_finds_a_post_moved_to_another_session(table, other_session, capsys):
    first, second, third = make_rolls(table, [100, 200, 300])
    assert first.post_id == second.post_id == third.post_id
    _drop_post_guard()
    _execute(
        "UPDATE diary_post SET session_id = %s WHERE id = %s", [other_session.pk, first.post_id]
    )
    report = verify_session(table.session.pk)
    assert (report.ok, report.broken_seq, report.problem) == (False, 1, "wrong_post")
    assert report.count == 0
    assert f"session {other_session.pk}" in report.problem_label
    with pytest.raises(SystemExit):
        call_command("verify_rolls", "--session", str(table.session.pk))
    assert "BROKEN at #1: wrong_post" in capsys.readouterr().out


def test_verification_finds_a_post_moved_to_another_turn(table):
    first, _second = make_rolls(table, [100, 200])
    later = Turn.objects.create(session=table.session, number=2, opened_by=table.gm)
    _drop_post_guard()
    _execute("UPDATE diary_post SET turn_id = %s WHERE id = %s", [later.pk, first.post_id])
    report = verify_session(table.session.pk)
    assert (report.broken_seq, report.problem) == (1, "wrong_turn")
    assert "turn 2" in report.problem_label


def test_verification_finds_a_row_pointing_at_another_post(table):
    """The roll rows themselves refuse changes; with their trigger dropped too, a row moved
    into another post no longer matches its record."""
    _first, second = make_rolls(table, [100, 200])
    elsewhere = Post.objects.create(
        session=table.session, turn=second.post.turn, author=table.gm, narration="Inny"
    )
    with connection.cursor() as cursor:
        for statement in ledger_sql.drop_sql(connection.vendor):
            cursor.execute(statement)
        cursor.execute(
            "UPDATE rolls_roll SET post_id = %s WHERE id = %s", [elsewhere.pk, second.pk]
        )
    report = verify_session(table.session.pk)
    assert (report.broken_seq, report.problem, report.count) == (2, "wrong_post", 1)


def test_verification_finds_a_row_with_another_turn_number(table):
    _first, second = make_rolls(table, [100, 200])
    with connection.cursor() as cursor:
        for statement in ledger_sql.drop_sql(connection.vendor):
            cursor.execute(statement)
        cursor.execute("UPDATE rolls_roll SET turn_number = 7 WHERE id = %s", [second.pk])
    report = verify_session(table.session.pk)
    assert (report.broken_seq, report.problem) == (2, "wrong_turn")


def test_verification_finds_a_named_character_that_is_gone(table):
    make_rolls(table, [100])
    # Foreign keys are checked at commit (and when the test ends): undone before then.
    with transaction.atomic():
        _execute("DELETE FROM characters_character WHERE id = %s", [table.lirael.pk])
        report = verify_session(table.session.pk)
        transaction.set_rollback(True)
    assert (report.broken_seq, report.problem) == (1, "unknown_character")
    assert str(table.lirael.pk) in report.problem_label


def test_the_earliest_problem_is_reported(table):
    """A row problem before a chain break is the one reported, and the other way round."""
    first, _second, third = make_rolls(table, [100, 200, 300])
    with connection.cursor() as cursor:
        for statement in ledger_sql.drop_sql(connection.vendor):
            cursor.execute(statement)
        cursor.execute("UPDATE rolls_roll SET turn_number = 9 WHERE id = %s", [third.pk])
    assert verify_session(table.session.pk).broken_seq == 3
    _execute("DELETE FROM rolls_roll WHERE id = %s", [first.pk])
    report = verify_session(table.session.pk)
    assert (report.broken_seq, report.problem) == (1, "missing_number")


def test_verification_reads_a_fixed_number_of_queries(table, django_assert_max_num_queries):
    make_rolls(table, [100, 200, 300])
    with django_assert_max_num_queries(6) as few:
        assert verify_session(table.session.pk).ok
    make_rolls(table, [400, 500, 600, 700])
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert verify_session(table.session.pk).count == 7


@pytest.mark.parametrize("forged_id", [[1], "1", 2**70, True])
def test_a_forged_character_id_is_reported_not_a_server_error(table, client_for, forged_id):
    (roll,) = make_rolls(table, [100])
    record = json.loads(json.dumps(roll.record))
    record["characters"]["a"]["id"] = forged_id
    with connection.cursor() as cursor:
        for statement in ledger_sql.drop_sql(connection.vendor):
            cursor.execute(statement)
        update = "UPDATE rolls_roll SET record = %s WHERE id = %s"
        cursor.execute(update, [json.dumps(record), roll.pk])
    report = verify_session(table.session.pk)
    assert (report.broken_seq, report.problem) == (1, "changed_record")
    audit = f"/sessions/{table.session.pk}/rolls/audit/"
    assert client_for(table.moderator).get(audit).status_code == 200


def test_only_a_reveal_lands_in_an_earlier_turns_post(table):
    """A secret roll's reveal shows beside its commitment, in a post of the turn it was
    rolled in; any other row of a later turn in that post is out of place (docs/audit.md,
    "Every row in its place")."""
    import uuid

    from diary.services import turn_open_next
    from rolls.ledger.chain_writer import chain_append, lock_session
    from rolls.services import secret_roll_reveal
    from tests.rolling import make_roll
    from tests.rolls.ledger.test_ledger import percepcja_request

    secret = make_roll(table.session, table.gm, percepcja_request(table.lirael), secret=True).roll
    turn_open_next(session=table.session, by=table.gm)
    reveal = secret_roll_reveal(session=table.session, by=table.gm, seq=secret.seq).roll
    assert reveal.post_id == secret.post_id and reveal.turn_number == 2
    assert verify_session(table.session.pk).ok

    with transaction.atomic():
        locked = lock_session(table.session)
        stray = chain_append(
            locked,
            table.gm,
            post=secret.post,  # a post of turn 1, for a row of turn 2 that reveals nothing
            turn_number=2,
            character_id=None,
            test="note",
            is_action=False,
            token=uuid.uuid4(),
            digest="note",
            body=lambda _seq: {"kind": "note", "characters": {}},
            announce=None,
        )
    report = verify_session(table.session.pk)
    assert (report.broken_seq, report.problem) == (stray.seq, "wrong_turn")
    assert f"post {secret.post_id} is in turn 1" in report.problem_label
