"""Reads for the diary's entries: whom an HP change or an effect may name, the items a player may
use, the characters one records actions for."""

from __future__ import annotations

from characters.models import Character, HealingPotion
from diary.models import NpcMode, ParticipationStatus
from rolls.models import (
    InitiativeParticipant,
)
from rolls.selectors import sheets_in_play


def npc_entry_targets(session) -> list[tuple[int, str, bool]]:
    """The running fight's sheet-less NPCs, as (key, name, has HP) (one query): every one
    may take an effect, those the GM gave HP an HP entry too. A hidden NPC is not offered:
    an entry is read by everyone in the diary."""
    rows = InitiativeParticipant.objects.filter(
        event__session=session,
        event__ended_at__isnull=True,
        npc__isnull=False,
        npc__visible_to_players=True,
    ).order_by("name")
    return [
        (-npc_id, name, hp_max is not None)
        for npc_id, name, hp_max in rows.values_list("npc_id", "name", "hp_max")
    ]


def entry_targets(session) -> list[Character]:
    """The characters the GM's diary entries may name: the accepted ones and the NPCs'
    stand-ins (mode gm_character), by name (one query)."""
    from django.db.models import Q

    playing = Q(
        participations__session=session, participations__status=ParticipationStatus.ACCEPTED
    )
    stand_ins = Q(
        is_stand_in=True,
        npc_role__session=session,
        npc_role__session__npc_mode=NpcMode.GM_CHARACTER,
    )
    return list(
        Character.objects.filter(playing | stand_ins).distinct().only("pk", "name").order_by("name")
    )


def usable_items(session, user, *, is_gm: bool) -> list:
    """Potions and healing items of the characters playing in the session that this user may
    use: their own characters', or every one for the GM (one query)."""
    potions = HealingPotion.objects.filter(
        character__participations__session=session,
        character__participations__status=ParticipationStatus.ACCEPTED,
    )
    if not is_gm:
        potions = potions.filter(character__owner=user)
    return list(potions.select_related("character").order_by("character__name", "id"))


def characters_acting_for(session, user, *, is_gm: bool) -> list:
    """The characters playing in the session this user records actions for: their own, or
    every one (stand-ins too) for the GM."""
    playing = sheets_in_play(session).values()
    return sorted(
        (c for c in playing if is_gm or c.owner_id == user.pk), key=lambda c: (c.name, c.pk)
    )
