"""What an Ars Magica roll does beyond its record: the GM's stress roll may set the fewest
botch dice of the players' own stress rolls in the session (docs/decisions.md)."""

from __future__ import annotations

from dataclasses import dataclass

from rolls.models import StressBotchFloor
from rolls.plugins import Effect, RollContext


@dataclass(frozen=True)
class SetsPlayersBotchFloor(Effect):
    dice: int = 1
    key: str = "players_botch_floor"
    # It changes no sheet and opens nothing: a secret roll may carry it too.
    visible: bool = False

    def apply(self, context: RollContext, result, seq: int) -> int:
        return self.dice

    def after(self, context: RollContext, roll) -> None:
        StressBotchFloor.objects.update_or_create(
            session=context.session,
            defaults={"dice": self.dice, "set_by": context.by, "roll": roll},
        )

    def digest_data(self) -> dict:
        return {"players_botch_floor": self.dice}


def players_botch_floor(session, default: int) -> int:
    row = StressBotchFloor.objects.filter(session=session).first() if session else None
    return row.dice if row is not None else default
