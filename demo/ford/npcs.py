"""The NPCs of the demo's main session (mode fixed_modifiers): the roster, a roll against
the merchant's fixed modifier and a moderator's correction of it, and NPCs in the gate
fight's tracker."""

import uuid

from characters.models import Skill
from characters.systems import RuleSystem
from diary.models import GameSession, Npc
from diary.npcs import services as npc_services
from rolls.entries import services as entries
from rolls.initiative import services as initiative_services
from rolls.models import InitiativeEvent
from rolls.services import roll_make
from rolls.systems.forum1000.cases import case_for
from rolls.systems.forum1000.requests import RollRequest, SideRequest

# The demo session's NPCs (mode fixed_modifiers, seed 000 line 51): name,
# description, visible to players, and (interaction, modifier, reason) rows.
DEMO_NPCS = [
    (
        "Stary kupiec",
        "Handluje solą i plotkami przy brodzie; wierzy w każdą dobrze opowiedzianą historię.",
        True,
        [("perswazja", 100, "łatwowierny"), ("targowanie", -100, "skąpy")],
    ),
    (
        "Wilki znad brodu",
        "Wataha krążąca we mgle; głodna, ale ostrożna.",
        True,
        [("zastraszanie", 50, "płoszą się od ognia")],
    ),
    (
        "Przewoźnik",
        "Zniknął przed świtem. Gracze jeszcze go nie spotkali.",
        False,
        [("perswazja", -200, "mistrz manipulacji")],
    ),
]


def seed_npcs(session: GameSession, gm, characters: dict, moderator=None) -> None:
    """The roster, and one roll against the merchant's fixed modifier in the current turn."""

    modifiers = {}
    for name, description, visible, rows in DEMO_NPCS:
        npc = npc_services.npc_create(
            session=session, by=gm, name=name, description=description, visible_to_players=visible
        )
        for interaction, value, reason in rows:
            modifiers[(name, interaction)] = npc_services.npc_modifier_create(
                npc=npc, by=gm, interaction=interaction, value=value, reason=reason
            )
    skill = Skill.objects.get(system=RuleSystem.FORUM1000, name="Przekupstwo")
    request = RollRequest(
        kind="skill",
        a=SideRequest(
            characters["Lirael"].pk,
            "skill",
            skill_id=skill.pk,
            npc_modifier_id=modifiers[("Stary kupiec", "perswazja")].pk,
        ),
    )
    roll_make(session=session, by=gm, case=case_for(session, request), token=uuid.uuid4())
    # The roll fixed the merchant's persuasion modifier for the session (seed line 51): the
    # GM can no longer change it; a moderator's correction stays in the NPC's history.
    if moderator is not None:
        used = modifiers[("Stary kupiec", "perswazja")]
        used.refresh_from_db()
        npc_services.npc_modifier_correct(
            modifier=used,
            by=moderator,
            value=used.value,
            reason="łatwowierny, zwłaszcza wobec elfów",
            note="Doprecyzowanie powodu na prośbę MG; wartość bez zmian.",
        )
    seed_npcs_in_fight(session, gm)


def seed_npcs_in_fight(session: GameSession, gm) -> None:
    """The gate fight's tracker with NPCs (RULES 1.7, no sheets in this mode): the wolves
    with the value and HP the GM gave them, already wounded; the ferryman, hidden from
    players, lurking in the order only the GM sees."""

    event = InitiativeEvent.objects.running().filter(session=session).first()
    if event is None:
        return
    wolves = Npc.objects.get(session=session, name="Wilki znad brodu")
    ferryman = Npc.objects.get(session=session, name="Przewoźnik")
    initiative_services.initiative_npc_add(
        event=event, by=gm, npc_id=wolves.pk, score=420, hp_max=40
    )
    initiative_services.initiative_npc_add(event=event, by=gm, npc_id=ferryman.pk, score=700)
    entries.damage_deal(
        session=session,
        by=gm,
        character_id=-wolves.pk,
        delta=-12,
        reason="Borys rozbija wilka pochodnią",
        token=uuid.uuid4(),
        digest="seed",
    )
    # A sheet-less NPC takes effects as a character does: stunned, it waits at the order's end.
    entries.effect_apply(
        session=session,
        by=gm,
        character_id=-wolves.pk,
        kind="stun",
        description="Oszołomione blaskiem pochodni",
        length_turns=1,
        reason="Borys wymachuje płonącą pochodnią",
        token=uuid.uuid4(),
        digest="seed",
    )
