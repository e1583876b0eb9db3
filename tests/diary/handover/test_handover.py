"""The GM handover: a co-GM with the GM's powers, named and removed by the GM; a moderator
handing an orphaned session to a new GM, recorded and told; the GM stepping down to a co-GM;
a player leaving a running session and the GM removing one with a reason."""

import html
import uuid
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from characters.models import Attribute
from diary import services as diary_services
from diary.models import (
    CoGameMaster,
    GameSession,
    Notification,
    NotificationKind,
    Participation,
    Post,
    SessionHandover,
    Turn,
)
from diary.notifications.delivery import notification_text
from rolls.models import Roll
from tests.conftest import polish
from tests.rolls.conftest import PanelClient

pytestmark = pytest.mark.django_db


def page(response) -> str:
    return html.unescape(response.content.decode())


def name_co_gm(client_for, table, user):
    return client_for(table.gm).post(
        reverse("diary:co_gms", args=[table.session.pk]), {"username": user.username}
    )


@pytest.fixture
def kasia(table, make_user, client_for):
    """A co-GM of the table's session, named by its GM."""
    kasia = make_user("kasia")
    assert name_co_gm(client_for, table, kasia).status_code == 302
    return kasia


def panel_roll(user, session, character):
    attribute = Attribute.objects.get(system="forum1000", name="Percepcja").pk
    return PanelClient(user).post(
        reverse("rolls:panel", args=[session.pk]),
        {
            "token": str(uuid.uuid4()),
            "mode": "attribute",
            "a-character": character.pk,
            "a-attribute": attribute,
            "a-action_value": "0",
            "a-gm_difficulty": "0",
            "a-gm_bonus": "0",
        },
    )


# --- co-GMs ---------------------------------------------------------------------------


def test_a_co_gm_opens_a_turn_rolls_and_edits_settings_and_the_diary_names_them(
    table, client_for, kasia
):
    client = client_for(kasia)
    session = table.session
    assert CoGameMaster.objects.get(session=session).named_by == table.gm
    assert Notification.objects.filter(recipient=kasia, kind=NotificationKind.CO_GM_NAMED)
    # Opens a turn, as the GM can: the turn and the players' notice name her.
    opened = client.post(reverse("diary:turn_open", args=[session.pk]), {"confirm": "yes"})
    assert opened.status_code == 302
    turn = Turn.objects.get(session=session, number=2)
    assert turn.opened_by == kasia
    notice = Notification.objects.get(recipient=table.alice, turn=turn)
    assert notice.actor == kasia
    # The GM hears of it too.
    assert Notification.objects.filter(recipient=table.gm, turn=turn).exists()
    # Rolls in the panel for any character: the roll and its post are hers.
    assert panel_roll(kasia, session, table.borys).status_code == 302
    roll = Roll.objects.get()
    assert (roll.rolled_by, roll.post.author) == (kasia, kasia)
    # The session's settings are hers to change.
    assert client.get(reverse("diary:session_edit", args=[session.pk])).status_code == 200
    assert client.get(reverse("diary:participants", args=[session.pk])).status_code == 200
    # The diary names her as the co-GM, beside the GM.
    body = page(client_for(table.alice).get(reverse("diary:session", args=[session.pk])))
    assert f"kasia ({polish('co-GM')})" in body
    assert "kasia" in body.split('data-testid="co-gm-names"')[1].split("</dd>")[0]


def test_removing_the_co_gm_takes_the_powers_away(table, client_for, kasia):
    session = table.session
    removed = client_for(table.gm).post(
        reverse("diary:co_gm_remove", args=[session.pk]), {"user": kasia.pk, "confirm": "yes"}
    )
    assert removed.status_code == 302
    assert not CoGameMaster.objects.exists()
    client = client_for(kasia)
    assert client.post(
        reverse("diary:turn_open", args=[session.pk]), {"confirm": "yes"}
    ).status_code in (403, 404)
    assert client.get(reverse("diary:session_edit", args=[session.pk])).status_code == 403
    assert panel_roll(kasia, session, table.borys).status_code in (403, 404)
    assert not Roll.objects.exists()
    assert Turn.objects.filter(session=session).count() == 1


def test_removal_needs_the_confirmation(table, client_for, kasia):
    client_for(table.gm).post(
        reverse("diary:co_gm_remove", args=[table.session.pk]), {"user": kasia.pk}
    )
    assert CoGameMaster.objects.filter(user=kasia).exists()


@pytest.mark.parametrize("who", ["alice", "gm"])
def test_a_player_or_the_gm_cannot_be_named(table, client_for, who):
    response = name_co_gm(client_for, table, getattr(table, who))
    assert response.status_code == 400
    assert 'class="error"' in response.content.decode()
    assert not CoGameMaster.objects.exists()


def test_only_the_sessions_gm_names_co_gms(table, client_for, kasia, make_user):
    other = make_user("olek")
    for who in (kasia, table.alice, table.moderator):
        client_for(who).post(
            reverse("diary:co_gms", args=[table.session.pk]), {"username": other.username}
        )
    assert list(CoGameMaster.objects.values_list("user__username", flat=True)) == ["kasia"]


def test_a_co_gm_hears_what_is_meant_for_the_gm(table, client_for, kasia, make_character):
    newcomer = make_character(table.outsider, "Nowy")
    diary_services.participation_request(
        session=table.session, by=table.outsider, character=newcomer
    )
    heard = set(
        Notification.objects.filter(kind=NotificationKind.JOIN_REQUEST).values_list(
            "recipient__username", flat=True
        )
    )
    assert heard == {"mg", "kasia"}
    # And sees the request on the home page among the sessions she runs.
    assert "Nowy" in page(client_for(kasia).get(reverse("home")))


# --- a moderator hands an orphaned session over ----------------------------------------


def orphan(session, days=20):
    """Nothing from its GM for `days` days: its turns and posts (and itself) made then."""
    then = timezone.now() - timedelta(days=days)
    Turn.objects.filter(session=session).update(opened_at=then)
    Post.objects.filter(session=session).update(created_at=then)
    GameSession.objects.filter(pk=session.pk).update(created_at=then)


def hand_over(client, session, username, reason="Prowadzący zniknął bez słowa."):
    return client.post(
        reverse("diary:session_handover", args=[session.pk]),
        {"username": username, "reason": reason},
    )


def test_a_session_that_is_not_orphaned_is_refused_with_the_reason(table, client_for, make_user):
    new_gm = make_user("nowy_mg")
    client = client_for(table.moderator)
    shown = page(client.get(reverse("diary:session_handover", args=[table.session.pk])))
    assert 'data-testid="not-orphaned"' in shown
    response = hand_over(client, table.session, new_gm.username)
    assert response.status_code == 400
    assert "14" in page(response)
    table.session.refresh_from_db()
    assert table.session.gm == table.gm
    assert not SessionHandover.objects.exists()


def test_a_moderator_hands_an_orphaned_session_to_a_new_gm(table, client_for, make_user):
    new_gm = make_user("nowy_mg")
    session = table.session
    orphan(session)
    client = client_for(table.moderator)
    # No reason: refused next to the field, nothing changes.
    assert hand_over(client, session, new_gm.username, reason="  ").status_code == 400
    # A player of the session cannot become its GM.
    assert hand_over(client, session, table.alice.username).status_code == 400
    assert not SessionHandover.objects.exists()
    assert hand_over(client, session, new_gm.username).status_code == 302
    handover = SessionHandover.objects.get()
    assert (handover.from_gm, handover.to_gm, handover.by) == (table.gm, new_gm, table.moderator)
    session.refresh_from_db()
    assert session.gm == new_gm
    # Everyone is told: the players, the old GM and the new one, with the reason.
    told = Notification.objects.filter(kind=NotificationKind.SESSION_HANDED_OVER)
    assert {n.recipient.username for n in told} == {"alicja", "bartek", "mg", "nowy_mg"}
    assert "Prowadzący zniknął bez słowa." in notification_text(told.first())
    # The new GM has the powers; the old one has none.
    opened = client_for(new_gm).post(
        reverse("diary:turn_open", args=[session.pk]), {"confirm": "yes"}
    )
    assert opened.status_code == 302
    assert client_for(table.gm).post(
        reverse("diary:turn_open", args=[session.pk]), {"confirm": "yes"}
    ).status_code in (403, 404)
    # The session's history shows it, on the diary's side and on its own page.
    diary = page(client_for(table.alice).get(reverse("diary:session", args=[session.pk])))
    assert "nowy_mg" in diary.split('data-testid="session-history"')[1]
    history = page(client_for(table.alice).get(reverse("diary:session_history", args=[session.pk])))
    assert "Prowadzący zniknął bez słowa." in history
    # The old GM no longer reads the diary, but reads the history and its reason.
    old = page(client_for(table.gm).get(reverse("diary:session_history", args=[session.pk])))
    assert "Prowadzący zniknął bez słowa." in old


def test_a_co_gm_is_offered_first_and_takes_over(table, client_for, kasia):
    orphan(table.session)
    client = client_for(table.moderator)
    shown = page(client.get(reverse("diary:session_handover", args=[table.session.pk])))
    assert 'data-testid="offered">kasia<' in shown
    assert 'value="kasia"' in shown
    assert hand_over(client, table.session, "kasia").status_code == 302
    table.session.refresh_from_db()
    assert table.session.gm == kasia
    # No longer a co-GM of her own session.
    assert not CoGameMaster.objects.exists()


def test_a_co_gms_post_keeps_the_session_from_being_orphaned(table, client_for, kasia):
    orphan(table.session)
    diary_services.post_create(
        session=table.session, author=kasia, character=None, narration="Jestem.", nc_note=""
    )
    response = hand_over(client_for(table.moderator), table.session, kasia.username)
    assert response.status_code == 400
    assert not SessionHandover.objects.exists()


def test_the_gm_steps_down_to_a_co_gm(table, client_for, kasia):
    client = client_for(table.gm)
    response = hand_over(client, table.session, "kasia", reason="Nie mam już czasu.")
    assert response.status_code == 302
    table.session.refresh_from_db()
    assert table.session.gm == kasia
    handover = SessionHandover.objects.get()
    assert (handover.by, handover.reason) == (table.gm, "Nie mam już czasu.")
    assert client_for(table.gm).get(
        reverse("diary:session_edit", args=[table.session.pk])
    ).status_code in (403, 404)


def test_the_gm_steps_down_only_to_a_co_gm(table, client_for, kasia, make_user):
    other = make_user("olek")
    response = hand_over(client_for(table.gm), table.session, other.username)
    assert response.status_code == 400
    table.session.refresh_from_db()
    assert table.session.gm == table.gm


# --- a player leaves; the GM removes one with a reason ----------------------------------


def test_a_player_leaves_a_running_session_and_the_record_stays(
    table, client_for, kasia, make_user, make_session
):
    session = table.session
    diary_services.post_create(
        session=session, author=table.bob, character=table.borys, narration="Idę.", nc_note=""
    )
    participation = Participation.objects.get(session=session, character=table.borys)
    url = reverse("diary:participation_withdraw", args=[participation.pk])
    asked = page(client_for(table.bob).post(url))
    assert polish("Yes, leave the session") in asked
    assert client_for(table.bob).post(url, {"confirm": "yes"}).status_code == 302
    participation.refresh_from_db()
    assert (participation.status, participation.withdrawn_by) == ("withdrawn", table.bob)
    assert participation.removal_reason == ""
    # The GM and the co-GM are told.
    told = Notification.objects.filter(kind=NotificationKind.PLAYER_LEFT)
    assert {n.recipient.username for n in told} == {"mg", "kasia"}
    # The post stays, under the character's name.
    body = page(client_for(table.alice).get(reverse("diary:session", args=[session.pk])))
    assert "Idę." in body and "Borys" in body
    # The character is free to play elsewhere.
    elsewhere = make_session(make_user("inny_mg"), [table.borys])
    assert Participation.objects.get(session=elsewhere).status == "accepted"


def test_the_gm_removes_a_player_with_a_reason_the_player_reads(table, client_for):
    session = table.session
    participation = Participation.objects.get(session=session, character=table.borys)
    url = reverse("diary:participation_withdraw", args=[participation.pk])
    client = client_for(table.gm)
    # Without a reason: the page asks for it, nothing changes.
    assert client.post(url, {"confirm": "yes"}).status_code == 400
    participation.refresh_from_db()
    assert participation.status == "accepted"
    assert client.post(url, {"confirm": "yes", "reason": "Trzy tury bez wpisu."}).status_code == 302
    participation.refresh_from_db()
    assert participation.status == "withdrawn"
    assert participation.removal_reason == "Trzy tury bez wpisu."
    notice = Notification.objects.get(recipient=table.bob, kind=NotificationKind.CHARACTER_REMOVED)
    assert "Trzy tury bez wpisu." in notification_text(notice)
    bob = client_for(table.bob)
    history = page(bob.get(reverse("diary:session_history", args=[session.pk])))
    assert (
        polish(
            "The GM removed your character (%(character)s): %(reason)s",
            character="Borys",
            reason="Trzy tury bez wpisu.",
        )
        in history
    )
    card = page(bob.get(reverse("diary:session_join", args=[session.pk])))
    assert (
        polish("The GM removed your character: %(reason)s", reason="Trzy tury bez wpisu.") in card
    )
    # The notice leads where the reason is.
    assert bob.get(reverse("notifications:open", args=[notice.pk])).status_code == 302


def test_a_co_gm_declines_a_request_and_the_player_hears_it_from_them(table, client_for, kasia):
    from rolls.models import AskStatus, RollAsk
    from rolls.systems.forum1000.requests import SideRequest
    from tests.rolling import ask_roll

    session = table.session
    post = diary_services.post_create(
        session=session, author=table.bob, character=table.borys, narration="Szukam.", nc_note=""
    )
    attribute = Attribute.objects.get(system="forum1000", name="Percepcja").pk
    ask = ask_roll(session, table.bob, SideRequest(table.borys.pk, "attribute", (attribute,)), post)
    response = client_for(kasia).post(
        reverse("rolls:ask_decline", args=[session.pk, ask.pk]), {"reason": "Nie teraz."}
    )
    assert response.status_code == 302
    ask = RollAsk.objects.get(pk=ask.pk)
    assert (ask.status, ask.closed_by) == (AskStatus.DECLINED, kasia)
    notice = Notification.objects.get(recipient=table.bob, kind=NotificationKind.ASK_ANSWERED)
    assert notice.actor == kasia
    assert notification_text(notice).startswith("kasia")


def test_a_co_gm_answers_a_request_and_removes_a_player_as_the_gm(
    table, client_for, kasia, make_character
):
    session = table.session
    newcomer = make_character(table.outsider, "Nowy")
    asked = diary_services.participation_request(
        session=session, by=table.outsider, character=newcomer
    )
    client = client_for(kasia)
    accepted = client.post(reverse("diary:participation_accept", args=[asked.pk]))
    assert accepted.url == reverse("diary:participants", args=[session.pk])
    asked.refresh_from_db()
    assert asked.status == "accepted"
    borys = Participation.objects.get(session=session, character=table.borys)
    client.post(
        reverse("diary:participation_withdraw", args=[borys.pk]),
        {"confirm": "yes", "reason": "Zgoda całego stołu."},
    )
    borys.refresh_from_db()
    assert (borys.status, borys.withdrawn_by) == ("withdrawn", kasia)
    notice = Notification.objects.get(recipient=table.bob, kind=NotificationKind.CHARACTER_REMOVED)
    assert notice.actor == kasia


def test_a_co_gm_steps_back_but_removes_no_other(table, client_for, kasia, make_user):
    olek = make_user("olek")
    name_co_gm(client_for, table, olek)
    url = reverse("diary:co_gm_remove", args=[table.session.pk])
    client_for(kasia).post(url, {"user": olek.pk, "confirm": "yes"})
    assert CoGameMaster.objects.filter(user=olek).exists()
    assert client_for(kasia).post(url, {"user": kasia.pk, "confirm": "yes"}).status_code == 302
    assert list(CoGameMaster.objects.values_list("user__username", flat=True)) == ["olek"]


def test_a_turn_the_site_opened_at_the_deadline_is_no_sign_of_the_gm(table, client_for, make_user):
    """The site opening turns by the GM's rule keeps a game going without its GM; only the
    GM's own acts keep it from being orphaned."""
    from diary.handover.selectors import orphaned_state

    orphan(table.session)
    diary_services.turn_open_next(session=table.session, by=table.gm, opened_by_site="deadline")
    table.session.refresh_from_db()
    assert orphaned_state(table.session).orphaned
    make_user("nowy")
    assert hand_over(client_for(table.moderator), table.session, "nowy").status_code == 302


def test_no_one_who_runs_the_session_is_invited_into_it(table, client_for, kasia, make_character):
    """A co-GM plays no character in the session they run (nor does its GM): the invitation
    of their character is refused next to the field, nothing is stored."""
    make_character(kasia, "Kira", gender="feminine")
    make_character(table.gm, "Mistrz")
    url = reverse("diary:participants", args=[table.session.pk])
    for username, name in (("kasia", "Kira"), ("mg", "Mistrz")):
        response = client_for(table.gm).post(url, {"username": username, "name": name})
        assert response.status_code == 400
        assert polish(
            "This character's player runs this session: its GM and co-GMs play no character in it."
        ) in page(response)
    assert not Participation.objects.filter(character__name__in=["Kira", "Mistrz"]).exists()
