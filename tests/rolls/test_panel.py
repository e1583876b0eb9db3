"""The roll panel over HTTP: who may roll, what it previews, what it stores, what it refuses."""

import html
import re
import uuid
from fractions import Fraction
from urllib.parse import unquote

import pytest
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from characters.models import Attribute, NegativeEffect, Skill, Trait
from rolls.engine import forum1000 as f1000
from rolls.models import Roll
from tests.conftest import polish


def effect_on(character, kind: str, description: str) -> NegativeEffect:
    """An effect already on the sheet: how it came there (in play, a diary entry) is not what
    the healing tests are about, so it is written as it is stored."""
    return NegativeEffect.objects.create(character=character, kind=kind, description=description)


pytestmark = pytest.mark.django_db


def attr(name):
    return Attribute.objects.get(system="forum1000", name=name).pk


def skill(name):
    return Skill.objects.get(system="forum1000", name=name).pk


def trait(name):
    return f"trait:{Trait.objects.get(system='forum1000', name=name).pk}"


def panel_url(table):
    return reverse("rolls:panel", args=[table.session.pk])


def single(character, attribute="Percepcja", **extra):
    data = {
        "token": str(uuid.uuid4()),
        "mode": "attribute",
        "a-character": character.pk,
        "a-attribute": attr(attribute),
        "a-action_value": "0",
        "a-gm_difficulty": "0",
        "a-gm_bonus": "0",
    }
    data.update(extra)
    return data


def skill_roll(character, name, **extra):
    data = single(character, mode="skill", **{"a-skill": skill(name)})
    del data["a-attribute"]
    data.update(extra)
    return data


# -- who may roll ------------------------------------------------------------


def test_gm_rolls_for_any_character(table, client_for):
    response = client_for(table.gm).post(panel_url(table), single(table.borys))
    roll = Roll.objects.get()
    assert response.status_code == 302
    assert response.url.endswith("#roll-1")
    assert (roll.character, roll.rolled_by, roll.test) == (table.borys, table.gm, "attribute")
    assert roll.post.author == table.gm


@pytest.mark.parametrize(
    ("who", "status"),
    # A player and a moderator read the diary: they know the session, so 403; an outsider
    # may not know it exists (docs/decisions.md, the access table): 404.
    [("alice", 403), ("moderator", 403), ("outsider", 404)],
)
def test_only_the_gm_rolls_in_a_gm_only_session(table, client_for, who, status):
    client = client_for(getattr(table, who))
    assert client.get(panel_url(table)).status_code == status
    response = client.post(panel_url(table), single(table.lirael))
    assert response.status_code == status
    assert not Roll.objects.exists()


def test_players_roll_for_their_own_characters_where_allowed(table, client_for):
    table.session.roll_policy = "players_own"
    table.session.save()
    client = client_for(table.alice)
    assert client.post(panel_url(table), single(table.lirael)).status_code == 302
    # Borys is not among Alicja's choices: bad input, refused next to the field.
    response = client.post(panel_url(table), single(table.borys))
    assert response.status_code == 400
    assert 'id="id_a-character_error"' in response.content.decode()
    assert list(Roll.objects.values_list("character__name", flat=True)) == ["Lirael"]
    assert Roll.objects.get().post.author == table.alice
    # Any other caller of the service is refused too (DESIGN: services never trust a view).
    from rolls.systems.forum1000.requests import RollRequest, SideRequest
    from tests.rolling import make_roll

    request = RollRequest(
        kind="attribute", a=SideRequest(table.borys.pk, "attribute", (attr("Percepcja"),))
    )
    with pytest.raises(PermissionDenied):
        make_roll(table.session, table.alice, request)
    assert Roll.objects.count() == 1


def test_players_cannot_set_gm_modifiers(table, client_for):
    table.session.roll_policy = "players_own"
    table.session.save()
    client = client_for(table.alice)
    page = client.get(panel_url(table), follow=True).content.decode()
    assert 'name="a-gm_bonus"' not in page
    # Posted anyway: the field does not exist for a player, so nothing of it reaches the roll.
    client.post(
        panel_url(table), single(table.lirael, **{"a-gm_bonus": "300", "a-gm_bonus_reason": "ja"})
    )
    assert Roll.objects.get().record["result"]["threshold"] == 600


def test_opening_the_panel_puts_a_fresh_token_in_its_url(table, client_for):
    client = client_for(table.gm)
    first = client.get(panel_url(table) + "?mode=skill")
    second = client.get(panel_url(table) + "?mode=skill")
    assert first.status_code == second.status_code == 302
    assert "mode=skill" in first.url and "token=" in first.url
    assert first.url != second.url
    # Coming back to that URL (the Back button) shows the same token again.
    token = unquote(re.search(r"token=([^&]+)", first.url).group(1))  # signed: uuid:signature
    assert f'value="{token}"' in client.get(first.url).content.decode()


def test_no_rolls_outside_a_running_session(table, client_for):
    table.session.status = "finished"
    table.session.save()
    response = client_for(table.gm).post(panel_url(table), single(table.lirael))
    assert response.status_code == 403
    assert not Roll.objects.exists()


# -- one-time tokens ------------------------------------------------------------


def test_same_token_returns_the_first_roll_and_stores_nothing(table, client_for):
    client = client_for(table.gm)
    data = single(table.lirael)
    first = client.post(panel_url(table), data)
    again = client.post(panel_url(table), data)
    assert Roll.objects.count() == 1
    assert first.url == again.url


def test_same_token_with_other_inputs_is_refused(table, client_for):
    client = client_for(table.gm)
    data = single(table.lirael)
    client.post(panel_url(table), data)
    response = client.post(panel_url(table), {**data, "a-attribute": attr("Siła")})
    body = response.content.decode()
    assert response.status_code == 400
    assert polish("This form has already made another roll; open a new roll to roll again.") in body
    # The way out keeps the settings and brings a new token.
    fresh = html.unescape(re.search(r'href="([^"]+token=[^"]+)"', body).group(1))
    assert data["token"] not in fresh
    assert Roll.objects.count() == 1


# -- previews and lines ------------------------------------------------------------


def test_preview_shows_threshold_breakdown_and_the_engines_exact_chance(table, client_for):
    data = skill_roll(
        table.borys,
        "Otwieranie zamków",
        **{
            "a-sources": [trait("Precyzyjny")],
            "a-gm_difficulty": "-100",
            "a-gm_difficulty_reason": "ciemno",
        },
    )
    body = client_for(table.gm).get(panel_url(table), data).content.decode()
    # 40·3 + 500/2 + 50/2 − 100 = 295
    assert re.search(r'data-testid="threshold">295<', body)
    expected = f1000.success_probability(295)
    assert expected == Fraction(59, 200)
    assert 'data-testid="chance">29,5%<' in body  # Polish decimal comma
    assert "ciemno" in body and "Precyzyjny" in body


def test_opposed_preview_shows_all_four_odds(table, client_for):
    data = single(table.lirael, mode="opposed", **{"a-test": "attribute"})
    data.update(
        {
            "b-character": table.borys.pk,
            "b-test": "attribute",
            "b-attribute": attr("Siła"),
            "b-action_value": "0",
            "b-gm_difficulty": "0",
            "b-gm_bonus": "0",
        }
    )
    body = client_for(table.gm).get(panel_url(table), data).content.decode()
    # RULES 1.3 by hand, Lirael's Percepcja 600 against Borys's Siła 450, 10**6 pairs of faces:
    # a wins: a succeeds and b fails, 600·550, or both succeed and 600 − ra > 450 − rb:
    #   150·450 (ra ≤ 150) + Σ_{ra=151..600} (600 − ra) = 67 500 + 101 025;
    # draw: rb = ra − 150, 450 pairs; b wins: 450·400 + 600·450 − 168 525 − 450;
    # nobody: 400·550.
    exact = {
        "a": Fraction(330_000 + 168_525, 10**6),
        "draw": Fraction(450, 10**6),
        "b": Fraction(180_000 + 101_025, 10**6),
        "none": Fraction(220_000, 10**6),
    }
    assert sum(exact.values()) == 1
    template = re.escape(
        polish(
            "Initiator wins %(a)s%% · draw %(draw)s%% · other side wins %(b)s%% · nobody %(none)s%%"
        ).replace("%%", "%")
    )
    for key in exact:
        template = template.replace(re.escape(f"%({key})s"), rf"(?P<{key}>[0-9]+(?:,[0-9]+)?)")
    odds = re.search(r'data-testid="odds">' + template + "<", body)
    assert odds, body
    shown = {key: Fraction(odds.group(key).replace(",", ".")) for key in exact}
    # Two decimals, Polish comma: each shown percent is the exact one, rounded.
    for key, chance in exact.items():
        assert abs(shown[key] - 100 * chance) <= Fraction(1, 200), (key, shown[key])
    assert shown["a"] == Fraction("49.85") and shown["b"] == Fraction("28.1")


def test_the_roll_line_follows_rules_1_1(table, client_for):
    """Each number says what it is, in RULES 1.1's order."""
    client = client_for(table.gm)
    client.post(
        panel_url(table),
        single(table.lirael, **{"a-gm_bonus": "-50", "a-gm_bonus_reason": "pośpiech"}),
    )
    roll = Roll.objects.get()
    result = roll.record["result"]
    assert result["threshold"] == 550
    body = client.get(roll.post.get_absolute_url()).content.decode()
    line = re.sub(r"\s+", " ", re.search(r'data-testid="roll-line">(.*?)</p>', body, re.S).group(1))
    line = re.sub(r"<[^>]+>", "", html.unescape(line))
    outcome = polish("Success") if result["success"] else polish("Failure")
    comparison = "≤" if result["success"] else ">"
    distance = f"{result['distance']:+d}".replace("-", "\u2212")
    order = [
        f"{outcome}, {polish('quality')} {result['percent']}%",
        f"{polish('roll')} {result['roll']} {comparison} {polish('threshold')} 550",
        f"{polish('distance')} {distance}",
        "\u221250",  # the GM's −50, with the one minus sign
        "pośpiech",
    ]
    positions = [line.index(part) for part in order]
    assert positions == sorted(positions)
    assert not re.search(r"-\d", line), line  # no hyphen-minus before any number


# -- refusals -----------------------------------------------------------------


def test_foreign_ability_is_refused_naming_both_attributes(table, client_for):
    from characters.models import Character

    Character.objects.get(pk=table.borys.pk).traits.add(
        Trait.objects.get(system="forum1000", name="Wyczucie kłamstwa")
    )
    response = client_for(table.gm).post(
        panel_url(table),
        skill_roll(table.borys, "Torturowanie", **{"a-sources": [trait("Wyczucie kłamstwa")]}),
    )
    body = response.content.decode()
    assert response.status_code == 400
    assert "Mądrość" in body and "Zręczność" in body
    assert 'id="id_a-sources_error"' in body
    assert not Roll.objects.exists()


def test_gm_modifier_without_reason_is_refused_in_polish(table, client_for):
    response = client_for(table.gm).post(
        panel_url(table), single(table.lirael, **{"a-gm_difficulty": "-100"})
    )
    assert response.status_code == 400
    assert (
        polish("A GM modifier needs a reason: the roll shows it to everyone.")
        in response.content.decode()
    )
    assert not Roll.objects.exists()


@pytest.mark.parametrize("value", ["75", "550", "-350", "abc"])
def test_gm_modifier_off_the_grid_is_refused(table, client_for, value):
    data = single(table.lirael, **{"a-gm_bonus": value, "a-gm_bonus_reason": "x"})
    response = client_for(table.gm).post(panel_url(table), data)
    assert response.status_code == 400
    assert 'id="id_a-gm_bonus_error"' in response.content.decode()
    assert not Roll.objects.exists()


def test_combined_needs_two_different_attributes(table, client_for):
    data = single(table.lirael, mode="combined", **{"a-attribute_2": attr("Percepcja")})
    response = client_for(table.gm).post(panel_url(table), data)
    assert response.status_code == 400
    assert polish("A combined roll needs two different attributes.") in response.content.decode()
    assert not Roll.objects.exists()


def test_ability_not_on_the_sheet_is_refused(table, client_for):
    data = single(table.lirael, **{"a-sources": [trait("Dobry Wzrok")]})
    response = client_for(table.gm).post(panel_url(table), data)
    assert response.status_code == 400
    assert not Roll.objects.exists()


# -- healing, initiative, the action warning -------------------------------------


def test_healing_changes_hp_and_frees_the_chosen_effect_in_one_go(table, client_for, monkeypatch):
    from characters.models import Character

    healer = table.lirael
    Character.objects.filter(pk=table.borys.pk).update(hp_current=40)
    wound = effect_on(table.borys, "wound", "Cięcie")
    illness = effect_on(table.borys, "illness", "Gorączka")
    monkeypatch.setattr("rolls.services.SystemDice", lambda: _Fixed(100))
    data = skill_roll(
        healer, "Leczenie ran", mode="healing", patient=table.borys.pk, effect=wound.pk
    )
    response = client_for(table.gm).post(panel_url(table), data)
    assert response.status_code == 302
    roll = Roll.objects.get()
    # Leczenie ran, level 0, Mądrość 600 → threshold 300; roll 100 → distance 200.
    assert roll.record["result"]["threshold"] == 300
    table.borys.refresh_from_db()
    assert table.borys.hp_current == 100  # 40 + 200, capped at 100
    wound.refresh_from_db()
    illness.refresh_from_db()
    assert wound.freed_at is not None and illness.freed_at is None
    assert roll.record["healing"]["freed_effect"]["id"] == wound.pk
    # The sheet's history has the roll's change, by whom and which roll.
    revision = table.borys.revisions.order_by("-id").first()
    assert (revision.kind, revision.edited_by) == ("healing", table.gm)
    assert f"#{roll.seq}" in revision.note and "40" in revision.note and "100" in revision.note
    assert revision.snapshot["hp"] == [100, 100]


def test_healing_refuses_an_effect_of_the_other_kind(table, client_for):
    illness = effect_on(table.borys, "illness", "Gorączka")
    data = skill_roll(
        table.lirael, "Leczenie ran", mode="healing", patient=table.borys.pk, effect=illness.pk
    )
    response = client_for(table.gm).post(panel_url(table), data)
    assert response.status_code == 400
    assert not Roll.objects.exists()
    assert NegativeEffect.objects.get(pk=illness.pk).freed_at is None


@pytest.mark.parametrize("kind", ["illness", "poison"])
def test_a_disease_healer_frees_illness_and_poison(table, client_for, monkeypatch, kind):
    # Effect kinds are finer than the two healing skills; "Leczenie chorób" heals
    # both illness and poison (seed 000: "choroby i trucizny").
    effect = effect_on(table.borys, kind, "Jad")
    monkeypatch.setattr("rolls.services.SystemDice", lambda: _Fixed(100))
    data = skill_roll(
        table.lirael, "Leczenie chorób", mode="healing", patient=table.borys.pk, effect=effect.pk
    )
    response = client_for(table.gm).post(panel_url(table), data)
    assert response.status_code == 302
    assert NegativeEffect.objects.get(pk=effect.pk).freed_at is not None


@pytest.mark.parametrize("kind", ["stun", "immobilisation", "spell", "other"])
def test_no_healing_skill_frees_a_stun_or_a_spell(table, client_for, kind):
    effect = effect_on(table.borys, kind, "Ogłuszony")
    for skill in ("Leczenie ran", "Leczenie chorób"):
        data = skill_roll(
            table.lirael, skill, mode="healing", patient=table.borys.pk, effect=effect.pk
        )
        response = client_for(table.gm).post(panel_url(table), data)
        assert response.status_code == 400
    assert not Roll.objects.exists()
    assert NegativeEffect.objects.get(pk=effect.pk).freed_at is None


def test_initiative_rolls_for_everyone_at_once(table, client_for, make_character, monkeypatch):
    """RULES 1.4: highest score first; ties: higher Szybkość, then the name (Polish order)."""
    from diary import services as diary_services

    for name, speed in (("Ćma", 690), ("Ala", 640)):
        character = make_character(table.alice, name, attributes={"Szybkość": speed})
        invited = diary_services.participation_invite(
            session=table.session, by=table.gm, character=character
        )
        diary_services.participation_decide(participation=invited, by=table.alice, accept=True)
    ala = table.session.participations.get(character__name="Ala").character
    monkeypatch.setattr("rolls.services.SystemDice", lambda: _Fixed(100))
    data = {
        "token": str(uuid.uuid4()),
        "mode": "initiative",
        f"mod_{table.lirael.pk}": "50",
        f"why_{table.lirael.pk}": "zwinny but",
        f"mod_{ala.pk}": "50",
        f"why_{ala.pk}": "eliksir",
        f"mod_{table.borys.pk}": "0",
    }
    response = client_for(table.gm).post(panel_url(table), data)
    assert response.status_code == 302
    roll = Roll.objects.get()
    result = roll.record["result"]
    # Every face 100. Ćma 690 − 100 = 590 (Szybkość 690); Ala and Lirael 640 + 50 − 100 =
    # 590 (Szybkość 640: the name decides); Borys 640 − 100 = 540.
    expected = [("Ćma", 590), ("Ala", 590), ("Lirael", 590), ("Borys", 540)]
    assert [(name, result["scores"][name]) for name in result["order"]] == expected
    assert roll.is_action is False
    body = client_for(table.alice).get(roll.post.get_absolute_url()).content.decode()
    shown = re.search(r'data-testid="initiative-order">(.*?)</ol>', body, re.S).group(1)
    assert re.findall(r"<li>(.*?) <span[^>]*>\((.*?)\)</span></li>", shown) == [
        (name, str(score)) for name, score in expected
    ]


class _Scripted:
    """Faces in the order the engine asks for them."""

    def __init__(self, *faces):
        self.faces = list(faces)

    def roll(self, low, high):
        face = self.faces.pop(0)
        assert low <= face <= high
        return face


class _Fixed:
    def __init__(self, face):
        self.face = face

    def roll(self, low, high):
        assert low <= self.face <= high
        return self.face


def opposed(a_side: dict, b_side: dict) -> dict:
    data = {"token": str(uuid.uuid4()), "mode": "opposed"}
    for prefix, side in (("a", a_side), ("b", b_side)):
        data.update(
            {
                f"{prefix}-action_value": "0",
                f"{prefix}-gm_difficulty": "0",
                f"{prefix}-gm_bonus": "0",
            }
        )
        data.update({f"{prefix}-{key}": value for key, value in side.items()})
    return data


def test_pvp_defence_without_a_fitting_skill_is_attribute_halved(table, client_for, monkeypatch):
    data = opposed(
        {"character": table.lirael.pk, "test": "skill", "skill": skill("Uwodzenie")},
        {"character": table.borys.pk, "test": "half_attribute", "attribute": attr("Mądrość")},
    )
    # Lirael rolls 200 (distance 190), Borys 50 (distance 250): both succeed, Borys wins.
    monkeypatch.setattr("rolls.services.SystemDice", lambda: _Scripted(200, 50))
    client = client_for(table.gm)
    assert client.post(panel_url(table), data).status_code == 302
    roll = Roll.objects.get()
    result = roll.record["result"]
    # Lirael: 40·1 + 700/2 = 390 (Uwodzenie level 1); Borys: Mądrość 600 / 2 = 300.
    assert (result["a"]["threshold"], result["b"]["threshold"]) == (390, 300)
    assert result["b"]["input"]["level"] == 0
    assert (result["a"]["roll"], result["b"]["roll"]) == (200, 50)
    assert result["winner"] == "b"
    body = client.get(roll.post.get_absolute_url()).content.decode()
    verdict = re.search(r'data-testid="verdict">(.*?)</p>', body).group(1)
    assert verdict == polish("%(b)s wins", b="Borys")


def test_pvp_defence_must_follow_the_initiators_kind_of_test(table, client_for):
    data = opposed(
        {"character": table.lirael.pk, "test": "skill", "skill": skill("Uwodzenie")},
        {"character": table.borys.pk, "test": "attribute", "attribute": attr("Mądrość")},
    )
    response = client_for(table.gm).post(panel_url(table), data)
    assert response.status_code == 400
    assert 'id="id_b-test_error"' in response.content.decode()
    assert not Roll.objects.exists()


def test_simplified_sessions_hide_criticals(
    make_user, make_character, make_session, client_for, monkeypatch
):
    gm, player = make_user(), make_user()
    hero = make_character(player, "Hero")
    session = make_session(gm, [hero], criticals_enabled=False)
    monkeypatch.setattr("rolls.services.SystemDice", lambda: _Fixed(7))
    data = single(hero)
    client_for(gm).post(reverse("rolls:panel", args=[session.pk]), data)
    roll = Roll.objects.get()
    assert roll.record["result"]["roll"] == 7  # the raw face is kept
    assert roll.record["result"]["critical"] is None
    body = client_for(player).get(roll.post.get_absolute_url()).content.decode()
    assert polish("critical luck") not in body
    assert 'data-testid="criticals"' in body  # the session page tells the setting


def test_skill_mode_leaves_healing_to_the_healing_mode(table, client_for):
    client = client_for(table.gm)
    body = client.get(panel_url(table) + "?mode=skill", follow=True).content.decode()
    assert "Leczenie ran" not in body
    healing = client.get(panel_url(table) + "?mode=healing", follow=True).content.decode()
    assert "Leczenie ran" in healing


def test_every_roll_has_a_permalink_with_its_record_and_hash(table, client_for):
    client_for(table.gm).post(panel_url(table), single(table.lirael))
    roll = Roll.objects.get()
    url = reverse("rolls:detail", args=[table.session.pk, roll.seq])
    body = html.unescape(client_for(table.alice).get(url).content.decode())
    assert roll.hash in body and roll.prev_hash in body
    assert '"threshold": 600' in body
    assert client_for(table.outsider).get(url).status_code == 404  # may not know the session


def test_a_post_from_an_earlier_turn_is_refused_not_a_server_error(table, client_for):
    client = client_for(table.gm)
    client.post(panel_url(table), single(table.lirael))
    old_post = Roll.objects.get().post
    from diary.services import turn_open_next

    turn_open_next(session=table.session, by=table.gm)
    response = client.post(panel_url(table), single(table.borys, post=str(old_post.pk)))
    assert response.status_code == 400
    assert Roll.objects.count() == 1


def test_players_roll_with_the_sheets_modifiers_only(table, client_for):
    table.session.roll_policy = "players_own"
    table.session.save()
    client = client_for(table.alice)
    page = client.get(panel_url(table), follow=True).content.decode()
    assert 'name="a-action_value"' not in page
    # Sent anyway, an action modifier from a player is refused by the service.
    from rolls.systems.forum1000.requests import RollRequest, SideRequest
    from tests.rolling import make_roll

    request = RollRequest(
        kind="attribute",
        a=SideRequest(
            table.lirael.pk, "attribute", (attr("Percepcja"),), action_value=100, action_reason="ja"
        ),
    )
    with pytest.raises(PermissionDenied):
        make_roll(table.session, table.alice, request)
    assert not Roll.objects.exists()


@pytest.mark.parametrize("mode", ["healing", "opposed", "initiative"])
def test_players_are_not_offered_the_gm_only_modes(table, client_for, mode):
    table.session.roll_policy = "players_own"
    table.session.save()
    response = client_for(table.alice).get(panel_url(table) + f"?mode={mode}", follow=True)
    assert response.context["panel"].mode == "attribute"
    assert f'href="?mode={mode}"' not in response.content.decode()


def test_no_panel_for_a_system_without_one(table, client_for, monkeypatch):
    from diary.models import GameSession
    from rolls import registry

    GameSession.objects.filter(pk=table.session.pk).update(system="q10")
    # q10 has its panel; a system whose module registered none gets no panel.
    response = client_for(table.gm).post(panel_url(table), single(table.lirael))
    assert response.status_code == 400  # forum1000's mode is not one of q10's
    monkeypatch.delitem(registry._SYSTEMS, "q10")
    response = client_for(table.gm).post(panel_url(table), single(table.lirael))
    assert response.status_code == 403
    assert not Roll.objects.exists()


def test_a_refusal_on_the_defending_side_is_shown_on_that_side(table, client_for):
    from characters.models import Character

    Character.objects.get(pk=table.borys.pk).traits.add(
        Trait.objects.get(system="forum1000", name="Wyczucie kłamstwa")
    )
    data = opposed(
        {"character": table.lirael.pk, "test": "attribute", "attribute": attr("Siła")},
        {
            "character": table.borys.pk,
            "test": "attribute",
            "attribute": attr("Siła"),
            "sources": [trait("Wyczucie kłamstwa")],
        },
    )
    body = client_for(table.gm).post(panel_url(table), data).content.decode()
    assert 'id="id_b-sources_error"' in body
    assert 'id="id_a-sources_error"' not in body
    assert not Roll.objects.exists()
