"""characters.sheet_rows reads in one statement what with_values() reads in five, the same."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from characters.models import Character, Item, ItemHolding, Trait
from characters.sheet_rows import sheets_with_values

pytestmark = pytest.mark.django_db


def _described(character) -> dict:
    """Everything a roll reads off the sheet, as plain values (in the order given)."""
    return {
        "owner": character.owner.username,
        "values": [
            (v.pk, v.character_id, v.value, v.attribute.pk, v.attribute.name, v.attribute.position)
            for v in character.attribute_values.all()
        ],
        "skills": [
            (
                s.pk,
                s.level,
                s.skill.pk,
                s.skill.name,
                s.skill.heals,
                s.skill.attribute.pk,
                s.skill.attribute.name,
            )
            for s in character.skill_levels.all()
        ],
        "traits": [
            (
                t.pk,
                t.kind,
                t.name,
                t.modifier,
                t.keep_modifier,
                t.rerolls,
                t.botch_dice_reduction,
                t.attribute_id,
                t.attribute.name if t.attribute_id else None,
            )
            for t in character.traits.all()
        ],
        "items": [
            (
                h.pk,
                h.quantity,
                h.item.pk,
                h.item.name,
                h.item.modifier,
                h.item.is_mount,
                h.item.rerolls,
                h.item.attribute_id,
                h.item.attribute.name if h.item.attribute_id else None,
            )
            for h in character.item_holdings.all()
        ],
    }


def test_one_statement_gives_what_the_four_prefetches_give(table):
    lirael = table.lirael
    # Items with and without an attribute, and abilities, so every join is exercised.
    for item in Item.objects.filter(system=lirael.system).order_by("-name")[:3]:
        ItemHolding.objects.create(character=lirael, item=item, quantity=2)
    lirael.traits.add(*Trait.objects.filter(system=lirael.system).order_by("name")[:4])
    wanted = Character.objects.filter(pk__in=[table.lirael.pk, table.borys.pk])

    prefetched = [_described(c) for c in wanted.with_values()]
    with CaptureQueriesContext(connection) as queries:
        read = sheets_with_values(wanted)
        described = [_described(c) for c in read]
    assert len(queries.captured_queries) == 1
    assert described == prefetched
    theirs = described[[c.pk for c in read].index(lirael.pk)]
    assert theirs["items"] and theirs["traits"] and theirs["values"] and theirs["skills"]
    # The instances behave as fetched ones: a change saves, a relation reads back.
    value = read[0].attribute_values.all()[0]
    value.value += 1
    value.save(update_fields=["value"])
    assert type(value).objects.get(pk=value.pk).value == value.value


def test_a_sheet_with_nothing_on_it_reads_empty_lists(make_user, make_character):
    bare = make_character(make_user("pusty"), "Pusty")
    bare.attribute_values.all().delete()
    bare.skill_levels.all().delete()
    (read,) = sheets_with_values(Character.objects.filter(pk=bare.pk))
    assert _described(read) == _described(Character.objects.with_values().get(pk=bare.pk))
