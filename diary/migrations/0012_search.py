"""Search: the `unaccent` extension, a text search configuration built on it, and
a GIN index on the posts' search expression.

`codziennik_search` is PostgreSQL's "simple" configuration (stock builds have no Polish
one) with `unaccent` in front, so "zolw" and "żółw" are the same lexeme on both sides of
the match. SQLite has neither: the migration does nothing there (diary/search/selectors.py falls
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

# The expression diary.search.selectors._full_text matches against, exactly as Django writes it: the
# planner uses an expression index only for the same expression. Without it a search ranks
# every post (measured in docs/decisions.md: seconds at 200,000 posts, ~30 ms with it).
INDEX = f"""
CREATE INDEX diary_post_search ON diary_post USING gin (
    to_tsvector('{CONFIGURATION}'::regconfig,
        COALESCE(translate(narration, '<>', '  '), '') || ' '
        || COALESCE(translate(nc_note, '<>', '  '), ''))
);
"""

DROP = f"""
DROP INDEX IF EXISTS diary_post_search;
DROP TEXT SEARCH CONFIGURATION IF EXISTS {CONFIGURATION};
"""


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)
        schema_editor.execute(INDEX)


def drop(apps, schema_editor):
    # The extension stays: another database object may have come to use it.
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):
    dependencies = [("diary", "0011_read_marks")]

    operations = [migrations.RunPython(create, drop, elidable=False)]
