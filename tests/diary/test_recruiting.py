"""Recruitment: the GM opens and closes it and says how the table posts; applications are
taken only while it is open and a place is free; the list and the recruiting board show
the sessions that recruit."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse

from characters.systems import RuleSystem
from diary import services
from diary.models import GameSession, Notification, Participation
from tests.conftest import polish
from tests.rolls.concurrency import in_thread, waiting_for_a_lock

pytestmark = pytest.mark.django_db

CLOSED = "This session is not recruiting: the GM has closed recruitment."
FULL = "This session has no free places: every place is taken."


def test_the_gm_opens_recruitment_with_places_and_posting_habits(table, client_for):
    response = client_for(table.gm).post(
        reverse("diary:session_edit", args=[table.session.pk]),
        {
            "title": table.session.title,
            "criticals_enabled": "on",
            "npc_mode": "fixed_modifiers",
            "roll_policy": "gm_only",
            "recruiting": "on",
            "player_slots": "5",
            "posting_habits": "posty co 2–3 dni, tura zamykana w niedzielę",
        },
    )
    assert response.status_code == 302
    table.session.refresh_from_db()
    assert table.session.recruiting is True
    assert table.session.player_slots == 5
    assert table.session.posting_habits == "posty co 2–3 dni, tura zamykana w niedzielę"


@pytest.mark.parametrize("places", ["0", "21", "dużo"])
def test_places_out_of_bounds_are_refused_next_to_the_field(table, client_for, places):
    response = client_for(table.gm).post(
        reverse("diary:session_edit", args=[table.session.pk]),
        {
            "title": table.session.title,
            "npc_mode": "fixed_modifiers",
            "roll_policy": "gm_only",
            "player_slots": places,
        },
    )
    assert response.status_code == 200
    assert response.context["form"].errors["player_slots"]
    table.session.refresh_from_db()
    assert table.session.player_slots == 4


def test_closed_recruitment_refuses_an_application_in_polish(
    make_user, make_character, make_session, client_for
):
    gm, player = make_user(), make_user()
    character = make_character(player)
    session = make_session(gm, recruiting=False)
    join = reverse("diary:session_join", args=[session.pk])
    page = client_for(player).get(join).content.decode()
    assert 'data-testid="recruitment-closed"' in page
    assert polish("This session is not recruiting: the GM takes no applications now.") in page
    response = client_for(player).post(join, {"character": character.pk, "message": "Hej"})
    assert response.status_code == 400
    assert polish(CLOSED) in response.content.decode()
    assert not Participation.objects.filter(session=session).exists()
    with pytest.raises(ValidationError):
        services.participation_request(session=session, by=player, character=character)


def test_a_session_without_free_places_refuses_an_application(
    make_user, make_character, make_session, client_for
):
    gm, player = make_user(), make_user()
    playing = [make_character(make_user()) for _ in range(2)]
    session = make_session(gm, playing)
    GameSession.objects.filter(pk=session.pk).update(player_slots=2)
    character = make_character(player)
    join = reverse("diary:session_join", args=[session.pk])
    response = client_for(player).post(join, {"character": character.pk})
    assert response.status_code == 400
    assert polish(FULL) in response.content.decode()
    assert not Participation.objects.filter(character=character).exists()
    # A free place again: the application goes through.
    GameSession.objects.filter(pk=session.pk).update(player_slots=3)
    assert client_for(player).post(join, {"character": character.pk}).status_code == 302
    assert Participation.objects.get(character=character).status == "requested"


def test_the_list_labels_the_sessions_that_recruit(
    make_user, make_character, client_for, make_session
):
    gm, player = make_user(), make_user()
    make_character(player)
    open_ = make_session(gm, title="Otwarta")
    closed = make_session(gm, title="Zamknięta", recruiting=False)
    full = make_session(gm, [make_character(make_user())], title="Pełna")
    GameSession.objects.filter(pk=full.pk).update(player_slots=1)
    page = client_for(player).get(reverse("diary:session_list")).content.decode()
    assert f'data-testid="recruiting-{open_.pk}"' in page
    assert f'data-testid="recruiting-{closed.pk}"' not in page
    assert f'data-testid="recruiting-{full.pk}"' not in page
    assert polish("recruiting") == "rekrutacja"
    assert ">rekrutacja<" in page
    # "Ask to join" is offered only where recruitment is open.
    assert page.count(polish("Ask to join")) == 1


def test_the_board_lists_open_sessions_by_system_with_places_and_habits(
    make_user, make_character, make_session, client_for
):
    gm = make_user("mistrzyni")
    open_ = make_session(gm, [make_character(make_user())], title="Karawana")
    GameSession.objects.filter(pk=open_.pk).update(
        player_slots=3, posting_habits="posty co 2–3 dni"
    )
    q10 = services.session_create(
        gm=gm,
        title="Dziesiątka",
        description="",
        system=RuleSystem.Q10,
        criticals_enabled=True,
        npc_mode="fixed_modifiers",
        roll_policy="gm_only",
        recruiting=True,
    )
    services.session_transition(session=q10, by=gm, to="plan_submitted")
    closed = make_session(gm, title="Zamknięta", recruiting=False)
    draft = make_session(gm, status="draft", title="Szkic")
    viewer = client_for(make_user())
    board = reverse("diary:recruiting")
    assert board == "/sessions/recruiting/"
    page = viewer.get(board).content.decode()
    card = page[page.index(f'data-testid="recruiting-{open_.pk}"') :]
    assert 'data-testid="open-places">2 / 3<' in card
    assert "posty co 2–3 dni" in card
    assert "mistrzyni" in card
    assert reverse("diary:session_join", args=[open_.pk]) in card
    assert f'data-testid="recruiting-{q10.pk}"' in page
    assert f'data-testid="recruiting-{closed.pk}"' not in page
    assert f'data-testid="recruiting-{draft.pk}"' not in page
    assert page.count('data-testid="recruiting-system"') == 2
    only_q10 = viewer.get(board, {"system": "q10"}).content.decode()
    assert f'data-testid="recruiting-{q10.pk}"' in only_q10
    assert f'data-testid="recruiting-{open_.pk}"' not in only_q10


def test_a_bad_system_on_the_board_is_said_next_to_the_field(table, client_for):
    response = client_for(table.outsider).get(reverse("diary:recruiting"), {"system": "dnd5"})
    assert response.status_code == 400
    assert 'id="id_system_error"' in response.content.decode()


def test_the_board_asks_an_anonymous_visitor_to_log_in(client):
    response = client.get(reverse("diary:recruiting"))
    assert response.status_code == 302
    assert reverse("login") in response["Location"]


def test_the_public_page_shows_posting_habits_places_and_the_deadline(table, client_for):
    from datetime import timedelta

    from django.utils import timezone

    from diary.models import Turn

    GameSession.objects.filter(pk=table.session.pk).update(
        posting_habits="posty co 2–3 dni, tura zamykana w niedzielę", player_slots=3
    )
    Turn.objects.filter(pk=table.session.current_turn_id).update(
        deadline=timezone.now() + timedelta(days=3)
    )
    page = (
        client_for(table.outsider)
        .get(reverse("diary:session_join", args=[table.session.pk]))
        .content.decode()
    )
    assert polish("Schedule and posting habits") in page
    assert "posty co 2–3 dni, tura zamykana w niedzielę" in page
    assert 'data-testid="open-places">1 / 3<' in page
    assert polish("Current turn's deadline") in page


ALL_TAKEN = (
    "Every place in this session is taken (%(taken)s of %(places)s); the GM can raise the "
    "number of places in the session's settings."
)


def _applications(make_user, make_character, session, count):
    return [
        services.participation_request(session=session, by=owner, character=make_character(owner))
        for owner in (make_user() for _ in range(count))
    ]


def test_the_gm_cannot_accept_past_the_places(make_user, make_character, make_session, client_for):
    gm = make_user()
    session = make_session(gm, [make_character(make_user())])
    GameSession.objects.filter(pk=session.pk).update(player_slots=2)
    first, second = _applications(make_user, make_character, session, 2)
    gm_client = client_for(gm)
    accept = "diary:participation_accept"
    assert gm_client.post(reverse(accept, args=[first.pk])).status_code == 302
    # The second is refused where the GM clicked: on the participants page, in its row,
    # with the way to more places; nothing changes and the applicant hears nothing.
    response = gm_client.post(reverse(accept, args=[second.pk]), {"note": "Witaj!"})
    assert response.status_code == 400
    page = response.content.decode()
    row = page[page.index(f'data-testid="decide-{second.pk}"') :]
    row = row[: row.index("</form>")]
    assert polish(ALL_TAKEN, taken=2, places=2) in row
    assert f'href="{reverse("diary:session_edit", args=[session.pk])}#id_player_slots"' in row
    second.refresh_from_db()
    assert second.status == "requested" and second.gm_note == ""
    assert not Notification.objects.filter(
        recipient=second.character.owner, kind="participation_decided"
    ).exists()
    assert Participation.objects.filter(session=session, status="accepted").count() == 2
    # The page says how many places are taken and where to change them.
    places = page[page.index('data-testid="places"') :]
    assert polish("Places taken: %(taken)s of %(places)s.", taken=2, places=2) in places
    # Once the GM raises the places, the same click goes through.
    GameSession.objects.filter(pk=session.pk).update(player_slots=3)
    assert gm_client.post(reverse(accept, args=[second.pk])).status_code == 302
    second.refresh_from_db()
    assert second.status == "accepted"


def test_an_invitation_past_the_places_is_refused(make_user, make_character, make_session):
    gm, invited_owner = make_user(), make_user()
    session = make_session(gm)
    GameSession.objects.filter(pk=session.pk).update(player_slots=1)
    invited = services.participation_invite(
        session=session, by=gm, character=make_character(invited_owner)
    )
    (applied,) = _applications(make_user, make_character, session, 1)
    services.participation_decide(participation=applied, by=gm, accept=True)
    # The owner's "yes" to an invitation takes a place too.
    with pytest.raises(ValidationError) as refused:
        services.participation_decide(participation=invited, by=invited_owner, accept=True)
    assert refused.value.messages == [polish(ALL_TAKEN, taken=1, places=1)]
    invited.refresh_from_db()
    assert invited.status == "invited"
    # Declining stays possible.
    services.participation_decide(participation=invited, by=invited_owner, accept=False)


def test_inviting_into_a_full_session_is_refused_next_to_the_name(
    make_user, make_character, make_session, client_for
):
    gm, player = make_user(), make_user()
    session = make_session(gm, [make_character(make_user())])
    GameSession.objects.filter(pk=session.pk).update(player_slots=1)
    character = make_character(player, "Wędrowiec")
    response = client_for(gm).post(
        reverse("diary:participants", args=[session.pk]),
        {"username": player.username, "name": character.name},
    )
    assert response.status_code == 400
    assert response.context["invite_form"].errors["name"] == [polish(ALL_TAKEN, taken=1, places=1)]
    assert not Participation.objects.filter(character=character).exists()


def test_the_places_cannot_drop_below_the_characters_playing(table, client_for):
    response = client_for(table.gm).post(
        reverse("diary:session_edit", args=[table.session.pk]),
        {
            "title": table.session.title,
            "npc_mode": "fixed_modifiers",
            "roll_policy": "gm_only",
            "recruiting": "on",
            "player_slots": "1",
        },
    )
    assert response.status_code == 200
    assert response.context["form"].errors["player_slots"] == [
        polish("Characters playing now: %(taken)s; the places cannot be fewer.", taken=2)
    ]
    assert 'id="id_player_slots_error"' in response.content.decode()
    table.session.refresh_from_db()
    assert table.session.player_slots == 4 and table.session.recruiting is True
    # As many places as characters playing is fine.
    with pytest.raises(ValidationError):
        services.session_update(session=table.session, by=table.gm, player_slots=1)
    services.session_update(session=table.session, by=table.gm, player_slots=2)
    table.session.refresh_from_db()
    assert table.session.player_slots == 2


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_two_acceptances_at_once_take_one_last_place(make_user, make_character, make_session):
    """The second acceptance waits for the first's lock on the session, then counts the
    place the first took: a count without the lock would see it free and seat both."""
    gm = make_user()
    session = make_session(gm)
    GameSession.objects.filter(pk=session.pk).update(player_slots=1)
    first, second = _applications(make_user, make_character, session, 2)
    first_accepted, second_queued = threading.Event(), threading.Event()

    @in_thread
    def accept_first():
        with transaction.atomic():
            services.participation_decide(participation=first, by=gm, accept=True)
            first_accepted.set()
            assert second_queued.wait(timeout=30)

    @in_thread
    def accept_second():
        try:
            services.participation_decide(participation=second, by=gm, accept=True)
        except ValidationError as refused:
            return refused.messages
        return "accepted"

    with ThreadPoolExecutor(max_workers=2) as pool:
        accepting = pool.submit(accept_first)
        assert first_accepted.wait(timeout=20)
        queued = pool.submit(accept_second)
        waiting_for_a_lock()
        second_queued.set()
        accepting.result(timeout=30)
        assert queued.result(timeout=30) == [polish(ALL_TAKEN, taken=1, places=1)]
    assert list(
        Participation.objects.filter(session=session, status="accepted").values_list(
            "pk", flat=True
        )
    ) == [first.pk]
