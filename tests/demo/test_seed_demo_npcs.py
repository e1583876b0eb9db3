"""The demo session has NPCs (mode fixed_modifiers) and a roll against one."""

import io

import pytest
from django.core.management import call_command

from diary.models import Npc, NpcModifier
from rolls.models import Roll

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_once")]


def test_seed_demo_has_npcs_and_a_roll_against_the_merchant():
    npcs = {npc.name: npc for npc in Npc.objects.all()}
    assert {"Stary kupiec", "Wilki znad brodu", "Przewoźnik"} <= set(npcs)
    assert npcs["Przewoźnik"].visible_to_players is False
    assert npcs["Stary kupiec"].session.npc_mode == "fixed_modifiers"
    assert NpcModifier.objects.filter(npc=npcs["Stary kupiec"], value=100).exists()
    roll = next(r for r in Roll.objects.order_by("seq") if "npc" in r.record)
    assert roll.record["npc"]["name"] == "Stary kupiec"
    assert roll.record["npc"]["interaction"] == "perswazja"


def test_seed_demo_shows_the_other_mode_in_a_second_session():
    from demo.stand_in_session import DEMO_PACK_SIZE, STAND_IN_SESSION_TITLE
    from diary.models import GameSession

    call_command("seed_demo", stdout=io.StringIO())  # still once
    session = GameSession.objects.get(title=STAND_IN_SESSION_TITLE)
    assert session.npc_mode == "gm_character" and session.status == "running"
    npc = Npc.objects.get(session=session)
    assert npc.stand_in.is_stand_in and npc.stand_in.owner == session.gm
    assert not npc.stand_in.participations.exists()
    kinds = [r.record["kind"] for r in Roll.objects.filter(session=session).order_by("seq")]
    # Then the pack's charge: a free-form attack roll for each wolf, all in one post.
    assert kinds == ["initiative", "opposed"] + ["notation"] * DEMO_PACK_SIZE


def test_seed_demo_leaves_running_fights_one_with_the_wolf(client):
    """The demo session's turn-3 initiative roll leaves the fight at the gate running
    (its NPCs play by fixed modifiers, so player characters only), and the session with
    stand-ins has the wolf in its fight."""
    from demo.ford.rolls import DEMO_GATE_FIGHT_NAME
    from demo.ford.story import SESSION_TITLE
    from demo.stand_in_session import DEMO_FIGHT_NAME, STAND_IN_SESSION_TITLE
    from diary.models import GameSession
    from rolls.models import InitiativeEvent
    from rolls.selectors import in_combat

    demo = GameSession.objects.get(title=SESSION_TITLE)
    gate = InitiativeEvent.objects.running().get(session=demo)
    assert gate.name == DEMO_GATE_FIGHT_NAME and in_combat(demo)
    rolled = gate.participants.filter(character__isnull=False)
    assert {p.name for p in rolled} == {"Lirael", "Borys", "Mira"}
    wolves = GameSession.objects.get(title=STAND_IN_SESSION_TITLE)
    event = InitiativeEvent.objects.running().get(session=wolves)
    assert event.name == DEMO_FIGHT_NAME
    assert event.opened_by_roll.test == "initiative"
    assert {p.name for p in event.participants.all()} == {"Jarogniew", "Basior"}
    assert in_combat(wolves)
    client.force_login(wolves.gm)
    for session, name in ((demo, DEMO_GATE_FIGHT_NAME), (wolves, DEMO_FIGHT_NAME)):
        page = client.get(f"/sessions/{session.pk}/").content.decode()
        assert name in page and 'data-testid="fight-order"' in page


def test_seed_demo_plays_each_character_in_one_running_session_at_most():
    from django.db.models import Count

    from characters.models import Character

    busy = Character.objects.filter(
        participations__status="accepted", participations__session__status="running"
    ).annotate(sessions=Count("participations"))
    assert busy.exists()
    assert [c.name for c in busy if c.sessions > 1] == []


def test_seed_demo_has_a_session_with_a_pitch_and_a_pending_application():
    from demo.application_session import APPLICATION_SESSION_TITLE
    from diary.models import GameSession, Participation

    session = GameSession.objects.get(title=APPLICATION_SESSION_TITLE)
    assert "**Wilcze Pola**" in session.description
    application = Participation.objects.get(session=session)
    assert application.status == "requested" and application.message


def test_seed_demo_puts_npcs_in_the_gate_fight_one_wounded_one_hidden():
    from rolls.models import InitiativeEvent

    event = InitiativeEvent.objects.running().get(session__npc_mode="fixed_modifiers")
    npcs = {p.name: p for p in event.participants.filter(npc__isnull=False)}
    assert npcs["Wilki znad brodu"].hp_max == 40 and npcs["Wilki znad brodu"].hp_current == 28
    assert npcs["Przewoźnik"].npc.visible_to_players is False
    damage = Roll.objects.get(session=event.session, test="hp", character__isnull=True)
    assert damage.record["characters"]["a"]["name"] == "Wilki znad brodu"


def test_seed_demo_stuns_the_wolves_who_wait_at_the_end_of_the_order():
    from diary.services import current_turn
    from rolls.initiative.selectors import fight_view
    from rolls.models import InitiativeEvent

    event = InitiativeEvent.objects.running().get(session__npc_mode="fixed_modifiers")
    stun = Roll.objects.get(session=event.session, test="effect", character__isnull=True)
    assert stun.record["characters"]["a"]["name"] == "Wilki znad brodu"
    rows = fight_view(event, current_turn(event.session).number, sees_hidden=False).rows
    held = [row.name for row in rows if row.held]
    assert "Wilki znad brodu" in held  # with Borys, stunned by the guard's shield
    assert [row.name for row in rows[-len(held) :]] == held  # the held wait at the end
    assert "Przewoźnik" not in [row.name for row in rows]


def test_seed_demo_has_an_npc_with_a_portrait_speaking_a_post_and_a_block(client):
    from demo.ford.story import SESSION_TITLE
    from demo.ford.voices import DEMO_VOICE_NPC
    from diary.models import GameSession, Post

    session = GameSession.objects.get(title=SESSION_TITLE)
    merchant = Npc.objects.get(session=session, name=DEMO_VOICE_NPC)
    assert merchant.portrait and merchant.visible_to_players
    spoken = Post.objects.get(session=session, npc=merchant)
    assert spoken.author == session.gm and spoken.character is None
    block = Post.objects.get(session=session, narration__contains=f"[npc: {DEMO_VOICE_NPC}]")
    assert 'class="npc-voice"' in block.narration_html
    assert merchant.portrait.url in block.narration_html
