from django.contrib import admin

from config.admin_readonly import ReadOnlyAdmin
from rolls.models import Roll


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
