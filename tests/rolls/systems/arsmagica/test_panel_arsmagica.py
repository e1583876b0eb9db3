"""The Ars Magica panel's forms, preview and roll lines (RULES 4, seed 003).

The catalog rows and characters are made directly
(tests/rolls/systems/arsmagica/ars_table.py); the forms (rolls/systems/arsmagica) read them
as the panel does, through `rolls.selectors.sheets_in_play`.
"""

import html
import re
import uuid
from fractions import Fraction

import pytest
from django.core.exceptions import PermissionDenied
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from characters.models import Attribute, Character
from rolls import registry as registry
from rolls import services
from rolls.engine import arsmagica as ars
from rolls.engine import systems
from rolls.engine.dice import ScriptedDice
from rolls.engine.errors import RuleError
from rolls.ledger.verify import verify_session
from rolls.models import Roll
from rolls.plugins import Case, FormContext
from rolls.selectors import sheets_in_play
from rolls.systems import arsmagica as plugin
from rolls.systems.arsmagica import display, forms
from tests.rolls.systems.arsmagica.ars_table import build_saga

pytestmark = pytest.mark.django_db


@pytest.fixture
def saga(make_user):
    return build_saga(make_user)


def form(t, mode, data=None, *, gm=True, prefix=None, for_request=False):
    characters = list(sheets_in_play(t.session).values())
    context = FormContext(
        characters=characters,
        all_characters=characters,
        gm=gm,
        session=t.session,
        for_request=for_request,
    )
    if prefix is None:
        return forms.make_form(mode, data, context)
    # make_form names no prefix; the mode's form class takes one like any Django form.
    return forms.FORMS[mode](data, context=context, ask_fields=forms.ASK_FIELDS, prefix=prefix)


def data_for(t, character=None, **extra):
    data = {
        "character": str((character or t.flambeau).pk),
        "characteristic": str(t.dex.pk),
        "ability": str(t.stealth.pk),
        "ease": "9",
        "botch_dice": "1",  # read by the stress die only
    }
    data.update({k: str(v) for k, v in extra.items()})
    return data


def valid_case(t, mode, data, *, gm=True) -> Case:
    bound = form(t, mode, data, gm=gm)
    assert bound.is_valid(), bound.errors
    return bound.case()


def errors_of(t, mode, data, *, gm=True):
    bound = form(t, mode, data, gm=gm)
    assert not bound.is_valid()
    with pytest.raises(RuleError, match="not valid"):
        bound.case()
    return bound.errors


def record_of(case: Case, faces, name="Flambeau") -> dict:
    """A stored record as roll_make keeps it: the engine's result, who, what."""
    result = systems.roll(case.system, case.engine_test(), ScriptedDice(faces))
    return {
        "result": result.to_dict(),
        "characters": {"a": {"id": case.character_id, "name": name}},
        "what": case.what,
    }


# -- registration --------------------------------------------------------------


def test_the_system_is_registered_with_both_dice():
    registered = registry.system_for("arsmagica")
    assert registered is plugin.SYSTEM
    assert registered.form is forms.make_form and registered.lines is display.lines
    assert registered.mode_keys == ("simple", "stress")
    assert registered.gm_only_modes == frozenset()
    assert registered.askable_modes == ("simple", "stress")


def test_an_unknown_mode_is_refused(saga):
    with pytest.raises(ValueError, match="no 'opposed' mode"):
        form(saga, "opposed")


# -- the simple die: the sheet's numbers, never typed --------------------------


def test_simple_case_reads_the_sheet(saga):
    case = valid_case(saga, "simple", data_for(saga))
    assert (case.system, case.mode, case.test) == ("arsmagica", "simple", "simple")
    assert case.character_id == saga.flambeau.pk
    assert case.input == {"characteristic": 2, "ability": 5, "modifiers": [], "ease_factor": 9}
    assert case.what == "Zręczność + Skradanie (rzut prosty)"
    test = case.engine_test()
    assert isinstance(test, ars.SimpleTest) and test.base == 7
    # The die must show 2 or more: nine faces of ten.
    assert case.probability() == Fraction(9, 10)


def test_typed_sheet_numbers_are_ignored(saga):
    """The characteristic and the ability come from the sheet; typed numbers are not fields."""
    case = valid_case(
        saga, "simple", data_for(saga, characteristic_value=3, ability_level=20, ability_value=9)
    )
    assert (case.input["characteristic"], case.input["ability"]) == (2, 5)


def test_no_ability_rolls_the_characteristic_alone(saga):
    case = valid_case(saga, "simple", data_for(saga, ability=""))
    assert case.input["ability"] == 0
    assert case.what == "Zręczność (rzut prosty)"


def test_an_undeveloped_ability_is_level_zero(saga):
    case = valid_case(saga, "simple", data_for(saga, ability=saga.brawl.pk))
    assert case.input["ability"] == 0
    assert "Bijatyka (poziom 0)" in dict(form(saga, "simple").fields["ability"].choices).values()


def test_a_characteristic_missing_on_the_sheet_is_refused(saga):
    errors = errors_of(
        saga, "simple", data_for(saga, character=saga.grog, characteristic=saga.int.pk)
    )
    assert errors["characteristic"] == ["Gerold nie ma na karcie charakterystyki Inteligencja."]


def test_a_character_outside_the_session_is_refused(saga, make_user):
    stranger = Character.objects.create(
        owner=make_user(), name="Obcy", system="arsmagica", hp_current=5, hp_max=5
    )
    errors = errors_of(saga, "simple", data_for(saga, character=stranger))
    assert "character" in errors


@pytest.mark.parametrize("field", ["characteristic", "ability", "character"])
def test_garbage_ids_are_refused_next_to_the_field(saga, field):
    data = data_for(saga)
    data[field] = "x'; DROP"
    errors = errors_of(saga, "simple", data)
    assert list(errors) == [field]


def test_a_characteristic_of_another_system_is_refused(saga):
    other = Attribute.objects.filter(system="forum1000").first()
    errors = errors_of(saga, "simple", data_for(saga, characteristic=other.pk))
    assert "characteristic" in errors


# -- the ease factor: picker or typed -------------------------------------------


def test_the_picker_offers_the_usual_ease_factors(saga):
    choices = dict(form(saga, "simple").fields["ease"].choices)
    assert choices == {
        "3": "Prosty (3)",
        "6": "Łatwy (6)",
        "9": "Przeciętny (9)",
        "12": "Trudny (12)",
        "15": "Bardzo trudny (15)",
        "18": "Imponujący (18)",
        "21": "Niezwykły (21)",
        "other": "inna wartość (wpisz niżej)",
    }


@pytest.mark.parametrize(
    ("ease", "typed", "expected"),
    [("21", "", 21), ("other", "0", 0), ("other", "37", 37), ("12", "12", 12)],
)
def test_ease_factor_from_picker_or_typed(saga, ease, typed, expected):
    case = valid_case(saga, "simple", data_for(saga, ease=ease, ease_value=typed))
    assert case.input["ease_factor"] == expected


@pytest.mark.parametrize(
    ("ease", "typed", "field", "message"),
    [
        ("other", "", "ease_value", "Wpisz czynnik łatwości (liczbę całkowitą, 0 lub więcej)."),
        ("other", "-1", "ease_value", "Czynnik łatwości to liczba całkowita od 0 do 200."),
        ("other", "201", "ease_value", "Czynnik łatwości to liczba całkowita od 0 do 200."),
        ("other", "7.5", "ease_value", "Wpisz liczbę całkowitą."),
        ("9", "12", "ease_value", None),
        ("10", "", "ease", None),
        ("", "", "ease", "To pole jest wymagane."),
    ],
)
def test_bad_ease_factors_are_refused(saga, ease, typed, field, message):
    errors = errors_of(saga, "simple", data_for(saga, ease=ease, ease_value=typed))
    assert list(errors) == [field]
    if message:
        assert errors[field] == [message]


def test_a_conflicting_typed_ease_factor_says_how_to_use_it(saga):
    errors = errors_of(saga, "stress", data_for(saga, ease="9", ease_value="12"))
    assert "Przeciętny (9)" in errors["ease_value"][0]
    assert "12" in errors["ease_value"][0]


# -- modifiers: the sheet's, and the GM's with reasons --------------------------


def test_sheet_sources_of_the_characteristic_count_with_their_names(saga):
    data = data_for(saga)
    data["sources"] = [
        f"trait:{saga.quick.pk}",
        f"trait:{saga.clumsy.pk}",
        f"item:{saga.gloves.pk}",
    ]
    case = valid_case(saga, "simple", data)
    assert case.input["modifiers"] == [
        {"value": 2, "label": "Zwinne dłonie", "reason": None, "source": "ability"},
        {"value": -1, "label": "Niezdarny", "reason": None, "source": "flaw"},
        {"value": 1, "label": "Rękawice złodzieja", "reason": None, "source": "item"},
    ]
    assert case.engine_test().base == 2 + 5 + 2 - 1 + 1


@pytest.mark.parametrize("key", ["trait:learned", "item:lamp"])
def test_a_source_of_another_characteristic_is_refused(saga, key):
    kind, name = key.split(":")
    data = data_for(saga)
    data["sources"] = [f"{kind}:{getattr(saga, name).pk}"]
    errors = errors_of(saga, "simple", data)
    assert list(errors) == ["sources"]
    assert "Zręczność" in errors["sources"][0] and "Inteligencja" in errors["sources"][0]


def test_a_source_not_on_the_sheet_is_refused(saga):
    data = data_for(saga, character=saga.grog)
    data["sources"] = [f"trait:{saga.quick.pk}"]
    assert "sources" in errors_of(saga, "simple", data)


def test_gm_modifiers_carry_their_reasons(saga):
    case = valid_case(
        saga,
        "stress",
        data_for(saga, modifier_1=-3, reason_1=" ciemna noc ", modifier_2=1, reason_2="aura"),
    )
    assert case.input["modifiers"] == [
        {"value": -3, "label": None, "reason": "ciemna noc", "source": "gm"},
        {"value": 1, "label": None, "reason": "aura", "source": "gm"},
    ]


def test_a_gm_modifier_without_a_reason_is_refused(saga):
    errors = errors_of(saga, "simple", data_for(saga, modifier_2=2, reason_2="  "))
    assert errors == {
        "reason_2": ["Modyfikator wpisany ręcznie wymaga powodu: rzut pokaże go wszystkim."]
    }


def test_a_gm_reason_beyond_200_characters_is_refused(saga):
    errors = errors_of(saga, "simple", data_for(saga, modifier_1=1, reason_1="a" * 201))
    assert list(errors) == ["reason_1"]
    assert "200" in errors["reason_1"][0]


@pytest.mark.parametrize("value", ["11", "-11", "1000000000000", "dwa"])
def test_a_gm_modifier_out_of_range_is_refused(saga, value):
    errors = errors_of(saga, "simple", data_for(saga, modifier_1=value, reason_1="burza"))
    assert list(errors) == ["modifier_1"]


def test_a_player_cannot_type_modifiers_or_choose_fewer_botch_dice(saga):
    player_form = form(saga, "stress", gm=False)
    assert not {"modifier_1", "reason_1"} & set(player_form.fields)
    assert player_form.fields["botch_dice"].min_value == forms.BOTCH_DICE_DEFAULT == 1
    case = valid_case(
        saga, "stress", data_for(saga, modifier_1=10, reason_1="bo tak", botch_dice=2), gm=False
    )
    assert case.input["modifiers"] == []
    assert case.input["botch_dice"] == 2  # more than the usual one is the player's to take
    errors = errors_of(saga, "stress", data_for(saga, botch_dice=0), gm=False)
    assert errors == {"botch_dice": ["Co najmniej 1 kość fuszerki: tyle ustala MG."]}


def test_a_virtue_that_reduces_botch_dice_does_so(saga):
    from tests.rolls.system_tables import catalog_trait

    cautious = catalog_trait("arsmagica", "Ostrożny", "ability", saga.dex, 0)
    cautious.botch_dice_reduction = 1
    cautious.save()
    saga.flambeau.traits.add(cautious)
    case = valid_case(saga, "stress", data_for(saga, botch_dice=3))
    assert case.input["botch_dice"] == 2
    assert case.what == "Zręczność + Skradanie (kość stresu) · Ostrożny: −1 kość fuszerki"
    assert valid_case(saga, "stress", data_for(saga, botch_dice=1)).input["botch_dice"] == 0
    # A player's own roll: the GM's floor applies before the virtue takes its die off.
    assert (
        valid_case(saga, "stress", data_for(saga, botch_dice=""), gm=False).input["botch_dice"] == 0
    )


def test_the_prefix_is_honoured(saga):
    data = {f"x-{k}": v for k, v in data_for(saga).items()}
    bound = form(saga, "simple", data, prefix="x")
    assert bound.is_valid(), bound.errors
    assert bound.case().input["ability"] == 5


# -- the stress die: botch dice ------------------------------------------------


def test_stress_case_with_botch_dice(saga):
    case = valid_case(saga, "stress", data_for(saga, botch_dice=3, ease=15))
    assert case.input == {
        "characteristic": 2,
        "ability": 5,
        "modifiers": [],
        "ease_factor": 15,
        "botch_dice": 3,
    }
    assert isinstance(case.engine_test(), ars.StressTest)
    assert case.what == "Zręczność + Skradanie (kość stresu)"


def test_zero_botch_dice_are_allowed(saga):
    case = valid_case(saga, "stress", data_for(saga, botch_dice=0))
    assert case.input["botch_dice"] == 0


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("-1", "Liczba kości fuszerki nie może być ujemna."),
        ("11", "Najwyżej 10 kości fuszerki."),
        ("jedna", "Wpisz liczbę całkowitą."),
    ],
)
def test_bad_botch_dice_are_refused(saga, value, message):
    errors = errors_of(saga, "stress", data_for(saga, botch_dice=value))
    assert errors == {"botch_dice": [message]}


def test_botch_dice_left_empty_are_the_usual_one(saga):
    """The field starts empty with its default as the placeholder, and empty is that."""
    case = valid_case(saga, "stress", data_for(saga, botch_dice=""))
    assert case.input["botch_dice"] == 1


def test_the_simple_die_has_no_botch_dice(saga):
    assert "botch_dice" not in form(saga, "simple").fields
    case = valid_case(saga, "simple", data_for(saga, botch_dice=5))
    assert "botch_dice" not in case.input


def test_an_unbound_form_starts_from_a_complete_test(saga):
    fresh = form(saga, "stress")
    initial = {name: fresh[name].initial for name in ("character", "characteristic", "ease")}
    data = {k: str(v) for k, v in initial.items() if v is not None}
    data["botch_dice"] = str(fresh["botch_dice"].initial)
    assert valid_case(saga, "stress", data).input["ease_factor"] == 9


# -- the preview: the engine's exact chance, in words ---------------------------


@pytest.mark.parametrize("mode", ["simple", "stress"])
@pytest.mark.parametrize("ease", ["3", "9", "15", "21"])
def test_the_preview_chance_is_the_engines(saga, mode, ease):
    case = valid_case(saga, mode, data_for(saga, ease=ease, botch_dice=2))
    shown = display.preview(case)
    assert shown.chance == systems.probability("arsmagica", case.engine_test())
    # The stress die's doubling never leaves a zero chance; the simple die can.
    assert (0 < shown.chance <= 1) if mode == "stress" else (0 <= shown.chance <= 1)


def test_the_simple_preview_explains_the_numbers(saga):
    data = data_for(saga, modifier_1=-2, reason_1="ciemno")
    data["sources"] = [f"trait:{saga.quick.pk}"]
    shown = display.preview(valid_case(saga, "simple", data))
    assert shown.terms[:4] == [
        "Charakterystyka +2",
        "Umiejętność 5",
        "Zwinne dłonie (zaleta) +2",
        "modyfikator MG −2: ciemno",
    ]
    assert "Bez kości: 7 wobec czynnika łatwości 9" in shown.terms
    assert "Kość musi pokazać co najmniej 2." in shown.terms
    assert shown.chance == Fraction(9, 10)


def test_a_sure_simple_roll_says_so(saga):
    easy = display.preview(valid_case(saga, "simple", data_for(saga, ease=3)))
    assert easy.chance == 1
    assert easy.note == "Każdy wynik kości wystarcza; kość i tak jest rzucana."
    hopeless = display.preview(
        valid_case(saga, "simple", data_for(saga, ease="other", ease_value=30))
    )
    assert hopeless.chance == 0
    assert "nawet 10" in hopeless.note.lower()


def test_the_stress_preview_gives_the_botch_chance(saga):
    shown = display.preview(valid_case(saga, "stress", data_for(saga, botch_dice=2)))
    # A first 0 (1/10), then a 0 on either of two botch dice (1 − 0.81): 1.9%.
    assert display.botch_chance(2) == Fraction(19, 1000)
    assert any(t.startswith("Szansa fuszerki") and "1,9%" in t for t in shown.terms)
    assert shown.note == ""


def test_the_stress_preview_with_no_botch_dice_says_no_botch_is_possible(saga):
    case = valid_case(saga, "stress", data_for(saga, botch_dice=0))
    shown = display.preview(case)
    assert not any("Szansa fuszerki" in t for t in shown.terms)
    assert shown.note == (
        "Bez kości fuszerki: fuszerka jest niemożliwa; zero w pierwszym rzucie liczy się po "
        "prostu jako 0."
    )
    # With no botch possible, a first 0 is a plain 0 (base 7 < 9: a failure).
    assert shown.chance == systems.probability("arsmagica", case.engine_test())


def test_only_a_botch_fails_an_easy_stress_roll(saga):
    shown = display.preview(valid_case(saga, "stress", data_for(saga, ease=6, botch_dice=1)))
    assert shown.chance == 1 - display.botch_chance(1) == Fraction(99, 100)
    assert shown.note == "Tylko fuszerka może sprawić, że ten rzut się nie uda."


# -- the roll line, from the stored record only ---------------------------------


def line_of(case, faces):
    (line,) = display.lines(record_of(case, faces))
    return line


def test_simple_success_line(saga):
    line = line_of(valid_case(saga, "simple", data_for(saga)), [6])
    assert (line.who, line.outcome, line.success) == ("Flambeau", "Sukces", True)
    assert line.what == "Zręczność + Skradanie (rzut prosty)"
    assert line.details == [
        "Rzut prosty: 6",
        "Suma: Charakterystyka +2, Umiejętność 5, kość 6 = 13",
        "13 ≥ czynnik łatwości 9: margines +4",
    ]


def test_simple_zero_counts_ten(saga):
    line = line_of(valid_case(saga, "simple", data_for(saga, ease=18)), [0])
    assert line.details[0] == "Rzut prosty: 0, liczy się jako 10"
    assert line.details[1].endswith("kość 10 = 17")
    assert (line.outcome, line.details[2]) == (
        "Porażka",
        "17 < czynnik łatwości 18: margines −1",
    )


def test_stress_plain_face_with_modifiers(saga):
    data = data_for(saga, modifier_1=-3, reason_1="rana")
    data["sources"] = [f"item:{saga.gloves.pk}"]
    line = line_of(valid_case(saga, "stress", data), [4])
    assert line.details == [
        "Kość stresu: 4",
        "Suma: Charakterystyka +2, Umiejętność 5, Rękawice złodzieja (przedmiot) +1, "
        "modyfikator MG −3: rana, kość 4 = 9",
        "9 ≥ czynnik łatwości 9: margines 0",
    ]
    assert line.success


def test_stress_doubling_chain(saga):
    line = line_of(valid_case(saga, "stress", data_for(saga, ease=21)), [1, 1, 5])
    assert line.details[0] == "Kość stresu: 1 → 1 → 5: 5 × 4 = 20"
    assert line.details[1].endswith("kość 20 = 27")
    assert line.details[2] == "27 ≥ czynnik łatwości 21: margines +6"
    assert line.outcome == "Sukces"


def test_stress_doubling_ending_on_a_zero_counts_ten(saga):
    line = line_of(valid_case(saga, "stress", data_for(saga)), [1, 0])
    assert line.details[0] == "Kość stresu: 1 → 0: 10 × 2 = 20 (0 po jedynce liczy się jako 10)"


def test_stress_botch_counts_its_zeros(saga):
    case = valid_case(saga, "stress", data_for(saga, botch_dice=3, ease=3))
    line = line_of(case, [0, 0, 4, 0])
    assert (line.outcome, line.success) == ("Fuszerka", False)
    assert line.details == [
        "Kość stresu: 0 — kości fuszerki: 0, 4, 0 — fuszerka! 2 zera",
        "Fuszerka: wynik 0 (charakterystyka, umiejętność i modyfikatory przepadają)",
        "0 wobec czynnika łatwości 3: fuszerka to zawsze porażka (margines −3)",
    ]


@pytest.mark.parametrize(("zeros", "word"), [(1, "1 zero"), (2, "2 zera"), (5, "5 zer")])
def test_botch_severity_in_polish_plurals(saga, zeros, word):
    case = valid_case(saga, "stress", data_for(saga, botch_dice=5))
    line = line_of(case, [0, *([0] * zeros), *([7] * (5 - zeros))])
    assert line.details[0].endswith(f"fuszerka! {word}")


def test_stress_zero_without_a_botch(saga):
    line = line_of(valid_case(saga, "stress", data_for(saga, botch_dice=2, ease=6)), [0, 3, 9])
    assert line.details[0] == (
        "Kość stresu: 0 — kości fuszerki: 3, 9 — pech bez fuszerki: kość liczy się jako 0"
    )
    assert line.details[1] == "Suma: Charakterystyka +2, Umiejętność 5, kość 0 = 7"
    assert (line.outcome, line.details[2]) == ("Sukces", "7 ≥ czynnik łatwości 6: margines +1")


def test_stress_zero_with_no_botch_dice(saga):
    line = line_of(valid_case(saga, "stress", data_for(saga, botch_dice=0)), [0])
    assert line.details[0] == (
        "Kość stresu: 0 — bez kości fuszerki (fuszerka niemożliwa): kość liczy się jako 0"
    )
    assert (line.outcome, line.details[2]) == ("Porażka", "7 < czynnik łatwości 9: margines −2")


def test_a_negative_characteristic_and_total_read_with_minus_signs(saga):
    data = data_for(saga, characteristic=saga.int.pk, ability="", modifier_1=-10, reason_1="klątwa")
    line = line_of(valid_case(saga, "simple", data), [2])
    assert line.details[1] == (
        "Suma: Charakterystyka −1, Umiejętność 0, modyfikator MG −10: klątwa, kość 2 = −9"
    )
    assert line.details[2] == "−9 < czynnik łatwości 9: margines −18"


def test_lines_need_only_the_record(saga):
    """A record read back later (JSON round trip) renders the same line."""
    import json

    case = valid_case(saga, "stress", data_for(saga))
    record = json.loads(json.dumps(record_of(case, [1, 1, 1, 7])))
    (line,) = display.lines(record)
    assert line.details[0] == "Kość stresu: 1 → 1 → 1 → 7: 7 × 8 = 56"
    # And the record recomputes: the engine's input with the same dice gives the same result.
    again = systems.roll(
        "arsmagica",
        systems.parse_test("arsmagica", record["result"]["test"], record["result"]["input"]),
        ScriptedDice(record["result"]["dice"]),
    )
    assert again.to_dict() == record["result"]


# -- wired into the case path: dice, requests, typed modifiers -----------------


def test_the_dice_are_drawn_with_what_each_one_does(saga):
    stress = valid_case(saga, "stress", data_for(saga, botch_dice=2))
    chain = line_of(stress, [1, 1, 0]).dice
    assert [(d.face, d.kept, d.extra, d.note) for d in chain] == [
        (1, False, False, "podwaja"),
        (1, False, False, "podwaja"),
        (0, True, False, "liczy się jako 10, × 4"),
    ]
    botch = line_of(stress, [0, 0, 6]).dice
    assert [(d.face, d.kept, d.extra, d.note) for d in botch] == [
        (0, True, False, "pierwsze 0: sprawdzenie fuszerki"),
        (0, True, True, "kość fuszerki: zero"),
        (6, False, True, "kość fuszerki"),
    ]
    simple = line_of(valid_case(saga, "simple", data_for(saga)), [0]).dice
    assert [(d.face, d.note) for d in simple] == [(0, "liczy się jako 10")]


def test_a_typed_modifier_marks_the_case_as_the_gms(saga):
    assert valid_case(saga, "stress", data_for(saga, modifier_3=2, reason_3="aura")).gm_typed
    data = data_for(saga)
    data["sources"] = [f"trait:{saga.quick.pk}"]
    assert not valid_case(saga, "stress", data).gm_typed


def test_a_request_names_the_test_and_leaves_the_ease_factor_to_the_gm(saga):
    registered = registry.system_for("arsmagica")
    assert registered.ask_fields == ("character", "characteristic", "ability", "sources")
    data = data_for(saga, ease=21)
    data["sources"] = [f"trait:{saga.quick.pk}"]
    case = valid_case(saga, "stress", data, gm=False)
    assert registered.request_summary(case) == (
        "Zręczność + Skradanie (kość stresu) · Zwinne dłonie"
    )
    # The request's own form has only what is tested: sent without the ease factor (or the
    # botch dice), it is valid, and the request names exactly the asked fields.
    for mode in ("simple", "stress"):
        request = form(saga, mode, data_for(saga), gm=False, for_request=True)
        request.keep_only_asked()
        assert set(request.fields) == {"character", "characteristic", "ability", "sources"}
        del request.data["ease"], request.data["botch_dice"]
        assert request.is_valid(), request.errors
        asked = request.case()
        assert asked.request_fields == {
            "character": str(saga.flambeau.pk),
            "characteristic": str(saga.dex.pk),
            "ability": str(saga.stealth.pk),
            "sources": [],
        }


# -- over HTTP: the case panel with the Ars Magica forms ------------------------


def url(t):
    return reverse("rolls:panel", args=[t.session.pk])


def posted(t, mode="simple", **extra):
    return {"token": str(uuid.uuid4()), "mode": mode, **data_for(t, **extra)}


def words(response) -> str:
    text = html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode()))
    return re.sub(r"\s+", " ", text).replace(" :", ":")


def test_the_gm_gets_both_tabs_and_the_exact_chance(saga, client_for):
    response = client_for(saga.gm).get(url(saga), posted(saga, "stress", botch_dice=2))
    page = response.content.decode()
    assert response.status_code == 200
    assert 'data-system="arsmagica"' in page
    assert "?mode=simple" in page and "?mode=stress" in page
    assert 'name="modifier_1"' in page and 'name="botch_dice"' in page
    assert 'data-testid="ars-modifiers"' in page
    chance = display.preview(valid_case(saga, "stress", data_for(saga, botch_dice=2))).chance
    shown = page.split('data-testid="chance">')[1].split("%")[0]
    assert abs(float(shown.replace(",", ".")) - float(chance * 100)) < 0.006
    assert "Szansa fuszerki" in words(response)


def test_the_gm_rolls_and_the_post_shows_the_line(saga, client_for, monkeypatch):
    # A stress die of 5: no botch (a botch's line rightly drops the modifiers), no doubling.
    from rolls.engine.dice import ScriptedDice

    monkeypatch.setattr("rolls.services.SystemDice", lambda: ScriptedDice([5]))
    client = client_for(saga.gm)
    response = client.post(url(saga), posted(saga, "stress", modifier_1=-1, reason_1="mgła"))
    roll = Roll.objects.get()
    assert response.status_code == 302 and response.url.endswith(f"#roll-{roll.seq}")
    assert (roll.system, roll.test, roll.character) == ("arsmagica", "stress", saga.flambeau)
    result = roll.record["result"]
    assert result["die_faces"] == [5]
    assert result["input"]["modifiers"] == [
        {"value": -1, "label": None, "reason": "mgła", "source": "gm"}
    ]
    assert roll.record["what"] == "Zręczność + Skradanie (kość stresu)"
    diary = words(client.get(response.url.split("#")[0]))
    assert "Flambeau · Zręczność + Skradanie (kość stresu)" in diary
    assert "modyfikator MG −1: mgła" in diary
    assert f"czynnik łatwości 9: margines {display.signed_number(result['margin'])}" in diary


def test_a_retry_returns_the_first_roll(saga, client_for):
    client = client_for(saga.gm)
    data = posted(saga)
    assert client.post(url(saga), data).url == client.post(url(saga), data).url
    assert Roll.objects.count() == 1


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"botch_dice": "-1"}, "botch_dice"),
        ({"botch_dice": "11"}, "botch_dice"),
        ({"ease": "other", "ease_value": "-3"}, "ease_value"),
        ({"modifier_1": "4", "reason_1": ""}, "reason_1"),
        ({"modifier_1": "40", "reason_1": "smok"}, "modifier_1"),
        ({"characteristic": "abc"}, "characteristic"),
    ],
)
def test_bad_input_is_refused_next_to_its_field_and_nothing_rolls(saga, client_for, extra, field):
    response = client_for(saga.gm).post(url(saga), posted(saga, "stress", **extra))
    assert response.status_code == 400
    assert f'id="id_{field}_error"' in response.content.decode()
    assert not Roll.objects.exists()


def test_a_player_rolls_with_the_sheet_only(make_user, client_for):
    t = build_saga(make_user, roll_policy="players_own")
    client = client_for(t.player)
    page = client.get(url(t), posted(t, "stress")).content.decode()
    assert 'name="modifier_1"' not in page and 'name="botch_dice"' in page
    response = client.post(url(t), posted(t, "stress", botch_dice=0))
    assert response.status_code == 400 and not Roll.objects.exists()  # fewer than the GM's 1
    client.post(url(t), posted(t, "stress", modifier_1=10, reason_1="ja", botch_dice=1))
    result = Roll.objects.get().record["result"]
    assert result["input"]["modifiers"] == [] and result["input"]["botch_dice"] == 1
    # Another player's character is refused; a case carrying typed modifiers too.
    assert client.post(url(t), posted(t, character=t.grog)).status_code == 400
    typed = valid_case(t, "stress", data_for(t, modifier_1=2, reason_1="x"))
    with pytest.raises(PermissionDenied):
        services.roll_make(session=t.session, by=t.player, case=typed, token=uuid.uuid4())
    assert Roll.objects.count() == 1


# -- a player's request, answered by the GM ----------------------------------------


def ask_for(t, client, **extra):
    from diary.services import post_create

    post = post_create(
        session=t.session,
        author=t.player,
        character=t.flambeau,
        narration="Flambeau skrada się pod oknem wieży.",
        nc_note="",
    )
    data = {"mode": "stress", **data_for(t, **extra)}
    # The request form has no ease factor and no botch dice (they are the GM's): a player's
    # browser sends neither.
    del data["ease"], data["botch_dice"]
    data["sources"] = [f"trait:{t.quick.pk}"]
    response = client.post(reverse("rolls:ask", args=[t.session.pk]), data)
    return post, response


def answer_data(t, post, gm_client):
    page = gm_client.get(post.get_absolute_url().split("#")[0])
    answer_url = next(view.answer_url for view in page.context["rolls"].open_asks)
    panel_page = gm_client.get(answer_url, follow=True)
    assert panel_page.status_code == 200
    form_data = panel_page.context["panel"].token_form.data
    data = form_data.dict()
    data["sources"] = form_data.getlist("sources")
    return data


def test_a_request_names_the_test_and_the_gm_answers_with_the_ease_factor(saga, client_for):
    from rolls.models import AskStatus, RollAsk

    post, response = ask_for(saga, client_for(saga.player))
    ask = RollAsk.objects.get()
    assert response.status_code == 302 and ask.test == "stress"
    assert ask.case_fields == {
        "character": str(saga.flambeau.pk),
        "characteristic": str(saga.dex.pk),
        "ability": str(saga.stealth.pk),
        "sources": [f"trait:{saga.quick.pk}"],
    }
    assert ask.summary == "Flambeau: Zręczność + Skradanie (kość stresu) · Zwinne dłonie"
    gm = client_for(saga.gm)
    data = answer_data(saga, post, gm)
    assert (data["characteristic"], data["ability"]) == (str(saga.dex.pk), str(saga.stealth.pk))
    data.update({"ease": "15", "botch_dice": "3", "modifier_1": "-1", "reason_1": "wiatr"})
    response = gm.post(url(saga), data)
    assert response.status_code == 302, words(response)[:2000]
    roll = Roll.objects.get()
    ask.refresh_from_db()
    assert (ask.status, ask.answer) == (AskStatus.ANSWERED, roll)
    result = roll.record["result"]
    assert (result["ease_factor"], result["input"]["botch_dice"]) == (15, 3)
    assert [m["source"] for m in result["input"]["modifiers"]] == ["ability", "gm"]


@pytest.mark.parametrize("mode", ["simple", "stress"])
def test_a_player_asks_over_http_without_the_gms_fields(saga, client_for, mode):
    """The request page of either die (the simple one after switching tabs too) has no ease
    factor and no botch dice, and what it sends makes the request (never a bare 400)."""
    from diary.services import post_create
    from rolls.models import AskStatus, RollAsk

    post = post_create(
        session=saga.session,
        author=saga.player,
        character=saga.flambeau,
        narration="Flambeau nasłuchuje pod drzwiami.",
        nc_note="",
    )
    client = client_for(saga.player)
    ask_url = reverse("rolls:ask", args=[saga.session.pk])
    page = client.get(ask_url, {"mode": mode})
    assert page.status_code == 200
    body = page.content.decode()
    assert 'name="characteristic"' in body
    assert 'name="ease"' not in body and 'name="botch_dice"' not in body
    response = client.post(
        ask_url,
        {
            "mode": mode,
            "character": saga.flambeau.pk,
            "characteristic": saga.dex.pk,
            "ability": saga.stealth.pk,
        },
    )
    assert response.status_code == 302, words(response)[:2000]
    ask = RollAsk.objects.get()
    assert (ask.post, ask.test, ask.status) == (post, mode, AskStatus.OPEN)
    assert ask.case_fields["characteristic"] == str(saga.dex.pk)


@pytest.mark.parametrize("changed", ["characteristic", "ability", "sources"])
def test_an_answer_rolling_another_test_needs_a_reason(saga, client_for, changed):
    from rolls.models import AskStatus, RollAsk

    post, _response = ask_for(saga, client_for(saga.player))
    gm = client_for(saga.gm)
    data = answer_data(saga, post, gm)
    data[changed] = {
        "characteristic": str(saga.int.pk),
        "ability": str(saga.latin.pk),
        "sources": [],
    }[changed]
    if changed == "characteristic":
        data["sources"] = []  # Zwinne dłonie is a source of Zręczność alone
    refused = gm.post(url(saga), data)
    assert refused.status_code == 400
    assert 'id="id_answer_note_error"' in refused.content.decode()
    assert not Roll.objects.exists()
    assert RollAsk.objects.get().is_open
    # Said why, the GM's roll answers the request differently; the post shows both.
    data["token"] = str(uuid.uuid4())
    answered = gm.post(url(saga), data | {"answer_note": "Tu liczy się spryt, nie zręczność."})
    assert answered.status_code == 302, words(answered)[:2000]
    roll = Roll.objects.get()
    ask = RollAsk.objects.get()
    assert (ask.status, ask.answer) == (AskStatus.ANSWERED_DIFFERENTLY, roll)
    assert roll.record["answers"]["note"] == "Tu liczy się spryt, nie zręczność."
    assert roll.record["answers"]["rolled"].startswith("Flambeau: ")
    assert roll.record["answers"]["rolled"] != ask.summary


# -- garbage never makes a 500 or a half-made roll ----------------------------------

FUZZ_FIELDS = [
    "token", "mode", "post", "ask", "character", "characteristic", "ability", "sources",
    "ease", "ease_value", "botch_dice", "modifier_1", "reason_1", "modifier_3", "preview",
]  # fmt: skip
FUZZ_VALUES = st.one_of(
    st.text(max_size=30),
    st.integers(min_value=-(10**20), max_value=10**20).map(str),
    st.sampled_from(["simple", "stress", "other", "9", "21", "trait:1", "item:1", "0", "-1", ""]),
    st.uuids().map(str),
)  # fmt: skip


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    garbage=st.dictionaries(st.sampled_from(FUZZ_FIELDS), FUZZ_VALUES, max_size=6),
    mode=st.sampled_from(["simple", "stress"]),
    method=st.sampled_from(["get", "post"]),
)
def test_the_panel_never_fails_on_garbage(saga, client_for, garbage, mode, method):
    data = {**posted(saga, mode), **garbage}
    before = Roll.objects.count()
    response = getattr(client_for(saga.gm), method)(url(saga), data)
    assert response.status_code < 500
    if method == "get" or response.status_code != 302:
        assert Roll.objects.count() == before
    assert verify_session(saga.session.pk).ok


def test_the_gm_sets_the_fewest_botch_dice_of_players_stress_rolls(make_user):
    """The GM rolling (or answering a request) may make the botch dice the floor of the
    players' own stress rolls in the session; a player then cannot take fewer."""
    t = build_saga(make_user, roll_policy="players_own")
    gm_form = form(t, "stress", data_for(t, botch_dice=3, players_botch_floor="on"))
    assert gm_form.is_valid(), gm_form.errors
    roll = services.roll_make(
        session=t.session, by=t.gm, case=gm_form.case(), token=uuid.uuid4()
    ).roll
    assert roll.record["players_botch_floor"] == 3
    player_form = form(t, "stress", gm=False)
    assert player_form.fields["botch_dice"].min_value == 3
    errors = errors_of(t, "stress", data_for(t, botch_dice=2), gm=False)
    assert errors == {"botch_dice": ["Co najmniej 3 kości fuszerki: tyle ustala MG."]}
    player = valid_case(t, "stress", data_for(t, botch_dice=""), gm=False)
    assert player.input["botch_dice"] == 3
    # A GM's stress roll without the tick leaves the floor as it is.
    plain = valid_case(t, "stress", data_for(t, botch_dice=0))
    services.roll_make(session=t.session, by=t.gm, case=plain, token=uuid.uuid4())
    assert form(t, "stress", gm=False).fields["botch_dice"].min_value == 3
    assert verify_session(t.session.pk).ok
