"""Issue 8: the demo session has NPCs (mode fixed_modifiers) and a roll against one."""

import io

import pytest
from django.core.management import call_command

from diary.models import Npc, NpcModifier
from rolls.models import Roll

pytestmark = pytest.mark.django_db


def test_seed_demo_has_npcs_and_a_roll_against_the_merchant():
    call_command("seed_demo", stdout=io.StringIO())
    npcs = {npc.name: npc for npc in Npc.objects.all()}
    assert {"Stary kupiec", "Wilki znad brodu", "Przewoźnik"} <= set(npcs)
    assert npcs["Przewoźnik"].visible_to_players is False
    assert npcs["Stary kupiec"].session.npc_mode == "fixed_modifiers"
    assert NpcModifier.objects.filter(npc=npcs["Stary kupiec"], value=100).exists()
    roll = next(r for r in Roll.objects.order_by("seq") if "npc" in r.record)
    assert roll.record["npc"]["name"] == "Stary kupiec"
    assert roll.record["npc"]["interaction"] == "perswazja"
