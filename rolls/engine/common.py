"""Small pieces shared by the four systems: type checks, plain modifiers, number rendering.

Nothing here knows a rule; it keeps the system modules about their rules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rolls.engine.errors import RuleError

# Marks "no default" for the input readers below.
_REQUIRED: Any = object()


def require_int(value: object, field: str) -> int:
    """`value` itself if it is an int (a bool is not), else the engine's error."""
    if type(value) is not int:
        raise RuleError(
            "invalid_input",
            f"{field} must be a whole number, got {value!r}",
            field=field,
            expected="integer",
        )
    return value


def require_bool(value: object, field: str) -> bool:
    if type(value) is not bool:
        raise RuleError(
            "invalid_input",
            f"{field} must be true or false, got {value!r}",
            field=field,
            expected="boolean",
        )
    return value


def require_optional_text(value: object, field: str) -> str | None:
    if value is not None and type(value) is not str:
        raise RuleError(
            "invalid_input",
            f"{field} must be text, got {value!r}",
            field=field,
            expected="text",
        )
    return value


def require_name(value: object, field: str) -> str:
    """A non-blank name (attribute or character)."""
    if type(value) is not str or not value.strip():
        raise RuleError(
            "invalid_input",
            f"{field} must be a non-empty name, got {value!r}",
            field=field,
            expected="name",
        )
    return value


def require_tuple(value: object, field: str) -> tuple[Any, ...]:
    """A list or tuple as a tuple (frozen dataclasses stay hashable); anything else is refused."""
    if isinstance(value, tuple | list):
        return tuple(value)
    raise RuleError(
        "invalid_input", f"{field} must be a list, got {value!r}", field=field, expected="list"
    )


def require_instances(values: tuple[Any, ...], kind: type, field: str) -> None:
    for item in values:
        if not isinstance(item, kind):
            raise RuleError(
                "invalid_input",
                f"{field} must hold {kind.__name__} values, got {item!r}",
                field=field,
                expected=kind.__name__,
            )


@dataclass(frozen=True)
class Adjustment:
    """A plain integer modifier (Q10 circumstance, d20 or Ars Magica modifier).

    `label`, `reason` and `source` are passed through untouched for display
    (e.g. label "Ciemność", the GM's reason, the item it comes from).
    """

    value: int
    label: str | None = None
    reason: str | None = None
    source: str | None = None

    def __post_init__(self) -> None:
        require_int(self.value, "modifier value")
        require_notes(self)

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, **notes_dict(self)}


def require_notes(item: Any) -> None:
    for name in ("label", "reason", "source"):
        require_optional_text(getattr(item, name), name)


def notes_dict(item: Any) -> dict[str, str | None]:
    return {"label": item.label, "reason": item.reason, "source": item.source}


def adjustments(values: object, field: str) -> tuple[Adjustment, ...]:
    """Plain ints are accepted as shorthand for an unlabelled `Adjustment`."""
    items = require_tuple(values, field)
    return tuple(item if isinstance(item, Adjustment) else Adjustment(item) for item in items)


def total(items: Sequence[Adjustment]) -> int:
    return sum(item.value for item in items)


def decimal_string(value: Fraction | int) -> str:
    """An exact terminating decimal: 675 → "675", 350.5 → "350.5", -12.5 → "-12.5".

    The engine only ever halves integers, so every value it renders terminates.
    """
    value = Fraction(value)
    sign = "-" if value < 0 else ""
    value = abs(value)
    whole, rest = divmod(value.numerator, value.denominator)
    if rest == 0:
        return f"{sign}{whole}"
    digits = []
    for _ in range(30):  # far more than a halving can need
        rest *= 10
        digit, rest = divmod(rest, value.denominator)
        digits.append(str(digit))
        if rest == 0:
            return f"{sign}{whole}.{''.join(digits)}"
    raise ValueError(f"{value} has no short exact decimal form")


def fraction_string(value: Fraction) -> str:
    """Always `numerator/denominator`, also for 0 and 1 ("0/1", "1/1")."""
    return f"{value.numerator}/{value.denominator}"


# ---------------------------------------------------------------------------
# Reading the vector/ledger input format (plain JSON objects) into dataclasses.


def read(data: Mapping[str, Any], key: str, default: Any = _REQUIRED) -> Any:
    if not isinstance(data, Mapping):
        raise RuleError(
            "invalid_input",
            f"expected an object with {key!r}, got {data!r}",
            field=key,
            expected="object",
        )
    if key in data:
        return data[key]
    if default is _REQUIRED:
        raise RuleError("invalid_input", f"{key} is missing", field=key, expected="present")
    return default


def read_adjustment(item: object, field: str) -> Adjustment:
    """`5` or `{"value": 5, "label": ..., "reason": ..., "source": ...}`."""
    if isinstance(item, Mapping):
        return Adjustment(
            read(item, "value"),
            label=item.get("label"),
            reason=item.get("reason"),
            source=item.get("source"),
        )
    return Adjustment(require_int(item, field))


def read_adjustments(data: Mapping[str, Any], key: str) -> tuple[Adjustment, ...]:
    items = require_tuple(read(data, key, []), key)
    return tuple(read_adjustment(item, key) for item in items)
