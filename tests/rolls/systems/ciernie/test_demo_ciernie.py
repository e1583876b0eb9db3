"""demo.systems.ciernie and the ciernie panel: rolls made through the system's forms
and `roll_make`, stored with the engine's case, recomputed from the record alone, chained
and verified; the panel page of a ciernie session."""

import uuid

import pytest
from django.urls import reverse

from demo.systems.ciernie import seed_ciernie_rolls
from rolls.engine import systems
from rolls.engine.dice import ScriptedDice
from rolls.ledger.verify import verify_session
from rolls.models import Roll
from rolls.plugins import FormContext
from rolls.presenters import roll_view
from rolls.selectors import sheets_in_play
from rolls.services import roll_make
from rolls.systems.ciernie import display, forms
from tests.rolls.conftest import described_plan
from tests.rolls.systems.ciernie.ciernie_table import build_ciernie_table, flag_reroll_sources

pytestmark = pytest.mark.django_db


@pytest.fixture
def ciernie(make_user):
    table = build_ciernie_table(make_user)
    flag_reroll_sources()
    return table


def recomputed(record) -> dict:
    """The roll again from its record alone: the engine's case and its dice."""
    result = record["result"]
    test = systems.parse_test(result["system"], result["test"], result["input"])
    return systems.roll(result["system"], test, ScriptedDice(result["dice"])).to_dict()


def test_the_demo_rolls_every_ciernie_test(ciernie):
    characters = {"vera": ciernie.vera, "tomasz": ciernie.tomasz, "najemnik": ciernie.stand_in}
    rolls = seed_ciernie_rolls(ciernie.session, characters, {"gm": ciernie.gm})
    assert [r.seq for r in rolls] == [1, 2, 3, 4, 5, 6, 7]
    records = [r.record for r in rolls]
    assert [r["kind"] for r in records] == [
        "attribute",
        "combined",
        "comparative",
        "effect_test",
        "skill",
        "attribute",
        "attribute",
    ]
    attribute, combined, comparative, effect, skill, failed, reroll = (r["result"] for r in records)
    assert attribute["test"] == "attribute" and attribute["success"]
    assert combined["test"] == "combined" and len(combined["input"]["attributes"]) == 2
    # Against the NPC's stand-in, read off its sheet.
    assert comparative["test"] == "comparative"
    assert records[2]["characters"]["b"]["name"] == "Najemnik"
    assert effect["test"] == "effect" and not effect["success"]
    assert effect["duration"] >= 1 and effect["unit"] == "minutes"
    assert skill["test"] == "skill" and skill["outcome"] == "delay"
    assert skill["time_multiplier"] >= 2
    # The reroll chosen after the failure: its own entry, naming the failed roll, which stays.
    assert failed["outcome"] in ("failure", "critical_failure")
    assert records[5]["reroll_offer"]["sources"]
    assert reroll["test"] == "reroll_of" and reroll["rerolled"]
    assert records[6]["rerolls"] == {"seq": rolls[5].seq, "hash": rolls[5].hash}
    assert reroll["first"] == failed
    assert rolls[6].post_id == rolls[5].post_id
    assert reroll["success"] == reroll["second"]["success"] is True
    assert reroll["input"]["reroll_sources"] == 2
    for roll in rolls:
        assert recomputed(roll.record) == roll.record["result"]
        assert roll.post.author == ciernie.gm
        # Every stored roll reads in words where the site shows it (an effect test is no
        # diary entry, though the engine calls it "effect").
        lines = roll_view(roll).body
        assert lines and lines == display.lines(roll.record)
    assert verify_session(ciernie.session.pk).ok
    # Each line of the post reads right, the effect in its unit's plural.
    [line] = display.lines(records[3])
    assert any(d.startswith("efekt trwa") and "minut" in d for d in line.details)
    first, second = display.lines(records[6])
    assert f"pierwszy rzut (#{rolls[5].seq})" in first.what and "rozstrzyga" in second.what


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


def test_the_demo_rolls_in_the_demo_ciernie_session():
    """The demo command's ciernie session (demo.systems): every test rolls
    there, the reroll from Vera's own reroll sources, the comparative against its stand-in."""
    from demo.systems import seed_system_sessions
    from demo.users import demo_users

    users = demo_users()
    session, characters = seed_system_sessions(users)["ciernie"]
    rolls = seed_ciernie_rolls(session, characters, users)
    results = [r.record["result"] for r in rolls]
    assert [r["test"] for r in results] == [
        "attribute",
        "combined",
        "comparative",
        "effect",
        "skill",
        "attribute",
        "reroll_of",
    ]
    assert rolls[2].record["characters"]["b"]["id"] == characters["najemnik"].pk
    assert results[4]["outcome"] == "delay"
    assert not results[5]["success"]
    assert results[6]["rerolled"] and results[6]["second"]["success"]
    assert not results[3]["success"] and results[3]["duration"] >= 1
    assert verify_session(session.pk).ok
