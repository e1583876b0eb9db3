"""What forum1000's forms read besides the sheets."""

from __future__ import annotations

from diary.models import NpcModifier


def npc_modifiers(session) -> list:
    """The session's NPC fixed modifiers the GM may target in the panel, hidden NPCs
    included: the GM knows them."""
    return list(
        NpcModifier.objects.filter(npc__session=session)
        .select_related("npc")
        .order_by("npc__name", "interaction", "pk")
    )
