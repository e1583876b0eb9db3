"""Issue 13, search: the `unaccent` extension and a text search configuration built on it.

`codziennik_search` is PostgreSQL's "simple" configuration (stock builds have no Polish
one) with `unaccent` in front, so "zolw" and "żółw" are the same lexeme on both sides of
the match. SQLite has neither: the migration does nothing there (diary/search.py falls
back to a case-insensitive contains)."""

from django.db import migrations

CONFIGURATION = "codziennik_search"

CREATE = f"""
CREATE EXTENSION IF NOT EXISTS unaccent;
DROP TEXT SEARCH CONFIGURATION IF EXISTS {CONFIGURATION};
CREATE TEXT SEARCH CONFIGURATION {CONFIGURATION} (COPY = pg_catalog.simple);
ALTER TEXT SEARCH CONFIGURATION {CONFIGURATION}
    ALTER MAPPING FOR word, hword, hword_part, numword, numhword, hword_numpart
    WITH unaccent, simple;
"""

DROP = f"DROP TEXT SEARCH CONFIGURATION IF EXISTS {CONFIGURATION};"


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


def drop(apps, schema_editor):
    # The extension stays: another database object may have come to use it.
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):
    dependencies = [("diary", "0011_read_marks")]

    operations = [migrations.RunPython(create, drop, elidable=False)]
