from django.contrib import admin

from config.admin_readonly import ReadOnlyAdmin
from rolls.models import InitiativeChange, InitiativeEvent, Roll


@admin.register(Roll)
class RollAdmin(ReadOnlyAdmin):
    """Rolls are read here, never added, changed or deleted (RULES 1.8)."""

    list_display = ["session", "seq", "test", "character", "rolled_by", "created_at", "short_hash"]
    list_filter = ["test", "system"]
    search_fields = ["hash", "session__title", "character__name"]
    readonly_fields = [f.name for f in Roll._meta.fields]

    @admin.display(description="hash")
    def short_hash(self, roll: Roll) -> str:
        return roll.hash[:12]


@admin.register(InitiativeEvent)
class InitiativeEventAdmin(ReadOnlyAdmin):
    """Initiative events: changed only through the GM's controls, which write
    their history; read here."""

    list_display = ["session", "name", "opened_turn", "opened_at", "ended_at"]
    readonly_fields = [f.name for f in InitiativeEvent._meta.fields]


@admin.register(InitiativeChange)
class InitiativeChangeAdmin(ReadOnlyAdmin):
    """An event's history is append-only."""

    list_display = ["event", "kind", "by", "turn_number", "created_at", "reason"]
    list_filter = ["kind"]
    readonly_fields = [f.name for f in InitiativeChange._meta.fields]
