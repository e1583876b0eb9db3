from django.contrib import admin

from diary.models import GameSession, Participation, Post, PostRevision, Turn


class ParticipationInline(admin.TabularInline):
    model = Participation
    extra = 0
    raw_id_fields = ["character"]


@admin.register(GameSession)
class GameSessionAdmin(admin.ModelAdmin):
    list_display = ["title", "gm", "system", "status", "criticals_enabled", "created_at"]
    list_filter = ["system", "status"]
    search_fields = ["title", "gm__username"]
    raw_id_fields = ["gm"]
    inlines = [ParticipationInline]


@admin.register(Turn)
class TurnAdmin(admin.ModelAdmin):
    list_display = ["session", "number", "opened_at", "opened_by"]
    raw_id_fields = ["session", "opened_by"]


class PostRevisionInline(admin.TabularInline):
    model = PostRevision
    extra = 0
    can_delete = False
    readonly_fields = ["version", "narration", "nc_note", "character", "written_by", "written_at"]

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Post)
class PostAdmin(admin.ModelAdmin):
    """Posts are read here; they change only through the diary (which keeps revisions)."""

    list_display = ["id", "session", "turn", "author", "character", "created_at", "hidden_at"]
    list_filter = ["session"]
    readonly_fields = [f.name for f in Post._meta.fields]
    inlines = [PostRevisionInline]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
