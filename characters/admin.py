from django.contrib import admin
from django.utils.translation import gettext as _

from characters.models import (
    Attribute,
    AttributeValue,
    Character,
    HealingPotion,
    Item,
    ItemHolding,
    NegativeEffect,
    Skill,
    SkillLevel,
    Trait,
)
from characters.selectors import catalog_entry_in_use
from characters.systems import CATALOG_FIELD_SYSTEMS
from config.admin_readonly import ReadOnlyAdmin, ReadOnlyTabularInline


class CatalogAdmin(admin.ModelAdmin):
    """A catalog row stays editable until a sheet holds it.

    Then its rule-bearing fields are read-only and it cannot be deleted: either
    would change every holder's sheet (thresholds, abilities, initiative) with no
    sheet revision. New rows and descriptions stay editable.
    """

    rule_fields: tuple[str, ...] = ()

    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        if obj is not None and catalog_entry_in_use(obj):
            fields += [name for name in self.rule_fields if name not in fields]
        return fields

    def has_delete_permission(self, request, obj=None):
        if obj is not None and catalog_entry_in_use(obj):
            return False
        return super().has_delete_permission(request, obj)

    def get_deleted_objects(self, objs, request):
        # The changelist's bulk delete: rows in use fail has_delete_permission, which
        # Django reports as a missing permission. Name them as protected instead, which
        # refuses the deletion just the same and says why.
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        in_use = [
            _("%(entry)s: in use on a character sheet") % {"entry": entry}
            for entry in objs
            if catalog_entry_in_use(entry)
        ]
        if in_use:
            return deleted, counts, set(), [*protected, *in_use]
        return deleted, counts, perms_needed, protected


class SystemFieldsMixin:
    """A row's change form shows only the fields its system reads
    (characters.systems.CATALOG_FIELD_SYSTEMS); a new row's form shows them all, since its
    system is chosen in it."""

    system_fields = CATALOG_FIELD_SYSTEMS

    def get_fields(self, request, obj=None):
        fields = super().get_fields(request, obj)
        if obj is None:
            return fields
        return [f for f in fields if self.system_fields.get(f, obj.system) == obj.system]


@admin.register(Attribute)
class AttributeAdmin(CatalogAdmin):
    list_display = ["name", "system", "position"]
    list_filter = ["system"]
    rule_fields = ("system", "name", "position")


@admin.register(Skill)
class SkillAdmin(SystemFieldsMixin, CatalogAdmin):
    list_display = ["name", "system", "attribute", "heals"]
    list_filter = ["system", "attribute"]
    search_fields = ["name"]
    rule_fields = ("system", "name", "attribute", "heals")


@admin.register(Trait)
class TraitAdmin(SystemFieldsMixin, CatalogAdmin):
    list_display = ["name", "kind", "system", "attribute", "modifier", "keep_modifier", "rerolls"]
    list_filter = ["system", "kind", "rerolls"]
    search_fields = ["name"]
    rule_fields = (
        "system",
        "kind",
        "name",
        "attribute",
        "modifier",
        "keep_modifier",
        "rerolls",
        "botch_dice_reduction",
    )


@admin.register(Item)
class ItemAdmin(SystemFieldsMixin, CatalogAdmin):
    list_display = ["name", "system", "attribute", "modifier", "keep_modifier", "rerolls"]
    list_filter = ["system", "rerolls"]
    search_fields = ["name"]
    rule_fields = (
        "system",
        "name",
        "attribute",
        "modifier",
        "keep_modifier",
        "rerolls",
        "is_mount",
    )


class AttributeValueInline(ReadOnlyTabularInline):
    model = AttributeValue


class SkillLevelInline(ReadOnlyTabularInline):
    model = SkillLevel


class ItemHoldingInline(ReadOnlyTabularInline):
    model = ItemHolding


class NegativeEffectInline(ReadOnlyTabularInline):
    model = NegativeEffect


class HealingPotionInline(ReadOnlyTabularInline):
    model = HealingPotion


@admin.register(Character)
class CharacterAdmin(ReadOnlyAdmin):
    """Sheets change only on the site, which records each change in the sheet's history."""

    list_display = ["name", "owner", "system", "hp_current", "hp_max"]
    list_filter = ["system"]
    search_fields = ["name", "owner__username"]
    inlines = [
        AttributeValueInline,
        SkillLevelInline,
        ItemHoldingInline,
        NegativeEffectInline,
        HealingPotionInline,
    ]
