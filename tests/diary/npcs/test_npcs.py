"""A session's NPC roster — the GM's NPC page, its refusals, the diary sidebar."""

import pytest
from django.urls import reverse

from diary.models import Npc, NpcModifier, SessionStatus
from diary.npcs import services as npc_services
from tests.conftest import polish

pytestmark = pytest.mark.django_db


def npcs_url(session):
    return reverse("diary:npcs", args=[session.pk])


def npc_url(npc):
    return reverse("diary:npc_edit", args=[npc.session_id, npc.pk])


def modifier_url(npc):
    return reverse("diary:npc_modifier_add", args=[npc.session_id, npc.pk])


@pytest.fixture
def merchant(table):
    return npc_services.npc_create(
        session=table.session,
        by=table.gm,
        name="Stary kupiec",
        description="Handluje przy bramie.",
        visible_to_players=True,
    )


def test_gm_adds_an_npc_and_a_modifier(table, client_for):
    client = client_for(table.gm)
    assert client.get(npcs_url(table.session)).status_code == 200
    response = client.post(
        npcs_url(table.session),
        {"name": "Stary kupiec", "description": "Przy bramie", "visible_to_players": "on"},
    )
    npc = Npc.objects.get(session=table.session)
    assert response.status_code == 302 and response.url == npc_url(npc)
    response = client.post(
        modifier_url(npc), {"interaction": "perswazja", "value": "100", "reason": "łatwowierny"}
    )
    assert response.status_code == 302
    modifier = NpcModifier.objects.get(npc=npc)
    assert (modifier.interaction, modifier.value, modifier.reason) == (
        "perswazja",
        100,
        "łatwowierny",
    )
    page = client.get(npc_url(npc)).content.decode()
    assert "perswazja" in page and "łatwowierny" in page


@pytest.mark.parametrize("value", ["550", "-550", "75", "0", "abc", ""])
def test_modifier_outside_the_range_is_refused(table, merchant, client_for, value):
    client = client_for(table.gm)
    response = client.post(
        modifier_url(merchant), {"interaction": "perswazja", "value": value, "reason": "x"}
    )
    assert response.status_code == 400
    assert not NpcModifier.objects.exists()
    assert 'class="error"' in response.content.decode()


def test_modifier_range_message_is_polish(table, merchant, client_for):
    response = client_for(table.gm).post(
        modifier_url(merchant), {"interaction": "perswazja", "value": "600", "reason": "x"}
    )
    expected = polish(
        "An NPC modifier is a GM difficulty modifier: a multiple of %(step)s between "
        "−%(limit)s and +%(limit)s, not 0.",
        step=50,
        limit=500,
    )
    assert expected in response.content.decode()


def test_modifier_without_a_reason_is_refused(table, merchant, client_for):
    response = client_for(table.gm).post(
        modifier_url(merchant), {"interaction": "perswazja", "value": "100", "reason": "   "}
    )
    assert response.status_code == 400
    assert (
        polish("An NPC modifier needs a reason: the roll shows it to everyone.")
        in response.content.decode()
    )
    assert not NpcModifier.objects.exists()


def test_service_refuses_a_bad_modifier_on_its_own(merchant):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError) as error:
        npc_services.npc_modifier_create(
            npc=merchant, by=merchant.session.gm, interaction="x", value=510, reason=""
        )
    assert set(error.value.error_dict) == {"value", "reason"}


def test_duplicate_interaction_and_name_are_refused(table, merchant, client_for):
    client = client_for(table.gm)
    data = {"interaction": "perswazja", "value": "100", "reason": "łatwowierny"}
    assert client.post(modifier_url(merchant), data).status_code == 302
    assert client.post(modifier_url(merchant), data).status_code == 400
    assert NpcModifier.objects.count() == 1
    response = client.post(npcs_url(table.session), {"name": "Stary kupiec"})
    assert response.status_code == 400
    assert Npc.objects.count() == 1


def test_overlong_texts_are_refused(table, merchant, client_for):
    client = client_for(table.gm)
    response = client.post(npcs_url(table.session), {"name": "x" * 81})
    assert response.status_code == 400
    response = client.post(
        modifier_url(merchant), {"interaction": "x" * 41, "value": "50", "reason": "y" * 201}
    )
    assert response.status_code == 400
    assert Npc.objects.count() == 1 and not NpcModifier.objects.exists()


def test_gm_hides_an_npc_and_players_see_only_visible_ones(table, merchant, client_for):
    secret = npc_services.npc_create(
        session=table.session,
        by=table.gm,
        name="Skrytobójca",
        description="",
        visible_to_players=False,
    )
    diary = reverse("diary:session", args=[table.session.pk])
    player_page = client_for(table.alice).get(diary).content.decode()
    assert "Stary kupiec" in player_page and "Handluje przy bramie." in player_page
    assert "Skrytobójca" not in player_page
    gm_page = client_for(table.gm).get(diary).content.decode()
    assert "Skrytobójca" in gm_page
    # Hiding instead of deleting.
    response = client_for(table.gm).post(
        npc_url(merchant), {"name": "Stary kupiec", "description": "Handluje przy bramie."}
    )
    assert response.status_code == 302
    merchant.refresh_from_db()
    assert merchant.visible_to_players is False
    assert "Stary kupiec" not in client_for(table.alice).get(diary).content.decode()
    assert secret.pk


def test_who_may_open_and_change_the_npc_page(table, merchant, client_for):
    for user in (table.alice, table.bob):
        client = client_for(user)
        assert client.get(npcs_url(table.session)).status_code == 403
        assert client.get(npc_url(merchant)).status_code == 403
        assert client.post(npcs_url(table.session), {"name": "X"}).status_code == 403
        data = {"interaction": "a", "value": "50", "reason": "b"}
        assert client.post(modifier_url(merchant), data).status_code == 403
    assert client_for(table.outsider).get(npcs_url(table.session)).status_code == 403
    moderator = client_for(table.moderator)
    assert moderator.get(npcs_url(table.session)).status_code == 200
    assert moderator.post(npcs_url(table.session), {"name": "X"}).status_code == 403
    assert Npc.objects.count() == 1


def test_npc_of_another_session_is_404(table, merchant, make_session, client_for):
    other = make_session(table.gm, [])
    url = reverse("diary:npc_edit", args=[other.pk, merchant.pk])
    assert client_for(table.gm).get(url).status_code == 404


def test_finished_session_roster_is_read_only(table, merchant, client_for):
    from diary.models import GameSession

    GameSession.objects.filter(pk=table.session.pk).update(status=SessionStatus.FINISHED)
    client = client_for(table.gm)
    assert client.get(npc_url(merchant)).status_code == 200
    assert client.post(npcs_url(table.session), {"name": "X"}).status_code == 403


def test_modifier_removed_rolls_keep_it(table, merchant, client_for):
    modifier = npc_services.npc_modifier_create(
        npc=merchant,
        by=merchant.session.gm,
        interaction="perswazja",
        value=100,
        reason="łatwowierny",
    )
    url = reverse("diary:npc_modifier_delete", args=[table.session.pk, merchant.pk, modifier.pk])
    assert client_for(table.alice).post(url).status_code == 403
    assert client_for(table.gm).post(url).status_code == 302
    assert not NpcModifier.objects.exists()


# -- The services check who acts (DESIGN: services never trust a view) -----------------


@pytest.fixture
def wolf_session(table, make_character, make_session):
    """A gm_character session of the table's GM, its NPC and a bare sheet of the GM's."""
    session = make_session(table.gm, [], npc_mode="gm_character")
    wolf = npc_services.npc_create(
        session=session, by=table.gm, name="Wilk", description="", visible_to_players=True
    )
    return session, wolf, make_character(table.gm, "Wilk (karta MG)")


def refused_calls(table, merchant, wolf_session):
    """Every write of the NPC roster, as (name, call taking the acting user)."""
    modifier = npc_services.npc_modifier_create(
        npc=merchant, by=table.gm, interaction="perswazja", value=100, reason="łatwowierny"
    )
    _session, wolf, sheet = wolf_session
    return [
        (
            "npc_create",
            lambda by: npc_services.npc_create(
                session=table.session,
                by=by,
                name="Skrytobójca",
                description="",
                visible_to_players=False,
            ),
        ),
        (
            "npc_update",
            lambda by: npc_services.npc_update(
                npc=merchant, by=by, name="Oszust", description="zmiana", visible_to_players=False
            ),
        ),
        (
            "npc_modifier_create",
            lambda by: npc_services.npc_modifier_create(
                npc=merchant, by=by, interaction="groźba", value=-100, reason="tchórz"
            ),
        ),
        (
            "npc_modifier_delete",
            lambda by: npc_services.npc_modifier_delete(modifier=modifier, by=by),
        ),
        (
            "npc_stand_in_set",
            lambda by: npc_services.npc_stand_in_set(npc=wolf, by=by, character=sheet),
        ),
    ]


def roster_state():
    from characters.models import Character

    return (
        sorted(Npc.objects.values_list("name", "description", "visible_to_players", "stand_in_id")),
        sorted(NpcModifier.objects.values_list("npc__name", "interaction", "value", "reason")),
        sorted(Character.objects.filter(is_stand_in=True).values_list("pk", flat=True)),
    )


@pytest.mark.parametrize("role", ["alice", "bob", "outsider", "moderator"])
def test_npc_services_refuse_anyone_but_the_gm(table, merchant, wolf_session, role):
    from django.core.exceptions import PermissionDenied

    calls = refused_calls(table, merchant, wolf_session)
    before = roster_state()
    by = getattr(table, role)
    for name, call in calls:
        with pytest.raises(PermissionDenied):
            call(by)
        assert roster_state() == before, f"{name} wrote something for {role}"


def test_npc_services_refuse_the_gm_once_the_session_is_finished(table, merchant, wolf_session):
    from django.core.exceptions import PermissionDenied

    from diary.models import GameSession

    calls = refused_calls(table, merchant, wolf_session)
    GameSession.objects.filter(gm=table.gm).update(status=SessionStatus.FINISHED)
    before = roster_state()
    for name, call in calls:
        with pytest.raises(PermissionDenied):
            call(table.gm)
        assert roster_state() == before, f"{name} wrote something in a finished session"


def test_npc_services_let_the_gm_write(table, merchant, wolf_session):
    """The counterpart of the refusals: the same calls by the GM do write."""
    calls = dict(refused_calls(table, merchant, wolf_session))
    calls["npc_create"](table.gm)
    calls["npc_update"](table.gm)
    calls["npc_modifier_create"](table.gm)
    calls["npc_modifier_delete"](table.gm)
    calls["npc_stand_in_set"](table.gm)
    npcs, modifiers, stand_ins = roster_state()
    assert [n[0] for n in npcs] == ["Oszust", "Skrytobójca", "Wilk"]
    assert modifiers == [("Oszust", "groźba", -100, "tchórz")]
    assert len(stand_ins) == 1
