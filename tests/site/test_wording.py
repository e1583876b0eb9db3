"""How the site's Polish reads: no doubled words, real plural forms, sentences that end
where they end, a label said once, a GM difficulty whose sign matches its meaning, no
masculine-only "I", capitalised labels and no colon after a checkbox."""

import pytest
from django.urls import reverse
from django.utils import translation

from diary.models import NotificationKind
from rolls.initiative.selectors import change_text
from rolls.models import ChangeKind, InitiativeChange
from rolls.presenters import entry_text
from rolls.systems.forum1000.display import threshold_terms
from rolls.systems.forum1000.forms import GM_DIFFICULTY_CHOICES

pytestmark = pytest.mark.django_db


def pl(callable_, *args):
    with translation.override("pl"):
        return callable_(*args)


@pytest.mark.parametrize(
    ("length", "words"), [(1, "na 1 turę"), (2, "na 2 tury"), (4, "na 4 tury"), (5, "na 5 tur")]
)
def test_an_effects_length_in_turns_has_its_polish_plural(length, words):
    entry = {
        "effect": {"kind": "stun", "description": "cios w głowę"},
        "began_turn": 2,
        "length_turns": length,
        "ends_at_turn": 2 + length,
        "reason": "cios",
    }
    text, _ = pl(entry_text, "effect", "Borys", entry)
    assert words in text and "tur(y)" not in text and "na tury:" not in text


def test_a_potion_whose_description_ends_a_sentence_is_not_joined_by_a_semicolon():
    entry = {
        "potion": {"effect": "Przywraca 30 PŻ; nie leczy chorób."},
        "hp_before": 50,
        "hp_after": 50,
        "freed_effect": None,
        "for_gm": True,
        "left": 1,
    }
    text, _ = pl(entry_text, "item_use", "Borys", entry)
    assert ".;" not in text
    assert "nie leczy chorób. Jego działanie stosuje MG" in text


def test_a_gm_difficulty_plus_reads_as_an_easier_test():
    labels = dict(GM_DIFFICULTY_CHOICES)
    with translation.override("pl"):
        assert "łatwiejszy" in str(labels[50]) and "trudniejszy" in str(labels[-50])
        plus, minus = (
            threshold_terms(
                [
                    {
                        "kind": "attribute",
                        "name": "Siła",
                        "value": 500,
                        "weight": "1",
                        "contribution": "500",
                    },
                    {
                        "kind": "modifier",
                        "scope": "gm_difficulty",
                        "value": value,
                        "weight": "1",
                        "contribution": str(value),
                        "reason": "r",
                    },
                ]
            )[1].text
            for value in (50, -50)
        )
    assert plus.startswith("test łatwiejszy") and plus.endswith("+50")
    assert minus.startswith("test trudniejszy") and minus.endswith("−50")


def test_the_post_notification_choice_is_not_masculine_only():
    with translation.override("pl"):
        labels = " ".join(str(label) for _, label in NotificationKind.choices)
    assert "pisałem" not in labels


def test_npc_form_labels_are_capitalised_and_a_checkbox_has_no_colon(table, client_for):
    body = client_for(table.gm).get(reverse("diary:npcs", args=[table.session.pk]))
    text = body.content.decode()
    assert "Imię:</label>" in text and "Opis:</label>" in text
    assert "nazwa:" not in text and "opis:" not in text
    assert "Widoczny dla graczy:" not in text and ">Widoczny dla graczy</label>" in text


@pytest.mark.parametrize(("turns", "words"), [(1, "na 1 turę"), (3, "na 3 tury"), (5, "na 5 tur")])
def test_an_initiative_modifier_for_some_turns_has_its_polish_plural(turns, words):
    change = InitiativeChange(
        kind=ChangeKind.MODIFIER,
        turn_number=2,
        details={"name": "Borys", "value": 50, "turns": turns},
    )
    _, text = pl(change_text, change)
    assert words in text and "tur(y)" not in text


def test_every_page_names_a_favicon_that_exists(client):
    from django.contrib.staticfiles import finders

    page = client.get(reverse("home")).content.decode()
    assert 'rel="icon"' in page and "favicon.svg" in page
    assert finders.find("favicon.svg")
