"""Seed the q10, ciernie and arsmagica catalogs.

docs/decisions.md ("The catalogs") lists which entries come from seeds 001–003 and which were
added for a playable demo (the attributes below say it too). Re-running adds only what is
missing.
"""

from django.db import migrations

# system -> [(name, source)] in sheet order
ATTRIBUTES = {
    "q10": [
        ("Siła", "seed"),  # "Siła i Atletyka", "Siła na poziomie 3"
        ("Zręczność", "added"),  # archery, lock-picking
        ("Mądrość", "seed"),  # "Mądrość oraz odpowiednia Wiedza"
        ("Charyzma", "added"),  # lying to the guards
    ],
    "ciernie": [
        ("Siła", "seed"),  # "siłowe otwieranie drzwi"
        ("Zręczność", "seed"),  # "percepcja oraz zręczność"
        ("Zwinność", "seed"),  # "rzut porównawczy zwinności"
        ("Wytrzymałość", "seed"),  # "testach wytrzymałości i woli"
        ("Percepcja", "seed"),
        ("Inteligencja", "seed"),
        ("Charyzma", "seed"),
        ("Wola", "seed"),
    ],
    "arsmagica": [
        # Seed 003 speaks of a "Cecha" without naming them: Ars Magica's eight.
        ("Inteligencja", "added"),
        ("Percepcja", "added"),
        ("Siła", "added"),
        ("Wytrzymałość", "added"),
        ("Prezencja", "added"),
        ("Komunikacja", "added"),
        ("Zręczność", "added"),
        ("Szybkość", "added"),
    ],
}

# system -> [(name, attribute, description)]
SKILLS = {
    "q10": [
        ("Atletyka", "Siła", "Skoki, wspinaczka, bieg (seed: przeskok nad przepaścią)."),
        ("Walka wręcz", "Siła", "Walka bronią białą i pięściami (seed: dwóch wojowników)."),
        ("Wiedza", "Mądrość", "Odczytanie starożytnej inskrypcji i inna wiedza książkowa (seed)."),
        ("Łucznictwo", "Zręczność", "Strzał z łuku do przeciwnika."),
        ("Otwieranie zamków", "Zręczność", "Wytrychy i zamki (seed: zamek o Trudności 15)."),
        ("Blef", "Charyzma", "Okłamanie straży i inne kłamstwa."),
        ("Magia", "Mądrość", "Rzucanie zaklęć."),
    ],
    "ciernie": [
        ("Mechanika", "Inteligencja", "Naprawa mechanizmów o klasie technicznej (seed)."),
        ("Otwieranie zamków", "Zręczność", "Zamki mechaniczne i elektroniczne (seed)."),
        ("Walka wręcz", "Zwinność", "Trafienie w walce wręcz: test porównawczy zwinności (seed)."),
        (
            "Obsługa broni",
            "Percepcja",
            "Ostrzał: percepcja i zręczność w równym stopniu, test łączony (seed).",
        ),
        ("Perswazja", "Charyzma", "Umiejętności społeczne: inteligencja i charyzma (seed)."),
        ("Pilotaż", "Zręczność", "Prowadzenie statków i pojazdów."),
        ("Medycyna", "Inteligencja", "Opatrywanie ran i leczenie."),
    ],
    "arsmagica": [
        ("Atletyka", "Siła", "Wspinaczka na klif i inne wysiłki (seed)."),
        ("Czujność", "Percepcja", "Dostrzeganie zagrożeń i szczegółów."),
        ("Walka bronią jednoręczną", "Zręczność", "Miecz, topór, buława."),
        ("Łacina", "Komunikacja", "Język uczonych i magów."),
        ("Sztuki wyzwolone", "Inteligencja", "Gramatyka, logika, arytmetyka."),
        ("Przywództwo", "Prezencja", "Prowadzenie ludzi."),
    ],
}

# (system, kind, name, attribute, modifier, keep_modifier, rerolls, description)
TRAITS = [
    ("q10", "ability", "Wprawny szermierz", "Siła", 1, 1, False, "Modyfikator puli 1z1 (seed)."),
    ("q10", "ability", "Sokole oko", "Zręczność", 1, 0, False, "Modyfikator puli 1z0."),
    ("q10", "flaw", "Niezdara", "Zręczność", -1, 0, False, "Modyfikator puli −1z0."),
    (
        "ciernie",
        "ability",
        "Refleks pilota",
        "Zręczność",
        0,
        0,
        True,
        "Przerzut nieudanego testu (seed: zdolności pozwalające na przerzut).",
    ),
    ("ciernie", "ability", "Bystry wzrok", "Percepcja", 2, 0, False, "+2 do progu Percepcji."),
    ("ciernie", "flaw", "Słabe serce", "Wytrzymałość", -2, 0, False, "−2 do progu."),
    ("arsmagica", "ability", "Wyostrzone zmysły", "Percepcja", 1, 0, False, "Zaleta: +1."),
    ("arsmagica", "flaw", "Kulawy", "Szybkość", -1, 0, False, "Wada: −1."),
]

# (system, name, attribute or None, modifier, keep_modifier, rerolls, description)
ITEMS = [
    ("q10", "Wytrychy", "Zręczność", 1, 0, False, "Zestaw wytrychów: 1z0 do otwierania zamków."),
    (
        "ciernie",
        "Uzbrojenie naprowadzane",
        None,
        0,
        0,
        True,
        "Ma przerzut na trafienie (seed).",
    ),
    ("ciernie", "Zestaw wytrychów", "Zręczność", 2, 0, False, "+2 do progu przy zamkach."),
    ("arsmagica", "Lina z hakiem", "Siła", 1, 0, False, "+1 przy wspinaczce."),
]


def seed(apps, schema_editor):
    Attribute = apps.get_model("characters", "Attribute")
    Skill = apps.get_model("characters", "Skill")
    Trait = apps.get_model("characters", "Trait")
    Item = apps.get_model("characters", "Item")

    attributes = {}
    for system, names in ATTRIBUTES.items():
        for position, (name, _source) in enumerate(names, start=1):
            attributes[(system, name)], _ = Attribute.objects.get_or_create(
                system=system, name=name, defaults={"position": position}
            )
    for system, skills in SKILLS.items():
        for name, attribute, description in skills:
            Skill.objects.get_or_create(
                system=system,
                name=name,
                defaults={"attribute": attributes[(system, attribute)], "description": description},
            )
    for system, kind, name, attribute, modifier, keep, rerolls, description in TRAITS:
        Trait.objects.get_or_create(
            system=system,
            name=name,
            defaults={
                "kind": kind,
                "attribute": attributes[(system, attribute)],
                "modifier": modifier,
                "keep_modifier": keep,
                "rerolls": rerolls,
                "description": description,
            },
        )
    for system, name, attribute, modifier, keep, rerolls, description in ITEMS:
        Item.objects.get_or_create(
            system=system,
            name=name,
            defaults={
                "attribute": attributes[(system, attribute)] if attribute else None,
                "modifier": modifier,
                "keep_modifier": keep,
                "rerolls": rerolls,
                "description": description,
            },
        )


class Migration(migrations.Migration):
    dependencies = [("characters", "0009_reroll_sources_and_kept_dice")]

    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
