"""Read-only admin pages for game records.

Sessions, participations, turns, posts, revisions and characters change only
through the site's services, which keep the diary's invariants (sheet revisions,
participation history, rolls tied to their turn). The admin may look, never
add, change or delete them; the catalogs stay editable.
"""

from django.contrib import admin


class ReadOnlyMixin:
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ReadOnlyAdmin(ReadOnlyMixin, admin.ModelAdmin):
    pass


class ReadOnlyTabularInline(ReadOnlyMixin, admin.TabularInline):
    extra = 0
