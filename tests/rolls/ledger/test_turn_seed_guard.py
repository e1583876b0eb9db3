"""A turn's dice seeds (rolls_turnseed) are guarded like the chain: the seeds, the turn and the
commitment never change, each reveal column is filled once from nothing, and no row is
deleted, in the model and in the database's own triggers (raw SQL, both databases). The test
database's flush still empties the table (the permit the chain's triggers honour)."""

import pytest
from django.core.management import call_command
from django.db import DatabaseError, IntegrityError, connection, transaction

from diary import services as diary_services
from rolls.ledger import triggers as ledger_sql
from rolls.models import LedgerError, Roll, TurnSeed
from tests.rolling import make_roll
from tests.rolls.ledger.test_ledger import percepcja_request

pytestmark = [pytest.mark.django_db, pytest.mark.fair_dice]


def _refused(sql: str, params) -> None:
    with (
        pytest.raises((DatabaseError, IntegrityError)),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql, params)


def _execute(sql: str, params) -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)


def _a_roll(table) -> Roll:
    """A plain roll of the chain, which no seed row names."""
    return make_roll(
        table.session,
        table.gm,
        percepcja_request(table.lirael),
        extra_action_reason="kolejny rzut testowy",
    ).roll


def _seeds(table) -> TurnSeed:
    return TurnSeed.objects.get(session=table.session, turn_number=1)


@pytest.mark.parametrize(
    "change",
    ["seed", "secret_seed", "turn_number", "commit_id", "session_id"],
)
def test_raw_sql_cannot_change_a_seed_its_turn_or_its_commitment(table, make_session, change):
    seeds = _seeds(table)
    sets = {
        "seed": ("seed = %s", ["ab" * 32]),
        "secret_seed": ("secret_seed = %s", ["cd" * 32]),
        "turn_number": ("turn_number = %s", [7]),
        "commit_id": ("commit_id = %s", [_a_roll(table).pk]),
        # Another session, at a turn it has no seeds for (no unique clash to hide behind).
        "session_id": ("session_id = %s, turn_number = 99", [make_session(table.gm, []).pk]),
    }
    assignment, params = sets[change]
    before = TurnSeed.objects.filter(pk=seeds.pk).values().get()
    _refused(f"UPDATE rolls_turnseed SET {assignment} WHERE id = %s", [*params, seeds.pk])
    assert TurnSeed.objects.filter(pk=seeds.pk).values().get() == before


def test_each_reveal_column_is_filled_once_and_never_emptied_or_moved(table):
    diary_services.turn_open_next(session=table.session, by=table.gm)
    seeds = _seeds(table)
    assert seeds.public_reveal_id is not None and seeds.secret_reveal_id is not None
    later = _a_roll(table).pk
    for column in ("public_reveal_id", "secret_reveal_id"):
        _refused(f"UPDATE rolls_turnseed SET {column} = NULL WHERE id = %s", [seeds.pk])
        _refused(f"UPDATE rolls_turnseed SET {column} = %s WHERE id = %s", [later, seeds.pk])
    # The open turn's reveals are still empty: filling them (as the site does) is allowed.
    open_turn = TurnSeed.objects.get(session=table.session, turn_number=2)
    reveal = _a_roll(table).pk
    _refused(
        "UPDATE rolls_turnseed SET public_reveal_id = %s, seed = %s WHERE id = %s",
        [reveal, "ab" * 32, open_turn.pk],
    )
    _execute(
        "UPDATE rolls_turnseed SET public_reveal_id = %s WHERE id = %s", [reveal, open_turn.pk]
    )
    open_turn.refresh_from_db()
    assert open_turn.public_reveal_id == reveal and open_turn.secret_reveal_id is None


def test_raw_sql_cannot_delete_or_empty_the_seeds(table):
    seeds = _seeds(table)
    _refused("DELETE FROM rolls_turnseed WHERE id = %s", [seeds.pk])
    emptied = (
        "TRUNCATE rolls_turnseed CASCADE"
        if connection.vendor == "postgresql"
        else "DELETE FROM rolls_turnseed"
    )
    _refused(emptied, [])
    assert TurnSeed.objects.filter(pk=seeds.pk).exists()


def test_the_model_refuses_every_change_but_a_reveal(table):
    seeds = _seeds(table)
    seeds.seed = "ab" * 32
    with pytest.raises(LedgerError):
        seeds.save()
    with pytest.raises(LedgerError):
        seeds.save(update_fields=["seed", "public_reveal"])
    with pytest.raises(LedgerError):
        TurnSeed.objects.filter(pk=seeds.pk).update(seed="ab" * 32)
    with pytest.raises(LedgerError):
        TurnSeed.objects.filter(pk=seeds.pk).delete()
    with pytest.raises(LedgerError):
        seeds.delete()
    assert _seeds(table).seed != "ab" * 32


def test_the_guard_has_no_hatch_outside_a_test_database():
    production = " ".join(ledger_sql.install_turn_seed_guard_sql(connection.vendor, False))
    assert ledger_sql.PERMIT_TABLE not in production
    hatched = " ".join(ledger_sql.install_turn_seed_guard_sql(connection.vendor, True))
    assert ledger_sql.PERMIT_TABLE in hatched


@pytest.mark.django_db(transaction=True)
def test_the_test_databases_flush_still_empties_the_seeds(table):
    assert TurnSeed.objects.exists()
    call_command("flush", interactive=False, verbosity=0)
    assert not TurnSeed.objects.exists() and not Roll.objects.exists()
