"""Refuse user names that pass for someone else's (issue 7, finding 13).

Two checks, built on the Unicode confusables data of `confusable_homoglyphs`:

- a name that mixes scripts with letters that look alike ("gmА" with a Cyrillic
  А) is refused outright, as django-registration does;
- a name whose skeleton equals an existing user's is refused: the skeleton is
  the NFKC, case-folded name with every letter outside Latin replaced by its
  Latin look-alike, so "GM" ≈ "gm", a wholly Cyrillic "сор" ≈ "cop", and
  "STRASSE" ≈ "straße". Polish letters are Latin and stay themselves, so
  "Łucja" and "Lucja" are two different names.
"""

import unicodedata
from functools import lru_cache

from confusable_homoglyphs import categories, confusables
from django.contrib.auth import get_user_model

SAFE_ALIASES = {"LATIN", "COMMON"}


def mixes_look_alike_scripts(name: str) -> bool:
    return bool(confusables.is_dangerous(name))


@lru_cache(maxsize=4096)
def _latin_look_alike(char: str) -> str:
    if categories.alias(char) in SAFE_ALIASES:
        return char
    for found in confusables.is_confusable(char, greedy=True) or []:
        for glyph in found["homoglyphs"]:
            if all(categories.alias(c) in SAFE_ALIASES for c in glyph["c"]):
                return glyph["c"]
    return char


def skeleton(name: str) -> str:
    folded = unicodedata.normalize("NFKC", name).casefold()
    return "".join(_latin_look_alike(char) for char in folded).casefold()


def look_alike_taken(name: str) -> bool:
    """Does an existing user's name have the same skeleton? (Reads every name: a small site.)"""
    wanted = skeleton(name)
    usernames = get_user_model().objects.values_list("username", flat=True).iterator()
    return any(skeleton(existing) == wanted for existing in usernames)
