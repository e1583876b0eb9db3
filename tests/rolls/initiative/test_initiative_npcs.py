"""NPCs in the initiative tracker (RULES 1.7, 1.4): both NPC modes join the order, the
GM gives a sheet-less NPC its value and HP, hidden NPCs stay hidden from players."""

import re
import uuid

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse

from diary.npcs import services as npc_services
from rolls import access
from rolls.engine.dice import ScriptedDice
from rolls.entries import services as entries
from rolls.models import ChangeKind, InitiativeEvent, InitiativeParticipant, Roll
from rolls.selectors import sheets_in_play
from tests.diary_entries import effect_entry
from tests.rolls.initiative.test_initiative_event import body, fight_url, initiative, order, send
from tests.rolls.test_panel import panel_url

pytestmark = pytest.mark.django_db


@pytest.fixture
def fixed_fight(table, client_for, monkeypatch):
    """Mode fixed_modifiers: Lirael (540) and Borys (340) roll; two NPCs on the roster,
    the guard visible and the archer hidden from players."""
    table.guard = npc_services.npc_create(
        session=table.session, by=table.gm, name="Strażnik", description="", visible_to_players=True
    )
    table.archer = npc_services.npc_create(
        session=table.session, by=table.gm, name="Łucznik", description="", visible_to_players=False
    )
    face = {"Lirael": 100, "Borys": 300}
    faces = [face[c.name] for c in sheets_in_play(table.session).values()]
    monkeypatch.setattr("rolls.services.SystemDice", lambda: ScriptedDice(faces))
    gm = client_for(table.gm)
    response = gm.post(panel_url(table), initiative(event_name="Zasadzka"))
    assert response.status_code == 302, body(response)
    table.event = InitiativeEvent.objects.get()
    table.gm_client = gm
    return table


def join(t, npc, score, hp_max=""):
    return send(t, "initiative_npc_add", {"npc": npc.pk, "score": score, "hp_max": hp_max})


def names_in(page: str, testid: str) -> list[str]:
    block = re.search(rf'data-testid="{testid}">(.*?)</ol>', page, re.S).group(1)
    return re.findall(r"<strong>(.*?)</strong>", block)


def test_the_gm_adds_a_sheetless_npc_with_its_value_and_hp(fixed_fight):
    assert join(fixed_fight, fixed_fight.guard, "400", "30").status_code == 302
    names, view = order(fixed_fight)
    assert names == ["Lirael", "Strażnik", "Borys"]
    row = view.rows[1]
    assert row.is_npc and row.hp == (30, 30) and row.score == 400
    joined = fixed_fight.event.changes.get(kind=ChangeKind.JOINED)
    assert joined.details == {
        "character": -fixed_fight.guard.pk,
        "name": "Strażnik",
        "score": 400,
        "hp_max": 30,
    }


def test_a_participant_is_a_character_or_an_npc_never_both_nor_neither(fixed_fight):
    base = {"event": fixed_fight.event, "name": "x", "speed": 0, "score": 1, "rolled_position": 9}
    for sides in ({}, {"character": fixed_fight.lirael, "npc": fixed_fight.guard}):
        with pytest.raises(IntegrityError), transaction.atomic():
            InitiativeParticipant.objects.create(**base, **sides)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"score": "abc"}, "score"),
        ({"score": ""}, "score"),
        ({"score": "100000"}, "score"),
        ({"score": "100", "hp_max": "0"}, "hp_max"),
        ({"score": "100", "npc": "999999"}, "npc"),
    ],
)
def test_bad_npc_input_is_refused_next_to_the_field(fixed_fight, data, field):
    data = {"npc": fixed_fight.guard.pk, "hp_max": "", **data}
    response = send(fixed_fight, "initiative_npc_add", data)
    assert response.status_code == 400
    assert f'id="npc_join_{field}_error"' in response.content.decode()
    assert not InitiativeParticipant.objects.filter(npc__isnull=False).exists()


def test_the_same_npc_joins_once_and_a_repeated_token_adds_nothing(fixed_fight):
    token = str(uuid.uuid4())
    data = {"npc": fixed_fight.guard.pk, "score": "400", "hp_max": ""}
    assert send(fixed_fight, "initiative_npc_add", data, token=token).status_code == 302
    assert send(fixed_fight, "initiative_npc_add", data, token=token).status_code == 302
    assert send(fixed_fight, "initiative_npc_add", data).status_code == 400
    assert InitiativeParticipant.objects.filter(npc=fixed_fight.guard).count() == 1


def test_players_may_not_add_npcs(fixed_fight, client_for):
    response = send(
        fixed_fight,
        "initiative_npc_add",
        {"npc": fixed_fight.guard.pk, "score": "400"},
        client_for(fixed_fight.alice),
    )
    assert response.status_code == 403
    assert not InitiativeParticipant.objects.filter(npc__isnull=False).exists()


def test_a_hidden_npc_is_left_out_of_what_players_read(fixed_fight, client_for):
    join(fixed_fight, fixed_fight.archer, "600")
    join(fixed_fight, fixed_fight.guard, "400")
    send(fixed_fight, "initiative_marker", {"character": -fixed_fight.archer.pk})
    diary = reverse("diary:session", args=[fixed_fight.session.pk])
    player = body(client_for(fixed_fight.alice).get(diary))
    assert names_in(player, "fight-order") == ["Lirael", "Strażnik", "Borys"]
    assert names_in(player, "initiative-order-now") == ["Lirael", "Strażnik", "Borys"]
    assert "Łucznik" not in body(client_for(fixed_fight.alice).get(fight_url(fixed_fight)))
    for user in (fixed_fight.gm, fixed_fight.moderator):
        page = body(client_for(user).get(diary))
        assert names_in(page, "fight-order") == ["Łucznik", "Lirael", "Strażnik", "Borys"]
        assert "Łucznik" in body(client_for(user).get(fight_url(fixed_fight)))


def test_the_gm_damages_a_sheetless_npc_through_the_hp_entry(fixed_fight, client_for):
    join(fixed_fight, fixed_fight.guard, "400", "30")
    made = entries.damage_deal(
        session=fixed_fight.session,
        by=fixed_fight.gm,
        character_id=-fixed_fight.guard.pk,
        delta=-12,
        reason="Cięcie",
        token=uuid.uuid4(),
        digest="t",
    )
    entry = Roll.objects.get(pk=made.entry.pk)
    assert entry.test == "hp" and entry.character_id is None
    assert entry.record["entry"]["hp_after"] == 18
    assert entry.record["characters"]["a"] == {
        "id": None,
        "npc": fixed_fight.guard.pk,
        "name": "Strażnik",
    }
    assert order(fixed_fight)[1].rows[1].hp == (18, 30)
    # Through the diary's form too: the NPC is a target of the GM's HP form.
    diary = reverse("diary:session", args=[fixed_fight.session.pk])
    assert f'value="-{fixed_fight.guard.pk}"' in body(fixed_fight.gm_client.get(diary))
    response = fixed_fight.gm_client.post(
        reverse("rolls:entries", args=[fixed_fight.session.pk]),
        {
            "entry": "hp",
            "hp-token": access.issue_token(fixed_fight.gm, fixed_fight.session),
            "hp-character": -fixed_fight.guard.pk,
            "hp-direction": "damage",
            "hp-amount": "50",
            "hp-reason": "Grot",
        },
    )
    assert response.status_code == 302, body(response)
    assert InitiativeParticipant.objects.get(npc=fixed_fight.guard).hp_current == 0


def test_a_hidden_npc_is_no_target_of_an_hp_entry(fixed_fight):
    join(fixed_fight, fixed_fight.archer, "600", "20")
    count = Roll.objects.count()
    with pytest.raises(ValidationError) as refused:
        entries.damage_deal(
            session=fixed_fight.session,
            by=fixed_fight.gm,
            character_id=-fixed_fight.archer.pk,
            delta=-5,
            reason="x",
            token=uuid.uuid4(),
            digest="t",
        )
    assert "character" in refused.value.message_dict
    assert Roll.objects.count() == count


def test_a_stand_in_npc_joins_with_its_sheet_and_a_stun_keeps_both_orders_equal(
    table, client_for, make_character, monkeypatch
):
    """Mode gm_character: the wolf joins later with the value the GM rolled; its stand-in
    sheet's stun holds it at the end, in the tracker and under the roll alike."""
    table.session.npc_mode = "gm_character"
    table.session.save()
    face = {"Lirael": 100, "Borys": 300}
    faces = [face[c.name] for c in sheets_in_play(table.session).values()]
    monkeypatch.setattr("rolls.services.SystemDice", lambda: ScriptedDice(faces))
    gm = client_for(table.gm)
    assert gm.post(panel_url(table), initiative(event_name="Noc")).status_code == 302
    wolf_sheet = make_character(table.gm, "Wilk")
    wolf = npc_services.npc_create(
        session=table.session, by=table.gm, name="Basior", description="", visible_to_players=True
    )
    table.gm_client = gm
    table.event = InitiativeEvent.objects.get()
    # Without its stand-in sheet, the NPC cannot join in this mode.
    assert join(table, wolf, "900").status_code == 400
    npc_services.npc_stand_in_set(npc=wolf, by=table.gm, character=wolf_sheet)
    assert join(table, wolf, "900", "40").status_code == 400  # its HP are the sheet's
    assert join(table, wolf, "900").status_code == 302
    assert order(table)[0] == ["Basior", "Lirael", "Borys"]
    effect_entry(table.session, table.gm, wolf_sheet, "stun", "cios")
    names, view = order(table)
    assert names == ["Lirael", "Borys", "Basior"] and view.rows[-1].held
    page = body(client_for(table.alice).get(reverse("diary:session", args=[table.session.pk])))
    assert names_in(page, "fight-order") == ["Lirael", "Borys", "Basior"]
    assert names_in(page, "initiative-order-now") == names_in(page, "fight-order")


def test_the_order_under_the_roll_equals_the_trackers_after_a_stun_with_npcs(
    fixed_fight, client_for
):
    join(fixed_fight, fixed_fight.guard, "600", "30")
    join(fixed_fight, fixed_fight.archer, "450")
    effect_entry(fixed_fight.session, fixed_fight.gm, fixed_fight.lirael, "stun", "cios")
    diary = reverse("diary:session", args=[fixed_fight.session.pk])
    for user, expected in (
        (fixed_fight.gm, ["Strażnik", "Łucznik", "Borys", "Lirael"]),
        (fixed_fight.alice, ["Strażnik", "Borys", "Lirael"]),
    ):
        page = body(client_for(user).get(diary))
        assert names_in(page, "fight-order") == expected
        assert names_in(page, "initiative-order-now") == expected


def npc_stun(t, npc, **extra):
    return entries.effect_apply(
        session=t.session,
        by=t.gm,
        character_id=-npc.pk,
        kind="stun",
        description="Ogłuszony tarczą",
        length_turns=extra.get("length"),
        reason="Uderzenie tarczą",
        token=uuid.uuid4(),
        digest="t",
    )


def test_a_stunned_sheetless_npc_is_held_at_the_end_until_freed(fixed_fight, client_for):
    """An effect on a sheet-less NPC goes through the diary's effect entry, as a character's:
    a stun holds it at the end of the order, in the tracker and under the roll alike, and
    freeing it early brings it back."""
    join(fixed_fight, fixed_fight.guard, "600", "30")
    assert order(fixed_fight)[0] == ["Strażnik", "Lirael", "Borys"]
    made = npc_stun(fixed_fight, fixed_fight.guard)
    entry = Roll.objects.get(pk=made.entry.pk)
    assert entry.test == "effect" and entry.character_id is None
    assert entry.record["characters"]["a"]["npc"] == fixed_fight.guard.pk
    names, view = order(fixed_fight)
    assert names == ["Lirael", "Borys", "Strażnik"] and view.rows[-1].held
    diary = reverse("diary:session", args=[fixed_fight.session.pk])
    for user in (fixed_fight.gm, fixed_fight.alice):
        page = body(client_for(user).get(diary))
        assert names_in(page, "fight-order") == ["Lirael", "Borys", "Strażnik"]
        assert names_in(page, "initiative-order-now") == names_in(page, "fight-order")
    # The diary's effect form offers the NPC, as the HP form does.
    gm_page = body(fixed_fight.gm_client.get(diary))
    assert gm_page.count(f'value="-{fixed_fight.guard.pk}"') >= 2
    # Freed early through the diary's form, as a character's effect.
    response = fixed_fight.gm_client.post(
        reverse("rolls:entries", args=[fixed_fight.session.pk]),
        {
            "entry": "free",
            "free-token": access.issue_token(fixed_fight.gm, fixed_fight.session),
            "free-character": -fixed_fight.guard.pk,
            "free-effect": f"npc-{made.entry.pk}",
            "free-reason": "Ocknął się",
        },
    )
    assert response.status_code == 302, body(response)
    freed = Roll.objects.get(test="effect_free")
    assert freed.record["entry"]["effect"]["entry"] == made.entry.pk
    assert order(fixed_fight)[0] == ["Strażnik", "Lirael", "Borys"]
    # Freed once: a second free of the same effect is refused next to the field.
    with pytest.raises(ValidationError) as refused:
        entries.effect_free(
            session=fixed_fight.session,
            by=fixed_fight.gm,
            character_id=-fixed_fight.guard.pk,
            effect_id=made.entry.pk,
            reason="Znowu",
            token=uuid.uuid4(),
            digest="t",
        )
    assert "effect" in refused.value.message_dict


def test_a_hidden_npc_takes_no_effect_entry(fixed_fight):
    join(fixed_fight, fixed_fight.archer, "600", "20")
    count = Roll.objects.count()
    with pytest.raises(ValidationError) as refused:
        npc_stun(fixed_fight, fixed_fight.archer)
    assert "character" in refused.value.message_dict
    assert Roll.objects.count() == count


def test_an_npc_stun_for_one_turn_ends_by_itself_and_the_history_says_so(fixed_fight):
    from diary.services import turn_open_next
    from rolls.initiative.selectors import history_rows

    join(fixed_fight, fixed_fight.guard, "600", "30")
    npc_stun(fixed_fight, fixed_fight.guard, length=1)
    assert order(fixed_fight)[0] == ["Lirael", "Borys", "Strażnik"]
    turn_open_next(session=fixed_fight.session, by=fixed_fight.gm)
    assert order(fixed_fight)[0] == ["Strażnik", "Lirael", "Borys"]
    rows = [
        (r.kind, r.character, r.turn)
        for r in history_rows(fixed_fight.event)
        if r.kind in ("held", "freed")
    ]
    assert rows == [("held", "Strażnik", 1), ("freed", "Strażnik", 2)]


def test_an_npc_without_hp_takes_an_effect_but_no_hp_entry(fixed_fight):
    """HP are the GM's choice; a stun is not: an NPC given no HP is still stunned and held
    at the end, and the HP form neither offers it nor takes it."""
    join(fixed_fight, fixed_fight.guard, "600")
    npc_stun(fixed_fight, fixed_fight.guard)
    names, view = order(fixed_fight)
    assert names == ["Lirael", "Borys", "Strażnik"] and view.rows[-1].held
    page = body(fixed_fight.gm_client.get(reverse("diary:session", args=[fixed_fight.session.pk])))
    hp_form = page[page.index('data-testid="entry-hp"') :]
    hp_form = hp_form[: hp_form.index("</form>")]
    assert f'value="-{fixed_fight.guard.pk}"' not in hp_form
    count = Roll.objects.count()
    with pytest.raises(ValidationError) as refused:
        entries.damage_deal(
            session=fixed_fight.session,
            by=fixed_fight.gm,
            character_id=-fixed_fight.guard.pk,
            delta=-5,
            reason="Cios",
            token=uuid.uuid4(),
            digest="t",
        )
    assert "character" in refused.value.message_dict
    assert Roll.objects.count() == count
