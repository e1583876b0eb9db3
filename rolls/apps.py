from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RollsConfig(AppConfig):
    name = "rolls"
    verbose_name = _("Rolls")

    def ready(self) -> None:
        import importlib
        import importlib.util

        # Issue 10: each case system's panel registers itself (rolls.cases.PANELS).
        for name in ("rolls.panel_q10", "rolls.panel_ciernie", "rolls.panel_arsmagica"):
            if importlib.util.find_spec(name) is not None:
                importlib.import_module(name)
        from diary import selectors as diary_selectors
        from rolls.selectors import diary_rolls, turn_actions

        # The diary page gets what it shows of rolls precomputed, without importing rolls;
        # its movement check (RULES 1.5) asks how many action rolls a character made.
        diary_selectors.register_diary_rolls(diary_rolls)
        diary_selectors.register_turn_actions(turn_actions)
