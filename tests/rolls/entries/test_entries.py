"""The GM's HP changes, effects and item grants, and a character's item use, as
entries of the session's chain: in a post, never changed, on the sheet in the same
transaction; every refusal stores nothing."""

import html
import uuid

import pytest
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from characters.models import HealingPotion, NegativeEffect, SheetRevision
from characters.selectors import held_character_ids
from characters.services import effect_add
from diary.services import session_transition, turn_open_next
from rolls import access, selectors
from rolls.ledger.verify import verify_session
from rolls.models import LedgerError, Roll
from rolls.systems.forum1000.audit import character_stats as audit_stats
from tests.conftest import polish
from tests.rolls import test_npc_stand_ins

# The NPC stand-in table (mode gm_character): test_npc_stand_ins.wolves.
stand_in_table = test_npc_stand_ins.wolves

pytestmark = pytest.mark.django_db

ITEM_USED = (
    "%(name)s has already used a potion, an item, or a spell or ability without a roll in "
    "this turn, which is its action. Outside combat a turn is one action and one move, or "
    "two moves: another action only if the GM allows it, with a reason."
)


def token(user, session) -> str:
    return access.sign_token(user, session, uuid.uuid4())


def entries_url(table) -> str:
    return reverse("rolls:entries", args=[table.session.pk])


def use_url(table) -> str:
    return reverse("rolls:item_use", args=[table.session.pk])


def hp(table, character, amount=12, direction="damage", reason="Cios toporem", by=None):
    by = by or table.gm
    return {
        "entry": "hp",
        "hp-token": token(by, table.session),
        "hp-character": str(character.pk),
        "hp-direction": direction,
        "hp-amount": str(amount),
        "hp-reason": reason,
    }


def effect(table, character, kind="stun", length="1", reason="Cios w hełm"):
    return {
        "entry": "effect",
        "effect-token": token(table.gm, table.session),
        "effect-character": str(character.pk),
        "effect-kind": kind,
        "effect-description": "Ogłuszony",
        "effect-length_turns": length,
        "effect-reason": reason,
    }


def grant(table, character, count=1, restores="30", frees=""):
    return {
        "entry": "grant",
        "grant-token": token(table.gm, table.session),
        "grant-character": str(character.pk),
        "grant-count": str(count),
        "grant-effect": "Mikstura lecznicza: +30 PŻ",
        "grant-restores_hp": restores,
        "grant-frees_kind": frees,
    }


def use(user, table, potion) -> dict:
    return {"token": token(user, table.session), "potion": str(potion.pk)}


def page(client, url) -> str:
    return html.unescape(client.get(url).content.decode())


def granted(table, client_for, character, **kwargs) -> HealingPotion:
    assert (
        client_for(table.gm).post(entries_url(table), grant(table, character, **kwargs)).status_code
        == 302
    )
    return HealingPotion.objects.filter(character=character).latest("id")


# --- HP ----------------------------------------------------------------------------


def test_the_gm_deals_damage_into_a_post_of_the_chain(table, client_for):
    gm = client_for(table.gm)
    start = table.borys.hp_current
    response = gm.post(entries_url(table), hp(table, table.borys, 12))
    assert response.status_code == 302
    table.borys.refresh_from_db()
    assert table.borys.hp_current == start - 12
    entry = Roll.objects.get(test="hp")
    assert entry.post.author == table.gm and entry.character == table.borys
    assert entry.record["entry"]["reason"] == "Cios toporem"
    assert entry.is_action is False
    assert verify_session(table.session.pk).ok
    assert SheetRevision.objects.filter(character=table.borys, kind="damage").exists()
    diary = page(client_for(table.bob), reverse("diary:session", args=[table.session.pk]))
    assert "Cios toporem" in diary and f"→ {table.borys.hp_current}" in diary
    with pytest.raises(LedgerError), transaction.atomic():
        entry.save()


def test_zero_hp_is_marked_for_the_gm_to_decide(table, client_for):
    gm = client_for(table.gm)
    assert gm.post(entries_url(table), hp(table, table.borys, 9999)).status_code == 302
    table.borys.refresh_from_db()
    assert table.borys.hp_current == 0
    assert Roll.objects.get(test="hp").record["entry"]["down"] is True
    badge = polish("0 HP — the GM decides")
    assert badge in page(gm, reverse("diary:session", args=[table.session.pk]))
    assert badge in page(gm, reverse("characters:detail", args=[table.borys.pk]))


def test_cached_hp_equals_the_replay_of_the_entries(table, client_for):
    gm = client_for(table.gm)
    start = table.borys.hp_current  # 80 of 100
    for amount, direction in [(20, "damage"), (5, "restore"), (50, "restore"), (7, "damage")]:
        gm.post(entries_url(table), hp(table, table.borys, amount, direction))
    potion = granted(table, client_for, table.borys, restores="4")
    client_for(table.bob).post(use_url(table), use(table.bob, table, potion))
    replay = start
    for entry in Roll.objects.filter(character=table.borys).order_by("seq"):
        body = entry.record["entry"]
        if entry.test == "hp":
            assert body["hp_before"] == replay
            replay = min(body["hp_max"], max(0, replay + body["delta"]))
        elif entry.test == "item_use":
            replay = min(table.borys.hp_max, replay + (body["potion"]["restores_hp"] or 0))
        assert body.get("hp_after", replay) == replay
    table.borys.refresh_from_db()
    assert table.borys.hp_current == replay == table.borys.hp_max - 7 + 4


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"hp-amount": "0"}, "amount"),
        ({"hp-reason": ""}, "reason"),
        ({"hp-character": ""}, "character"),
    ],
)
def test_bad_hp_input_is_refused_next_to_the_field(table, client_for, change, field):
    response = client_for(table.gm).post(entries_url(table), {**hp(table, table.borys), **change})
    assert response.status_code == 400
    assert f'id="id_hp-{field}_error"' in response.content.decode()
    assert not Roll.objects.exists()


def test_a_character_outside_the_session_is_refused(table, client_for, make_character):
    stranger = make_character(table.outsider, "Obcy")
    response = client_for(table.gm).post(entries_url(table), hp(table, stranger))
    assert response.status_code == 400
    assert not Roll.objects.exists()
    before = stranger.hp_current
    stranger.refresh_from_db()
    assert stranger.hp_current == before


@pytest.mark.parametrize(
    ("who", "status"), [("alice", 403), ("bob", 403), ("moderator", 403), ("outsider", 404)]
)
def test_only_the_gm_writes_entries(table, client_for, who, status):
    user = getattr(table, who)
    response = client_for(user).post(entries_url(table), hp(table, table.borys, by=user))
    assert response.status_code == status
    assert not Roll.objects.exists()


def test_no_entries_in_a_finished_session(table, client_for):
    session_transition(session=table.session, by=table.gm, to="finished")
    chained = list(Roll.objects.values_list("test", flat=True))
    assert chained == ["session_end"]  # the end's own entry, the chain's last
    response = client_for(table.gm).post(entries_url(table), hp(table, table.borys))
    assert response.status_code == 403
    assert list(Roll.objects.values_list("test", flat=True)) == chained


def test_a_repeated_click_makes_one_entry(table, client_for):
    gm = client_for(table.gm)
    start = table.borys.hp_current
    data = hp(table, table.borys, 10)
    assert gm.post(entries_url(table), data).status_code == 302
    assert gm.post(entries_url(table), data).status_code == 302
    assert Roll.objects.count() == 1
    table.borys.refresh_from_db()
    assert table.borys.hp_current == start - 10


# --- Effects with a length in turns -------------------------------------------------


def test_a_one_turn_stun_ends_by_itself_when_the_next_turn_opens(table, client_for):
    gm = client_for(table.gm)
    assert gm.post(entries_url(table), effect(table, table.borys, length="1")).status_code == 302
    stun = NegativeEffect.objects.get(character=table.borys)
    assert (stun.began_turn, stun.length_turns, stun.ends_at_turn) == (1, 1, 2)
    assert stun.began_in_session == table.session.pk
    assert held_character_ids([table.borys.pk]) == {table.borys.pk}
    turn_open_next(session=table.session, by=table.gm)
    stun.refresh_from_db()
    assert stun.freed_at is not None and stun.ended_by_itself
    assert held_character_ids([table.borys.pk]) == set()
    assert SheetRevision.objects.filter(character=table.borys, kind="effect_ended").count() == 1
    sheet = page(gm, reverse("characters:detail", args=[table.borys.pk]))
    # The note says it ended by itself and when; the label is not repeated before it.
    note = polish("Ended by itself when turn %(number)s opened", number=2)
    assert note in sheet and sheet.lower().count(polish("ended by itself").lower()) == 1


def test_n_turns_means_turns_t_to_t_plus_n_minus_1(table, client_for):
    client_for(table.gm).post(entries_url(table), effect(table, table.borys, length="2"))
    spell = NegativeEffect.objects.get(character=table.borys)
    turn_open_next(session=table.session, by=table.gm)  # turn 2: still active
    spell.refresh_from_db()
    assert spell.freed_at is None
    assert held_character_ids([table.borys.pk], 2) == {table.borys.pk}
    # The guard: given turn 3, it does not hold even before turn 3's opening frees it.
    assert held_character_ids([table.borys.pk], 3) == set()
    turn_open_next(session=table.session, by=table.gm)  # turn 3: gone
    spell.refresh_from_db()
    assert spell.ended_by_itself


def test_an_effect_without_a_length_lasts_until_freed(table, client_for):
    client_for(table.gm).post(entries_url(table), effect(table, table.borys, length=""))
    for _ in range(3):
        turn_open_next(session=table.session, by=table.gm)
    assert NegativeEffect.objects.get(character=table.borys).freed_at is None


def test_a_length_needs_a_session_turn(table):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError):
        effect_add(
            character=table.borys,
            by=table.gm,
            kind="stun",
            description="x",
            began_in_session=table.session.pk,
            length_turns=2,
        )
    assert not NegativeEffect.objects.exists()


# --- Potions and items --------------------------------------------------------------


def test_the_owner_drinks_a_potion_as_an_action_without_a_roll(table, client_for):
    gm = client_for(table.gm)
    start = table.borys.hp_current
    gm.post(entries_url(table), hp(table, table.borys, 40))
    potion = granted(table, client_for, table.borys, count=2, restores="30")
    assert Roll.objects.get(test="item_grant").post.author == table.gm
    bob = client_for(table.bob)
    assert bob.post(use_url(table), use(table.bob, table, potion)).status_code == 302
    table.borys.refresh_from_db()
    assert table.borys.hp_current == start - 10
    potion.refresh_from_db()
    assert potion.count == 1
    entry = Roll.objects.get(test="item_use")
    assert entry.post.author == table.bob and entry.rolled_by == table.bob
    assert entry.record["entry"]["left"] == 1
    _rolls, uses = selectors.turn_action_counts(table.session, 1)
    assert uses == {table.borys.pk: 1}
    diary = page(bob, reverse("diary:session", args=[table.session.pk]))
    assert "Mikstura lecznicza" in diary and 'data-testid="item-actions"' in diary


def test_a_potion_frees_the_oldest_effect_of_its_kind(table, client_for):
    gm = client_for(table.gm)
    gm.post(entries_url(table), effect(table, table.borys, kind="poison", length=""))
    gm.post(entries_url(table), effect(table, table.borys, kind="wound", length=""))
    potion = granted(table, client_for, table.borys, restores="", frees="poison")
    client_for(table.bob).post(use_url(table), use(table.bob, table, potion))
    freed = NegativeEffect.objects.filter(character=table.borys, freed_at__isnull=False)
    assert [e.kind for e in freed] == ["poison"]


def test_a_free_text_item_is_left_to_the_gm(table, client_for):
    potion = granted(table, client_for, table.borys, restores="")
    start = table.borys.hp_current
    client_for(table.bob).post(use_url(table), use(table.bob, table, potion))
    assert Roll.objects.get(test="item_use").record["entry"]["for_gm"] is True
    table.borys.refresh_from_db()
    assert table.borys.hp_current == start


def test_none_left_is_refused_next_to_the_field(table, client_for):
    potion = granted(table, client_for, table.borys)
    bob = client_for(table.bob)
    assert bob.post(use_url(table), use(table.bob, table, potion)).status_code == 302
    response = bob.post(use_url(table), use(table.bob, table, potion))
    assert response.status_code == 400
    assert polish("No potions of this kind are left.") in html.unescape(response.content.decode())
    assert 'id="id_potion_error"' in response.content.decode()
    assert Roll.objects.filter(test="item_use").count() == 1


def test_someone_elses_potion_is_refused(table, client_for):
    potion = granted(table, client_for, table.borys)
    before = Roll.objects.count()
    response = client_for(table.alice).post(use_url(table), use(table.alice, table, potion))
    assert response.status_code == 400
    assert Roll.objects.count() == before
    potion.refresh_from_db()
    assert potion.count == 1


def test_a_potion_the_character_does_not_have_is_refused(table, client_for):
    response = client_for(table.bob).post(
        use_url(table), {"token": token(table.bob, table.session), "potion": "999"}
    )
    assert response.status_code == 400
    assert not Roll.objects.exists()


def test_no_item_use_in_a_finished_session(table, client_for):
    potion = granted(table, client_for, table.borys)
    session_transition(session=table.session, by=table.gm, to="finished")
    response = client_for(table.bob).post(use_url(table), use(table.bob, table, potion))
    assert response.status_code == 403
    potion.refresh_from_db()
    assert potion.count == 1


def test_outside_combat_a_second_item_use_is_refused(table, client_for):
    # Seed 000 VII.1: a potion is the turn's one action that does something, as a roll is.
    potion = granted(table, client_for, table.borys, count=3)
    bob = client_for(table.bob)
    assert bob.post(use_url(table), use(table.bob, table, potion)).status_code == 302
    response = bob.post(use_url(table), use(table.bob, table, potion))
    assert response.status_code == 400
    assert polish(ITEM_USED, name="Borys") in html.unescape(response.content.decode())
    potion.refresh_from_db()
    assert potion.count == 2
    # A new turn gives new actions.
    turn_open_next(session=table.session, by=table.gm)
    assert bob.post(use_url(table), use(table.bob, table, potion)).status_code == 302


def test_in_combat_uses_are_counted_not_refused(table, client_for, monkeypatch):
    monkeypatch.setattr("rolls.selectors.in_combat", lambda session: True)
    monkeypatch.setattr("rolls.services.in_combat", lambda session: True)
    potion = granted(table, client_for, table.borys, count=3)
    bob = client_for(table.bob)
    for _ in range(3):
        assert bob.post(use_url(table), use(table.bob, table, potion)).status_code == 302
    assert selectors.turn_action_counts(table.session, 1)[1] == {table.borys.pk: 3}


def test_the_gm_may_use_an_item_for_a_character(table, client_for):
    potion = granted(table, client_for, table.borys)
    assert (
        client_for(table.gm).post(use_url(table), use(table.gm, table, potion)).status_code == 302
    )
    assert Roll.objects.get(test="item_use").rolled_by == table.gm


# --- The chain and the audit --------------------------------------------------------


def test_entries_keep_the_chain_whole_and_stay_out_of_roll_statistics(table, client_for):
    gm = client_for(table.gm)
    gm.post(entries_url(table), hp(table, table.borys))
    gm.post(entries_url(table), effect(table, table.borys))
    potion = granted(table, client_for, table.borys)
    client_for(table.bob).post(use_url(table), use(table.bob, table, potion))
    assert verify_session(table.session.pk).count == 4
    assert audit_stats(table.session) == []
    detail = gm.get(reverse("rolls:detail", args=[table.session.pk, 1]))
    assert detail.status_code == 200 and "Cios toporem" in html.unescape(detail.content.decode())
    audit = client_for(table.moderator).get(reverse("rolls:audit", args=[table.session.pk]))
    assert audit.status_code == 200


def test_the_gm_sees_the_entry_forms_in_the_diary_players_do_not(table, client_for):
    url = reverse("diary:session", args=[table.session.pk])
    assert 'data-testid="gm-entries"' in client_for(table.gm).get(url).content.decode()
    player_page = client_for(table.bob).get(url).content.decode()
    assert 'data-testid="gm-entries"' not in player_page
    assert 'data-testid="item-use-link"' in player_page


@pytest.mark.parametrize(
    "garbage",
    [
        {"entry": "hp", "hp-character": "abc", "hp-amount": "1e9", "hp-reason": "\x00"},
        {"entry": "effect", "effect-kind": "💥", "effect-length_turns": "-1"},
        {"entry": "grant", "grant-count": "999", "grant-frees_kind": "x" * 5000},
        {"entry": "nonsense"},
    ],
)
def test_garbage_entries_are_400_and_store_nothing(table, client_for, garbage):
    data = {**garbage, f"{garbage['entry']}-token": token(table.gm, table.session)}
    response = client_for(table.gm).post(entries_url(table), data)
    assert response.status_code == 400
    assert not Roll.objects.exists()


def test_a_token_issued_to_someone_else_is_refused(table, client_for):
    data = {**hp(table, table.borys), "hp-token": token(table.alice, table.session)}
    response = client_for(table.gm).post(entries_url(table), data)
    assert response.status_code == 400
    assert polish("This form has expired or was not issued to you; send it again.") in (
        html.unescape(response.content.decode())
    )
    assert not Roll.objects.exists()


def test_the_gms_diary_stays_flat_as_entries_grow(table, client_for):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    gm = client_for(table.gm)
    url = reverse("diary:session", args=[table.session.pk])
    gm.get(url)  # warm up (content types, translations)
    # Both views right after a change, when the diary's cache (diary/live/page_cache.py) misses.
    gm.post(entries_url(table), hp(table, table.borys, 1))
    with CaptureQueriesContext(connection) as small:
        assert gm.get(url).status_code == 200
    for _ in range(5):
        gm.post(entries_url(table), hp(table, table.lirael, 1))
        gm.post(entries_url(table), effect(table, table.borys))
    with CaptureQueriesContext(connection) as large:
        assert gm.get(url).status_code == 200
    assert Roll.objects.count() == 11
    assert 0 < len(small.captured_queries) == len(large.captured_queries)


# --- With movement (RULES 1.5: two actions a turn, one of them with a roll) ----------


def test_a_move_and_an_item_use_make_two_actions(table, client_for):
    from tests.rolls.test_turn_movement import ON_FOOT, field_error, move

    potion = granted(table, client_for, table.lirael, count=2)
    alice = client_for(table.alice)
    assert move(alice, table, ON_FOOT).status_code == 302
    assert alice.post(use_url(table), use(table.alice, table, potion)).status_code == 302
    assert alice.post(use_url(table), use(table.alice, table, potion)).status_code == 400
    # And the other way: after two item uses (the second one allowed by the GM), a post's
    # movement is refused.
    potion_b = granted(table, client_for, table.borys, count=2)
    assert (
        client_for(table.bob).post(use_url(table), use(table.bob, table, potion_b)).status_code
        == 302
    )
    allowed = {**use(table.gm, table, potion_b), "extra_action_reason": "pije dwie naraz"}
    assert client_for(table.gm).post(use_url(table), allowed).status_code == 302
    bob = client_for(table.bob)
    refused = move(bob, table, ON_FOOT, character=table.borys)
    assert refused.status_code == 400 and field_error(refused, "move_metres")
    diary = page(bob, reverse("diary:session", args=[table.session.pk]))
    assert polish("actions: %(used)s/2", used=2) in diary


def test_an_action_roll_after_an_item_use_needs_the_gms_reason(table, client_for):
    from tests.rolls.test_panel import panel_url, single

    potion = granted(table, client_for, table.lirael, count=2)
    alice = client_for(table.alice)
    assert alice.post(use_url(table), use(table.alice, table, potion)).status_code == 302
    gm = client_for(table.gm)
    before = Roll.objects.count()
    response = gm.post(panel_url(table), single(table.lirael))
    assert response.status_code == 400
    assert polish(ITEM_USED, name="Lirael") in html.unescape(response.content.decode())
    assert Roll.objects.count() == before


# --- NPC stand-ins (mode gm_character) ----------------------------------------------


def test_the_gm_damages_and_stuns_a_stand_in_but_grants_it_no_items(stand_in_table, client_for):
    from diary.npcs import services as npc_services

    wolves = stand_in_table

    npc_services.npc_stand_in_set(npc=wolves.npc, by=wolves.gm, character=wolves.sheet)
    gm = client_for(wolves.gm)
    url = reverse("rolls:entries", args=[wolves.session.pk])
    table = type("T", (), {"gm": wolves.gm, "session": wolves.session})
    start = wolves.sheet.hp_current
    assert gm.post(url, hp(table, wolves.sheet, 5)).status_code == 302
    assert gm.post(url, effect(table, wolves.sheet)).status_code == 302
    wolves.sheet.refresh_from_db()
    assert wolves.sheet.hp_current == start - 5
    refused = gm.post(url, grant(table, wolves.sheet))
    assert refused.status_code == 400
    assert polish("An NPC's stand-in sheet carries no items (equipment).") in html.unescape(
        refused.content.decode()
    )
    assert not HealingPotion.objects.exists()
    assert Roll.objects.count() == 2


# --- Freeing an effect early, and the sheet as the sum of the chain -----------------


def free(table, character, effect_pk, reason="Ocknął się po kubku zimnej wody"):
    return {
        "entry": "free",
        "free-token": token(table.gm, table.session),
        "free-character": str(character.pk),
        "free-effect": str(effect_pk),
        "free-reason": reason,
    }


def applied(table, client_for, character, kind="stun", length="") -> NegativeEffect:
    gm = client_for(table.gm)
    response = gm.post(entries_url(table), effect(table, character, kind=kind, length=length))
    assert response.status_code == 302
    return NegativeEffect.objects.filter(character=character).latest("id")


def test_the_gm_frees_an_effect_early_in_the_diary(table, client_for):
    stun = applied(table, client_for, table.borys, length="3")
    gm = client_for(table.gm)
    response = gm.post(entries_url(table), free(table, table.borys, stun.pk))
    assert response.status_code == 302
    stun.refresh_from_db()
    assert stun.freed_at is not None and not stun.ended_by_itself
    assert stun.freed_note == "Ocknął się po kubku zimnej wody"
    assert held_character_ids([table.borys.pk]) == set()
    entry = Roll.objects.get(test="effect_free")
    assert entry.post.author == table.gm and entry.character == table.borys
    assert entry.is_action is False
    assert entry.record["entry"]["effect"] == {
        "id": stun.pk,
        "kind": "stun",
        "description": "Ogłuszony",
    }
    assert entry.record["entry"]["freed_turn"] == 1
    assert verify_session(table.session.pk).ok
    revision = SheetRevision.objects.filter(character=table.borys).latest("id")
    assert (revision.kind, revision.edited_by) == ("effect_freed", table.gm)
    assert "Ogłuszony" in revision.note and "kubku zimnej wody" in revision.note
    # In the post, in words (read by a player), and on the sheet.
    diary = page(client_for(table.bob), reverse("diary:session", args=[table.session.pk]))
    words = polish(
        "%(name)s is freed of %(kind)s, %(description)s, in turn %(turn)s",
        name="Borys",
        kind=polish("stun"),
        description="Ogłuszony",
        turn=1,
    )
    assert words in diary and "kubku zimnej wody" in diary
    sheet = page(client_for(table.bob), reverse("characters:detail", args=[table.borys.pk]))
    assert polish("freed") in sheet and "kubku zimnej wody" in sheet
    permalink = page(gm, reverse("rolls:detail", args=[table.session.pk, entry.seq]))
    assert words in permalink and polish("Effect freed") in permalink


def test_freeing_an_effect_no_longer_active_is_refused_next_to_the_field(table, client_for):
    stun = applied(table, client_for, table.borys)
    gm = client_for(table.gm)
    assert gm.post(entries_url(table), free(table, table.borys, stun.pk)).status_code == 302
    entries_before = Roll.objects.count()
    response = gm.post(entries_url(table), free(table, table.borys, stun.pk, reason="Znowu"))
    assert response.status_code == 400
    body = html.unescape(response.content.decode())
    assert 'id="id_free-effect_error"' in body
    assert polish("This effect is not active on this character.") in body
    assert Roll.objects.count() == entries_before
    stun.refresh_from_db()
    assert "Znowu" not in stun.freed_note


def test_freeing_an_effect_of_another_character_is_refused(table, client_for):
    stun = applied(table, client_for, table.borys)
    revisions = SheetRevision.objects.count()
    response = client_for(table.gm).post(entries_url(table), free(table, table.lirael, stun.pk))
    assert response.status_code == 400
    assert 'id="id_free-effect_error"' in response.content.decode()
    assert Roll.objects.filter(test="effect_free").count() == 0
    stun.refresh_from_db()
    assert stun.freed_at is None and SheetRevision.objects.count() == revisions


@pytest.mark.parametrize(
    ("change", "field"),
    [({"free-reason": ""}, "reason"), ({"free-effect": "999999"}, "effect")],
)
def test_bad_free_input_is_refused_next_to_the_field(table, client_for, change, field):
    stun = applied(table, client_for, table.borys)
    data = {**free(table, table.borys, stun.pk), **change}
    response = client_for(table.gm).post(entries_url(table), data)
    assert response.status_code == 400
    assert f'id="id_free-{field}_error"' in response.content.decode()
    stun.refresh_from_db()
    assert stun.freed_at is None and not Roll.objects.filter(test="effect_free").exists()


def test_the_free_service_refuses_what_the_form_would_not_offer(table, client_for):
    """rolls.entries.services.effect_free checks the effect itself under the session lock: one freed
    already, or one on a character who does not play here, stores nothing."""
    from django.core.exceptions import ValidationError

    from rolls.entries import services as entries

    stun = applied(table, client_for, table.borys)
    NegativeEffect.objects.filter(pk=stun.pk).update(freed_at=timezone.now(), freed_note="x")
    before = Roll.objects.count()
    with pytest.raises(ValidationError) as refused:
        entries.effect_free(
            session=table.session,
            by=table.gm,
            character_id=table.borys.pk,
            effect_id=stun.pk,
            reason="r",
            token=uuid.uuid4(),
            digest="d",
        )
    assert "effect" in refused.value.message_dict
    with pytest.raises(ValidationError):
        entries.effect_free(
            session=table.session,
            by=table.gm,
            character_id=table.lirael.pk,
            effect_id=stun.pk,
            reason="r",
            token=uuid.uuid4(),
            digest="d",
        )
    assert Roll.objects.count() == before


@pytest.mark.parametrize("who", ["alice", "bob", "moderator"])
def test_only_the_gm_frees_effects_in_the_diary(table, client_for, who):
    stun = applied(table, client_for, table.borys)
    user = getattr(table, who)
    data = {**free(table, table.borys, stun.pk), "free-token": token(user, table.session)}
    assert client_for(user).post(entries_url(table), data).status_code == 403
    stun.refresh_from_db()
    assert stun.freed_at is None and not Roll.objects.filter(test="effect_free").exists()


def test_the_sheets_link_preselects_the_character_in_the_entry_forms(table, client_for):
    gm = client_for(table.gm)
    picked = f'<option value="{table.lirael.pk}" selected>'
    url = f"{entries_url(table)}?entry_character={table.lirael.pk}"
    assert picked in gm.get(url).content.decode()
    diary = reverse("diary:session", args=[table.session.pk])
    assert picked in gm.get(f"{diary}?entry_character={table.lirael.pk}").content.decode()
    # Nonsense or a character outside the session preselects nothing (and is no error).
    for value in ("abc", "999999", "-1"):
        response = gm.get(f"{diary}?entry_character={value}")
        assert response.status_code == 200
        for character in (table.borys, table.lirael):
            assert f'<option value="{character.pk}" selected>' not in response.content.decode()


def _replay(session, character) -> tuple[int, set[int]]:
    """The character's HP and active effects from the session chain alone, in chain order:
    the GM's HP changes, effects applied and freed, healing rolls and items used; an effect
    with a length is gone once the session's turn reaches its end."""
    from diary.services import current_turn

    hp, active = None, {}
    for row in Roll.objects.filter(session=session).order_by("seq"):
        record = row.record
        if row.test == "healing":
            if record["characters"]["patient"]["id"] != character.pk:
                continue
            healing = record["healing"]
            hp = healing["hp_before"] if hp is None else hp
            assert healing["hp_before"] == hp
            hp = healing["hp_after"]
            if healing["freed_effect"]:
                del active[healing["freed_effect"]["id"]]
            continue
        if row.test not in ("hp", "effect", "effect_free", "item_use"):
            continue
        if record["characters"]["a"]["id"] != character.pk:
            continue
        body = record["entry"]
        if row.test == "hp":
            hp = body["hp_before"] if hp is None else hp
            assert body["hp_before"] == hp
            hp = min(body["hp_max"], max(0, hp + body["delta"]))
        elif row.test == "effect":
            active[body["effect"]["id"]] = body["ends_at_turn"]
        elif row.test == "effect_free":
            del active[body["effect"]["id"]]
        else:
            hp = body["hp_before"] if hp is None else hp
            assert body["hp_before"] == hp
            hp = min(character.hp_max, hp + (body["potion"]["restores_hp"] or 0))
            if body["freed_effect"]:
                del active[body["freed_effect"]["id"]]
    # The session's row as it is now (its head holds the current turn).
    session.refresh_from_db()
    now = current_turn(session).number
    return hp, {pk for pk, end in active.items() if end is None or end > now}


def test_in_play_the_sheet_is_the_sum_of_the_chains_entries(table, client_for, monkeypatch):
    """The invariant of play: after the GM's allowed actions on a character in play (damage,
    a healing roll, a potion, effects applied, ended by themselves and freed early),
    replaying the session's chain gives exactly the sheet's HP and active effects; the
    sheet's own forms, tried on the way, refuse and change nothing."""
    from tests.rolls.test_panel import _Fixed, panel_url, skill_roll

    gm, borys = client_for(table.gm), table.borys
    assert gm.post(entries_url(table), hp(table, borys, 30)).status_code == 302  # 80 → 50
    wound = applied(table, client_for, borys, kind="wound")
    poison = applied(table, client_for, borys, kind="poison")
    stun = applied(table, client_for, borys, kind="stun", length="1")
    spell = applied(table, client_for, borys, kind="spell", length="3")
    # Lirael heals the wound (Leczenie ran: threshold 300, a 280 is 20 HP).
    monkeypatch.setattr("rolls.services.SystemDice", lambda: _Fixed(280))
    data = skill_roll(table.lirael, "Leczenie ran", mode="healing", patient=borys.pk)
    data["effect"] = wound.pk
    assert gm.post(panel_url(table), data).status_code == 302
    potion = granted(table, client_for, borys, restores="10", frees="poison")
    assert client_for(table.bob).post(
        use_url(table), use(table.bob, table, potion)
    ).status_code == (302)
    # The sheet's own forms refuse the GM in play.
    for name, data in [
        ("characters:hp", {"hp_current": "1"}),
        ("characters:effect_add", {"kind": "wound", "description": "Cichcem"}),
    ]:
        assert gm.post(reverse(name, args=[borys.pk]), data).status_code == 403
    free_url = reverse("characters:effect_free", args=[borys.pk, spell.pk])
    assert gm.post(free_url, {"note": "cichcem"}).status_code == 403
    turn_open_next(session=table.session, by=table.gm)  # turn 2: the stun ends by itself
    assert gm.post(entries_url(table), free(table, borys, spell.pk)).status_code == 302
    assert gm.post(entries_url(table), hp(table, borys, 45)).status_code == 302
    illness = applied(table, client_for, borys, kind="illness", length="2")

    borys.refresh_from_db()
    hp_now, active = _replay(table.session, borys)
    stored = set(
        NegativeEffect.objects.filter(character=borys, freed_at__isnull=True).values_list(
            "pk", flat=True
        )
    )
    assert (borys.hp_current, stored) == (hp_now, active)
    assert active == {illness.pk}  # wound healed, poison drunk away, stun over, spell freed
    assert borys.hp_current == 50 + 20 + 10 - 45
    for effect in (wound, poison, stun, spell):
        effect.refresh_from_db()
        assert effect.freed_at is not None
    assert verify_session(table.session.pk).ok


# --- The services check their own input (they never trust a view) -------------------


def _service_call(table, name: str, **change):
    """One of the GM's entry services, called directly with valid input but for `change`."""
    from rolls.entries import services as entries

    common = {
        "session": table.session,
        "by": table.gm,
        "character_id": table.borys.pk,
        "token": uuid.uuid4(),
        "digest": "d",
    }
    if name == "hp":
        return entries.damage_deal(**common, **{"delta": -5, "reason": "Cios", **change})
    if name == "effect":
        values = {"kind": "stun", "description": "Ogłuszony", "length_turns": 1, "reason": "Cios"}
        return entries.effect_apply(**common, **{**values, **change})
    if name == "free":
        stun = NegativeEffect.objects.create(character=table.borys, kind="stun", description="x")
        return entries.effect_free(**common, **{"effect_id": stun.pk, "reason": "r", **change})
    values = {"count": 1, "effect": "Mikstura", "restores_hp": 30, "frees_kind": ""}
    return entries.item_grant(**common, **{**values, **change})


@pytest.mark.parametrize(
    ("name", "change", "field"),
    [
        ("hp", {"reason": ""}, "reason"),
        ("hp", {"reason": "   "}, "reason"),
        ("hp", {"delta": 0}, "amount"),
        ("effect", {"reason": " "}, "reason"),
        ("effect", {"description": ""}, "description"),
        ("effect", {"description": "  "}, "description"),
        ("effect", {"length_turns": 0}, "length_turns"),
        ("free", {"reason": ""}, "reason"),
        ("grant", {"count": 0}, "count"),
        ("grant", {"count": -3}, "count"),
        ("grant", {"effect": " "}, "effect"),
        ("grant", {"restores_hp": 0}, "restores_hp"),
    ],
)
def test_the_entry_services_refuse_what_the_forms_refuse(table, name, change, field):
    """rolls.entries.services checks its input itself: a blank reason or description, a zero HP
    change, a count below one are refused next to the form's field; nothing is stored."""
    from django.core.exceptions import ValidationError

    borys = type(table.borys).objects.get(pk=table.borys.pk)
    revisions = SheetRevision.objects.filter(character=borys).count()
    effects = NegativeEffect.objects.filter(character=borys, freed_at__isnull=True).count()
    with pytest.raises(ValidationError) as refused:
        _service_call(table, name, **change)
    assert field in refused.value.message_dict
    assert not Roll.objects.exists()
    after = type(table.borys).objects.get(pk=table.borys.pk)
    assert after.hp_current == borys.hp_current
    assert not HealingPotion.objects.filter(character=borys).exists()
    # effect_free's call adds the effect to free first (still active: nothing freed).
    extra = 1 if name == "free" else 0
    assert NegativeEffect.objects.filter(character=borys, freed_at__isnull=True).count() == (
        effects + extra
    )
    assert SheetRevision.objects.filter(character=borys).count() == revisions


def test_a_blank_reason_is_refused_in_polish(table):
    from django.core.exceptions import ValidationError
    from django.utils import translation

    with pytest.raises(ValidationError) as refused, translation.override("pl"):
        _service_call(table, "hp", reason="")
    with translation.override("pl"):
        assert refused.value.message_dict["reason"] == [polish("This field is required.")]
