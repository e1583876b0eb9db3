"""Sheets with what a roll reads off them, in one statement.

`CharacterQuerySet.with_values()` reads a sheet's attribute values, skill levels, abilities
and flaws, and items as four prefetches (five queries). The roll path reads the sheets in
play on every preview and every roll, so `sheets_with_values` reads the same in one: each
character row carries its four lists as JSON arrays (a correlated subquery each, aggregated
by the database: PostgreSQL's json_agg, SQLite's json_group_array), and the lists become the
same model instances the prefetches give, in the same order, in each character's prefetch
cache. Code reading `character.attribute_values.all()` and the rest cannot tell the two
apart (tests/characters/test_sheet_rows.py holds them side by side).
"""

from __future__ import annotations

import json

from django.db import connection, models
from django.db.models import F, OuterRef, Subquery
from django.db.models.functions import JSONObject

from characters.models import (
    Attribute,
    AttributeValue,
    Character,
    Item,
    ItemHolding,
    Skill,
    SkillLevel,
    Trait,
)


class JSONRows(models.Aggregate):
    """The group's rows as one JSON array, as text. PostgreSQL aggregates them in the order
    given; SQLite before 3.44 cannot order an aggregate, so `_unpack` sorts them as SQLite's
    own (binary) ordering would."""

    function = "JSON_AGG"
    allow_order_by = True
    output_field = models.TextField()

    def as_postgresql(self, compiler, connection, **extra_context):
        sql, params = self.as_sql(compiler, connection, **extra_context)
        return f"CAST({sql} AS text)", params

    def as_sqlite(self, compiler, connection, **extra_context):
        unordered = self.copy()
        unordered.order_by = None
        return unordered.as_sql(compiler, connection, function="JSON_GROUP_ARRAY", **extra_context)


def _fields(model, path: str) -> dict:
    """Each concrete column of `model`, reached at `path` (a lookup from the row), keyed
    `path.attname`."""
    prefix = f"{path}__" if path else ""
    return {f"{path}.{f.attname}": F(f"{prefix}{f.attname}") for f in model._meta.concrete_fields}


# The four lists: (prefetch cache name, the rows' queryset, its columns by path, the order
# the prefetch gives them in: model Meta.ordering, as paths).
_LISTS = (
    (
        "attribute_values",
        AttributeValue.objects.all(),
        {"": AttributeValue, "attribute": Attribute},
        ("attribute.position", "attribute.name"),
    ),
    (
        "skill_levels",
        SkillLevel.objects.all(),
        {"": SkillLevel, "skill": Skill, "skill__attribute": Attribute},
        ("skill.name",),
    ),
    (
        "traits",
        Character.traits.through.objects.all(),
        {"trait": Trait, "trait__attribute": Attribute},
        ("trait.system", "trait.kind", "trait.name"),
    ),
    (
        "item_holdings",
        ItemHolding.objects.all(),
        {"": ItemHolding, "item": Item, "item__attribute": Attribute},
        ("item.name",),
    ),
)


def _path_key(path: str) -> str:
    return path.replace("__", ".")


def _annotation(rows, columns: dict, order: tuple[str, ...]) -> Subquery:
    fields = {}
    for path, model in columns.items():
        for key, expression in _fields(model, path).items():
            fields[_path_key(key.lstrip("."))] = expression
    ordering = [F(key.replace(".", "__")) for key in order]
    aggregate = JSONRows(JSONObject(**fields), order_by=ordering)
    grouped = (
        rows.filter(character_id=OuterRef("pk"))
        .order_by()
        .values("character_id")
        .annotate(rows=aggregate)
        .values("rows")[:1]
    )
    return Subquery(grouped, output_field=models.TextField())


def _instance(model, row: dict, path: str):
    """The model instance of `path` in a JSON row (None for a null foreign key)."""
    prefix = f"{_path_key(path)}." if path else ""
    pk = row.get(f"{prefix}{model._meta.pk.attname}")
    if pk is None:
        return None
    fields = model._meta.concrete_fields
    values = [f.to_python(row.get(f"{prefix}{f.attname}")) for f in fields]
    return model.from_db(connection.alias, [f.attname for f in fields], values)


def _built(columns: dict, row: dict):
    """The row's own instance (or the trait, for the traits' through rows) with each
    related instance set on it, as select_related would."""
    made = {path: _instance(model, row, path) for path, model in columns.items()}
    for path in sorted(made, key=len, reverse=True):
        if not path:
            continue
        parent, _, name = path.rpartition("__")
        if made.get(parent) is not None:
            setattr(made[parent], name, made[path])
    return made[""] if "" in made else made["trait"]


def _sort_key(order: tuple[str, ...]):
    def key(row: dict):
        return tuple(row.get(k) for k in order)

    return key


def _unpack(character, name: str, columns: dict, order, text: str | None) -> None:
    rows = json.loads(text) if text else []
    if connection.vendor == "sqlite":
        rows.sort(key=_sort_key(order))
    objects = [_built(columns, row) for row in rows]
    for obj in objects:
        if isinstance(obj, AttributeValue | SkillLevel | ItemHolding):
            obj.character = character
    queryset = getattr(character, name).all()
    queryset._result_cache = objects
    queryset._prefetch_done = True
    character._prefetched_objects_cache[name] = queryset


def sheets_with_values(characters) -> list[Character]:
    """The characters of this queryset, each with its attribute values, skill levels,
    abilities and flaws, and items as `with_values()` gives them, in one query."""
    annotated = characters.select_related("owner").annotate(
        **{
            f"_sheet_{name}": _annotation(rows, columns, order)
            for name, rows, columns, order in _LISTS
        }
    )
    result = list(annotated)
    for character in result:
        character._prefetched_objects_cache = getattr(character, "_prefetched_objects_cache", {})
        for name, _rows, columns, order in _LISTS:
            _unpack(character, name, columns, order, getattr(character, f"_sheet_{name}"))
            delattr(character, f"_sheet_{name}")
    return result
