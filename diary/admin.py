from django.contrib import admin

from config.admin_readonly import ReadOnlyAdmin, ReadOnlyTabularInline
from diary.models import GameSession, Participation, PlanSubmission, Post, PostRevision, Turn

# Everything here is read-only: the diary's services keep its rules.


class ParticipationInline(ReadOnlyTabularInline):
    model = Participation


@admin.register(GameSession)
class GameSessionAdmin(ReadOnlyAdmin):
    list_display = ["title", "gm", "system", "status", "criticals_enabled", "created_at"]
    list_filter = ["system", "status"]
    search_fields = ["title", "gm__username"]
    inlines = [ParticipationInline]


@admin.register(Turn)
class TurnAdmin(ReadOnlyAdmin):
    list_display = ["session", "number", "opened_at", "opened_by"]


class PostRevisionInline(ReadOnlyTabularInline):
    model = PostRevision


@admin.register(Post)
class PostAdmin(ReadOnlyAdmin):
    """Posts are read here; they change only through the diary (which keeps revisions)."""

    list_display = ["id", "session", "turn", "author", "character", "created_at", "hidden_at"]
    list_filter = ["session"]
    inlines = [PostRevisionInline]


# The session plan: read-only like the rest; reviews happen on the plan page.
@admin.register(PlanSubmission)
class PlanSubmissionAdmin(ReadOnlyAdmin):
    list_display = ["session", "number", "submitted_by", "submitted_at", "decision", "reviewed_by"]
    list_filter = ["decision"]
