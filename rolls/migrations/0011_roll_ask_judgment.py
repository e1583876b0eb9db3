"""Requests for rolls answered by the GM's judgment or declined, and one shape for every
system's request: forum1000's requests keep what they name in `case_fields` (the panel's
field names), as the other systems' do, instead of columns of their own."""

from django.db import migrations, models


def _case_fields(ask) -> dict:
    sources = [f"trait:{pk}" for pk in ask.trait_ids or []] + [
        f"item:{pk}" for pk in ask.item_ids or []
    ]
    fields = {"a-character": str(ask.character_id), "a-sources": sorted(sources)}
    if ask.test == "skill":
        fields["a-skill"] = str(ask.skill_id)
    elif ask.attribute_ids:
        fields["a-attribute"] = str(ask.attribute_ids[0])
        if ask.test == "combined":
            fields["a-attribute_2"] = str(ask.attribute_ids[1])
    return fields


def forum1000_fields(apps, schema_editor):
    RollAsk = apps.get_model("rolls", "RollAsk")
    for ask in RollAsk.objects.filter(session__system="forum1000").iterator():
        if not ask.case_fields:
            ask.case_fields = _case_fields(ask)
            ask.save(update_fields=["case_fields"])


class Migration(migrations.Migration):
    dependencies = [("rolls", "0010_secret_roll_guard")]

    operations = [
        migrations.RunPython(forum1000_fields, migrations.RunPython.noop),
        migrations.RemoveField(model_name="rollask", name="attribute_ids"),
        migrations.RemoveField(model_name="rollask", name="item_ids"),
        migrations.RemoveField(model_name="rollask", name="skill_id"),
        migrations.RemoveField(model_name="rollask", name="trait_ids"),
        migrations.RemoveConstraint(model_name="rollask", name="roll_ask_answered_has_roll"),
        migrations.AlterField(
            model_name="rollask",
            name="status",
            field=models.CharField(
                choices=[
                    ("open", "waiting for the GM"),
                    ("answered", "answered"),
                    ("answered_differently", "answered differently"),
                    ("declined", "declined"),
                    ("withdrawn", "withdrawn"),
                ],
                default="open",
                max_length=20,
                verbose_name="status",
            ),
        ),
        migrations.AddField(
            model_name="rollask",
            name="note",
            field=models.CharField(
                blank=True, default="", max_length=300, verbose_name="GM's reason"
            ),
        ),
        migrations.AddConstraint(
            model_name="rollask",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("answer__isnull", False),
                    ("status__in", ("answered", "answered_differently")),
                )
                | models.Q(
                    models.Q(("status__in", ("answered", "answered_differently")), _negated=True),
                    ("answer__isnull", True),
                ),
                name="roll_ask_answered_has_roll",
            ),
        ),
    ]
