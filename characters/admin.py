from django.contrib import admin

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
from config.admin_readonly import ReadOnlyAdmin, ReadOnlyTabularInline


@admin.register(Attribute)
class AttributeAdmin(admin.ModelAdmin):
    list_display = ["name", "system", "position"]
    list_filter = ["system"]


@admin.register(Skill)
class SkillAdmin(admin.ModelAdmin):
    list_display = ["name", "system", "attribute", "heals"]
    list_filter = ["system", "attribute"]
    search_fields = ["name"]


@admin.register(Trait)
class TraitAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "system", "attribute", "modifier"]
    list_filter = ["system", "kind", "attribute"]
    search_fields = ["name"]


@admin.register(Item)
class ItemAdmin(admin.ModelAdmin):
    list_display = ["name", "system", "attribute", "modifier"]
    list_filter = ["system"]
    search_fields = ["name"]


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
