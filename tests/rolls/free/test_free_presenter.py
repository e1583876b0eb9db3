"""What the free-form roll's preview says, in Polish, from the parsed expression."""

import pytest
from django.utils import translation

from rolls.engine import notation
from rolls.presenters import notation_range, notation_summary


@pytest.mark.parametrize(
    ("expression", "words", "span"),
    [
        ("3k6kh2+2", "3 kości k6, zachowaj 2 najwyższe, +2", (4, 14)),
        ("2d6+3", "2 kości k6, +3", (5, 15)),
        ("1k20", "1 kość k20", (1, 20)),
        ("5d10dl1", "5 kości k10, odrzuć 1 najniższą", (4, 40)),
        ("6k6kl5", "6 kości k6, zachowaj 5 najniższych", (5, 30)),
        ("1k6!-1k4", "1 kość k6, wybuchająca, − 1 kość k4", (-3, 65)),
        ("d%", "1 kość k100", (1, 100)),
    ],
)
def test_the_summary_says_what_the_expression_means(expression, words, span):
    parsed = notation.parse_notation(expression)
    assert notation_range(parsed) == span
    with translation.override("pl"):
        summary = notation_summary(parsed)
    low, high = (str(n).replace("-", "−") for n in span)
    assert summary.startswith(f"{words}; wynik {low}–{high}")
    assert ("wybuchającą" in summary) == ("!" in expression)
