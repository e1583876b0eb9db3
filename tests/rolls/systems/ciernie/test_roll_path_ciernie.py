"""The ciernie panel's rolls through the shared path: a case stored once per token, a
player's typed modifier refused, the panel page of a ciernie session, and a player's
request answered by the GM with the factor."""

import uuid

import pytest
from django.urls import reverse

from rolls.engine.dice import ScriptedDice
from rolls.models import Roll
from rolls.plugins import FormContext
from rolls.selectors import sheets_in_play
from rolls.services import roll_make
from rolls.systems.ciernie import forms
from tests.rolls.conftest import described_plan
from tests.rolls.systems.ciernie.ciernie_table import build_ciernie_table, flag_reroll_sources

pytestmark = pytest.mark.django_db


@pytest.fixture
def ciernie(make_user):
    table = build_ciernie_table(make_user)
    flag_reroll_sources()
    return table


def _gm_case(ciernie, mode, **fields):
    from django.http import QueryDict

    query = QueryDict(mutable=True)
    for key, value in {"character": ciernie.vera.pk, **fields}.items():
        query.setlist(key, [str(v) for v in (value if isinstance(value, list) else [value])])
    everyone = list(sheets_in_play(ciernie.session).values())
    form = forms.make_form(
        mode,
        query,
        FormContext(characters=everyone, all_characters=everyone, gm=True, session=ciernie.session),
    )
    assert form.is_valid(), form.errors
    return form.case()


def test_a_case_roll_is_stored_once_per_token(ciernie):
    case = _gm_case(ciernie, "attribute", attribute=ciernie.a["Zręczność"].pk)
    token = uuid.uuid4()
    first = roll_make(
        session=ciernie.session, by=ciernie.gm, case=case, token=token, dice=ScriptedDice([4])
    )
    again = roll_make(
        session=ciernie.session, by=ciernie.gm, case=case, token=token, dice=ScriptedDice([19])
    )
    assert first.roll.pk == again.roll.pk
    assert Roll.objects.count() == 1
    assert first.roll.record["result"]["roll"] == 4
    assert first.roll.record["what"] == "Zręczność"


def test_a_player_cannot_store_a_typed_modifier(ciernie):
    from django.core.exceptions import PermissionDenied

    case = _gm_case(
        ciernie,
        "attribute",
        attribute=ciernie.a["Siła"].pk,
        modifier=3,
        modifier_reason="pomoc",
    )
    assert case.gm_typed
    with pytest.raises(PermissionDenied):
        roll_make(session=ciernie.session, by=ciernie.alice, case=case, token=uuid.uuid4())
    assert not Roll.objects.exists()


def test_the_panel_page_of_a_ciernie_session_rolls_a_skill_test(ciernie, client):
    client.force_login(ciernie.gm)
    url = reverse("rolls:panel", args=[ciernie.session.pk])
    page = client.get(url, {"mode": "skill"}, follow=True)
    assert page.status_code == 200
    body = page.content.decode()
    for _key, label in forms.MODES:
        assert str(label) in body
    from rolls.access import issue_token

    data = {
        "mode": "skill",
        "token": issue_token(ciernie.gm, ciernie.session),
        "character": ciernie.vera.pk,
        "skill": ciernie.s["Otwieranie zamków"].pk,
        "factor": "20",
        "difficulty": "0",
    }
    # A factor beyond 20 is refused next to the field, and nothing is stored.
    refused = client.post(url, {**data, "factor": "21"})
    assert refused.status_code == 400
    assert not Roll.objects.exists()
    data["factor"] = "1"
    rolled = client.post(url, {**data, "plan": described_plan(client, url, data)})
    assert rolled.status_code == 302
    roll = Roll.objects.get()
    assert roll.record["kind"] == "skill"
    assert roll.record["result"]["input"]["skill"] == 3
    diary = client.get(rolled.headers["Location"]).content.decode()
    assert "Test umiejętności: Zręczność + Otwieranie zamków vs czynnik 1" in diary


# ---------------------------------------------------------------------------
# A player's request names the ciernie test; the GM answers it with the factor


def _words(response) -> str:
    import html
    import re

    text = html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode()))
    return re.sub(r"\s+", " ", text)


def test_a_player_asks_for_a_skill_test_and_the_gm_answers_it_with_the_factor(ciernie):
    from django.test import Client

    from diary.services import post_create
    from rolls.models import AskStatus, RollAsk

    post = post_create(
        session=ciernie.session,
        author=ciernie.alice,
        character=ciernie.vera,
        narration="Vera klęka przy zamku śluzy.",
        nc_note="",
    )
    player = Client()
    player.force_login(ciernie.alice)
    ask_url = reverse("rolls:ask", args=[ciernie.session.pk])
    form = player.get(ask_url, {"mode": "skill"}).content.decode()
    assert 'name="skill"' in form
    # The factor and the difficulty are the GM's to set: not in the request, not even hidden.
    assert 'name="factor"' not in form and 'name="difficulty"' not in form
    assert 'name="modifier"' not in form
    # The comparative and effect tests are not for a player to ask.
    assert "?mode=attribute" in form and "?mode=combined" in form
    assert "?mode=comparative" not in form and "?mode=effect_test" not in form
    response = player.post(
        ask_url,
        {
            "mode": "skill",
            "character": ciernie.vera.pk,
            "skill": ciernie.s["Otwieranie zamków"].pk,
        },
    )
    assert response.status_code == 302, _words(response)[:2000]
    ask = RollAsk.objects.get()
    assert ask.summary == "Vera: Zręczność + Otwieranie zamków"
    assert ask.case_fields["skill"] == str(ciernie.s["Otwieranie zamków"].pk)

    gm = Client()
    gm.force_login(ciernie.gm)
    page = gm.get(post.get_absolute_url().split("#")[0])
    answer_url = next(view.answer_url for view in page.context["rolls"].open_asks)
    panel_page = gm.get(answer_url, follow=True)
    assert panel_page.status_code == 200
    data = panel_page.context["panel"].token_form.data.dict()
    assert data["skill"] == str(ciernie.s["Otwieranie zamków"].pk)
    # Another skill is not what was asked: without a reason it is refused next to the
    # answer's note, and the request stays open.
    other = gm.post(
        reverse("rolls:panel", args=[ciernie.session.pk]),
        {**data, "skill": ciernie.s["Pilotaż"].pk, "factor": "3"},
    )
    assert other.status_code == 400
    assert 'id="id_answer_note_error"' in other.content.decode()
    assert not Roll.objects.exists()
    assert RollAsk.objects.get().is_open
    data.update({"factor": "2", "difficulty": "-3", "modifier": "1", "modifier_reason": "wytrych"})
    url = reverse("rolls:panel", args=[ciernie.session.pk])
    data["plan"] = described_plan(gm, url, data)  # the line the page drew for these fields
    answered = gm.post(url, data)
    assert answered.status_code == 302, _words(answered)[:2000]
    roll = Roll.objects.get()
    ask.refresh_from_db()
    assert (ask.status, ask.answer) == (AskStatus.ANSWERED, roll)
    assert roll.record["result"]["input"]["factor"] == 2
    assert roll.record["answers"]["ask"] == ask.pk
