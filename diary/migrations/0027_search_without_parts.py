"""Search: a second GIN index, on the narration without its parts for chosen eyes.

A reader who may not read every part of a post searches the text without them
(Post.narration_public, empty when the post has none); diary/search/selectors.py matches
that expression, written here exactly as Django writes it, beside the whole narration's
(migration 0012). PostgreSQL only, as 0012."""

from django.db import migrations

INDEX = """
CREATE INDEX diary_post_search_public ON diary_post USING gin (
    to_tsvector('codziennik_search'::regconfig,
        COALESCE(translate(COALESCE(narration_public, narration), '<>', '  '), '') || ' '
        || COALESCE(translate(nc_note, '<>', '  '), ''))
);
"""


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(INDEX)


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP INDEX IF EXISTS diary_post_search_public;")


class Migration(migrations.Migration):
    dependencies = [("diary", "0026_npc_voices")]

    operations = [migrations.RunPython(create, drop, elidable=False)]
