"""The catalogs' version token: one row of characters_catalogversion whose token database
triggers replace on every INSERT, UPDATE and DELETE (on PostgreSQL also TRUNCATE) of the
catalogs the roll forms read, characters_attribute and characters_skill.

Triggers rather than signals: every writer is covered (the ORM, a queryset's update(), the
admin, a seed command, raw SQL), and the new token is part of the writing transaction, so a
rolled-back edit takes its token back with it. The trigger UPSERTs the row, so a flushed
table gets it back on the next catalog write; until then no version is known and
characters.selectors.system_catalog caches nothing. This migration holds its own SQL and
imports nothing from the project.
"""

import uuid

from django.db import migrations, models

TABLES = ("characters_attribute", "characters_skill")

PG_INSTALL = """
CREATE OR REPLACE FUNCTION characters_catalog_version_bump() RETURNS trigger AS $$
BEGIN
    INSERT INTO characters_catalogversion (id, token)
        VALUES (1, md5(random()::text || clock_timestamp()::text))
        ON CONFLICT (id) DO UPDATE SET token = EXCLUDED.token;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
""" + "".join(
    f"""
CREATE TRIGGER {table}_catalog_version
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {table}
    FOR EACH STATEMENT EXECUTE FUNCTION characters_catalog_version_bump();
"""
    for table in TABLES
)

PG_REMOVE = "".join(
    f"DROP TRIGGER IF EXISTS {table}_catalog_version ON {table};\n" for table in TABLES
) + "DROP FUNCTION IF EXISTS characters_catalog_version_bump();\n"

# SQLite has row triggers only, one per event.
SQLITE_EVENTS = ("insert", "update", "delete")
SQLITE_INSTALL = [
    f"""
CREATE TRIGGER {table}_catalog_version_{event} AFTER {event.upper()} ON {table}
BEGIN
    INSERT INTO characters_catalogversion (id, token) VALUES (1, lower(hex(randomblob(16))))
        ON CONFLICT (id) DO UPDATE SET token = excluded.token;
END;
"""
    for table in TABLES
    for event in SQLITE_EVENTS
]
SQLITE_REMOVE = [
    f"DROP TRIGGER IF EXISTS {table}_catalog_version_{event};"
    for table in TABLES
    for event in SQLITE_EVENTS
]


def _statements(schema_editor, *, postgresql, sqlite) -> list[str]:
    vendor = schema_editor.connection.vendor
    by_vendor = {"postgresql": [postgresql], "sqlite": sqlite}
    if vendor not in by_vendor:
        raise NotImplementedError(f"catalog version triggers for {vendor}")
    return by_vendor[vendor]


def install(apps, schema_editor):
    for statement in _statements(schema_editor, postgresql=PG_INSTALL, sqlite=SQLITE_INSTALL):
        schema_editor.execute(statement)
    apps.get_model("characters", "CatalogVersion").objects.create(id=1, token=uuid.uuid4().hex)


def remove(apps, schema_editor):
    for statement in _statements(schema_editor, postgresql=PG_REMOVE, sqlite=SQLITE_REMOVE):
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [
        ("characters", "0013_trait_botch_dice_reduction"),
    ]

    operations = [
        migrations.CreateModel(
            name="CatalogVersion",
            fields=[
                (
                    "id",
                    models.PositiveSmallIntegerField(default=1, primary_key=True, serialize=False),
                ),
                ("token", models.CharField(max_length=64)),
            ],
            options={
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(("id", 1)), name="catalog_version_one_row"
                    )
                ],
            },
        ),
        migrations.RunPython(install, remove),
    ]
