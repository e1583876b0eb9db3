"""The q10 panel over HTTP: what it previews, what it stores, what it refuses,
and how the roll reads in the post, the permalink, the audit and the ledger."""

import html
import re
import uuid

import pytest
from django.urls import reverse

from rolls import services
from rolls.engine.dice import ScriptedDice
from rolls.models import Roll
from rolls.plugins import FormContext
from rolls.systems.q10.forms import make_form
from tests.conftest import polish
from tests.rolls.systems.q10.q10_table import build_archer_table

pytestmark = pytest.mark.django_db


def url(t):
    return reverse("rolls:panel", args=[t.session.pk])


def pool_form(t, data, characters):
    """The q10 pool form as the GM's panel builds it."""
    context = FormContext(
        characters=characters, all_characters=characters, gm=True, session=t.session
    )
    return make_form("pool", data, context)


def pool(t, character=None, **extra):
    data = {
        "token": str(uuid.uuid4()),
        "mode": "pool",
        "character": (character or t.eryk).pk,
        "attribute": t.sila.pk,
        "skill": t.atletyka.pk,
        "difficulty": "15",
        "difficulty_value": "",
        "raises": "0",
    }
    data.update({k: str(v) for k, v in extra.items()})
    return data


def text(response) -> str:
    words = html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode()))
    return re.sub(r"\s+", " ", words).replace(" :", ":")


def preview(client, t, **extra):
    return client.get(url(t), pool(t, **extra))


# -- the page ---------------------------------------------------------------------


def test_the_gm_gets_the_q10_panel_with_the_exact_chance(q10, client_for):
    response = preview(client_for(q10.gm), q10)
    page = response.content.decode()
    assert response.status_code == 200
    assert 'data-system="q10"' in page
    assert 'name="pool_dice_1"' in page and 'name="circumstance_1"' in page
    # 5z2 against 15 (przeciętny): the engine's exact chance.
    from rolls.engine import q10 as engine

    chance = engine.pool_probability(5, 2, 15)
    shown = re.search(r'data-testid="chance">([\d,]+)%', page).group(1)
    assert abs(float(shown.replace(",", ".")) - float(chance * 100)) < 0.006
    words = text(response)
    assert "pula podstawowa 5z2" in words
    assert "15 (przeciętny)" in words


def test_a_link_opens_a_clean_panel_with_a_fresh_signed_token(q10, client_for):
    client = client_for(q10.gm)
    response = client.get(url(q10) + f"?mode=pool&raises=2&pool_dice_1=5&character={q10.runa.pk}")
    assert response.status_code == 302
    assert "raises=2" in response.url and f"character={q10.runa.pk}" in response.url
    assert "pool_dice_1=5" not in response.url and "sig=" in response.url  # modifiers never
    assert client.get(response.url).status_code == 200


def test_the_gm_rolls_and_the_post_shows_the_line(q10, client_for):
    client = client_for(q10.gm)
    response = client.post(url(q10), pool(q10, raises=1))
    roll = Roll.objects.get()
    assert response.status_code == 302 and response.url.endswith(f"#roll-{roll.seq}")
    assert (roll.system, roll.test, roll.rolled_by, roll.character) == (
        "q10",
        "pool",
        q10.gm,
        q10.eryk,
    )
    assert roll.record["result"]["input"]["raises"] == 1
    diary = client.get(response.url.split("#")[0])
    assert 'data-testid="roll-line"' in diary.content.decode()
    assert "Eryk · Siła + Atletyka (5z2)" in text(diary)


def test_double_click_and_retry_return_the_first_roll(q10, client_for):
    client = client_for(q10.gm)
    data = pool(q10)
    first = client.post(url(q10), data)
    again = client.post(url(q10), data)
    assert first.url == again.url
    assert Roll.objects.count() == 1
    # The same token with other inputs: refused, with a fresh form offered.
    other = client.post(url(q10), {**data, "raises": "3"})
    assert other.status_code == 400
    assert polish("New roll with these settings") in text(other)
    assert Roll.objects.count() == 1


def test_show_the_chance_without_javascript_redirects_and_rolls_nothing(q10, client_for):
    response = client_for(q10.gm).post(url(q10), {**pool(q10), "preview": "1"})
    assert response.status_code == 303 and "sig=" in response.url
    assert not Roll.objects.exists()


def test_a_foreign_token_gets_refused(q10, client_for):
    from rolls import access

    token = access.issue_token(q10.alice, q10.session)
    response = client_for(q10.gm).post(url(q10), {**pool(q10), "token": token})
    assert response.status_code == 400
    assert not Roll.objects.exists()


def test_htmx_redraws_the_panel_partial(q10, client_for):
    from rolls import access

    client = client_for(q10.gm)
    token = access.issue_token(q10.gm, q10.session)
    response = client.get(url(q10), {**pool(q10), "token": token}, HTTP_HX_REQUEST="true")
    page = response.content.decode()
    assert response.status_code == 200 and "<html" not in page and 'id="panel"' in page
    assert "HX-Replace-Url" in response.headers


# -- bad input ------------------------------------------------------------------


def test_a_pool_beyond_ten_dice_is_capped(q10, client_for):
    response = preview(
        client_for(q10.gm), q10, pool_dice_1=7, pool_keep_1=1, pool_reason_1="Szał bojowy"
    )
    words = text(response)
    assert "12z3 → 10z3" in words
    assert (
        polish("%(before)s → %(after)s: never more than %(max)s dice")
        % {
            "before": "12z3",
            "after": "10z3",
            "max": 10,
        }
        in words
    )
    client_for(q10.gm).post(
        url(q10), pool(q10, pool_dice_1=7, pool_keep_1=1, pool_reason_1="Szał bojowy")
    )
    result = Roll.objects.get().record["result"]
    assert (result["x"], result["y"], len(result["faces"])) == (10, 3, 10)


@pytest.mark.parametrize(
    ("extra", "field", "message"),
    [
        ({"raises": "-1"}, "raises", "The number of raises cannot be negative: declare 0 or more."),
        (
            {"difficulty": "other", "difficulty_value": "-5"},
            "difficulty_value",
            "The difficulty cannot be negative.",
        ),
        (
            {"difficulty": "other", "difficulty_value": ""},
            "difficulty_value",
            "Type the difficulty, 0 or more.",
        ),
        (
            {"pool_dice_1": "2", "pool_reason_1": "  "},
            "pool_reason_1",
            "A modifier you type needs a reason: the roll shows it to everyone.",
        ),
        (
            {"circumstance_1": "10"},
            "circumstance_reason_1",
            "A modifier you type needs a reason: the roll shows it to everyone.",
        ),
        ({"raises": "dwa"}, "raises", None),
        ({"circumstance_1": "7", "circumstance_reason_1": "mgła"}, "circumstance_1", None),
        ({"pool_dice_1": "11", "pool_reason_1": "x"}, "pool_dice_1", None),
        ({"character": "999999"}, "character", None),
        ({"attribute": "abc"}, "attribute", None),
    ],
)
def test_bad_input_is_refused_next_to_its_field(q10, client_for, extra, field, message):
    response = client_for(q10.gm).post(url(q10), {**pool(q10), **extra})
    page = response.content.decode()
    assert response.status_code == 400
    assert f'id="id_{field}_error"' in page
    if message:
        assert polish(message) in html.unescape(page)
    assert not Roll.objects.exists()


def test_a_source_of_another_attribute_is_refused(q10, client_for):
    response = client_for(q10.gm).post(
        url(q10), {**pool(q10, attribute=q10.zrecznosc.pk), "sources": f"trait:{q10.strong.pk}"}
    )
    assert response.status_code == 400
    assert 'id="id_sources_error"' in response.content.decode()
    assert not Roll.objects.exists()


def test_a_source_of_the_tested_attribute_adds_to_the_pool(q10, client_for):
    client_for(q10.gm).post(url(q10), {**pool(q10), "sources": f"trait:{q10.strong.pk}"})
    result = Roll.objects.get().record["result"]
    assert (result["x"], result["y"]) == (6, 2)
    assert result["input"]["pool_modifiers"][0]["source"] == "trait"


def test_a_player_is_not_offered_modifiers_and_cannot_type_them(q10_players_own, client_for):
    t = q10_players_own
    client = client_for(t.alice)
    page = preview(client, t).content.decode()
    assert 'name="pool_dice_1"' not in page and 'name="circumstance_1"' not in page
    # Posted anyway: the fields do not exist for a player; nothing of them reaches the roll.
    client.post(
        url(t), pool(t, pool_dice_1=5, pool_keep_1=5, pool_reason_1="ja", circumstance_1=-20)
    )
    result = Roll.objects.get().record["result"]
    assert (result["x"], result["y"], result["difficulty"]) == (5, 2, 15)
    # And the service refuses a case that says it carries typed modifiers.
    data = {**pool(t, character=t.eryk), "pool_dice_1": "2", "pool_keep_1": "0"}
    form = pool_form(t, {**data, "pool_reason_1": "x"}, [t.eryk])
    assert form.is_valid(), form.errors
    assert form.case().gm_typed
    from django.core.exceptions import PermissionDenied

    with pytest.raises(PermissionDenied):
        services.roll_make(session=t.session, by=t.alice, case=form.case(), token=uuid.uuid4())
    assert Roll.objects.count() == 1


def test_a_player_cannot_roll_for_another_players_character(q10_players_own, client_for):
    t = q10_players_own
    response = client_for(t.alice).post(url(t), pool(t, character=t.runa))
    assert response.status_code == 400
    assert not Roll.objects.exists()


@pytest.mark.parametrize(("mode", "status"), [("skill", 400), ("stress", 400), ("", 400)])
def test_a_mode_of_another_system_is_bad_input(q10, client_for, mode, status):
    response = client_for(q10.gm).post(url(q10), {**pool(q10), "mode": mode})
    assert response.status_code == status
    assert not Roll.objects.exists()


# -- the display --------------------------------------------------------------------


def scripted_roll(t, faces, **extra):
    form = pool_form(t, pool(t, **extra), [t.eryk, t.runa])
    assert form.is_valid(), form.errors
    return services.roll_make(
        session=t.session, by=t.gm, case=form.case(), token=uuid.uuid4(), dice=ScriptedDice(faces)
    ).roll


def test_the_line_shows_every_face_kept_extra_total_margin_and_raises(q10, client_for):
    roll = scripted_roll(
        q10, (5, 9, 6, 10, 3, 2), raises=1, circumstance_1=5, circumstance_reason_1="mgła"
    )
    client = client_for(q10.alice)
    diary = client.get(roll.post.get_absolute_url())
    page = diary.content.decode()
    line = re.search(r'<p class="roll-line[^"]*" data-testid="roll-line">(.*?)</p>', page, re.S)
    words = html.unescape(re.sub(r"<[^>]+>", " ", line.group(1)))
    words = re.sub(r"\s+", " ", words)
    assert "Eryk · Siła + Atletyka (5z2)" in words
    assert polish("Failure") in words
    assert "kości: 5, 9, 6, 10, 3" in words
    assert "zatrzymane: 10 + 9" in words
    assert "dodatkowe kości za dziesiątki: 2" in words
    assert "wynik 21 < Trudność 25" in words
    # 21 against 15 + 5 (mgła) + 5 (a raise) = 25: a failure, margin −4, no raise achieved.
    assert "przewyżka −4" in words
    assert "5 (niezatrzymana) 9 (zatrzymana)" in words  # each die says whether it counts


def test_a_failure_says_so_with_its_margin(q10, client_for):
    roll = scripted_roll(
        q10, (5, 9, 6, 10, 3, 2), raises=1, circumstance_1=5, circumstance_reason_1="mgła"
    )
    page = client_for(q10.gm).get(roll.post.get_absolute_url()).content.decode()
    words = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))
    assert polish("Failure") in words
    assert "wynik 21 < Trudność 25" in words
    assert "przewyżka −4" in words
    assert "osiągnięte podbicia: 0 z 1" in words
    assert "MG +5: mgła" in words
    # The kept dice are marked: two kept, three not, one extra.
    assert page.count('class="die kept"') == 2
    assert page.count('class="die kept extra"') == 1
    assert page.count('class="die"') == 3


def test_a_success_with_a_raise(q10, client_for):
    roll = scripted_roll(q10, (5, 9, 6, 10, 3, 2), raises=1)
    page = client_for(q10.gm).get(roll.post.get_absolute_url()).content.decode()
    words = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))
    assert "wynik 21 ≥ Trudność 20" in words
    assert "przewyżka +1" in words
    assert "osiągnięte podbicia: 1 z 1" in words


def test_permalink_audit_and_ledger_show_the_case_roll(q10, client_for):
    roll = scripted_roll(q10, (5, 9, 6, 10, 3, 2), raises=1)
    moderator = client_for(q10.moderator)
    detail = client_for(q10.gm).get(reverse("rolls:detail", args=[q10.session.pk, roll.seq]))
    assert detail.status_code == 200
    assert 'data-testid="roll-line"' in detail.content.decode()
    assert "wynik 21 ≥ Trudność 20" in text(detail)
    audit = moderator.get(reverse("rolls:audit", args=[q10.session.pk]))
    assert audit.status_code == 200
    assert 'data-testid="roll-line"' in audit.content.decode()
    ledger = client_for(q10.gm).get(reverse("rolls:export", args=[q10.session.pk])).json()
    assert ledger["rolls"][0]["record"]["result"]["dice"] == [5, 9, 6, 10, 3, 2]


def test_a_second_action_roll_is_shown_in_the_preview_and_the_post(q10, client_for):
    scripted_roll(q10, (1, 2, 3, 4, 5))
    client = client_for(q10.gm)
    assert 'data-testid="action-warning"' in preview(client, q10).content.decode()
    second = scripted_roll(q10, (1, 2, 3, 4, 5))
    page = client.get(second.post.get_absolute_url()).content.decode()
    assert 'data-testid="action-count"' in page


def test_a_withheld_mode_is_403_and_a_player_without_modes_gets_no_panel(
    q10_players_own, client_for, monkeypatch
):
    import dataclasses

    from rolls import registry
    from rolls.plugins import Mode

    t = q10_players_own
    orig = registry.system_for("q10")
    withheld = dataclasses.replace(
        orig, modes=(*orig.modes, Mode("secret", "Sekret", gm_only=True))
    )
    monkeypatch.setitem(registry._SYSTEMS, "q10", withheld)
    client = client_for(t.alice)
    assert client.post(url(t), {**pool(t), "mode": "secret"}).status_code == 403
    assert 'href="?mode=pool"' in preview(client, t).content.decode()
    assert 'href="?mode=secret"' not in preview(client, t).content.decode()
    # The GM is offered the withheld mode's tab.
    assert 'href="?mode=secret"' in preview(client_for(t.gm), t).content.decode()
    only_gm = dataclasses.replace(
        orig, modes=tuple(dataclasses.replace(m, gm_only=True) for m in orig.modes)
    )
    monkeypatch.setitem(registry._SYSTEMS, "q10", only_gm)
    assert client.post(url(t), pool(t)).status_code == 403
    assert not Roll.objects.exists()


def _line_words(client, roll) -> str:
    page = client.get(roll.post.get_absolute_url()).content.decode()
    line = re.search(r'<p class="roll-line[^"]*" data-testid="roll-line">(.*?)</p>', page, re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", line.group(1))))


def test_a_very_low_result_is_said_to_be_exceptionally_inept(q10, client_for):
    """Seed 001: "bardzo niski wynik … wyjątkowo nieudolny"; its example, 9 against 30, is
    one. The line says so when the total is at most half the difficulty."""
    roll = scripted_roll(q10, (1, 2, 3, 4, 5), difficulty=30)  # 5z2: 5 + 4 = 9 against 30
    words = _line_words(client_for(q10.gm), roll)
    assert "wynik 9 < Trudność 30" in words
    assert "bardzo niski wynik: wykonanie wyjątkowo nieudolne" in words
    at_half = scripted_roll(q10, (1, 2, 3, 4, 6), difficulty=20)  # 6 + 4 = 10: half of 20
    assert "wyjątkowo nieudolne" in _line_words(client_for(q10.gm), at_half)


def test_an_ordinary_failure_is_not_called_inept(q10, client_for):
    roll = scripted_roll(q10, (1, 2, 3, 4, 7), difficulty=20)  # 7 + 4 = 11: above half of 20
    words = _line_words(client_for(q10.gm), roll)
    assert polish("Failure") in words and "nieudolne" not in words


# -- a fresh panel opens on the sheet's best pair -----------------------------------------


def _fresh_panel(client, session):
    """The panel as the diary's link opens it: redirected to its complete default address."""
    response = client.get(reverse("rolls:panel", args=[session.pk]), follow=True)
    assert response.status_code == 200
    return response


def _chance_shown(response) -> float:
    shown = re.search(r'data-testid="chance">([\d,]+)%', response.content.decode()).group(1)
    return float(shown.replace(",", "."))


def test_a_fresh_panel_opens_on_the_pair_with_the_best_chance(make_user, client_for):
    """Not the catalog's first skill at level 0 (Siła + Atletyka: 2z0, about 1 %): Zręczność
    + Łucznictwo (7z3), the highest chance against the default difficulty 15."""
    from rolls.engine import q10 as engine

    gm, session, _sila, zrecznosc, catalog = build_archer_table(
        make_user, {"Łucznictwo": 3, "Otwieranie zamków": 1}
    )
    response = _fresh_panel(client_for(gm), session)
    form = response.context["panel"].form
    assert form["attribute"].value() == str(zrecznosc.pk)
    assert form["skill"].value() == str(catalog["Łucznictwo"].pk)
    assert form["difficulty"].value() == "15"
    best = float(engine.pool_probability(7, 3, 15) * 100)
    assert abs(_chance_shown(response) - best) < 0.006


def test_pairs_with_the_same_chance_open_on_the_first_on_the_sheet(make_user, client_for):
    gm, session, _sila, zrecznosc, catalog = build_archer_table(
        make_user, {"Łucznictwo": 2, "Otwieranie zamków": 2}
    )
    form = _fresh_panel(client_for(gm), session).context["panel"].form
    from characters.models import Skill

    on_the_sheet = list(Skill.objects.filter(system="q10"))  # the sheet's (and panel's) order
    first = min((catalog["Łucznictwo"], catalog["Otwieranie zamków"]), key=on_the_sheet.index)
    assert (form["attribute"].value(), form["skill"].value()) == (
        str(zrecznosc.pk),
        str(first.pk),
    )


def test_a_sheet_without_skills_opens_on_its_best_attribute_with_no_skill(make_user, client_for):
    gm, session, _sila, zrecznosc, _catalog = build_archer_table(make_user, {})
    form = _fresh_panel(client_for(gm), session).context["panel"].form
    assert form["attribute"].value() == str(zrecznosc.pk)
    assert form["skill"].value() in (None, "")
