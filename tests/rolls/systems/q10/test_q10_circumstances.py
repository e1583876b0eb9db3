"""Q10 (seed 001): the seed's circumstance examples offered in the GM's panel, a player's
request proposing circumstances, and what each declared raise is for."""

import html
import re

import pytest
from django.urls import reverse

from diary.services import post_create
from rolls.models import AskStatus, Roll, RollAsk
from rolls.systems.q10 import forms as q10_forms
from tests.rolls.systems.q10.q10_table import build_q10_table
from tests.rolls.systems.q10.test_panel_q10 import pool, pool_form, scripted_roll

pytestmark = pytest.mark.django_db


@pytest.fixture
def t(make_user):
    return build_q10_table(make_user, roll_policy="players_own")


def line_words(client, roll) -> str:
    page = client.get(roll.post.get_absolute_url()).content.decode()
    line = re.search(r'<p class="roll-line[^"]*" data-testid="roll-line">(.*?)</p>', page, re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", line.group(1))))


# -- the seed's examples in the GM's panel ---------------------------------------------


def test_the_panel_offers_the_seeds_circumstance_examples_with_their_effect(t, client_for):
    page = client_for(t.gm).get(reverse("rolls:panel", args=[t.session.pk]), pool(t))
    body = html.unescape(page.content.decode())
    assert '<datalist id="q10-circumstance-examples">' in body
    assert 'value="Postać walczy w absolutnej ciemności"' in body
    assert "trudność +10" in body
    assert 'list="q10-circumstance-examples"' in body


def test_an_example_picked_without_a_value_brings_its_own(t):
    form = pool_form(t, pool(t, circumstance_reason_1="Postać atakuje cel z zaskoczenia"), [t.eryk])
    assert form.is_valid(), form.errors
    (item,) = form.case().input["circumstances"]
    assert (item["value"], item["reason"]) == (-5, "Postać atakuje cel z zaskoczenia")
    # A value the GM picks stays the GM's.
    form = pool_form(
        t,
        pool(t, circumstance_1="-10", circumstance_reason_1="Postać atakuje cel z zaskoczenia"),
        [t.eryk],
    )
    assert form.is_valid(), form.errors
    assert form.case().input["circumstances"][0]["value"] == -10


# -- what the raises are for -----------------------------------------------------------


def test_each_raise_says_what_it_is_for_in_the_roll_line(t, client_for):
    roll = scripted_roll(
        t, (5, 9, 6, 10, 3, 2), raises=2, raise_purposes="wylądować cicho; z gracją"
    )
    assert roll.record["raise_purposes"] == ["wylądować cicho", "z gracją"]
    words = line_words(client_for(t.gm), roll)
    assert "podbicie 1: wylądować cicho" in words and "podbicie 2: z gracją" in words


def test_more_purposes_than_raises_are_refused(t):
    form = pool_form(t, pool(t, raises=1, raise_purposes="a\nb"), [t.eryk])
    assert not form.is_valid()
    assert form.errors["raise_purposes"] == ["Zadeklarowano 1 podbicie: opisz najwyżej tyle celów."]


# -- a player's request proposes circumstances -----------------------------------------


def ask(t, client, **extra):
    post = post_create(
        session=t.session,
        author=t.alice,
        character=t.eryk,
        narration="Eryk skacze przez przepaść.",
        nc_note="",
    )
    data = pool(t, **extra)
    for gm_only in ("token", "difficulty", "difficulty_value"):
        data.pop(gm_only)
    response = client.post(reverse("rolls:ask", args=[t.session.pk]), data)
    assert response.status_code == 302, response.content.decode()[:3000]
    return post, RollAsk.objects.get()


def answer_data(post, gm_client):
    page = gm_client.get(post.get_absolute_url().split("#")[0])
    answer_url = next(view.answer_url for view in page.context["rolls"].open_asks)
    panel_page = gm_client.get(answer_url, follow=True)
    assert panel_page.status_code == 200
    return panel_page, panel_page.context["panel"].token_form.data.dict()


def test_a_request_proposes_circumstances_and_the_gm_keeps_them(t, client_for):
    post, request = ask(
        t,
        client_for(t.alice),
        raises=1,
        raise_purposes="wylądować cicho",
        circumstance_1="-5",
        circumstance_reason_1="rozbieg po płaskiej skale",
    )
    assert request.case_fields["circumstance_1"] == "-5"
    assert "okoliczności: −5 (rozbieg po płaskiej skale)" in request.summary
    gm = client_for(t.gm)
    panel_page, data = answer_data(post, gm)
    assert 'value="rozbieg po płaskiej skale"' in panel_page.content.decode()
    assert data["circumstance_1"] == "-5"
    assert data.get("raise_purposes") == "wylądować cicho", data
    response = gm.post(reverse("rolls:panel", args=[t.session.pk]), data)
    assert response.status_code == 302
    request.refresh_from_db()
    assert request.status == AskStatus.ANSWERED
    circumstances = Roll.objects.get().record["result"]["input"]["circumstances"]
    assert [(c["value"], c["reason"]) for c in circumstances] == [(-5, "rozbieg po płaskiej skale")]


def test_the_gm_changing_a_proposed_circumstance_says_why(t, client_for):
    post, request = ask(
        t, client_for(t.alice), circumstance_1="-5", circumstance_reason_1="rozbieg"
    )
    gm = client_for(t.gm)
    _page, data = answer_data(post, gm)
    data["circumstance_1"] = "5"
    response = gm.post(reverse("rolls:panel", args=[t.session.pk]), data)
    assert response.status_code == 400 and not Roll.objects.exists()
    data["answer_note"] = "Skała jest mokra, rozbieg nic nie daje."
    assert gm.post(reverse("rolls:panel", args=[t.session.pk]), data).status_code == 302
    request.refresh_from_db()
    assert request.status == AskStatus.ANSWERED_DIFFERENTLY


def test_a_circumstance_the_gm_adds_to_a_request_without_any_is_no_difference(t, client_for):
    post, request = ask(t, client_for(t.alice))
    gm = client_for(t.gm)
    _page, data = answer_data(post, gm)
    data.update({"circumstance_1": "10", "circumstance_reason_1": "mgła"})
    assert gm.post(reverse("rolls:panel", args=[t.session.pk]), data).status_code == 302
    request.refresh_from_db()
    assert request.status == AskStatus.ANSWERED


def test_a_players_own_roll_has_no_circumstances(t):
    from rolls.plugins import FormContext

    context = FormContext(characters=[t.eryk], all_characters=[t.eryk], gm=False, session=t.session)
    form = q10_forms.make_form("pool", None, context)
    assert "circumstance_1" not in form.fields and "raise_purposes" in form.fields
