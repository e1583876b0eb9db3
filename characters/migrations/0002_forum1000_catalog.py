"""Seed the forum1000 catalog with what seed 000 names, and the Moderator group.

Decision: "Leczenie ran" and "Leczenie chorób" are tied to Mądrość (knowledge
of wounds and illness, as in the conformance vectors' healing cases); see
docs/rules.md.
"""

from django.db import migrations

SYSTEM = "forum1000"

ATTRIBUTES = [
    "Percepcja",
    "Zręczność",
    "Szybkość",
    "Siła",
    "Siła Woli",
    "Charyzma",
    "Inteligencja",
    "Mądrość",
]

# (name, attribute, heals, description)
SKILLS = [
    ("Otwieranie zamków", "Zręczność", "", "Otwieranie zamków bez klucza."),
    ("Torturowanie", "Zręczność", "", "Wydobywanie informacji bólem."),
    ("Uwodzenie", "Charyzma", "", "Zdobywanie czyichś względów urokiem."),
    (
        "Dowodzenie",
        "Charyzma",
        "",
        "Tylko wobec własnych podkomendnych lub sojuszników.",
    ),
    ("Przekupstwo", "Charyzma", "", "Przekonywanie podarkiem lub pieniędzmi."),
    ("Błyskotliwość", "Inteligencja", "", "Przekonywanie bystrą argumentacją."),
    ("Zastraszanie", "Siła", "", "Wymuszanie groźbą."),
    ("Hipnoza", "Siła Woli", "", "Wpływanie na cudzą wolę."),
    ("Targowanie", "Siła Woli", "", "Wytrwałe negocjowanie warunków."),
    ("Leczenie ran", "Mądrość", "wound", "Usuwa rany; nie pomoże na choroby ani trucizny."),
    ("Leczenie chorób", "Mądrość", "disease", "Usuwa choroby i trucizny; nie zatamuje rany."),
]

ABILITIES = [
    ("Dobry Wzrok", "Percepcja", 50),
    ("Precyzyjny", "Zręczność", 50),
    ("Seksapil", "Charyzma", 50),
    ("Przystojny", "Charyzma", 50),
    ("Krasomówca", "Charyzma", 50),
    ("Wyczucie kłamstwa", "Mądrość", 50),
    ("Geniusz", "Inteligencja", 50),
]


def seed(apps, schema_editor):
    Attribute = apps.get_model("characters", "Attribute")
    Skill = apps.get_model("characters", "Skill")
    Trait = apps.get_model("characters", "Trait")
    Group = apps.get_model("auth", "Group")

    attributes = {}
    for position, name in enumerate(ATTRIBUTES, start=1):
        attributes[name], _ = Attribute.objects.get_or_create(
            system=SYSTEM, name=name, defaults={"position": position}
        )
    for name, attribute, heals, description in SKILLS:
        Skill.objects.get_or_create(
            system=SYSTEM,
            name=name,
            defaults={
                "attribute": attributes[attribute],
                "heals": heals,
                "description": description,
            },
        )
    for name, attribute, modifier in ABILITIES:
        Trait.objects.get_or_create(
            system=SYSTEM,
            name=name,
            defaults={"kind": "ability", "attribute": attributes[attribute], "modifier": modifier},
        )
    Group.objects.get_or_create(name="Moderator")


class Migration(migrations.Migration):
    dependencies = [
        ("characters", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
