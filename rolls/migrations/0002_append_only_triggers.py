"""Make rolls_roll append-only in the database itself (see rolls/ledger_sql.py)."""

from django.db import migrations

from rolls import ledger_sql


def install(apps, schema_editor):
    connection = schema_editor.connection
    hatch = ledger_sql.is_test_database(connection)
    for statement in ledger_sql.install_sql(connection.vendor, test_flush_hatch=hatch):
        schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [("rolls", "0001_initial")]

    # No reverse: un-applying would silently make the ledger mutable.
    operations = [migrations.RunPython(install, migrations.RunPython.noop, elidable=False)]
