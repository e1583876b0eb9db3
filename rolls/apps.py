from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RollsConfig(AppConfig):
    name = "rolls"
    verbose_name = _("Rolls")

    def ready(self) -> None:
        from diary import hooks
        from rolls import registry, services
        from rolls.inline import presenters as inline_presenters
        from rolls.inline import services as inline_services
        from rolls.ledger import fair_dice
        from rolls.posts.presenters import diary_rolls
        from rolls.posts.recap import recap_rolls
        from rolls.selectors import turn_actions

        # The diary imports no rolls module: it asks for its rules' parts through its one
        # extension point (diary/hooks.py), filled in here.
        hooks.register(
            hooks.DiaryHooks(
                diary_rolls=diary_rolls,
                turn_actions=turn_actions,
                turn_opened=fair_dice.turn_opened,
                session_finishing=services.session_finishing,
                criticals_setting_systems=registry.criticals_setting_systems,
                recap_rolls=recap_rolls,
                narration_dice=inline_services.narration_dice,
                narration_preview=inline_presenters.narration_preview,
            )
        )
        # A narration's sheet test shows its request's answer (rolls.inline).
        if inline_presenters.ask_closed not in services.ask_closed_listeners:
            services.ask_closed_listeners.append(inline_presenters.ask_closed)
        # Each rule system's plug-in registers itself (rolls.registry).
        registry.load()
