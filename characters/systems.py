"""The four rule systems a session (and a character) is played in.

The keys are the engine's (rolls/engine/<key>.py); labels are what people read.
"""

from dataclasses import dataclass

from django.db import models
from django.utils.functional import Promise
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from characters.numbers import signed_number

# forum1000 reads movement and initiative off this attribute (RULES 1.4, 1.5); the engine
# owns the name, the sheets re-export it.
from rolls.engine.forum1000 import SPEED_ATTRIBUTE  # noqa: F401


class RuleSystem(models.TextChoices):
    FORUM1000 = "forum1000", _("forum1000 (d1000, the game's own system)")
    Q10 = "q10", _("Q10 (XzY d10 pools)")
    CIERNIE = "ciernie", _("Ciernie i Gwiazdy (d20)")
    ARSMAGICA = "arsmagica", _("Ars Magica (d10)")


# What a character sheet accepts per system (inclusive bounds); docs/decisions.md, issue 10,
# says why each. Every system listed here can have characters and sessions.
ATTRIBUTE_RANGE = {
    RuleSystem.FORUM1000: (0, 1000),
    # Q10 (seed 001): attributes 1..5 and skills 0..5, so the base pool attribute + skill
    # never passes the rule's 10 dice ("NIE MOŻNA RZUCAĆ WIĘCEJ NIŻ 10 KOŚĆMI").
    RuleSystem.Q10: (1, 5),
    # Ciernie i Gwiazdy (seed 002): a d20 roll-under, so attributes 1..20 (never negative,
    # RULES 3); a value of 20 already succeeds on everything but the critical 20.
    RuleSystem.CIERNIE: (1, 20),
    # Ars Magica (seed 003): characteristics −3..+3.
    RuleSystem.ARSMAGICA: (-3, 3),
}
SKILL_LEVEL_RANGE = {
    RuleSystem.FORUM1000: (0, 25),
    RuleSystem.Q10: (0, 5),
    # Skill against a factor: three levels apart decide without a roll, so 0..10 covers
    # every factor a seed names (a technical class 5) with room for masters.
    RuleSystem.CIERNIE: (0, 10),
    # Abilities 0 and up; 20 is far past a legendary master (sagas rarely pass 10).
    RuleSystem.ARSMAGICA: (0, 20),
}

# A catalog ability's, flaw's or item's modifier per system (docs/decisions.md, issue 10):
# forum1000 threshold points (as its typed modifiers, ±500), q10 dice (a pool never passes
# 10), ciernie threshold points (as its difficulty levels, ±12), Ars Magica a plain bonus.
MODIFIER_RANGE = {
    RuleSystem.FORUM1000: (-500, 500),
    RuleSystem.Q10: (-10, 10),
    RuleSystem.CIERNIE: (-12, 12),
    RuleSystem.ARSMAGICA: (-10, 10),
}
KEEP_MODIFIER_RANGE = (-10, 10)  # q10: the kept dice (Y)


@dataclass(frozen=True)
class SystemWords:
    """What a system calls the parts of a sheet (Polish through the catalogue)."""

    attribute: Promise
    attributes: Promise
    skill: Promise
    skills: Promise
    traits: Promise  # abilities and flaws (Trait rows)
    ability: Promise
    flaw: Promise


WORDS = {
    RuleSystem.FORUM1000: SystemWords(
        _("Attribute"),
        _("Attributes"),
        _("Skill"),
        _("Skills"),
        _("Abilities and flaws"),
        _("ability"),
        _("flaw"),
    ),
    RuleSystem.Q10: SystemWords(
        pgettext_lazy("q10", "Attribute"),
        pgettext_lazy("q10", "Attributes"),
        pgettext_lazy("q10", "Skill"),
        pgettext_lazy("q10", "Skills"),
        pgettext_lazy("q10", "Abilities and flaws"),
        pgettext_lazy("q10", "ability"),
        pgettext_lazy("q10", "flaw"),
    ),
    RuleSystem.CIERNIE: SystemWords(
        pgettext_lazy("ciernie", "Attribute"),
        pgettext_lazy("ciernie", "Attributes"),
        pgettext_lazy("ciernie", "Skill"),
        pgettext_lazy("ciernie", "Skills"),
        pgettext_lazy("ciernie", "Abilities and flaws"),
        pgettext_lazy("ciernie", "ability"),
        pgettext_lazy("ciernie", "flaw"),
    ),
    # Ars Magica's "abilities" are the seed's Umiejętności (the catalog's skills); its
    # virtues and flaws (the catalog's abilities and flaws) are "Zalety i wady", so no
    # label says "Zdolność", which forum1000 uses for an ability (trait).
    RuleSystem.ARSMAGICA: SystemWords(
        pgettext_lazy("arsmagica", "Characteristic"),
        pgettext_lazy("arsmagica", "Characteristics"),
        pgettext_lazy("arsmagica", "Ability"),
        pgettext_lazy("arsmagica", "Abilities"),
        pgettext_lazy("arsmagica", "Virtues and flaws"),
        pgettext_lazy("arsmagica", "virtue"),
        pgettext_lazy("arsmagica", "flaw"),
    ),
}


def words_for(system: str) -> SystemWords:
    return WORDS.get(system, WORDS[RuleSystem.FORUM1000])


def range_message(low: int, high: int) -> str:
    """The refusal next to a sheet's number outside its system's range."""
    signed = low < 0  # Ars Magica's characteristics: written with their signs
    return gettext("Allowed values in this rule system: %(low)s to %(high)s.") % {
        "low": signed_number(low) if signed else low,
        "high": signed_number(high) if signed else high,
    }
