"""Refuse user names that pass for someone else's.

Two checks, built on the Unicode confusables data of `confusable_homoglyphs`:

- a name that mixes scripts with letters that look alike ("gmА" with a Cyrillic
  А) is refused outright, as django-registration does;
- a name whose skeleton equals an existing user's is refused: the skeleton is
  the NFKC, case-folded name with every letter outside Latin replaced by its
  Latin look-alike, so "GM" ≈ "gm", a wholly Cyrillic "сор" ≈ "cop", and
  "STRASSE" ≈ "straße". Polish letters are Latin and stay themselves, so
  "Łucja" and "Lucja" are two different names.

`check_username` raises the error both checks give; sign-up and the admin's
user forms call it.
"""

import unicodedata
from functools import lru_cache

from confusable_homoglyphs import categories, confusables
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

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


def look_alike_taken(name: str, *, exclude_pk=None) -> bool:
    """Does another user's name have the same skeleton? (Reads every name: a small site.)"""
    wanted = skeleton(name)
    users = get_user_model().objects.all()
    if exclude_pk is not None:
        users = users.exclude(pk=exclude_pk)
    usernames = users.values_list("username", flat=True).iterator()
    return any(skeleton(existing) == wanted for existing in usernames)


def check_username(name: str, *, exclude_pk=None) -> None:
    """Refuse a name that mixes look-alike scripts or passes for another user's.

    `exclude_pk` is the user being renamed: their own name is no look-alike of itself.
    """
    if mixes_look_alike_scripts(name):
        raise ValidationError(
            _(
                "Letters from different alphabets that look alike cannot be mixed in "
                "a name. Use one alphabet."
            ),
            code="mixed_script",
        )
    if look_alike_taken(name, exclude_pk=exclude_pk):
        raise ValidationError(
            _("This name is taken or looks too much like another user's name."),
            code="look_alike",
        )
