from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RollsConfig(AppConfig):
    name = "rolls"
    verbose_name = _("Rolls")

    def ready(self) -> None:
        from diary import selectors as diary_selectors
        from rolls.selectors import rolls_prefetch

        # The diary shows each post's rolls through the relation, in one extra query.
        diary_selectors.register_post_prefetch(rolls_prefetch())
