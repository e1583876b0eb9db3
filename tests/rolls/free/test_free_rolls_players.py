"""Players' free-form rolls (rolls.free.services, rolls/free/views.py): where the GM allows it
in the session's settings, a player rolls dice notation into their own post, through the
same service and chain as the GM; where not, they are told so in Polish."""

import uuid

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.test import Client
from django.urls import reverse

from diary import services as diary_services
from diary.models import GameSession
from rolls import access
from rolls.engine.dice import ScriptedDice
from rolls.free import services as free_rolls
from rolls.ledger import verify as ledger
from rolls.models import Roll
from tests.conftest import polish

pytestmark = pytest.mark.django_db

REFUSAL = (
    "The GM has not allowed players to make free-form rolls in this session. "
    "Your character's dice are rolled from the roll panel."
)


def allow(t, allowed=True):
    GameSession.objects.filter(pk=t.session.pk).update(players_free_rolls=allowed)
    t.session.refresh_from_db()


def url(t):
    return reverse("rolls:free", args=[t.session.pk])


def logged_in(user) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="pl")
    client.force_login(user)
    return client


def form(t, by, **fields):
    data = {"expression": "2k6+1", "label": "Szczęście w kościach", "character": "", "post": ""}
    data.update(fields)
    data["token"] = access.sign_token(by, t.session, uuid.uuid4())
    return data


def roll(t, by, expression="2k6+1", *, faces=(3, 5), **free):
    return free_rolls.roll_make_free(
        session=t.session,
        by=by,
        free=free_rolls.FreeRoll(expression=expression, label="Los", **free),
        token=uuid.uuid4(),
        dice=ScriptedDice(faces),
    )


# --- The setting ------------------------------------------------------------------------


def test_the_setting_is_off_by_default_and_the_gm_sets_it_in_the_session_settings(table):
    assert table.session.players_free_rolls is False
    edit = reverse("diary:session_edit", args=[table.session.pk])
    page = logged_in(table.gm).get(edit).content.decode()
    assert 'name="players_free_rolls"' in page
    data = {
        "title": table.session.title,
        "description": "",
        "criticals_enabled": "on",
        "npc_mode": table.session.npc_mode,
        "roll_policy": table.session.roll_policy,
        "players_free_rolls": "on",
    }
    assert logged_in(table.gm).post(edit, data).status_code == 302
    table.session.refresh_from_db()
    assert table.session.players_free_rolls is True


# --- The service ------------------------------------------------------------------------


def test_a_player_is_refused_while_the_gm_has_not_allowed_it(table):
    with pytest.raises(PermissionDenied) as refused:
        roll(table, table.alice)
    assert str(refused.value) == polish(REFUSAL)
    assert not Roll.objects.exists()


def test_an_allowed_player_rolls_into_their_own_post_in_the_chain(table):
    allow(table)
    own = diary_services.post_create(
        session=table.session,
        author=table.alice,
        character=table.lirael,
        narration="Rzucam.",
        nc_note="",
    )
    made = roll(table, table.alice, character_id=table.lirael.pk)
    assert made.roll.post == own and made.roll.rolled_by == table.alice
    assert made.roll.record["roller"] == "player"
    assert made.roll.record["result"]["total"] == 9
    assert (made.roll.test, made.roll.is_action) == ("notation", False)
    assert ledger.verify_session(table.session.pk, recompute=True).ok


def test_a_player_without_a_post_this_turn_gets_a_new_one(table):
    allow(table)
    made = roll(table, table.bob)
    assert made.roll.post.author == table.bob and made.roll.post.turn == table.session.current_turn


def test_the_gms_free_roll_record_has_no_roller(table):
    allow(table)
    assert "roller" not in roll(table, table.gm).roll.record


@pytest.mark.parametrize("what", ["secret", "someone_elses_character"])
def test_a_player_neither_rolls_in_secret_nor_for_someone_elses_character(table, what):
    allow(table)
    free = {"secret": True} if what == "secret" else {"character_id": table.borys.pk}
    with pytest.raises(ValidationError):
        roll(table, table.alice, **free)
    assert not Roll.objects.exists()


def test_a_moderator_and_an_outsider_are_refused_even_when_allowed(table):
    allow(table)
    for user in (table.moderator, table.outsider):
        with pytest.raises(PermissionDenied):
            roll(table, user)
    assert not Roll.objects.exists()


# --- The page ---------------------------------------------------------------------------


def test_a_player_not_allowed_sees_the_polish_refusal_not_a_bare_403(table):
    for response in (
        logged_in(table.alice).get(url(table)),
        logged_in(table.alice).post(url(table), form(table, table.alice)),
    ):
        text = response.content.decode()
        assert response.status_code == 403
        assert polish(REFUSAL) in text and 'data-testid="refusal"' in text
    assert not Roll.objects.exists()


def test_an_allowed_player_rolls_from_the_page_and_the_post_labels_it(table):
    allow(table)
    page = logged_in(table.alice).get(url(table)).content.decode()
    assert 'name="secret"' not in page and "Borys" not in page  # their own character only
    response = logged_in(table.alice).post(url(table), form(table, table.alice))
    assert response.status_code == 302
    made = Roll.objects.get(session=table.session)
    assert made.post.author == table.alice and made.record["roller"] == "player"
    diary = logged_in(table.bob).get(response["Location"]).content.decode()
    assert polish("Player's free-form roll") in diary and "Szczęście w kościach" in diary
    assert "alicja" in diary


def test_the_diary_links_an_allowed_player_to_the_page(table):
    diary = reverse("diary:session", args=[table.session.pk])
    assert 'data-testid="free-roll-link"' not in logged_in(table.alice).get(diary).content.decode()
    allow(table)
    assert 'data-testid="free-roll-link"' in logged_in(table.alice).get(diary).content.decode()


# --- The audit --------------------------------------------------------------------------


def test_the_audit_counts_each_players_free_rolls(table):
    allow(table)
    roll(table, table.alice, faces=(6, 6))
    roll(table, table.alice, "1k20", faces=(1,))
    roll(table, table.bob, faces=(1, 2))
    roll(table, table.gm, faces=(4, 4))
    from rolls.free.selectors import free_roll_stats

    stats = {(s.username, s.by_player): s for s in free_roll_stats(table.session)}
    alice = stats[("alicja", True)]
    assert alice.rolls == 2 and alice.dice == [(6, 2, 6.0, 3.5), (20, 1, 1.0, 10.5)]
    assert stats[("bartek", True)].rolls == 1 and stats[("mg", False)].rolls == 1
    audit = logged_in(table.moderator).get(reverse("rolls:audit", args=[table.session.pk]))
    text = audit.content.decode()
    assert audit.status_code == 200 and 'data-testid="free-roll-stats"' in text
    assert text.count('data-testid="free-stats-row"') == 4


def test_the_audit_writes_a_fate_mean_below_zero_with_the_minus_sign(table):
    allow(table)
    roll(table, table.bob, "4kF", faces=(-1, -1, -1, 0))
    roll(table, table.bob, "1k6", faces=(2,))
    from rolls.free.selectors import free_roll_stats

    (bob,) = free_roll_stats(table.session)
    assert bob.dice == [(6, 1, 2.0, 3.5), ("F", 4, -0.75, 0.0)]
    audit = logged_in(table.moderator).get(reverse("rolls:audit", args=[table.session.pk]))
    text = audit.content.decode()
    assert audit.status_code == 200 and ">kF<" in text
    assert ">−0,75<" in text and "-0,75" not in text
