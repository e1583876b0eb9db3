"""How the site writes a signed number: always a sign, and one minus sign (U+2212)."""

MINUS = "\u2212"


def signed_number(value: int) -> str:
    """+50, −50, 0: the form every modifier takes on a sheet, a panel and a roll line."""
    return f"{value:+d}".replace("-", MINUS) if value else "0"
