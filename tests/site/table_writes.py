"""Whether a request wrote to the site's tables: what the access matrix and form fuzzing assert
of every refusal ("nothing is stored").

On PostgreSQL one statement reads the transaction's own write counters
(pg_stat_xact_user_tables: rows inserted, updated, deleted, counted even when a savepoint rolls
them back), so a refusal that writes and then undoes its row is caught too. SQLite has no such
counters: every compared table is read whole and compared, as a snapshot (its queries
compiled once, then run as plain SQL).
"""

from django.apps import apps
from django.db import connection


class TableWrites:
    """Watches every managed table but those of `not_compared` (app labels).

    `mark()` starts watching (at the start of each request, inside its own transaction);
    `wrote()` says whether anything was written since.
    """

    def __init__(self, not_compared: set[str]):
        self.models = [
            model
            for model in apps.get_models(include_auto_created=True)
            if model._meta.app_label not in not_compared and model._meta.managed
        ]
        self.counters = connection.vendor == "postgresql"
        if self.counters:
            self.queries = [
                (
                    "SELECT relname, n_tup_ins, n_tup_upd, n_tup_del"
                    " FROM pg_stat_xact_user_tables WHERE relname = ANY(%s) ORDER BY relname",
                    [[model._meta.db_table for model in self.models]],
                )
            ]
        else:
            self.queries = [
                model._base_manager.order_by("pk").values_list().query.sql_with_params()
                for model in self.models
            ]
        self.base = None

    def mark(self) -> None:
        self.base = self._reading()

    def wrote(self) -> bool:
        return self._reading() != self.base

    def _reading(self) -> list:
        with connection.cursor() as cursor:
            readings = []
            for sql, params in self.queries:
                cursor.execute(sql, params)
                readings.append(cursor.fetchall())
            return readings
