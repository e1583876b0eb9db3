"""Recruitment: the GM opens and closes it and says how the table posts; applications are
taken only while it is open and a place is free; the list and the recruiting board show
the sessions that recruit."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from characters.systems import RuleSystem
from diary import services
from diary.models import GameSession, Participation
from tests.conftest import polish

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
