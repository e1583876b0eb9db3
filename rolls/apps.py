from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RollsConfig(AppConfig):
    name = "rolls"
    verbose_name = _("Rolls")

    def ready(self) -> None:
        from diary import capabilities as diary_capabilities
        from diary import selectors as diary_selectors
        from diary import services as diary_services
        from rolls import registry, services
        from rolls.ledger import fair_dice
        from rolls.posts.presenters import diary_rolls
        from rolls.selectors import turn_actions

        # The diary page gets what it shows of rolls precomputed, without importing rolls;
        # its movement check (RULES 1.5) asks how many action rolls a character made.
        diary_selectors.register_diary_rolls(diary_rolls)
        diary_selectors.register_turn_actions(turn_actions)
        # A turn's dice seeds are committed as it opens and revealed as it closes; a session's
        # end reveals its secret rolls and every seed still held.
        diary_services.register_turn_listeners(
            turn_opened=fair_dice.turn_opened, session_finishing=services.session_finishing
        )
        # Which systems' sessions offer "criticals off" is each plug-in's to say.
        diary_capabilities.register_criticals_setting(registry.criticals_setting_systems)
        # Each rule system's plug-in registers itself (rolls.registry).
        registry.load()
