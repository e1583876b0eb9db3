"""Free-form roll refusals in words, Polish first (rolls.messages.notation_error_message)."""

import pytest
from django.utils import translation

from rolls.engine.errors import RuleError
from rolls.engine.notation import parse_notation
from rolls.free_forms import parsed_expression
from rolls.messages import notation_error_message


def refusal(text) -> RuleError:
    with pytest.raises(RuleError) as error:
        parse_notation(text)
    return error.value


@pytest.mark.parametrize(
    ("text", "polish"),
    [
        ("", "Wpisz rzut w notacji kości, np. 2k6+3 albo 4k6kh3."),
        ("1d6+" + "1+" * 48 + "1", "Rzut może mieć najwyżej 100 znaków (ten ma 101)."),
        ("60k6+41k6", "Rzut może mieć najwyżej 100 kości (w tym jest ich 101)."),
        ("1k1", "Kość ma od 2 do 1000 ścianek (nie 1)."),
        ("1k6+5000", "Liczba w rzucie może wynosić najwyżej 1000 (nie 5000)."),
        ("7", "W tym rzucie nie ma kości: dodaj je, np. 1k6."),
        ("4k6kh5", "Zachować (kh, kl) można od 1 do 4 z 4 rzuconych kości."),
        ("4k6dl4", "Odrzucić (dh, dl) można od 1 do 3 z 4 rzuconych kości."),
        ("1k6dl1", "Z jednej kości nie ma czego odrzucić."),
        ("2k6+", "Rzut urywa się za wcześnie: czegoś brakuje na końcu."),
        ("2k6*2", "Nie da się odczytać rzutu na znaku 4 (*). Mnożenie nie jest obsługiwane."),
        ("1k20e20", "Nie da się odczytać rzutu na znaku 5 (e). Kości wybuchające oznacz"),
        ("4k6k3", "Zachowaj kości przez kh albo kl z liczbą (4k6kh3)."),
        ("<b>", "Nie da się odczytać rzutu na znaku 1 (<)."),
        ("4k6kh3!", "na znaku 7 (!). Po kościach najwyżej jeden !, a po nim najwyżej jedno z"),
        ("1k6\x00", "na znaku 4 (U+0000)."),
    ],
)
def test_refusals_in_polish(text, polish):
    error = refusal(text)
    with translation.override("pl"):
        message = notation_error_message(error)
        assert polish in message
        # The free-form roll's form shows the same sentence for the expression.
        assert parsed_expression(text) == (None, message)


def test_refusals_in_english():
    with translation.override("en"):
        assert notation_error_message(refusal("1d6/2")) == (
            "The roll cannot be read at character 4 (/). Division is not supported."
        )
