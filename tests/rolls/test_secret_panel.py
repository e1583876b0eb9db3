"""The "Rzut tajny" box of the roll panels: the GM's only, in forum1000's panel
and the case systems' (q10 here; ciernie and arsmagica share the case panel's token form)."""

import html
import uuid

import pytest
from django.urls import reverse

from characters.models import Attribute, Skill
from rolls.models import Roll, SecretRoll
from tests.conftest import polish
from tests.rolls.systems.q10.test_panel_q10 import pool
from tests.rolls.systems.q10.test_panel_q10 import url as q10_url

pytestmark = pytest.mark.django_db

BOX = 'name="secret"'


def panel_url(table):
    return reverse("rolls:panel", args=[table.session.pk])


def single(character, attribute="Percepcja", **extra):
    """The forum1000 panel's attribute test of `character`, as posted."""
    data = {
        "token": str(uuid.uuid4()),
        "mode": "attribute",
        "a-character": character.pk,
        "a-attribute": Attribute.objects.get(system="forum1000", name=attribute).pk,
        "a-action_value": "0",
        "a-gm_difficulty": "0",
        "a-gm_bonus": "0",
    }
    data.update(extra)
    return data


def test_the_gm_panel_has_the_box_and_a_players_has_not(table, client_for):
    assert BOX in client_for(table.gm).get(panel_url(table), follow=True).content.decode()
    table.session.roll_policy = "players_own"
    table.session.save(update_fields=["roll_policy"])
    player = client_for(table.alice).get(panel_url(table), follow=True)
    assert player.status_code == 200 and BOX not in player.content.decode()


def test_the_gm_rolls_in_secret_and_lands_on_the_rolls_page(table, client_for):
    response = client_for(table.gm).post(panel_url(table), single(table.lirael, secret="on"))
    roll = Roll.objects.get()
    assert response.status_code == 302
    assert response.url == reverse("rolls:detail", args=[table.session.pk, roll.seq])
    assert roll.record["kind"] == "secret" and SecretRoll.objects.filter(roll=roll).exists()


def test_without_the_box_the_roll_is_public(table, client_for):
    client_for(table.gm).post(panel_url(table), single(table.lirael))
    assert Roll.objects.get().record["kind"] == "attribute" and not SecretRoll.objects.exists()


def test_a_player_asking_for_a_secret_roll_is_refused(table, client_for):
    table.session.roll_policy = "players_own"
    table.session.save(update_fields=["roll_policy"])
    response = client_for(table.alice).post(panel_url(table), single(table.lirael, secret="on"))
    assert response.status_code == 403
    assert not Roll.objects.exists()


def test_a_secret_healing_roll_is_refused_next_to_the_form(table, client_for):
    data = single(table.lirael, mode="healing", secret="on", patient=table.borys.pk)
    data["a-skill"] = Skill.objects.get(system="forum1000", name="Leczenie ran").pk
    response = client_for(table.gm).post(panel_url(table), data)
    assert response.status_code == 400
    page = html.unescape(response.content.decode())
    assert 'id="id_secret_error"' in page
    assert (
        polish(
            "This roll cannot be secret: it changes a sheet or opens an event that everyone sees."
        )
        in page
    )
    assert not Roll.objects.exists()


def test_the_q10_gm_rolls_in_secret(q10, client_for):
    client = client_for(q10.gm)
    assert BOX in client.get(q10_url(q10), follow=True).content.decode()
    response = client.post(q10_url(q10), pool(q10, secret="on"))
    roll = Roll.objects.get()
    assert response.status_code == 302 and roll.record["kind"] == "secret"
    assert SecretRoll.objects.get(roll=roll).record["result"]["system"] == "q10"
    assert roll.record["secret"]["test"] == "pool"


def test_a_q10_player_cannot_roll_in_secret(q10_players_own, client_for):
    t = q10_players_own
    client = client_for(t.alice)
    assert BOX not in client.get(q10_url(t), follow=True).content.decode()
    data = pool(t, secret="on")
    for key in ("difficulty_value",):
        data.pop(key)
    assert client.post(q10_url(t), data).status_code == 403
    assert not Roll.objects.exists()


@pytest.mark.parametrize("build", ["ciernie", "arsmagica"])
def test_the_other_case_panels_offer_the_box_to_the_gm_only(make_user, client_for, build):
    from tests.rolls.systems.arsmagica.ars_table import build_saga
    from tests.rolls.systems.ciernie.ciernie_table import build_ciernie_table

    maker = build_ciernie_table if build == "ciernie" else build_saga
    gm_table = maker(make_user)
    gm_page = client_for(gm_table.gm).get(q10_url(gm_table), follow=True).content.decode()
    assert BOX in gm_page
    own = maker(make_user, roll_policy="players_own")
    player = client_for(getattr(own, "alice", None) or own.player).get(q10_url(own), follow=True)
    assert player.status_code == 200 and BOX not in player.content.decode()
