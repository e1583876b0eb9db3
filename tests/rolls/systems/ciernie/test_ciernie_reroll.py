"""Przerzut chosen after a failed roll (seed 002, RULES 3): the failed roll stays as it fell,
the reroll is a chain entry of its own naming it, offered once, in the turn of the roll, to
the player who owns the character (where players roll) or the GM; the diary offers it."""

import uuid

import pytest
from django.core.exceptions import PermissionDenied
from django.http import QueryDict
from django.urls import reverse

from diary.services import turn_open_next
from rolls.engine import ciernie as engine
from rolls.engine import systems
from rolls.engine.dice import ScriptedDice
from rolls.engine.errors import RuleError
from rolls.ledger.recompute import recompute_problem
from rolls.ledger.verify import verify_session
from rolls.models import Roll, is_entry_record
from rolls.plugins import FormContext, RequestError
from rolls.selectors import sheets_in_play
from rolls.services import TokenReused, roll_make
from rolls.systems.ciernie import display, forms, rerolls
from tests.rolls.systems.ciernie.ciernie_table import build_ciernie_table, flag_reroll_sources

pytestmark = pytest.mark.django_db


@pytest.fixture
def ciernie(make_user):
    table = build_ciernie_table(make_user, roll_policy="players_own")
    flag_reroll_sources()
    return table


def case_for(t, character, mode="attribute", *, gm=True, **fields):
    query = QueryDict(mutable=True)
    for key, value in {"character": character.pk, **fields}.items():
        query.setlist(key, [str(v) for v in (value if isinstance(value, list) else [value])])
    everyone = list(sheets_in_play(t.session).values())
    form = forms.make_form(
        mode,
        query,
        FormContext(characters=everyone, all_characters=everyone, gm=gm, session=t.session),
    )
    assert form.is_valid(), form.errors
    return form.case()


def roll(t, by, case, faces, token=None):
    return roll_make(
        session=t.session,
        by=by,
        case=case,
        token=token or uuid.uuid4(),
        dice=ScriptedDice(faces),
    ).roll


def vera_fails(t, by=None):
    """Vera's Zręczność test (threshold 13) failing on a 17."""
    case = case_for(t, t.vera, attribute=t.a["Zręczność"].pk)
    return roll(t, by or t.gm, case, [17])


def reroll(t, by, first, keys=None, faces=(9,)):
    keys = keys if keys is not None else [s["key"] for s in rerolls.offered_sources(first)]
    case = rerolls.reroll_case(first, keys)
    return roll_make(
        session=t.session,
        by=by,
        case=case,
        token=rerolls.reroll_token(first),
        dice=ScriptedDice(list(faces)),
    )


def test_the_panel_has_no_reroll_box_before_the_roll(ciernie):
    everyone = list(sheets_in_play(ciernie.session).values())
    form = forms.make_form(
        "attribute",
        None,
        FormContext(characters=everyone, all_characters=everyone, gm=True),
    )
    assert "reroll" not in form.fields
    assert "reroll_sources" not in form.fields


def test_the_preview_shows_the_chance_with_and_without_the_reroll(ciernie):
    case = case_for(ciernie, ciernie.vera, attribute=ciernie.a["Zręczność"].pk)
    preview = display.preview(case)
    # 13/20 without; with both sources (k = 2: +3), a failure (7/20) rerolled at 16/20.
    assert preview.chance == pytest.approx(13 / 20)
    with_reroll = 13 / 20 + 7 / 20 * 16 / 20
    [term] = [t for t in preview.terms if "przerzut" in t.lower()]
    assert with_reroll == pytest.approx(0.93)
    assert "łącznie 93%" in term and "próg 16" in term
    # Tomasz has no reroll source: nothing said of one.
    case = case_for(ciernie, ciernie.tomasz, attribute=ciernie.a["Siła"].pk)
    assert not [t for t in display.preview(case).terms if "przerzut" in t.lower()]


def test_a_failed_roll_keeps_the_offer_and_a_success_does_not(ciernie):
    failed = vera_fails(ciernie)
    names = [s["name"] for s in failed.record["reroll_offer"]["sources"]]
    assert sorted(names) == ["Celownik naprowadzany", "Szczęściarz"]
    case = case_for(ciernie, ciernie.vera, attribute=ciernie.a["Zręczność"].pk)
    assert "reroll_offer" not in roll(ciernie, ciernie.gm, case, [3]).record
    # No source on the sheet: no offer.
    case = case_for(ciernie, ciernie.tomasz, attribute=ciernie.a["Siła"].pk)
    assert "reroll_offer" not in roll(ciernie, ciernie.gm, case, [19]).record


def test_the_reroll_is_its_own_entry_linked_to_the_unchanged_first(ciernie):
    first = vera_fails(ciernie)
    before = (first.record, first.hash)
    made = reroll(ciernie, ciernie.gm, first, faces=[15])
    second = made.roll
    first.refresh_from_db()
    assert (first.record, first.hash) == before
    assert second.seq == first.seq + 1
    assert second.post_id == first.post_id
    assert second.record["rerolls"] == {"seq": first.seq, "hash": first.hash}
    result = second.record["result"]
    assert result["test"] == "reroll_of"
    assert result["input"]["first_roll"] == 17 and result["input"]["reroll_sources"] == 2
    assert result["first"]["outcome"] == "failure"
    # Two sources: the reroll's threshold is 13 + 3 = 16, so 15 succeeds and decides.
    assert result["second"]["threshold"] == 16
    assert result["outcome"] == "success"
    assert result["dice"] == [15]
    assert not second.is_action
    assert recompute_problem(second.record, is_entry_record) is None
    assert verify_session(ciernie.session.pk).ok
    first_line, second_line = display.lines(second.record)
    assert f"(#{first.seq})" in first_line.what
    assert first_line.outcome == "Porażka" and second_line.outcome == "Sukces"
    assert "rozstrzyga" in second_line.what


def test_a_roll_is_rerolled_once_only(ciernie):
    first = vera_fails(ciernie)
    made = reroll(ciernie, ciernie.gm, first, faces=[18])
    again = reroll(ciernie, ciernie.gm, first, faces=[2])
    assert made.created and not again.created
    assert again.roll.pk == made.roll.pk
    # With other sources (another request): refused, nothing stored.
    with pytest.raises(TokenReused):
        reroll(ciernie, ciernie.gm, first, keys=[f"trait:{ciernie.lucky.pk}"], faces=[2])
    assert Roll.objects.count() == 2


def test_only_a_failure_is_rerolled(ciernie):
    case = case_for(ciernie, ciernie.vera, attribute=ciernie.a["Zręczność"].pk)
    success = roll(ciernie, ciernie.gm, case, [5])
    with pytest.raises(RuleError):
        reroll(ciernie, ciernie.gm, success)
    # The engine refuses a reroll of a face that did not fail, whatever the record says.
    with pytest.raises(RuleError):
        systems.parse_test(
            "ciernie",
            "reroll_of",
            {"base": {"test": "attribute", "attribute": 13}, "reroll_sources": 1, "first_roll": 5},
        )
    assert Roll.objects.count() == 1


def test_a_delay_is_no_failure_and_offers_no_reroll(ciernie):
    case = case_for(
        ciernie, ciernie.vera, "skill", skill=ciernie.s["Otwieranie zamków"].pk, factor=3
    )
    delayed = roll(ciernie, ciernie.gm, case, [15])  # threshold 13: a delay
    assert delayed.record["result"]["outcome"] == "delay"
    assert "reroll_offer" not in delayed.record


def test_the_owner_rerolls_their_own_character_another_player_may_not(ciernie):
    case = case_for(ciernie, ciernie.vera, gm=False, attribute=ciernie.a["Zręczność"].pk)
    first = roll(ciernie, ciernie.alice, case, [19])
    with pytest.raises(PermissionDenied):
        reroll(ciernie, ciernie.bob, first)
    made = reroll(ciernie, ciernie.alice, first, faces=[4])
    assert made.created and made.roll.rolled_by == ciernie.alice
    assert made.roll.post_id == first.post_id


def test_the_gm_rerolls_for_a_players_roll_in_the_players_post(ciernie):
    case = case_for(ciernie, ciernie.vera, gm=False, attribute=ciernie.a["Zręczność"].pk)
    first = roll(ciernie, ciernie.alice, case, [19])
    made = reroll(ciernie, ciernie.gm, first, faces=[4])
    assert made.roll.post_id == first.post_id
    assert made.roll.rolled_by == ciernie.gm


def test_the_reroll_follows_its_roll_in_the_same_turn(ciernie):
    first = vera_fails(ciernie)
    turn_open_next(session=ciernie.session, by=ciernie.gm)
    with pytest.raises(RequestError) as refused:
        reroll(ciernie, ciernie.gm, first)
    assert refused.value.code == "reroll_turn_over"
    assert Roll.objects.count() == 1


def test_the_reroll_page_offers_and_makes_the_reroll(ciernie, client):
    first = vera_fails(ciernie)
    client.force_login(ciernie.alice)
    url = reverse("rolls:reroll", args=[ciernie.session.pk, first.seq])
    page = client.get(url)
    assert page.status_code == 200
    text = page.content.decode()
    assert "Szczęściarz" in text and 'data-testid="reroll-chance"' in text
    # None ticked: refused next to the field, nothing stored.
    page = client.post(url, {})
    assert page.status_code == 200
    assert "co najmniej jednego" in page.content.decode()
    assert Roll.objects.count() == 1
    page = client.post(url, {"reroll_sources": [f"trait:{ciernie.lucky.pk}"]})
    assert page.status_code == 302
    second = Roll.objects.get(seq=first.seq + 1)
    assert second.record["result"]["input"]["reroll_sources"] == 1
    # Again: a page saying it was rerolled, with the link; nothing stored.
    page = client.get(url)
    assert page.status_code == 403
    assert "już przerzucony" in page.content.decode()
    client.post(url, {"reroll_sources": [f"trait:{ciernie.lucky.pk}"]})
    assert Roll.objects.count() == 2


def test_the_reroll_page_refuses_another_player_with_a_page(ciernie, client):
    first = vera_fails(ciernie)
    client.force_login(ciernie.bob)
    url = reverse("rolls:reroll", args=[ciernie.session.pk, first.seq])
    for page in (client.get(url), client.post(url, {"reroll_sources": ["x"]})):
        assert page.status_code == 403
        assert 'data-testid="reroll-refused"' in page.content.decode()
    assert Roll.objects.count() == 1


def test_the_diary_offers_the_reroll_to_who_may_take_it(ciernie, client):
    first = vera_fails(ciernie)
    link = reverse("rolls:reroll", args=[ciernie.session.pk, first.seq])
    diary = reverse("diary:session", args=[ciernie.session.pk])
    for user, offered in ((ciernie.alice, True), (ciernie.gm, True), (ciernie.bob, False)):
        client.force_login(user)
        assert (link in client.get(diary).content.decode()) is offered, user
    reroll(ciernie, ciernie.gm, first)
    client.force_login(ciernie.alice)
    assert link not in client.get(diary).content.decode()


def test_engine_linked_reroll_reads_back_and_rolls_the_second_only():
    test = systems.parse_test(
        "ciernie",
        "reroll_of",
        {
            "base": {"test": "skill", "attribute": 10, "skill": 2, "factor": 2, "modifiers": []},
            "reroll_sources": 2,
            "first_roll": 20,
        },
    )
    result = engine.roll(test, ScriptedDice([12]))
    data = result.to_dict()
    assert data["first"]["outcome"] == "critical_failure"
    assert data["second"]["threshold"] == 13 and data["outcome"] == "success"
    assert data["dice"] == [12]
    assert engine.probability(test) == engine.probability(
        engine.SkillTest(skill=2, factor=2, attribute=13)
    )
