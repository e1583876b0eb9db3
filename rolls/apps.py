from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RollsConfig(AppConfig):
    name = "rolls"
    verbose_name = _("Rolls")

    def ready(self) -> None:
        from diary import capabilities as diary_capabilities
        from diary import selectors as diary_selectors
        from rolls import registry
        from rolls.selectors import diary_rolls, turn_actions

        # The diary page gets what it shows of rolls precomputed, without importing rolls;
        # its movement check (RULES 1.5) asks how many action rolls a character made.
        diary_selectors.register_diary_rolls(diary_rolls)
        diary_selectors.register_turn_actions(turn_actions)
        # Which systems' sessions offer "criticals off" is each plug-in's to say.
        diary_capabilities.register_criticals_setting(registry.criticals_setting_systems)
        # Each rule system's plug-in registers itself (rolls.registry).
        registry.load()
