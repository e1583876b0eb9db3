"""Free-form roll refusals in words, Polish first (rolls.messages.notation_error_message)."""

import pytest
from django.utils import translation

from rolls.engine.errors import RuleError
from rolls.engine.notation import parse_notation
from rolls.free.forms import parsed_expression
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
        ("2k6+", "Rzut urywa się za wcześnie (znak 5): po „+” brakuje liczby albo kości."),
        ("2k", "Rzut urywa się za wcześnie (znak 3): brakuje liczby ścianek kości (1k6, k%, 4kF)."),
        ("1k6!>=1", "!>=1 (znak 4) wybuchałoby przy każdej ściance"),
        ("1k6!>6", "!>6 (znak 4) nie pasuje do żadnej ścianki kości"),
        ("2k6x2", "na znaku 4 (x). Mnożenie zapisz gwiazdką * (2k6*2). Może chodziło o: 2k6*2"),
        ("1k20e20", "Nie da się odczytać rzutu na znaku 5 (e). Kości wybuchające oznacz"),
        ("4k6h3", "Zachowaj kości przez k, kh albo kl z liczbą (4k6k3, 2k20kl1)."),
        ("<b>", "Nie da się odczytać rzutu na znaku 1 (<). Porównuje się pojedyncze kości"),
        ("4k6kh3kh1", "na znaku 7 (k). Każdy modyfikator najwyżej raz"),
        ("1k6\x00", "na znaku 4 (znak NUL)."),
        ("1k6\t+1", "na znaku 4 (tabulator). Części rzutu mogą rozdzielać tylko zwykłe spacje."),
        ("1k6\n+1", "na znaku 4 (nowa linia)."),
        ("1k6\xa0+1", "na znaku 4 (twarda spacja)."),
        ("   1k6*2x", "na znaku 9 (x)."),
        (
            "((1k6)",
            "Nawias ( na znaku 1 nie jest zamknięty: dopisz ) na znaku 7. Może chodziło o: ((1k6))",
        ),
        ("1k6 1k6", "Może chodziło o: 1k6 + 1k6"),
        ("(1k6, 1k6)kh1", "Może chodziło o: {1k6, 1k6}kh1"),
        ("1k20%3", "% oznacza tylko kość procentową (k%); reszty z dzielenia (modulo) nie ma."),
        ("2!", "Wybuchają tylko kości"),
        ("1 != 1", "Nie ma „różne od”"),
        ("hello", "na znaku 1 (hello). Słowa nie są notacją kości"),
        ("hit 1k20", "Może chodziło o: 1k20[hit]"),
        ("1k6/1k4", "Dzielić można tylko przez liczbę całkowitą"),
        ("1k6r<7", "przerzucałoby każdą ściankę"),
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
        assert notation_error_message(refusal("1d6x2")) == (
            "The roll cannot be read at character 4 (x). Multiply with * (2d6*2). Perhaps: 1d6*2"
        )
