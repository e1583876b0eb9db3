"""What a forum1000 roll does beyond its record, in the roll's own transaction: a healing
roll heals its patient and may free one effect (RULES 1.6); an initiative roll opens the
initiative event (RULES 1.4); a roll against an NPC's fixed modifier names the NPC."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils import timezone
from django.utils.translation import gettext as _

from characters.models import (
    HEALED_EFFECT_KINDS,
    Character,
    EffectKind,
    HealingKind,
    NegativeEffect,
    SheetChangeKind,
)
from characters.services import sheet_record_change
from diary.models import NpcModifier
from rolls.initiative.services import initiative_event_open
from rolls.models import InitiativeEvent
from rolls.plugins import Effect, RequestError, RollContext
from rolls.systems.forum1000.requests import NpcTarget


@dataclass(frozen=True)
class Heals(Effect):
    """RULES 1.6: on a success the patient's HP rise by the distance (and the critical
    bonus), on critical bad luck they fall; a success frees the chosen effect, if the skill
    heals its kind. Both are written to the sheet's history too."""

    key: str = "healing"
    patient_id: int = 0
    effect_id: int | None = None
    heals: str = ""  # the skill's healing kind (characters.models.HealingKind)

    def lock(self) -> None:
        # HP are tended outside sessions too (the sheet): hold the patient still.
        list(Character.objects.select_for_update().filter(pk=self.patient_id))
        if self.effect_id:
            list(NegativeEffect.objects.select_for_update().filter(pk=self.effect_id))

    def check(self, context: RollContext) -> None:
        if not self.effect_id:
            return
        effect = NegativeEffect.objects.filter(
            pk=self.effect_id, character_id=self.patient_id, freed_at__isnull=True
        ).first()
        if effect is None:
            raise RequestError("effect", "not_on_sheet")
        if effect.kind not in HEALED_EFFECT_KINDS[HealingKind(self.heals)]:
            raise RequestError("effect", "wrong_effect_kind", kind=EffectKind(effect.kind).label)

    def apply(self, context: RollContext, result, seq: int) -> dict:
        patient = Character.objects.get(pk=self.patient_id)
        hp_before = patient.hp_current
        freed = None
        if result.effect.frees_effect and self.effect_id:
            effect = NegativeEffect.objects.get(pk=self.effect_id)
            effect.freed_at = timezone.now()
            effect.freed_note = _("Healed by roll #%(seq)s") % {"seq": seq}
            effect.save(update_fields=["freed_at", "freed_note"])
            freed = {"id": effect.pk, "kind": effect.kind, "description": effect.description}
        patient.hp_current = result.effect.hp_after
        patient.save(update_fields=["hp_current", "updated_at"])
        sheet_record_change(
            character=patient,
            by=context.by,
            kind=SheetChangeKind.HEALING,
            note=_("Healing roll #%(seq)s: HP %(before)s → %(after)s")
            % {"seq": seq, "before": hp_before, "after": patient.hp_current},
        )
        return {"hp_before": hp_before, "hp_after": patient.hp_current, "freed_effect": freed}

    def digest_data(self) -> dict:
        return {"healing": [self.patient_id, self.effect_id]}


@dataclass(frozen=True)
class OpensInitiativeEvent(Effect):
    """Seed 000 line 109: one initiative roll per event. While one runs another is refused;
    the roll opens the next one, named as the GM named it."""

    name: str = ""

    def check(self, context: RollContext) -> None:
        running = InitiativeEvent.objects.running().filter(session=context.session).first()
        if running is not None:
            raise RequestError("event_name", "event_running", name=running.name or _("untitled"))

    def after(self, context: RollContext, roll) -> None:
        initiative_event_open(session=context.session, roll=roll, by=context.by, name=self.name)

    def digest_data(self) -> dict:
        return {"initiative_event": self.name}


@dataclass(frozen=True)
class TargetsNpc(Effect):
    """Mode fixed_modifiers: the record names the NPC whose modifier the roll carries (the
    modifier itself is in the engine's input, as a GM difficulty modifier)."""

    key: str = "npc"
    visible: bool = False
    target: NpcTarget | None = None
    modifier_id: int | None = None

    def apply(self, context: RollContext, result, seq: int) -> dict | None:
        return self.target.to_record() if self.target else None

    def after(self, context: RollContext, roll) -> None:
        # Seed 000 line 51: once a roll carried it, the modifier stays as it was for the
        # session (diary.npcs.services refuses to change it); the first such roll is named.
        if self.modifier_id:
            NpcModifier.objects.filter(pk=self.modifier_id, used_by_seq__isnull=True).update(
                used_by_seq=roll.seq
            )

    def digest_data(self) -> dict:
        return {"npc": self.target.to_record() if self.target else None}
