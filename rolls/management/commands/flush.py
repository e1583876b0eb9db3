"""Django's `flush`, able to empty the roll ledger of a *test* database only.

In a test database (see rolls/ledger/triggers.py) the append-only triggers honour a
permit row; this command inserts it for the duration of the flush. Anywhere
else the permit table does not exist, nothing is inserted, and the triggers
refuse the flush: the ledger fails closed.
"""

from django.core.management.commands import flush
from django.db import connections

from rolls.ledger import triggers as ledger_sql


class Command(flush.Command):
    def handle(self, **options):
        connection = connections[options["database"]]
        if not ledger_sql.permit_table_exists(connection):
            return super().handle(**options)
        with connection.cursor() as cursor:
            cursor.execute(f"INSERT INTO {ledger_sql.PERMIT_TABLE} (permit) VALUES (1)")
        try:
            return super().handle(**options)
        finally:
            with connection.cursor() as cursor:
                cursor.execute(f"DELETE FROM {ledger_sql.PERMIT_TABLE}")
