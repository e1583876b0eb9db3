"""Refuse user names that pass for someone else's.

Two checks, built on the Unicode confusables data (UTS #39) of `confusable_homoglyphs`:

- a name that mixes scripts with letters that look alike ("gmА" with a Cyrillic
  А) is refused outright, as django-registration does;
- a name whose skeleton equals an existing user's is refused. The skeleton, in the spirit
  of UTS #39's: the NFKC name with every letter outside Latin replaced by its Latin
  look-alike, then the look-alikes within ASCII made one (I, l, 1 and | are "l"; O and 0
  are "o"; "rn" is "m"), then case-folded, without the separators _ - . and spaces. So
  "GM" ≈ "gm", a wholly Cyrillic "сор" ≈ "cop", "STRASSE" ≈ "straße", and "pIayerA",
  "p1ayerA", "player_A" ≈ "playerA". Polish letters are Latin and stay themselves, so
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


def _ascii_look_alikes() -> tuple[dict[str, str], dict[str, str]]:
    """From the confusables data: each printable ASCII character that passes for another
    mapped to one of its kind (a lowercase letter if the kind has one), and the runs of
    letters that pass for one letter ("rn" for "m")."""
    kind = {char: {char} for char in map(chr, range(33, 127))}
    runs: dict[str, str] = {}
    for char in list(kind):
        for found in confusables.is_confusable(char, greedy=True) or []:
            for glyph in found["homoglyphs"]:
                other = glyph["c"]
                if not other.isascii() or not other.isprintable():
                    continue
                if len(other) == 1:
                    joined = kind[char] | kind[other]
                    for member in joined:
                        kind[member] = joined
                elif char.isalpha():
                    runs[other] = char
    single = {}
    for char, members in kind.items():
        letters = sorted(m for m in members if m.isalpha())
        lower = [m for m in letters if m.islower()]
        single[char] = (lower or letters or sorted(members))[0]
    return {c: m for c, m in single.items() if c != m}, runs


ASCII_LOOK_ALIKES, LETTER_RUNS = _ascii_look_alikes()
SEPARATORS = str.maketrans("", "", "_-. \t")


def _one_of_a_kind(text: str) -> str:
    for run, letter in LETTER_RUNS.items():
        text = text.replace(run, letter)
    return "".join(ASCII_LOOK_ALIKES.get(char, char) for char in text)


def skeleton(name: str) -> str:
    # Look-alikes are made one before case-folding: folded, a capital I is an "i" and no
    # longer passes for the "l" it imitates.
    latin = "".join(_latin_look_alike(char) for char in unicodedata.normalize("NFKC", name))
    folded = _one_of_a_kind(latin).casefold()
    # Some letters have a Latin look-alike only in lower case.
    folded = "".join(_latin_look_alike(char) for char in folded).casefold()
    return "".join(ASCII_LOOK_ALIKES.get(char, char) for char in folded).translate(SEPARATORS)


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
