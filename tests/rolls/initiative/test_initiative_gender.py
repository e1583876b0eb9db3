"""What the initiative order and its history write about a character agrees with the
sheet's grammatical gender ("Borys ogłuszony", "Lirael ogłuszona", "Wilk… ogłuszone")."""

import html
from dataclasses import replace

import pytest
from django.urls import reverse
from django.utils import translation

from characters.models import GrammaticalGender
from tests.diary_entries import effect_entry, free_entry
from tests.rolls.initiative.test_initiative_event import fight, order  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

HELD = "held: at the end while stunned or immobilised"


def polish_form(gender: str, msgid: str) -> str:
    with translation.override("pl"):
        text = translation.pgettext(gender, msgid)
    assert text != msgid, f"no Polish {gender} form of {msgid!r}"
    return text


def test_the_order_writes_each_held_character_in_its_own_gender(fight):  # noqa: F811
    # Lirael is feminine (the table's), Borys keeps the default, masculine.
    assert fight.lirael.grammatical_gender == GrammaticalGender.FEMININE
    for character in (fight.borys, fight.lirael):
        effect_entry(fight.session, fight.gm, character, "stun", "cios")
    diary = html.unescape(
        fight.gm_client.get(reverse("diary:session", args=[fight.session.pk])).content.decode()
    )
    masculine, feminine, neuter = (
        polish_form(g, HELD) for g in ("masculine", "feminine", "neuter")
    )
    assert len({masculine, feminine, neuter}) == 3
    assert "ogłuszony" in masculine and "ogłuszona" in feminine and "ogłuszone" in neuter
    for name, text in (("Borys", masculine), ("Lirael", feminine)):
        row = diary.split(f"<strong>{name}</strong>", 1)[1].split("</li>", 1)[0]
        assert text in row, (name, row)
    wolf = next(r for r in order(fight)[1].rows if r.name == "Wilk")
    assert replace(wolf, held=True, gender=GrammaticalGender.NEUTER).held_text == neuter


def test_the_history_says_freed_in_the_characters_gender(fight):  # noqa: F811
    effect = effect_entry(fight.session, fight.gm, fight.borys, "stun", "cios")
    free_entry(fight.session, fight.gm, effect, "ocknął się")
    history = html.unescape(
        fight.gm_client.get(reverse("rolls:initiative", args=[fight.session.pk])).content.decode()
    )
    freed = "freed of %(kind)s: back in the order"
    assert polish_form("masculine", freed).split("(")[0] in history
    assert "uwolniona" not in history
