"""The Ciernie i Gwiazdy panel (rolls/systems/ciernie): every mode's form with good and bad
input, the Case the engine reads, the preview's exact chance, and the roll lines of every
outcome with scripted dice (RULES 3, seed 002)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.http import QueryDict
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from characters.models import (
    Attribute,
    AttributeValue,
    Character,
    Item,
    ItemHolding,
    Skill,
    SkillLevel,
    Trait,
)
from diary.models import GameSession, SessionStatus
from rolls import registry as registry
from rolls.engine import ciernie as engine
from rolls.engine import systems
from rolls.engine.dice import ScriptedDice
from rolls.engine.errors import RuleError
from rolls.plugins import Case, FormContext
from rolls.systems import ciernie as plugin
from rolls.systems.ciernie import display, forms

pytestmark = pytest.mark.django_db

ATTRIBUTES = ["Siła", "Zręczność", "Percepcja", "Wytrzymałość", "Wola", "Inteligencja"]
SKILLS = {
    "Otwieranie zamków": "Zręczność",
    "Obsługa broni": "Percepcja",
    "Mechanika": "Inteligencja",
}


@pytest.fixture
def catalog():
    attributes = {}
    for position, name in enumerate(ATTRIBUTES):
        attributes[name], _ = Attribute.objects.get_or_create(
            system="ciernie", name=name, defaults={"position": position}
        )
    skills = {
        name: Skill.objects.get_or_create(
            system="ciernie", name=name, defaults={"attribute": attributes[attribute]}
        )[0]
        for name, attribute in SKILLS.items()
    }
    traits = {
        "Refleks": Trait.objects.get_or_create(
            system="ciernie",
            name="Refleks",
            defaults={"kind": "ability", "attribute": attributes["Zręczność"], "modifier": 2},
        )[0],
        "Krótkowzroczność": Trait.objects.get_or_create(
            system="ciernie",
            name="Krótkowzroczność",
            defaults={"kind": "flaw", "attribute": attributes["Percepcja"], "modifier": -3},
        )[0],
        "Szczęściarz": Trait.objects.get_or_create(
            system="ciernie",
            name="Szczęściarz",
            defaults={"kind": "ability", "attribute": attributes["Wola"], "modifier": 0},
        )[0],
    }
    items = {
        "Broń naprowadzana": Item.objects.get_or_create(
            system="ciernie",
            name="Broń naprowadzana",
            defaults={"attribute": attributes["Percepcja"], "modifier": 1},
        )[0],
        "Wytrych": Item.objects.get_or_create(system="ciernie", name="Wytrych")[0],
    }
    return {"attributes": attributes, "skills": skills, "traits": traits, "items": items}


@pytest.fixture
def people(catalog):
    user_model = get_user_model()
    gm = user_model.objects.create_user("mg_ciernie", password="x")
    owner = user_model.objects.create_user("gracz_ciernie", password="x")
    session = GameSession.objects.create(
        title="Ciernie", gm=gm, system="ciernie", status=SessionStatus.RUNNING
    )
    return {"gm": gm, "owner": owner, "session": session}


def make(catalog, owner, name, values, *, skills=None, traits=(), items=(), stand_in=False):
    character = Character.objects.create(
        owner=owner, name=name, system="ciernie", hp_current=10, hp_max=10, is_stand_in=stand_in
    )
    for attribute, value in values.items():
        AttributeValue.objects.create(
            character=character, attribute=catalog["attributes"][attribute], value=value
        )
    for skill, level in (skills or {}).items():
        SkillLevel.objects.create(character=character, skill=catalog["skills"][skill], level=level)
    character.traits.set([catalog["traits"][t] for t in traits])
    for item in items:
        ItemHolding.objects.create(character=character, item=catalog["items"][item])
    return character


def load(character, reroll_sources=()):
    """The character as the panel reads it, with exactly `reroll_sources` (names of its
    traits and items) flagged as reroll sources in the catalog."""
    names = {t.name for t in character.traits.all()} | {
        h.item.name for h in character.item_holdings.all()
    }
    for model in (Trait, Item):
        model.objects.filter(system="ciernie", name__in=names).update(rerolls=False)
        model.objects.filter(system="ciernie", name__in=reroll_sources).update(rerolls=True)
    return Character.objects.with_values().get(pk=character.pk)


@pytest.fixture
def table(catalog, people):
    """Kira (GM's player's character), Borys (another), a stand-in NPC and a weakling."""
    owner = people["owner"]
    kira = make(
        catalog,
        owner,
        "Kira",
        {"Siła": 9, "Zręczność": 12, "Percepcja": 11, "Wytrzymałość": 10, "Wola": 13},
        skills={"Otwieranie zamków": 3, "Obsługa broni": 2},
        traits=("Refleks", "Krótkowzroczność", "Szczęściarz"),
        items=("Broń naprowadzana", "Wytrych"),
    )
    borys = make(catalog, owner, "Borys", {"Siła": 15, "Zręczność": 8, "Percepcja": 7})
    npc = make(catalog, people["gm"], "Strażnik", {"Zręczność": 14}, stand_in=True)
    weak = make(catalog, owner, "Chudy", {"Siła": 2, "Zręczność": -1, "Wytrzymałość": 1})
    return {
        **people,
        "catalog": catalog,
        "kira": kira,
        "borys": borys,
        "npc": npc,
        "weak": weak,
    }


def attr(table, name) -> str:
    return str(table["catalog"]["attributes"][name].pk)


def trait(table, name) -> str:
    return f"trait:{table['catalog']['traits'][name].pk}"


def item(table, name) -> str:
    return f"item:{table['catalog']['items'][name].pk}"


def data(**fields) -> QueryDict:
    query = QueryDict(mutable=True)
    for key, value in fields.items():
        query.setlist(key, [str(v) for v in value] if isinstance(value, list) else [str(value)])
    return query


def panel_form(mode, data=None, **context):
    """A mode's form as the panel builds it (context: FormContext's fields)."""
    return forms.make_form(mode, data, FormContext(**context))


def form_for(table, mode, fields, *, gm=True, who="kira", reroll_sources=(), others=None):
    character = load(table[who], reroll_sources)
    all_characters = [
        character if c.pk == character.pk else load(c)
        for c in (others or [table["kira"], table["borys"], table["npc"], table["weak"]])
    ]
    if all(c.pk != character.pk for c in all_characters):
        all_characters.insert(0, character)
    return panel_form(
        mode,
        data(character=character.pk, **fields),
        characters=[character],
        all_characters=all_characters,
        gm=gm,
        session=table["session"],
    )


def valid_case(form) -> Case:
    assert form.is_valid(), form.errors
    case = form.case()
    # The stored input is the engine's own: read back, it gives the same JSON.
    test = case.engine_test()
    assert test.to_input() == case.input
    assert systems.parse_test("ciernie", case.test, case.input) == test
    return case


def roll_record(case, faces, name="Kira"):
    result = systems.roll("ciernie", case.engine_test(), ScriptedDice(faces))
    return {
        "result": result.to_dict(),
        "characters": {"a": {"id": 1, "name": name}},
        "what": case.what,
    }


# ---------------------------------------------------------------------------
# Registration


def test_the_system_is_registered_with_its_modes():
    registered = registry.system_for("ciernie")
    assert registered is plugin.SYSTEM
    assert registered.form is forms.make_form and registered.lines is display.lines
    assert registered.mode_keys == (
        "attribute",
        "combined",
        "comparative",
        "effect_test",
        "skill",
    )
    assert registered.gm_only_modes == {"comparative", "effect_test"}
    assert registered.askable_modes == ("attribute", "combined", "skill")
    assert "modifier" not in registered.ask_fields
    assert "factor" not in registered.ask_fields


# ---------------------------------------------------------------------------
# Attribute test


def test_attribute_test_reads_the_sheet_and_keeps_every_modifier_with_its_source(table):
    form = form_for(
        table,
        "attribute",
        {
            "attribute": attr(table, "Zręczność"),
            "difficulty": -6,
            "sources": [trait(table, "Refleks")],
            "modifier": -2,
            "modifier_reason": "ciemność w ładowni",
        },
    )
    case = valid_case(form)
    assert case.system == "ciernie"
    assert case.mode == case.test == "attribute"
    assert case.character_id == table["kira"].pk
    assert case.is_action
    assert case.what == "Zręczność"
    assert case.input == {
        "attribute": 12,
        "modifiers": [
            {"value": -6, "label": "trudny", "reason": None, "source": "difficulty"},
            {"value": 2, "label": "Refleks", "reason": None, "source": "ability"},
            {"value": -2, "label": None, "reason": "ciemność w ładowni", "source": "gm"},
        ],
    }
    preview = display.preview(case)
    assert preview.chance == case.probability() == engine.probability(case.engine_test())
    # threshold 12 − 6 + 2 − 2 = 6: faces 1..6 succeed.
    assert preview.chance == pytest.approx(6 / 20)
    assert preview.terms[0].endswith("→ 6")
    assert "ciemność w ładowni" in preview.terms[0]
    assert "trudny" in preview.terms[0]
    assert preview.note == ""


def test_a_typed_number_for_the_attribute_is_ignored_the_sheet_decides(table):
    form = form_for(table, "attribute", {"attribute": attr(table, "Siła"), "value": 20})
    assert valid_case(form).input["attribute"] == 9


def test_a_negative_attribute_on_the_sheet_is_refused_next_to_the_attribute(table):
    form = form_for(table, "attribute", {"attribute": attr(table, "Zręczność")}, who="weak")
    assert not form.is_valid()
    assert "nigdy nie jest ujemna" in form.errors["attribute"][0]
    with pytest.raises(RuleError, match="not valid"):
        form.case()


def test_an_attribute_missing_from_the_sheet_is_refused(table):
    form = form_for(table, "attribute", {"attribute": attr(table, "Inteligencja")})
    assert not form.is_valid()
    assert "Kira nie ma na karcie postaci cechy Inteligencja" in form.errors["attribute"][0]


def test_a_gm_modifier_needs_a_reason_and_stays_in_range(table):
    no_reason = form_for(table, "attribute", {"attribute": attr(table, "Siła"), "modifier": 3})
    assert not no_reason.is_valid()
    assert "powodu" in no_reason.errors["modifier_reason"][0]
    blank = form_for(
        table,
        "attribute",
        {"attribute": attr(table, "Siła"), "modifier": 3, "modifier_reason": "   "},
    )
    assert not blank.is_valid()
    assert "modifier_reason" in blank.errors
    for value in (11, -11):
        too_far = form_for(
            table,
            "attribute",
            {"attribute": attr(table, "Siła"), "modifier": value, "modifier_reason": "wiatr"},
        )
        assert not too_far.is_valid()
        assert "−10 a +10" in too_far.errors["modifier"][0]
    not_a_number = form_for(
        table, "attribute", {"attribute": attr(table, "Siła"), "modifier": "dużo"}
    )
    assert not not_a_number.is_valid()
    assert "modifier" in not_a_number.errors


def test_a_difficulty_off_the_picker_is_refused(table):
    form = form_for(table, "attribute", {"attribute": attr(table, "Siła"), "difficulty": 5})
    assert not form.is_valid()
    assert "difficulty" in form.errors


def test_a_player_types_no_modifier_but_picks_the_difficulty_the_gm_named(table):
    form = form_for(
        table,
        "attribute",
        {
            "attribute": attr(table, "Siła"),
            "difficulty": 3,
            "modifier": 10,
            "modifier_reason": "bo tak",
        },
        gm=False,
    )
    assert not {"modifier", "modifier_reason"} & set(form.fields)
    case = valid_case(form)
    assert case.input == {
        "attribute": 9,
        "modifiers": [{"value": 3, "label": "prosty", "reason": None, "source": "difficulty"}],
    }
    assert not case.gm_typed


def test_a_typed_modifier_or_value_marks_the_case_as_typed(table):
    plain = valid_case(form_for(table, "attribute", {"attribute": attr(table, "Siła")}))
    assert not plain.gm_typed
    typed = valid_case(
        form_for(
            table,
            "attribute",
            {"attribute": attr(table, "Siła"), "modifier": 1, "modifier_reason": "wiatr"},
        )
    )
    assert typed.gm_typed
    value = valid_case(
        form_for(
            table,
            "comparative",
            {
                "attribute": attr(table, "Siła"),
                "opponent": "value",
                "opponent_value": 8,
                "opponent_reason": "drzwi",
            },
        )
    )
    assert value.gm_typed


def test_a_request_summary_names_the_test_without_the_factor(table):
    skill = table["catalog"]["skills"]["Otwieranie zamków"]
    case = valid_case(form_for(table, "skill", {"skill": skill.pk, "factor": 2}))
    assert display.summary(case) == "Zręczność + Otwieranie zamków"
    case = valid_case(form_for(table, "attribute", {"attribute": attr(table, "Siła")}))
    assert display.summary(case) == "Siła"


def test_a_source_of_another_attribute_is_refused_next_to_the_sources(table):
    form = form_for(
        table,
        "attribute",
        {"attribute": attr(table, "Siła"), "sources": [trait(table, "Refleks")]},
    )
    assert not form.is_valid()
    assert "Refleks" in form.errors["sources"][0]
    assert "Zręczność" in form.errors["sources"][0]


def test_a_source_not_on_the_sheet_is_refused(table):
    form = form_for(
        table,
        "attribute",
        {"attribute": attr(table, "Zręczność"), "sources": [trait(table, "Refleks")]},
        who="borys",
    )
    assert not form.is_valid()
    assert "sources" in form.errors


def test_only_sources_with_a_modifier_are_offered_as_modifiers(table):
    form = form_for(table, "attribute", {"attribute": attr(table, "Siła")})
    offered = dict(form.fields["sources"].choices)
    assert set(offered) == {
        trait(table, "Refleks"),
        trait(table, "Krótkowzroczność"),
        item(table, "Broń naprowadzana"),
    }
    assert offered[trait(table, "Krótkowzroczność")] == "Krótkowzroczność −3 (Percepcja)"


def test_an_impossible_attribute_test_makes_no_roll_and_says_so(table):
    form = form_for(
        table, "attribute", {"attribute": attr(table, "Siła"), "difficulty": -3}, who="weak"
    )
    case = valid_case(form)
    preview = display.preview(case)
    assert preview.chance is None
    assert "Bez rzutu" in preview.note
    assert "poniżej 1" in preview.note
    record = roll_record(case, [])
    [line] = display.lines(record)
    assert line.outcome == "Niemożliwy"
    assert not line.success
    assert any("Bez rzutu" in d for d in line.details)
    assert record["result"]["dice"] == []


# ---------------------------------------------------------------------------
# Combined test


def test_combined_test_takes_the_floored_mean(table):
    form = form_for(
        table,
        "combined",
        {
            "attributes": [attr(table, "Percepcja"), attr(table, "Zręczność")],
            "sources": [item(table, "Broń naprowadzana")],
        },
    )
    case = valid_case(form)
    assert case.input["attributes"] == [11, 12]
    assert case.what == "Percepcja + Zręczność"
    limit = engine.threshold(case.engine_test())
    assert limit.value == 11 + 1  # mean 11.5 → 11, + the item's +1
    preview = display.preview(case)
    assert preview.chance == pytest.approx(12 / 20)
    assert "11, 12" in preview.terms[0]


def test_combined_test_needs_two_attributes(table):
    one = form_for(table, "combined", {"attributes": [attr(table, "Siła")]})
    assert not one.is_valid()
    assert "dwóch lub więcej" in one.errors["attributes"][0]
    none = form_for(table, "combined", {})
    assert not none.is_valid()
    assert "attributes" in none.errors


def test_combined_test_with_a_negative_attribute_is_refused(table):
    form = form_for(
        table,
        "combined",
        {"attributes": [attr(table, "Siła"), attr(table, "Zręczność")]},
        who="weak",
    )
    assert not form.is_valid()
    assert "attributes" in form.errors


# ---------------------------------------------------------------------------
# Comparative test


def test_comparative_test_against_a_character_reads_both_sheets(table):
    form = form_for(
        table,
        "comparative",
        {"attribute": attr(table, "Siła"), "opponent": table["borys"].pk},
    )
    case = valid_case(form)
    assert case.input == {"own": 9, "opposing": 15, "modifiers": []}
    assert case.other_character_id == table["borys"].pk
    assert case.what == "Siła vs Borys (Siła)"
    assert engine.threshold(case.engine_test()).value == 10 + 9 - 15
    assert display.preview(case).chance == pytest.approx(4 / 20)


def test_comparative_test_adds_the_skill_and_both_sides_sheet_modifiers(table):
    catalog = table["catalog"]
    borys = table["borys"]
    borys.traits.add(catalog["traits"]["Refleks"], catalog["traits"]["Krótkowzroczność"])
    theirs = f"{borys.pk}:trait:{catalog['traits']['Refleks'].pk}"
    form = form_for(
        table,
        "comparative",
        {
            "attribute": attr(table, "Zręczność"),
            "opponent": borys.pk,
            "compared_skill": catalog["skills"]["Otwieranie zamków"].pk,
            "sources": [trait(table, "Refleks")],
            "opponent_sources": [theirs],
        },
    )
    case = valid_case(form)
    skill = {"source": "skill", "reason": None}
    assert case.input["own"] == 12 and case.input["opposing"] == 8
    assert case.input["own_modifiers"] == [{"value": 9, "label": "Otwieranie zamków 3", **skill}]
    assert case.input["opposing_modifiers"] == [
        {"value": 0, "label": "Otwieranie zamków 0", **skill},
        {"value": 2, "label": "Refleks", "reason": None, "source": "ability"},
    ]
    # 10 + (12 + 3×3) − (8 + 3×0 + 2), and Kira's own Refleks +2.
    limit = engine.threshold(case.engine_test())
    assert limit.value == 10 + 21 - 10 + 2
    assert case.what == "Zręczność vs Borys (Zręczność), Otwieranie zamków"
    words = " ".join(display.preview(case).terms)
    assert "strona przeciwna: Refleks (zdolność) −2" in words
    assert "strona własna: Otwieranie zamków 3 (umiejętność) +9" in words
    [line] = display.lines(roll_record(case, [12]))
    assert any("strona przeciwna: Refleks" in d for d in line.details)


def test_comparative_test_refuses_the_other_sides_source_of_another_attribute(table):
    catalog = table["catalog"]
    borys = table["borys"]
    borys.traits.add(catalog["traits"]["Krótkowzroczność"])
    table["npc"].traits.add(catalog["traits"]["Refleks"])
    npc_refleks = f"{table['npc'].pk}:trait:{catalog['traits']['Refleks'].pk}"
    for ticked, message in (
        (f"{borys.pk}:trait:{catalog['traits']['Krótkowzroczność'].pk}", "dotyczy cechy"),
        (npc_refleks, "wybranej strony przeciwnej"),
    ):
        form = form_for(
            table,
            "comparative",
            {
                "attribute": attr(table, "Zręczność"),
                "opponent": borys.pk,
                "opponent_sources": [ticked],
            },
        )
        assert not form.is_valid()
        assert message in " ".join(form.errors.get("opponent_sources", [])), form.errors


def test_comparative_test_against_a_stand_in_npc_with_another_attribute(table):
    form = form_for(
        table,
        "comparative",
        {
            "attribute": attr(table, "Percepcja"),
            "opponent": table["npc"].pk,
            "opponent_attribute": attr(table, "Zręczność"),
        },
    )
    case = valid_case(form)
    assert case.input["own"] == 11
    assert case.input["opposing"] == 14
    assert case.other_character_id == table["npc"].pk
    assert "(NPC)" in dict(form.fields["opponent"].choices)[str(table["npc"].pk)]


def test_comparative_test_against_a_typed_value_needs_a_reason_and_a_range(table):
    good = form_for(
        table,
        "comparative",
        {
            "attribute": attr(table, "Zręczność"),
            "opponent": "value",
            "opponent_value": 15,
            "opponent_reason": "pułapka strzałkowa",
        },
    )
    case = valid_case(good)
    assert case.input == {"own": 12, "opposing": 15, "modifiers": []}
    assert case.other_character_id is None
    assert case.what == "Zręczność vs 15 (pułapka strzałkowa)"
    no_reason = form_for(
        table,
        "comparative",
        {"attribute": attr(table, "Zręczność"), "opponent": "value", "opponent_value": 15},
    )
    assert not no_reason.is_valid()
    assert "opponent_reason" in no_reason.errors
    no_value = form_for(
        table,
        "comparative",
        {"attribute": attr(table, "Zręczność"), "opponent": "value", "opponent_reason": "x"},
    )
    assert not no_value.is_valid()
    assert "opponent_value" in no_value.errors
    for value in (-1, 31):
        out = form_for(
            table,
            "comparative",
            {
                "attribute": attr(table, "Zręczność"),
                "opponent": "value",
                "opponent_value": value,
                "opponent_reason": "x",
            },
        )
        assert not out.is_valid()
        assert "opponent_value" in out.errors


def test_comparative_test_is_never_against_oneself_and_a_player_types_no_value(table):
    form = form_for(
        table, "comparative", {"attribute": attr(table, "Siła"), "opponent": table["kira"].pk}
    )
    assert not form.is_valid()
    assert "opponent" in form.errors
    player = form_for(
        table,
        "comparative",
        {"attribute": attr(table, "Siła"), "opponent": "value", "opponent_value": 1},
        gm=False,
    )
    assert "value" not in dict(player.fields["opponent"].choices)
    assert "opponent_value" not in player.fields
    assert not player.is_valid()


def test_comparative_test_against_a_sheet_without_the_attribute(table):
    form = form_for(
        table,
        "comparative",
        {
            "attribute": attr(table, "Siła"),
            "opponent": table["npc"].pk,
        },
    )
    assert not form.is_valid()
    assert "Strażnik nie ma na karcie postaci cechy Siła" in form.errors["opponent_attribute"][0]


# ---------------------------------------------------------------------------
# Effect test


def test_effect_test_names_the_effect_and_its_time_unit(table):
    form = form_for(
        table,
        "effect_test",
        {
            "attribute": attr(table, "Wytrzymałość"),
            "effect": "utrata wzroku",
            "unit": "minutes",
            "difficulty": -3,
        },
    )
    case = valid_case(form)
    assert case.input["unit"] == "minutes"
    assert case.input["attribute"] == 10
    assert case.what == "Wytrzymałość: utrata wzroku"
    assert not case.is_action
    preview = display.preview(case)
    assert preview.chance == pytest.approx(7 / 20)
    assert any("minuty" in term for term in preview.terms)
    # Threshold 7; a 10 misses by 3: the effect lasts three minutes.
    [line] = display.lines(roll_record(case, [10]))
    assert line.outcome == "Porażka"
    assert "efekt trwa 3 minuty" in line.details
    [line] = display.lines(roll_record(case, [8]))
    assert "efekt trwa 1 minutę" in line.details  # at least one unit
    [line] = display.lines(roll_record(case, [3]))
    assert line.outcome == "Sukces"
    assert any("nie działa" in d for d in line.details)


def test_effect_test_refuses_a_missing_effect_and_an_unknown_unit(table):
    blank = form_for(
        table, "effect_test", {"attribute": attr(table, "Wola"), "effect": "  ", "unit": "hours"}
    )
    assert not blank.is_valid()
    assert "effect" in blank.errors
    unknown = form_for(
        table, "effect_test", {"attribute": attr(table, "Wola"), "effect": "strach", "unit": "lata"}
    )
    assert not unknown.is_valid()
    assert "unit" in unknown.errors


def test_an_effect_that_cannot_be_resisted_makes_no_roll(table):
    form = form_for(
        table,
        "effect_test",
        {
            "attribute": attr(table, "Wytrzymałość"),
            "effect": "trucizna",
            "unit": "hours",
            "difficulty": -3,
        },
        who="weak",
    )
    case = valid_case(form)
    preview = display.preview(case)
    assert preview.chance is None
    assert "MG ustala" in preview.note
    [line] = display.lines(roll_record(case, []))
    assert line.outcome == "Niemożliwy"
    assert any("MG ustala" in d for d in line.details)


# ---------------------------------------------------------------------------
# Skill test


def test_skill_test_reads_the_level_and_the_factor(table):
    skill = table["catalog"]["skills"]["Otwieranie zamków"]
    form = form_for(
        table,
        "skill",
        {"skill": skill.pk, "factor": 2, "sources": [trait(table, "Refleks")]},
    )
    case = valid_case(form)
    assert case.input["attribute"] == 12
    assert case.input["skill"] == 3
    assert case.input["factor"] == 2
    assert case.what == "Zręczność + Otwieranie zamków vs czynnik 2"
    # 12 + 3 × (3 − 2) + 2 = 17
    assert engine.threshold(case.engine_test()).value == 17
    preview = display.preview(case)
    assert preview.chance == case.probability()
    assert "3 × (umiejętność 3 − czynnik 2) = +3" in preview.terms[0]
    assert any("opóźnienie" in t for t in preview.terms)


def test_skill_test_with_combined_attributes(table):
    skill = table["catalog"]["skills"]["Obsługa broni"]
    form = form_for(
        table,
        "skill",
        {"skill": skill.pk, "factor": 1, "also_attributes": [attr(table, "Zręczność")]},
    )
    case = valid_case(form)
    assert case.input["attributes"] == [11, 12]
    assert "attribute" not in case.input
    assert case.what == "Percepcja + Zręczność + Obsługa broni vs czynnik 1"


def test_an_undeveloped_skill_has_level_zero(table):
    skill = table["catalog"]["skills"]["Otwieranie zamków"]
    form = form_for(table, "skill", {"skill": skill.pk, "factor": 1}, who="borys")
    assert valid_case(form).input["skill"] == 0


def test_skill_factor_out_of_range_is_refused(table):
    skill = table["catalog"]["skills"]["Otwieranie zamków"]
    for factor in (-1, 21, "x"):
        form = form_for(table, "skill", {"skill": skill.pk, "factor": factor})
        assert not form.is_valid()
        assert "factor" in form.errors


def test_a_factor_left_empty_is_zero(table):
    """The field starts empty with "0" as its placeholder, and empty is 0."""
    skill = table["catalog"]["skills"]["Otwieranie zamków"]
    form = form_for(table, "skill", {"skill": skill.pk, "factor": ""})
    assert valid_case(form).input["factor"] == 0


def test_automatic_success_and_impossible_make_no_roll_and_say_so(table):
    skill = table["catalog"]["skills"]["Otwieranie zamków"]
    automatic = valid_case(form_for(table, "skill", {"skill": skill.pk, "factor": 0}))
    preview = display.preview(automatic)
    assert preview.chance is None
    assert "automatycznie" in preview.note
    record = roll_record(automatic, [])
    assert record["result"]["dice"] == []
    [line] = display.lines(record)
    assert line.outcome == "Automatyczny sukces"
    assert line.success

    impossible = valid_case(form_for(table, "skill", {"skill": skill.pk, "factor": 6}))
    preview = display.preview(impossible)
    assert preview.chance is None
    assert "niemożliwy" in preview.note
    [line] = display.lines(roll_record(impossible, []))
    assert line.outcome == "Niemożliwy"
    assert not line.success


@pytest.mark.parametrize(
    ("face", "outcome", "success", "detail"),
    [
        (1, "Sukces krytyczny", True, "1 zawsze się udaje"),
        (10, "Sukces", True, "rzut 10 ≤ próg 15"),
        (17, "Opóźnienie", True, "akcja się udaje, ale zajmuje 3× więcej czasu niż zwykle"),
        (19, "Porażka", False, "rzut 19 > próg 15"),
        (20, "Porażka krytyczna", False, "20 zawsze zawodzi"),
    ],
)
def test_skill_lines_for_every_band(table, face, outcome, success, detail):
    skill = table["catalog"]["skills"]["Otwieranie zamków"]
    case = valid_case(form_for(table, "skill", {"skill": skill.pk, "factor": 2}))
    assert engine.threshold(case.engine_test()).value == 15
    [line] = display.lines(roll_record(case, [face]))
    assert line.who == "Kira"
    assert line.what == "Test umiejętności: Zręczność + Otwieranie zamków vs czynnik 2"
    assert line.outcome == outcome
    assert line.success is success
    assert detail in line.details
    assert line.details[-1].startswith("próg: ")


# ---------------------------------------------------------------------------
# Reroll


def test_no_form_has_a_reroll_box_before_the_roll(table):
    for mode in forms.FORMS:
        form = form_for(table, mode, {}, reroll_sources=("Szczęściarz",))
        assert "reroll" not in form.fields and "reroll_sources" not in form.fields


def test_the_preview_gives_the_chance_with_and_without_the_reroll(table):
    form = form_for(
        table,
        "attribute",
        {"attribute": attr(table, "Zręczność")},
        reroll_sources=("Szczęściarz", "Wytrych"),
    )
    case = valid_case(form)
    assert case.test == "attribute"
    assert case.input == {"attribute": 12, "modifiers": []}
    preview = display.preview(case)
    # Without: 12/20. With: a failure (8/20) rerolled at 12 + 3 = 15: 15/20; 90% in all.
    assert preview.chance == pytest.approx(12 / 20)
    [term] = [t for t in preview.terms if t.startswith("Z przerzutem")]
    assert "łącznie 90%" in term and "próg 15" in term and "Szczęściarz, Wytrych" in term


def test_a_reroll_chosen_after_the_roll_shows_both_rolls_the_second_deciding(table):
    case = Case(
        system="ciernie",
        mode="attribute",
        test="reroll_of",
        input={
            "base": {"test": "attribute", "attribute": 12, "modifiers": []},
            "reroll_sources": 2,
            "first_roll": 14,
        },
        what="Zręczność (przerzut: Szczęściarz, Wytrych)",
    )
    preview = display.preview(case)
    assert preview.chance == pytest.approx(15 / 20)
    record = roll_record(case, [15]) | {"rerolls": {"seq": 7, "hash": "x"}}
    first, second = display.lines(record)
    assert first.outcome == "Porażka"
    assert "pierwszy rzut (#7)" in first.what
    assert "rzut 14 > próg 12" in first.details
    assert second.outcome == "Sukces" and second.success
    assert "rozstrzyga" in second.what
    assert "rzut 15 ≤ próg 15" in second.details


def test_a_critical_success_of_a_skill_test_takes_only_one_turn(table):
    skill = table["catalog"]["skills"]["Otwieranie zamków"]
    case = valid_case(form_for(table, "skill", {"skill": skill.pk, "factor": 2}))
    [line] = display.lines(roll_record(case, [1]))
    assert line.outcome == "Sukces krytyczny"
    assert any("zajmuje tylko jedną turę" in d for d in line.details)
    [line] = display.lines(roll_record(case, [5]))
    assert not any("turę" in d for d in line.details)
    assert any("jedną turę" in t for t in display.preview(case).terms)


# ---------------------------------------------------------------------------
# Form basics


@pytest.mark.parametrize("mode", ["attribute", "combined", "comparative", "effect_test", "skill"])
def test_every_mode_refuses_a_character_it_may_not_roll_for(table, mode):
    form = panel_form(
        mode,
        data(character=table["borys"].pk),
        characters=[load(table["kira"])],
        all_characters=[load(table["kira"]), load(table["borys"])],
        gm=True,
        session=table["session"],
    )
    assert not form.is_valid()
    assert "character" in form.errors
    with pytest.raises(RuleError, match="not valid"):
        form.case()


@pytest.mark.parametrize("mode", ["attribute", "combined", "comparative", "effect_test", "skill"])
def test_every_mode_starts_complete_enough_to_show_a_chance(table, mode):
    """An unbound form's initial values, submitted as they are, make a valid case (the panel
    previews at once); the effect test only needs its effect named."""
    kira = load(table["kira"])
    fresh = panel_form(
        mode,
        characters=[kira],
        all_characters=[kira, load(table["borys"])],
        gm=True,
        session=table["session"],
    )
    query = QueryDict(mutable=True)
    for bound in fresh:
        value = bound.initial
        if value in (None, ""):
            continue
        query.setlist(
            bound.html_name, [str(v) for v in (value if isinstance(value, list) else [value])]
        )
    # The catalog's first entries need not be on this sheet: choose ones that are.
    overrides = {
        "attribute": attr(table, "Zręczność"),
        "attributes": [attr(table, "Zręczność"), attr(table, "Wola")],
        "skill": table["catalog"]["skills"]["Otwieranie zamków"].pk,
        "effect": "ogłuszenie",
    }
    for name, value in overrides.items():
        if name in fresh.fields:
            query.setlist(name, [str(v) for v in (value if isinstance(value, list) else [value])])
    bound = panel_form(
        mode,
        query,
        characters=[kira],
        all_characters=[kira, load(table["borys"])],
        gm=True,
        session=table["session"],
    )
    assert bound.is_valid(), bound.errors
    assert display.preview(bound.case()).terms


# ---------------------------------------------------------------------------
# Whatever is typed: a Polish error or a case the engine accepts, never an exception

FORM_FIELDS = [
    "character", "attribute", "attributes", "difficulty", "sources", "modifier",
    "modifier_reason", "compared_skill", "opponent_sources", "opponent", "opponent_attribute",
    "opponent_value", "opponent_reason", "effect", "unit", "skill", "also_attributes", "factor",
]  # fmt: skip
garbage = st.one_of(
    st.text(max_size=20),
    st.integers(min_value=-(10**12), max_value=10**12).map(str),
    st.sampled_from(["", "0", "-3", "12", "on", "value", "minutes", "trait:1", "item:1", "\x00"]),
)


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    mode=st.sampled_from(["attribute", "combined", "comparative", "effect_test", "skill"]),
    fields=st.dictionaries(
        st.sampled_from(FORM_FIELDS), st.lists(garbage, min_size=1, max_size=3), max_size=10
    ),
    pick_real=st.booleans(),
    gm=st.booleans(),
)
def test_no_input_breaks_a_form(table, mode, fields, pick_real, gm):
    query = QueryDict(mutable=True)
    for key, values in fields.items():
        query.setlist(key, values)
    if pick_real:  # real ids, so the deeper checks are reached too
        query.setlist("attribute", [attr(table, "Zręczność")])
        query.setlist("attributes", [attr(table, "Zręczność"), attr(table, "Siła")])
        query.setlist("skill", [str(table["catalog"]["skills"]["Otwieranie zamków"].pk)])
        query.setlist("character", [str(table["kira"].pk)])
    kira = load(table["kira"], ("Szczęściarz",))
    form = panel_form(
        mode,
        query,
        characters=[kira],
        all_characters=[kira, load(table["borys"]), load(table["npc"])],
        gm=gm,
        session=table["session"],
    )
    if form.is_valid():
        case = form.case()
        test = case.engine_test()
        assert test.to_input() == case.input
        preview = display.preview(case)
        assert preview.terms
        faces = [5, 15] if case.test == "reroll" else [12]
        assert display.lines(roll_record(case, faces))
    else:
        assert form.errors
        with pytest.raises(RuleError):
            form.case()
