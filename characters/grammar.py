"""Polish agrees a participle or an adjective with its noun's gender: "Borys ogłuszony",
"Lirael ogłuszona", "Stado ogłuszone". Each wording is its own message with a context per
gender (pgettext "masculine", "feminine", "neuter"), so every form is translated in the .po."""

from characters.models import GrammaticalGender


def gendered(gender: str, *, masculine: str, feminine: str, neuter: str) -> str:
    """The form for the character's grammatical gender (masculine when it is unknown)."""
    if gender == GrammaticalGender.FEMININE:
        return feminine
    if gender == GrammaticalGender.NEUTER:
        return neuter
    return masculine
