"""On PostgreSQL, every change of a session's activity marker (and a session's deletion)
sends NOTIFY diary_activity, '<session id>' as its transaction commits (emptying the table,
'*'): the live poll's
per-process marker cache (diary/live/listener.py) listens and forgets that session's marker.

A trigger rather than a call in each service: every writer of `activity_at` (GameSession.touch,
the ledger's head update, a save of the whole row, a raw UPDATE) is covered, and the notice
leaves exactly when the change becomes visible. SQLite has no LISTEN: nothing to install.
This migration holds its own SQL and imports nothing from the project.
"""

from django.db import migrations

CHANNEL = "diary_activity"

INSTALL = f"""
CREATE OR REPLACE FUNCTION diary_session_activity_notify() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        PERFORM pg_notify('{CHANNEL}', '*');
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('{CHANNEL}', OLD.id::text);
    ELSIF OLD.activity_at IS DISTINCT FROM NEW.activity_at THEN
        PERFORM pg_notify('{CHANNEL}', NEW.id::text);
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER diary_session_activity_notify
    AFTER UPDATE OF activity_at OR DELETE ON diary_gamesession
    FOR EACH ROW EXECUTE FUNCTION diary_session_activity_notify();
CREATE TRIGGER diary_session_activity_notify_truncate
    AFTER TRUNCATE ON diary_gamesession
    FOR EACH STATEMENT EXECUTE FUNCTION diary_session_activity_notify();
"""

REMOVE = """
DROP TRIGGER IF EXISTS diary_session_activity_notify_truncate ON diary_gamesession;
DROP TRIGGER IF EXISTS diary_session_activity_notify ON diary_gamesession;
DROP FUNCTION IF EXISTS diary_session_activity_notify();
"""


def install(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(INSTALL)


def remove(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(REMOVE)


class Migration(migrations.Migration):
    dependencies = [
        ("diary", "0022_changed_posts_partial_index"),
    ]

    operations = [migrations.RunPython(install, remove)]
