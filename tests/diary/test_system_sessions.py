"""Sessions of every rule system can be created, and a character joins only a
session of its own system; movement per action stays forum1000's."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from demo.sheets import system_character
from diary import services as diary_services
from diary.models import GameSession, Participation, SessionStatus
from tests.conftest import polish

pytestmark = pytest.mark.django_db


def session_data(system, title="Nowa sesja"):
    return {
        "title": title,
        "description": "",
        "system": system,
        "criticals_enabled": "on",
        "npc_mode": "fixed_modifiers",
        "roll_policy": "gm_only",
    }


def test_the_session_form_offers_every_system(make_user, client_for):
    form = client_for(make_user()).get(reverse("diary:session_create")).context["form"]
    choices = [key for key, _label in form.fields["system"].choices]
    assert choices == ["forum1000", "q10", "ciernie", "arsmagica"]


@pytest.mark.parametrize("system", ["q10", "ciernie", "arsmagica"])
def test_a_gm_creates_a_session_of_each_new_system(make_user, client_for, system):
    gm = make_user()
    response = client_for(gm).post(reverse("diary:session_create"), session_data(system))
    session = GameSession.objects.get(gm=gm)
    assert response.status_code == 302
    assert (session.system, session.status) == (system, SessionStatus.DRAFT)
    card = client_for(gm).get(reverse("diary:session", args=[session.pk])).content.decode()
    assert str(session.get_system_display()) in card


def test_an_unknown_system_is_refused_by_the_form_and_the_service(make_user, client_for):
    gm = make_user()
    response = client_for(gm).post(reverse("diary:session_create"), session_data("dnd5"))
    assert response.context["form"].errors["system"]
    with pytest.raises(ValidationError):
        diary_services.session_create(
            gm=gm,
            title="x",
            description="",
            system="dnd5",
            criticals_enabled=True,
            npc_mode="fixed_modifiers",
            roll_policy="gm_only",
        )
    assert not GameSession.objects.exists()


def draft(gm, system):
    return diary_services.session_create(
        gm=gm,
        title=f"Sesja {system}",
        description="",
        system=system,
        criticals_enabled=True,
        npc_mode="fixed_modifiers",
        roll_policy="gm_only",
    )


def test_a_character_is_invited_only_into_a_session_of_its_system(make_user, client_for):
    gm, player = make_user(), make_user()
    eragon = system_character(player, "q10", "Eragon", attributes={"Siła": 3})
    ciernie = draft(gm, "ciernie")
    response = client_for(gm).post(
        reverse("diary:participants", args=[ciernie.pk]),
        {"username": player.username, "name": "Eragon"},
    )
    assert response.context["invite_form"].errors["name"] == [
        polish("This player has no character of this name in the session's rule system.")
    ]
    with pytest.raises(ValidationError) as refused:
        diary_services.participation_invite(session=ciernie, by=gm, character=eragon)
    assert "character" in refused.value.message_dict
    assert not Participation.objects.exists()
    q10 = draft(gm, "q10")
    client_for(gm).post(
        reverse("diary:participants", args=[q10.pk]),
        {"username": player.username, "name": "Eragon"},
    )
    assert Participation.objects.get().session == q10


def test_a_player_asks_to_join_only_with_a_character_of_the_sessions_system(make_user, client_for):
    gm, player, moderator = make_user(), make_user(), make_user(moderator=True)
    vera = system_character(player, "ciernie", "Vera", attributes={"Zręczność": 14})
    magnus = system_character(player, "arsmagica", "Magnus", attributes={"Inteligencja": 3})
    session = draft(gm, "ciernie")
    GameSession.objects.filter(pk=session.pk).update(recruiting=True)
    for step, by in ((SessionStatus.PLAN_SUBMITTED, gm), (SessionStatus.ACCEPTED, moderator)):
        session = diary_services.session_transition(session=session, by=by, to=step)
    page = client_for(player).get(reverse("diary:session_join", args=[session.pk]))
    offered = list(page.context["form"].fields["character"].queryset)
    assert offered == [vera]
    response = client_for(player).post(
        reverse("diary:session_join", args=[session.pk]), {"character": magnus.pk}
    )
    assert response.status_code == 400 and response.context["form"].errors["character"]
    assert not Participation.objects.filter(character=magnus).exists()
    with pytest.raises(ValidationError):
        diary_services.participation_request(session=session, by=player, character=magnus)
    client_for(player).post(
        reverse("diary:session_join", args=[session.pk]), {"character": vera.pk}
    )
    assert Participation.objects.get().character == vera


def test_movement_per_action_stays_forum1000s(make_user, client_for):
    gm, player, moderator = make_user(), make_user(), make_user(moderator=True)
    murtagh = system_character(player, "q10", "Murtagh", attributes={"Siła": 4})
    session = draft(gm, "q10")
    invited = diary_services.participation_invite(session=session, by=gm, character=murtagh)
    diary_services.participation_decide(participation=invited, by=player, accept=True)
    for step, by in (
        (SessionStatus.PLAN_SUBMITTED, gm),
        (SessionStatus.ACCEPTED, moderator),
        (SessionStatus.RUNNING, gm),
    ):
        session = diary_services.session_transition(session=session, by=by, to=step)
    page = client_for(player).get(reverse("diary:session", args=[session.pk]))
    assert "move_metres" not in page.context["post_form"].fields
    with pytest.raises(ValidationError):
        diary_services.post_create(
            session=session,
            author=player,
            character=murtagh,
            narration="Murtagh biegnie.",
            nc_note="",
            move_metres=20,
        )
    post = diary_services.post_create(
        session=session, author=player, character=murtagh, narration="Murtagh biegnie.", nc_note=""
    )
    assert post.character == murtagh and post.move_metres is None


# -- "Krytyki wyłączone" is forum1000's setting (its plug-in supports it) --------------


@pytest.mark.parametrize("system", ["q10", "ciernie", "arsmagica"])
def test_other_systems_do_not_offer_the_criticals_setting(make_user, client_for, system):
    gm = make_user()
    session = draft(gm, system)
    client = client_for(gm)
    response = client.get(reverse("diary:session_edit", args=[session.pk]))
    assert "criticals_enabled" not in response.context["form"].fields
    page = response.content.decode()
    assert 'name="criticals_enabled"' not in page
    card = client.get(reverse("diary:session", args=[session.pk])).content.decode()
    assert 'data-testid="criticals"' not in card
    plan = client.get(reverse("diary:session_plan", args=[session.pk])).content.decode()
    assert polish("Criticals") not in plan
    # A posted value is ignored, never an error: the setting means nothing here.
    data = {**session_data(system), "criticals_enabled": ""}
    response = client.post(reverse("diary:session_edit", args=[session.pk]), data)
    assert response.status_code == 302
    session.refresh_from_db()
    assert session.criticals_enabled is True


def test_a_new_session_of_another_system_ignores_the_criticals_setting(make_user, client_for):
    gm = make_user()
    data = {**session_data("q10"), "criticals_enabled": ""}
    assert client_for(gm).post(reverse("diary:session_create"), data).status_code == 302
    assert GameSession.objects.get(gm=gm).criticals_enabled is True


def test_forum1000_offers_the_criticals_setting(make_user, client_for):
    gm = make_user()
    session = draft(gm, "forum1000")
    client = client_for(gm)
    response = client.get(reverse("diary:session_edit", args=[session.pk]))
    assert "criticals_enabled" in response.context["form"].fields
    card = client.get(reverse("diary:session", args=[session.pk])).content.decode()
    assert 'data-testid="criticals"' in card
    create = client.get(reverse("diary:session_create")).content.decode()
    assert 'data-only-systems="forum1000"' in create
