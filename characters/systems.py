"""The rule systems a session (and a character) is played in, as the sheets see them: the
registry of what each system's sheet holds (ranges, words), the numbers it derives from it,
and the rules outside a roll the diary applies (movement, an NPC's fixed modifier).

The keys are the engine's (rolls/engine/<key>.py); labels are what people read. The roll
path has its own registry (rolls/systems/), which characters and diary never import.
"""

from dataclasses import dataclass

from django.db import models
from django.utils.functional import Promise
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from characters.numbers import signed_number, with_minus
from rolls.engine import forum1000, q10  # pure rules: characters may use them


class RuleSystem(models.TextChoices):
    FORUM1000 = "forum1000", _("forum1000 (d1000, the game's own system)")
    Q10 = "q10", _("Q10 (XzY d10 pools)")
    CIERNIE = "ciernie", _("Ciernie i Gwiazdy (d20)")
    ARSMAGICA = "arsmagica", _("Ars Magica (d10)")


# What a character sheet accepts per system (inclusive bounds); docs/decisions.md
# ("Sheets per system") says why each. Every system listed here can have characters and sessions.
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

# A catalog ability's, flaw's or item's modifier per system (docs/decisions.md, "The
# catalogs"): d1000 threshold points (as its typed modifiers, ±500), q10 dice (a pool never
# passes 10), ciernie threshold points (as its difficulty levels, ±12), Ars Magica a plain
# bonus.
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
    # label says "Zdolność", the game's own word for an ability (trait).
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


# The catalog fields only one system reads (q10's kept dice, ciernie's reroll sources, the
# healing kind and mount of the d1000 system): other systems' forms leave them out.
CATALOG_FIELD_SYSTEMS = {
    "keep_modifier": RuleSystem.Q10,
    "rerolls": RuleSystem.CIERNIE,
    "is_mount": RuleSystem.FORUM1000,
    "heals": RuleSystem.FORUM1000,
}


# Movement and initiative are read off this attribute (RULES 1.4, 1.5); the engine owns the
# name.
SPEED_ATTRIBUTE = forum1000.SPEED_ATTRIBUTE

# The rules of the systems that count movement per action (RULES 1.5): `movement_metres`
# (metres per action at a speed, on foot and mounted), `move_actions` (the actions a
# distance takes) and `MOVE_ACTIONS_PER_TURN`.
MOVEMENT_RULES = {RuleSystem.FORUM1000: forum1000}

# An NPC's fixed modifier is a GM difficulty modifier (RULES 1.2): a multiple of the step
# within the limit, never 0.
NPC_MODIFIER_STEP = forum1000.GM_STEP
NPC_MODIFIER_LIMIT = forum1000.GM_LIMITS[forum1000.Scope.GM_DIFFICULTY]

# The sheet's derived number of a skill, as its table's column names it.
DERIVED_LABELS = {
    RuleSystem.FORUM1000: _("Threshold"),
    RuleSystem.Q10: _("Pool (XzY)"),
    RuleSystem.ARSMAGICA: _("Characteristic + ability"),
}


def skill_numbers(system: str, level: int, value: int) -> tuple[int | None, str | None]:
    """(the threshold a roll must not exceed before modifiers, where the system has one;
    the number the sheet shows) for a skill at `level` on an attribute of `value`."""
    if system == RuleSystem.FORUM1000:
        threshold = forum1000.skill_base_threshold(level, value)
        return threshold, str(threshold)
    if system == RuleSystem.Q10:
        if not level:
            return None, None
        pool = q10.effective_pool(q10.PoolTest(difficulty=0, attribute=value, skill=level))
        return None, f"{pool.x}z{pool.y}"
    if system == RuleSystem.ARSMAGICA:
        return None, f"{signed_number(value)} + {level} = {signed_number(value + level)}"
    return None, None


# What a sheet's ability, flaw or item tied to an attribute changes in a test, as the sheet
# says it beside the attribute (RULES 1.2, 2, 3, 4): the d1000 attribute test's threshold
# (a skill or combined roll takes half), q10's pool, ciernie's threshold, Ars Magica's
# characteristic. Each counts only when it applies to the test (seed 000: "Jeśli takowe
# stosują się do danej sytuacji"), ticked in the roll panel.
SOURCE_TEST_LABELS = {
    RuleSystem.FORUM1000: _("attribute test"),
    RuleSystem.Q10: _("pool"),
    RuleSystem.CIERNIE: pgettext_lazy("ciernie", "test"),
    RuleSystem.ARSMAGICA: pgettext_lazy("arsmagica", "test"),
}


def attribute_with_source(system: str, name: str, value: int, dice: int, keep: int) -> str:
    """What a test of this attribute uses with one source (its `modifier` as `dice`, q10's
    `keep_modifier` as `keep`): the threshold, the characteristic, or q10's pool modifier."""
    if system == RuleSystem.FORUM1000:
        bonus = forum1000.Modifier(dice, forum1000.Scope.ATTRIBUTE, attribute=name)
        test = forum1000.AttributeTest(forum1000.Attribute(name, value), (bonus,))
        return with_minus(str(forum1000.threshold(test).value))
    if system == RuleSystem.Q10:
        return pool_modifier_text(dice, keep)
    if system == RuleSystem.ARSMAGICA:
        return signed_number(value + dice)
    return with_minus(str(value + dice))


def skill_with_source(
    system: str, name: str, level: int, value: int, dice: int, keep: int
) -> str | None:
    """The skill's derived number (`skill_numbers`) with one source of its attribute, or None
    where the sheet shows none."""
    if system == RuleSystem.FORUM1000:
        bonus = forum1000.Modifier(dice, forum1000.Scope.ATTRIBUTE, attribute=name)
        test = forum1000.SkillTest(level, forum1000.Attribute(name, value), (bonus,))
        return with_minus(str(forum1000.threshold(test).value))
    if system == RuleSystem.Q10:
        if not level:
            return None
        test = q10.PoolTest(
            difficulty=0,
            attribute=value,
            skill=level,
            pool_modifiers=(q10.PoolModifier(dice=dice, keep=keep),),
        )
        pool = q10.effective_pool(test)
        return f"{pool.x}z{pool.y}"
    if system == RuleSystem.ARSMAGICA:
        return signed_number(value + level + dice)
    return None


def pool_modifier_text(dice: int, keep: int) -> str:
    """A q10 pool modifier as the seed writes it: +1z1, −1z0."""
    text = f"{signed_number(dice) if dice else '0'}z{keep:+d}".replace("z+", "z")
    return with_minus(text)


def words_for(system: str) -> SystemWords:
    return WORDS.get(system, WORDS[RuleSystem.FORUM1000])


def range_message(low: int, high: int) -> str:
    """The refusal next to a sheet's number outside its system's range."""
    signed = low < 0  # Ars Magica's characteristics: written with their signs
    return gettext("Allowed values in this rule system: %(low)s to %(high)s.") % {
        "low": signed_number(low) if signed else low,
        "high": signed_number(high) if signed else high,
    }
