"""What a Q10 roll keeps beside the engine's record: what each declared raise is for."""

from __future__ import annotations

from dataclasses import dataclass

from rolls.plugins import Effect, RollContext


@dataclass(frozen=True)
class RaisePurposes(Effect):
    """Seed 001: "Jeśli gracz chce uzyskać konkretny efekt, powinien go opisać" — one short
    text per raise, kept in the roll's record and shown in its line."""

    purposes: tuple[str, ...] = ()
    key: str = "raise_purposes"
    visible: bool = False  # words only: a secret roll may carry them

    def apply(self, context: RollContext, result, seq: int) -> list[str]:
        return list(self.purposes)

    def digest_data(self) -> dict:
        return {"raise_purposes": list(self.purposes)}
