"""The roll panel: no roll by accident or by the back door.

Refused modes, typed modifiers with reasons and bounds, previews that say why, tokens
and links tied to their user, the engine's numbers in one place, a roll line that says
what each number is, accessible inputs and record.
"""

import ast
import dataclasses
import html
import inspect
import re
import uuid
from pathlib import Path
from urllib.parse import unquote

import pytest
from django.test import Client
from django.urls import reverse

from rolls.models import Roll
from tests.conftest import polish
from tests.rolls.test_panel import attr, opposed, panel_url, single, skill

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def players_own(table) -> None:
    table.session.roll_policy = "players_own"
    table.session.save()


def preview_of(body: str) -> str:
    section = re.search(r'data-testid="preview">(.*?)</section>', body, re.S).group(1)
    return html.unescape(re.sub(r"\s+", " ", section))


def token_in(url: str) -> str:
    return unquote(re.search(r"[?&]token=([^&]+)", url).group(1))


def range_message() -> str:
    return polish("A modifier you type lies between −%(limit)s and +%(limit)s.", limit=500)


REASON_MESSAGE = "A modifier you type needs a reason: the roll shows it to everyone."


# -- a mode the user may not use is refused --------------------------------------------------


@pytest.mark.parametrize("mode", ["opposed", "initiative", "healing"])
def test_a_player_posting_a_mode_they_may_not_use_is_refused(table, client_for, mode):
    players_own(table)
    response = client_for(table.alice).post(panel_url(table), single(table.lirael, mode=mode))
    assert response.status_code == 403
    body = html.unescape(response.content.decode())
    assert polish("This kind of roll is not open to you in this session; nothing was rolled.") in (
        body
    )
    assert not Roll.objects.exists()


def test_the_gm_posting_an_unknown_mode_is_refused(table, client_for):
    response = client_for(table.gm).post(panel_url(table), single(table.lirael, mode="teleport"))
    assert response.status_code == 400  # bad input, not a right withheld
    assert polish("Unknown kind of roll; nothing was rolled. Choose a tab of the panel.") in (
        response.content.decode()
    )
    assert not Roll.objects.exists()


# -- every typed modifier has a reason and a bound --------------------------------------------


@pytest.mark.parametrize("value", ["-900", "-501", "501"])
def test_an_action_modifier_outside_the_range_is_refused_next_to_its_field(
    table, client_for, value
):
    data = single(table.lirael, **{"a-action_value": value, "a-action_reason": "skok"})
    response = client_for(table.gm).post(panel_url(table), data)
    body = html.unescape(response.content.decode())
    assert response.status_code == 400
    assert 'id="id_a-action_value_error"' in body
    assert range_message() in body
    assert not Roll.objects.exists()


def test_an_action_modifier_needs_a_reason_which_the_roll_shows(table, client_for):
    client = client_for(table.gm)
    page = html.unescape(client.get(panel_url(table), follow=True).content.decode())
    assert re.search(rf'<label for="id_a-action_reason">\s*{polish("Reason")}', page)

    without = single(table.lirael, **{"a-action_value": "-100"})
    response = client.post(panel_url(table), without)
    assert response.status_code == 400
    assert 'id="id_a-action_reason_error"' in response.content.decode()
    assert polish(REASON_MESSAGE) in html.unescape(response.content.decode())
    assert not Roll.objects.exists()

    data = single(table.lirael, **{"a-action_value": "-100", "a-action_reason": "skok przez płot"})
    assert client.post(panel_url(table), data).status_code == 302
    roll = Roll.objects.get()
    action = [t for t in roll.record["result"]["breakdown"] if t.get("scope") == "action"]
    assert [(t["value"], t["reason"]) for t in action] == [(-100, "skok przez płot")]
    line = html.unescape(client.get(roll.post.get_absolute_url()).content.decode())
    line = re.search(r'data-testid="roll-line">(.*?)</p>', line, re.S).group(1)
    assert "skok przez płot" in line and "\u2212100" in line


def test_initiative_modifiers_need_a_reason_and_stay_in_range(table, client_for):
    client = client_for(table.gm)
    lirael = table.lirael.pk

    def initiative(**fields):
        return {"token": str(uuid.uuid4()), "mode": "initiative", **fields}

    response = client.post(panel_url(table), initiative(**{f"mod_{lirael}": "600"}))
    assert response.status_code == 400
    assert f'id="id_mod_{lirael}_error"' in response.content.decode()
    assert range_message() in html.unescape(response.content.decode())

    response = client.post(panel_url(table), initiative(**{f"mod_{lirael}": "50"}))
    assert response.status_code == 400
    assert f'id="id_why_{lirael}_error"' in response.content.decode()
    assert not Roll.objects.exists()

    data = initiative(**{f"mod_{lirael}": "50", f"why_{lirael}": "zwinny but"})
    assert client.post(panel_url(table), data).status_code == 302
    body = html.unescape(client.get(Roll.objects.get().post.get_absolute_url()).content.decode())
    assert "zwinny but" in body


def test_the_typed_modifier_range_is_the_engines_named_constant():
    from rolls.engine import forum1000 as f1000

    assert f1000.TYPED_MODIFIER_LIMIT == 500
    decisions = (ROOT / "docs" / "decisions.md").read_text()
    assert "−500..+500" in decisions and "TYPED_MODIFIER_LIMIT" in decisions


# -- the preview says why it cannot roll ------------------------------------------------------


def test_preview_names_a_missing_gm_reason(table, client_for):
    data = single(table.lirael, **{"a-gm_difficulty": "-100"})
    response = client_for(table.gm).get(panel_url(table), data)
    assert response.status_code == 200
    assert polish("A GM modifier needs a reason: the roll shows it to everyone.") in preview_of(
        response.content.decode()
    )


@pytest.mark.parametrize("field", [{"ask": "0"}, {"plan": "x" * 65}, {"client_seed": "x" * 129}])
def test_a_hidden_fields_refusal_reads_as_words_not_none(table, client_for, field):
    """A hidden field has no label: its refusal is the message alone, never "None — …"."""
    body = client_for(table.gm).get(panel_url(table), single(table.lirael, **field)).content
    preview = preview_of(body.decode())
    assert polish("This roll cannot be made yet:") in preview
    assert "None" not in preview


def test_preview_names_an_action_modifier_out_of_range(table, client_for):
    data = single(table.lirael, **{"a-action_value": "-900", "a-action_reason": "x"})
    body = client_for(table.gm).get(panel_url(table), data).content.decode()
    assert range_message() in preview_of(body)


def test_preview_names_a_defence_that_does_not_follow_the_initiator(table, client_for):
    data = opposed(
        {"character": table.lirael.pk, "test": "skill", "skill": skill("Uwodzenie")},
        {"character": table.borys.pk, "test": "attribute", "attribute": attr("Mądrość")},
    )
    body = client_for(table.gm).get(panel_url(table), data).content.decode()
    assert polish(
        "The defence follows the initiator: a skill is answered by a skill (or by attribute ÷ 2 "
        "when none fits), an attribute roll by attribute rolls."
    ) in preview_of(body)


def test_preview_names_the_initiative_line_missing_its_reason(table, client_for):
    data = {"token": str(uuid.uuid4()), "mode": "initiative", f"mod_{table.lirael.pk}": "50"}
    body = client_for(table.gm).get(panel_url(table), data).content.decode()
    where = polish("Reason: %(name)s", name="Lirael")
    assert f"{where} — {polish(REASON_MESSAGE)}" in preview_of(body)


# -- tokens and links belong to their user ----------------------------------------------------


def test_a_token_issued_to_another_user_is_refused(table, client_for):
    players_own(table)
    alice, gm = client_for(table.alice), client_for(table.gm)
    used = token_in(alice.get(panel_url(table)).url)
    assert alice.post(panel_url(table), single(table.lirael, token=used)).status_code == 302
    unused = token_in(alice.get(panel_url(table)).url)

    for token in (used, unused):
        response = gm.post(panel_url(table), single(table.lirael, token=token))
        assert response.status_code == 400, "the GM rolled with Alice's token"
        assert Roll.objects.count() == 1
    # A token nobody was given (a bare UUID) rolls nothing either.
    bare = Client()
    bare.force_login(table.gm)
    response = bare.post(panel_url(table), single(table.lirael))
    assert response.status_code == 400
    assert Roll.objects.count() == 1


def test_a_players_link_with_gm_modifiers_opens_a_clean_panel_for_the_gm(table, client_for):
    players_own(table)
    alice, gm = client_for(table.alice), client_for(table.gm)
    link = alice.get(panel_url(table) + f"?a-character={table.lirael.pk}").url
    alice_token = token_in(link)
    alice.post(panel_url(table), single(table.lirael, token=alice_token))
    link += "&a-gm_bonus=300&a-gm_bonus_reason=zas%C5%82u%C5%BCy%C5%82&a-action_value=500"

    response = gm.get(link)
    assert response.status_code == 302
    clean = unquote(response.url)
    assert token_in(clean).split(":")[0] != alice_token.split(":")[0]
    assert "gm_bonus=300" not in clean and "zasłużył" not in clean
    assert "action_value=500" not in clean
    assert f"a-character={table.lirael.pk}" in clean  # what is tested may be linked

    page = gm.get(response.url)
    assert page.status_code == 200
    token = html.unescape(re.search(r'name="token" value="([^"]+)"', page.content.decode())[1])
    second = single(table.lirael, token=token, extra_action_reason="drugi rzut za zgodą MG")
    assert gm.post(panel_url(table), second).status_code == 302
    rolls = list(Roll.objects.order_by("seq").values_list("rolled_by", "record__result__threshold"))
    assert rolls == [(table.alice.pk, 600), (table.gm.pk, 600)]


def test_a_redraw_keeps_a_signed_address_and_a_foreign_token_starts_over(table, client_for):
    players_own(table)
    alice, gm = client_for(table.alice), client_for(table.gm)
    own = gm.get(panel_url(table)).url
    fields = {k: v for k, v in re.findall(r"([^?&=]+)=([^&]*)", own) if k != "sig"}
    redraw = gm.get(
        panel_url(table) + "?" + "&".join(f"{k}={v}" for k, v in fields.items()),
        headers={"HX-Request": "true"},
    )
    assert redraw.status_code == 200
    assert "sig=" in redraw["HX-Replace-Url"]
    assert gm.get(redraw["HX-Replace-Url"]).status_code == 200  # Back shows this panel

    foreign = token_in(alice.get(panel_url(table)).url)
    response = gm.get(
        panel_url(table),
        {"mode": "attribute", "token": foreign},
        headers={"HX-Request": "true"},
    )
    assert "HX-Redirect" in response
    assert token_in(response["HX-Redirect"]) != foreign


# -- the engine's numbers come from the engine ------------------------------------------------


ENGINE_NUMBERS = {
    "rolls/selectors.py": {50, 950},
    "rolls/posts/presenters.py": {50, 950},
    "rolls/entries/selectors.py": {50, 950},
    "rolls/free/selectors.py": {50, 950},
    "rolls/ledger/selectors.py": {50, 950},
    "rolls/systems/forum1000/audit.py": {50, 950},
    "rolls/systems/forum1000/display.py": {50, 950},
    "rolls/messages.py": {300, 500},
    "rolls/systems/forum1000/messages.py": {300, 500},
    "rolls/systems/forum1000/forms.py": {50, 300, 500, 1000},
    # The shared panel's form: its one 300 is the length of an answer's note, no rule's.
    "rolls/forms.py": {50, 500, 1000},
}


@pytest.mark.parametrize("path", sorted(ENGINE_NUMBERS))
def test_engine_numbers_are_not_typed_again(path):
    tree = ast.parse((ROOT / path).read_text())
    typed = {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and type(node.value) is int
    }
    assert not typed & ENGINE_NUMBERS[path], f"{path} types the engine's numbers again"


def test_rolls_templates_and_messages_take_the_rules_numbers_from_the_engine():
    """The audit's critical faces, the GM step and the speed attribute are the engine's,
    not typed out again in a template or a message text."""
    from rolls.engine import forum1000 as f1000

    typed_again = re.compile(
        rf"(?:≤|≥)\s*(?:{f1000.CRITICAL_LUCK_MAX}|{f1000.CRITICAL_BAD_LUCK_MIN})\b"
        rf"|multiple of {f1000.GM_STEP}\b|{f1000.SPEED_ATTRIBUTE}"
    )
    sources = [*sorted((ROOT / "templates" / "rolls").glob("*.html")), ROOT / "rolls/messages.py"]
    found = {
        str(path.relative_to(ROOT)): typed_again.findall(path.read_text())
        for path in sources
        if typed_again.search(path.read_text())
    }
    assert found == {}


def test_the_speed_attribute_is_named_by_the_engine_only():
    from characters import systems
    from rolls.engine import forum1000 as f1000

    tree = ast.parse((ROOT / "characters/systems.py").read_text())
    strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)}
    assert f1000.SPEED_ATTRIBUTE not in strings
    assert systems.SPEED_ATTRIBUTE is f1000.SPEED_ATTRIBUTE


def test_roll_make_reads_as_its_steps():
    """The one roll service for every system: its steps in the order its module tells them
    (lock, check who rolls, replay a token, the rules and effects before any die, the
    action limit, the post and the roll as the page described them, the roll appended, the
    effects finished, the request closed), each a call of its own, in a body still short
    enough to read at once."""
    from rolls import services

    source = inspect.getsource(services.roll_make)
    steps = [
        "lock_session(",
        "check_may_roll(",
        "replayed_roll(",
        "case.engine_test()",
        "effect.check(",
        "_action_record(",
        "_planned_target(",
        "chain_append(",
        "effect.after(",
        "_close_ask(",
    ]
    places = [source.find(step) for step in steps]
    assert -1 not in places, dict(zip(steps, places, strict=True))
    assert places == sorted(places)
    lines = source.splitlines()
    assert len(lines) <= 66, f"roll_make is {len(lines)} lines"


# -- the line explains itself; the record and inputs are accessible ---------------------------


def test_the_diary_and_the_permalink_explain_how_to_read_a_roll(table, client_for):
    client = client_for(table.gm)
    client.post(panel_url(table), single(table.lirael))
    roll = Roll.objects.get()
    for url in (roll.post.get_absolute_url(), reverse("rolls:detail", args=[roll.session_id, 1])):
        body = html.unescape(client.get(url).content.decode())
        assert 'data-testid="roll-legend"' in body
        assert polish("How to read a roll") in body
        assert "Sukces albo porażka, a po nich jakość" in body  # {% translate %} doubles "%"
        assert "Krytyczne szczęście: rzut ≤ 50; krytyczny pech: rzut ≥ 950" in body


def test_the_stored_record_can_be_focused_and_is_named(table, client_for):
    client = client_for(table.gm)
    client.post(panel_url(table), single(table.lirael))
    body = client.get(reverse("rolls:detail", args=[table.session.pk, 1])).content.decode()
    pre = re.search(r"<pre[^>]*>", body).group(0)
    assert 'tabindex="0"' in pre and "aria-label=" in pre


def test_the_audit_explains_how_to_read_its_rolls(table, client_for):
    client_for(table.gm).post(panel_url(table), single(table.lirael))
    moderator = client_for(table.moderator)
    body = html.unescape(moderator.get(reverse("rolls:audit", args=[table.session.pk])).text)
    assert 'data-testid="roll-legend"' in body
    assert "Krytyczne szczęście: rzut ≤ 50; krytyczny pech: rzut ≥ 950" in body


def test_the_service_answers_a_used_token_to_its_own_roller_only(table):
    """Below the panel's signatures, roll_make itself never hands one user's roll to another."""
    from rolls.services import TokenReused
    from rolls.systems.forum1000.requests import RollRequest, SideRequest
    from tests.rolling import make_roll

    table.session.roll_policy = "players_own"
    table.session.save()
    request = RollRequest(
        kind="attribute", a=SideRequest(table.lirael.pk, "attribute", (attr("Percepcja"),))
    )
    token = uuid.uuid4()
    make_roll(table.session, table.alice, request, token=token)
    with pytest.raises(TokenReused):
        make_roll(table.session, table.gm, request, token=token)
    assert Roll.objects.count() == 1


@pytest.mark.parametrize("scope", ["gm_difficulty", "gm_bonus"])
def test_the_service_refuses_a_gm_modifier_without_a_reason(table, scope):
    """Below the panel's form, building a request's case (case_for) refuses a GM modifier
    nobody explained, before roll_make rolls anything."""
    from rolls.systems.forum1000.requests import GmModifier, RequestError, RollRequest, SideRequest
    from tests.rolling import make_roll

    side = SideRequest(table.lirael.pk, "attribute", (attr("Percepcja"),))
    request = RollRequest(
        kind="attribute", a=dataclasses.replace(side, **{scope: GmModifier(-100, "  ")})
    )
    with pytest.raises(RequestError) as refused:
        make_roll(table.session, table.gm, request)
    assert refused.value.field == f"a-{scope}_reason"
    assert not Roll.objects.exists()
