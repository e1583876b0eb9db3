"""How the site writes a signed number: always a sign, and one minus sign (U+2212)."""

MINUS = "\u2212"


def signed_number(value: int) -> str:
    """+50, −50, 0: the form every modifier takes on a sheet, a panel and a roll line."""
    return with_minus(f"{value:+d}") if value else "0"


def with_minus(text: str) -> str:
    """A number already written out (an int, an exact fraction "-25/2") with the real minus."""
    return text.replace("-", MINUS)


def signed_text(number: str | int) -> str:
    """A sign in front of a written-out number, even +0 (a roll's distance, a term's share)."""
    text = str(number)
    return text if text.startswith("-") else f"+{text}"
