"""The write watch the refusal tests lean on sees a write, and a write rolled back, and
stays quiet when nothing is written."""

import pytest
from django.db import transaction

from characters.models import Skill
from tests.site.table_writes import TableWrites

pytestmark = pytest.mark.django_db


def test_a_write_is_seen_and_a_read_is_not():
    writes = TableWrites({"sessions"})
    with transaction.atomic():
        writes.mark()
        list(Skill.objects.select_for_update().all()[:5])
        assert not writes.wrote()
        Skill.objects.filter(pk=Skill.objects.order_by("pk").first().pk).update(name="Zmienione")
        assert writes.wrote()
        transaction.set_rollback(True)


def test_a_tables_contents_are_compared_after_a_rollback():
    writes = TableWrites({"sessions"})
    with transaction.atomic():
        writes.mark()
        transaction.set_rollback(True)
    with transaction.atomic():
        writes.mark()
        Skill.objects.order_by("pk").first().delete()
        assert writes.wrote()
        transaction.set_rollback(True)
    with transaction.atomic():
        writes.mark()
        assert not writes.wrote()
        transaction.set_rollback(True)


def test_the_tables_not_compared_are_left_out():
    from django.contrib.sessions.backends.db import SessionStore

    writes = TableWrites({"sessions"})
    with transaction.atomic():
        writes.mark()
        SessionStore().create()
        assert not writes.wrote()
        transaction.set_rollback(True)


@pytest.mark.postgres_only
def test_a_write_undone_by_a_savepoint_is_seen_on_postgresql():
    writes = TableWrites({"sessions"})
    with transaction.atomic():
        writes.mark()
        with transaction.atomic():
            Skill.objects.filter(pk=Skill.objects.order_by("pk").first().pk).update(name="Z")
            transaction.set_rollback(True)
        assert writes.wrote()
        transaction.set_rollback(True)
