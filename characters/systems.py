"""The four rule systems a session (and a character) is played in.

The keys are the engine's (rolls/engine/<key>.py); labels are what people read.
"""

from django.db import models
from django.utils.translation import gettext_lazy as _

# forum1000 reads movement and initiative off this attribute (RULES 1.4, 1.5); the engine
# owns the name, the sheets re-export it.
from rolls.engine.forum1000 import SPEED_ATTRIBUTE  # noqa: F401


class RuleSystem(models.TextChoices):
    FORUM1000 = "forum1000", _("forum1000 (d1000, the game's own system)")
    Q10 = "q10", _("Q10 (XzY d10 pools)")
    CIERNIE = "ciernie", _("Ciernie i Gwiazdy (d20)")
    ARSMAGICA = "arsmagica", _("Ars Magica (d10)")


# What a character sheet accepts per system. Only systems listed here can have
# characters yet; the others get their sheets with their own issues.
ATTRIBUTE_RANGE = {RuleSystem.FORUM1000: (0, 1000)}
SKILL_LEVEL_RANGE = {RuleSystem.FORUM1000: (0, 25)}
