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


class AttributeValueInline(admin.TabularInline):
    model = AttributeValue
    extra = 0


class SkillLevelInline(admin.TabularInline):
    model = SkillLevel
    extra = 0


class ItemHoldingInline(admin.TabularInline):
    model = ItemHolding
    extra = 0


class NegativeEffectInline(admin.TabularInline):
    model = NegativeEffect
    extra = 0


class HealingPotionInline(admin.TabularInline):
    model = HealingPotion
    extra = 0


@admin.register(Character)
class CharacterAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "system", "hp_current", "hp_max"]
    list_filter = ["system"]
    search_fields = ["name", "owner__username"]
    filter_horizontal = ["traits"]
    inlines = [
        AttributeValueInline,
        SkillLevelInline,
        ItemHoldingInline,
        NegativeEffectInline,
        HealingPotionInline,
    ]
