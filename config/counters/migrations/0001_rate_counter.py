from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = []

    operations = [
        migrations.CreateModel(
            name="RateCounter",
            fields=[
                ("key", models.CharField(max_length=200, primary_key=True, serialize=False)),
                ("window_end", models.FloatField()),
                ("hits", models.PositiveIntegerField()),
            ],
            options={"db_table": "rate_counter"},
        ),
        # The counters' old home, the database cache's table (`createcachetable`), is unused.
        migrations.RunSQL(
            "DROP TABLE IF EXISTS codziennik_cache", reverse_sql=migrations.RunSQL.noop
        ),
    ]
