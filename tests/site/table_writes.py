"""Whether a request wrote to the site's tables: what the access matrix and form fuzzing assert
of every refusal ("nothing is stored").

On PostgreSQL one statement reads the transaction's own write counters
(pg_stat_xact_user_tables: rows inserted, updated, deleted, counted even when a savepoint rolls
them back), so a refusal that writes and then undoes its row is caught too. SQLite has no such
counters: every compared table is read whole and compared, as a snapshot.
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
        self.base = None

    def mark(self) -> None:
        # A table's rows roll back with each request's transaction; PostgreSQL's counters do
        # not, so they are read again each time, the (costlier) snapshot only once.
        if self.counters or self.base is None:
            self.base = self._reading()

    def wrote(self) -> bool:
        return self._reading() != self.base

    def _reading(self):
        if self.counters:
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT relname, n_tup_ins, n_tup_upd, n_tup_del"
                    " FROM pg_stat_xact_user_tables WHERE relname = ANY(%s) ORDER BY relname",
                    [[model._meta.db_table for model in self.models]],
                )
                return cursor.fetchall()
        return {
            model._meta.label: list(model._base_manager.order_by("pk").values_list())
            for model in self.models
        }
