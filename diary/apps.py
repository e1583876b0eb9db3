from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DiaryConfig(AppConfig):
    name = "diary"
    verbose_name = _("Sessions and diary")

    def ready(self) -> None:
        from characters import access
        from diary import permissions

        access.register_read_rule(permissions.shares_session_with_character)
        access.register_tend_rule(permissions.runs_session_of_character)
        access.register_in_play_rule(permissions.plays_in_running_session)
        access.register_tended_query(permissions.characters_tended_by)
        access.register_diary_links(permissions.diary_links_for_tending)
        access.register_play_place(permissions.running_session_of)
