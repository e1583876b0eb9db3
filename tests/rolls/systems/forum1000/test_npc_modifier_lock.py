"""Seed 000 line 51: an NPC's fixed modifier is the same for every character in the session.
Once a roll used it, the GM can neither change nor remove it nor add another for the same
interaction; a moderator corrects it with a reason kept in the NPC's history."""

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from diary.models import NpcModifier, NpcModifierCorrection
from diary.npcs import services as npc_services
from rolls.models import Roll
from tests.rolls.test_panel import single

pytestmark = pytest.mark.django_db


@pytest.fixture
def merchant(table):
    npc = npc_services.npc_create(
        session=table.session,
        by=table.gm,
        name="Stary kupiec",
        description="",
        visible_to_players=True,
    )
    return npc_services.npc_modifier_create(
        npc=npc, by=table.gm, interaction="perswazja", value=100, reason="łatwowierny"
    )


def _roll_against(table, modifier, client_for) -> Roll:
    response = client_for(table.gm).post(
        reverse("rolls:panel", args=[table.session.pk]),
        single(table.lirael, **{"a-npc_modifier": modifier.pk}),
    )
    assert response.status_code == 302
    return Roll.objects.get(session=table.session, is_action=True)


def _urls(modifier):
    args = [modifier.npc.session_id, modifier.npc_id, modifier.pk]
    return (
        reverse("diary:npc_modifier_edit", args=args),
        reverse("diary:npc_modifier_delete", args=args),
        reverse("diary:npc_modifier_add", args=args[:2]),
        reverse("diary:npc_edit", args=args[:2]),
    )


def test_a_roll_marks_the_modifier_it_used(table, merchant, client_for):
    roll = _roll_against(table, merchant, client_for)
    merchant.refresh_from_db()
    assert merchant.used_by_seq == roll.seq


def test_the_gm_cannot_remove_change_or_re_add_a_used_modifier(table, merchant, client_for):
    roll = _roll_against(table, merchant, client_for)
    edit, delete, add, _page = _urls(merchant)
    client = client_for(table.gm)
    fixed = f"#{roll.seq}"

    response = client.post(delete)
    assert response.status_code == 400
    page = response.content.decode()
    assert "modifier-refusal" in page and fixed in page and "tylko moderator" in page

    response = client.post(edit, {f"m{merchant.pk}-value": "-300", f"m{merchant.pk}-reason": "x"})
    assert response.status_code == 400 and fixed in response.content.decode()

    response = client.post(
        add, {"interaction": "perswazja", "value": "-300", "reason": "podejrzliwy"}
    )
    assert response.status_code == 400 and fixed in response.content.decode()

    merchant.refresh_from_db()
    assert (merchant.value, merchant.reason) == (100, "łatwowierny")
    assert NpcModifier.objects.filter(npc=merchant.npc).count() == 1
    with pytest.raises(ValidationError):
        npc_services.npc_modifier_delete(modifier=merchant, by=table.gm)
    with pytest.raises(ValidationError):
        npc_services.npc_modifier_update(modifier=merchant, by=table.gm, value=-300, reason="x")


def test_an_unused_modifier_stays_editable(table, merchant, client_for):
    edit, delete, _add, _page = _urls(merchant)
    client = client_for(table.gm)
    response = client.post(
        edit, {f"m{merchant.pk}-value": "-200", f"m{merchant.pk}-reason": "wytrawny"}
    )
    assert response.status_code == 302
    merchant.refresh_from_db()
    assert (merchant.value, merchant.reason) == (-200, "wytrawny")
    assert client.post(delete).status_code == 302
    assert not NpcModifier.objects.filter(pk=merchant.pk).exists()


def test_a_moderator_corrects_a_used_modifier_with_a_reason_in_the_history(
    table, merchant, client_for
):
    _roll_against(table, merchant, client_for)
    edit, _delete, _add, page_url = _urls(merchant)
    client = client_for(table.moderator)
    prefix = f"m{merchant.pk}"
    response = client.post(edit, {f"{prefix}-value": "-100", f"{prefix}-reason": "czujny"})
    assert response.status_code == 400
    assert "potrzebuje uzasadnienia" in response.content.decode()
    assert not NpcModifierCorrection.objects.exists()

    response = client.post(
        edit,
        {f"{prefix}-value": "-100", f"{prefix}-reason": "czujny", f"{prefix}-note": "literówka"},
    )
    assert response.status_code == 302
    merchant.refresh_from_db()
    assert (merchant.value, merchant.reason) == (-100, "czujny")
    correction = NpcModifierCorrection.objects.get()
    assert (correction.by, correction.old_value, correction.new_value, correction.note) == (
        table.moderator,
        100,
        -100,
        "literówka",
    )
    for reader in (table.gm, table.moderator):
        history = client_for(reader).get(page_url).content.decode()
        assert "npc-modifier-history" in history and "literówka" in history
        assert "+100 (łatwowierny) → -100 (czujny)" in history
    with pytest.raises(PermissionDenied):
        npc_services.npc_modifier_correct(
            modifier=merchant, by=table.gm, value=200, reason="x", note="y"
        )
