"""Character sheets of q10, ciernie and arsmagica — built, edited, shown, proposed in
play — with each system's ranges, words and derived numbers; forum1000's stay as they were."""

import html
import re

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from characters import services
from characters.models import Attribute, Character, Item, ProposalStatus, Skill, Trait
from characters.systems import ATTRIBUTE_RANGE, SKILL_LEVEL_RANGE, words_for
from demo.sheets import system_character
from diary import services as diary_services
from diary.models import SessionStatus
from tests.conftest import polish

pytestmark = pytest.mark.django_db

SYSTEMS = ["q10", "ciernie", "arsmagica"]


def create_url(system):
    return reverse("characters:create") + f"?system={system}"


def form_data(system, *, attribute=None, skills=None, **overrides):
    """A valid sheet of `system`: every attribute at `attribute` (default the range's middle)."""
    low, high = ATTRIBUTE_RANGE[system]
    value = (low + high) // 2 if attribute is None else attribute
    data = {"name": "Nowa", "description": "", "hp_max": "20", "hp_current": "20"}
    for row in Attribute.objects.filter(system=system):
        data[f"attr_{row.pk}"] = str(value)
    for row in Skill.objects.filter(system=system):
        data[f"skill_{row.pk}"] = str((skills or {}).get(row.name, 0))
    data.update(overrides)
    return data


def test_the_system_choice_offers_all_four(make_user, client_for):
    page = client_for(make_user()).get(reverse("characters:create"))
    choices = [key for key, _label in page.context["systems"].fields["system"].choices]
    assert choices == ["forum1000", "q10", "ciernie", "arsmagica"]


@pytest.mark.parametrize(
    ("system", "legend", "skills_legend"),
    [("q10", "Atrybuty", "Umiejętności"), ("ciernie", "Cechy", "Umiejętności"),
     ("arsmagica", "Charakterystyki", "Umiejętności")],
)  # fmt: skip
def test_each_systems_form_has_its_catalog_and_words(
    make_user, client_for, system, legend, skills_legend
):
    page = client_for(make_user()).get(create_url(system))
    body = page.content.decode()
    assert page.status_code == 200
    assert f"<legend>{legend}</legend>" in body and f"<legend>{skills_legend}</legend>" in body
    for row in Attribute.objects.filter(system=system):
        assert f'name="attr_{row.pk}"' in body
    forum = Attribute.objects.filter(system="forum1000").first()
    assert f'name="attr_{forum.pk}"' not in body


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_player_builds_a_sheet_of_each_system(make_user, client_for, system):
    owner = make_user()
    skill = Skill.objects.filter(system=system).first()
    data = form_data(system, skills={skill.name: 2})
    trait = Trait.objects.filter(system=system).first()
    data["traits"] = [str(trait.pk)]
    response = client_for(owner).post(create_url(system), data)
    character = Character.objects.get(owner=owner)
    assert response.status_code == 302
    assert character.system == system
    assert character.skill_level(skill.pk) == 2
    assert list(character.traits.all()) == [trait]
    assert character.attribute_values.count() == Attribute.objects.filter(system=system).count()


# Bad values per system: (system, field, value) — each refused next to the field, in Polish.
BAD = [
    ("q10", "attr", "6"),  # attribute + skill could pass 10 dice
    ("q10", "attr", "0"),
    ("q10", "skill", "6"),
    ("q10", "skill", "-1"),
    ("ciernie", "attr", "-1"),  # RULES 3: never negative
    ("ciernie", "attr", "21"),
    ("ciernie", "skill", "11"),
    ("arsmagica", "attr", "-4"),
    ("arsmagica", "attr", "4"),
    ("arsmagica", "skill", "-1"),
    ("arsmagica", "skill", "21"),
    ("arsmagica", "attr", "+1,5"),
]


@pytest.mark.parametrize(("system", "field", "value"), BAD)
def test_out_of_range_values_are_refused_next_to_the_field(
    make_user, client_for, system, field, value
):
    owner = make_user()
    attribute = Attribute.objects.filter(system=system).first()
    skill = Skill.objects.filter(system=system).first()
    key = f"attr_{attribute.pk}" if field == "attr" else f"skill_{skill.pk}"
    response = client_for(owner).post(create_url(system), form_data(system, **{key: value}))
    assert response.status_code == 400
    errors = response.context["form"].errors[key]
    body = response.content.decode()
    assert f'id="id_{key}_error"' in body
    if value.lstrip("-").isdigit():
        low, high = (ATTRIBUTE_RANGE if field == "attr" else SKILL_LEVEL_RANGE)[system]
        assert errors[0].startswith("Dozwolone wartości w tym systemie: od ")
        assert errors[0].replace("\u2212", "-").replace("+", "").endswith(f"{low} do {high}.")
    assert not Character.objects.filter(owner=owner).exists()


def test_ars_magica_characteristics_are_signed_in_the_range_message(make_user, client_for):
    attribute = Attribute.objects.filter(system="arsmagica").first()
    key = f"attr_{attribute.pk}"
    response = client_for(make_user()).post(
        create_url("arsmagica"), form_data("arsmagica", **{key: "5"})
    )
    assert "\u22123" in response.context["form"].errors[key][0]  # −3, the one minus sign


def test_the_service_checks_the_ranges_again(make_user):
    owner = make_user()
    attributes = dict.fromkeys(Attribute.objects.filter(system="q10"), 9)
    with pytest.raises(ValidationError) as refused:
        services.character_create(
            owner=owner,
            system="q10",
            values={
                "name": "Za silny",
                "description": "",
                "hp_current": 5,
                "hp_max": 5,
                "attributes": attributes,
                "skills": {},
                "traits": [],
                "items": {},
            },
        )
    assert set(refused.value.message_dict) == {f"attr_{a.pk}" for a in attributes}
    assert not Character.objects.filter(owner=owner).exists()


def test_a_sheet_cannot_mix_systems(make_user):
    forum_skill = Skill.objects.get(system="forum1000", name="Uwodzenie")
    with pytest.raises(ValidationError):
        services.character_create(
            owner=make_user(),
            system="ciernie",
            values={
                "name": "Mieszaniec",
                "description": "",
                "hp_current": 5,
                "hp_max": 5,
                "attributes": dict.fromkeys(Attribute.objects.filter(system="ciernie"), 10),
                "skills": {forum_skill: 1},
                "traits": [],
                "items": {},
            },
        )


def test_the_q10_sheet_shows_each_developed_skills_pool(make_user, client_for):
    owner = make_user()
    character = system_character(
        owner,
        "q10",
        "Eragon",
        attributes={"Siła": 3, "Zręczność": 4, "Mądrość": 2, "Charyzma": 2},
        skills={"Walka wręcz": 2, "Łucznictwo": 5},
        traits=["Wprawny szermierz"],
    )
    body = client_for(owner).get(reverse("characters:detail", args=[character.pk])).content
    body = body.decode()
    assert polish("Pool (XzY)") in body
    assert "5z2" in body  # Siła 3 + Walka wręcz 2: the seed's own example
    assert "9z4" in body  # Zręczność 4 + Łucznictwo 5
    assert "+1z1 Siła" in body  # Wprawny szermierz: the seed's pool modifier 1z1
    assert "Atrybut" in body


def test_the_ciernie_sheet_lists_the_reroll_sources_held(make_user, client_for):
    owner = make_user()
    character = system_character(
        owner,
        "ciernie",
        "Vera",
        attributes={"Zręczność": 14},
        skills={"Pilotaż": 3},
        traits=["Refleks pilota", "Bystry wzrok"],
        items={"Uzbrojenie naprowadzane": 1, "Zestaw wytrychów": 1},
    )
    client = client_for(owner)
    page = client.get(reverse("characters:detail", args=[character.pk])).content.decode()
    section = page.split('data-testid="reroll-sources"')[1].split("</section>")[0]
    assert "Refleks pilota" in section and "Uzbrojenie naprowadzane" in section
    assert "Bystry wzrok" not in section and "Zestaw wytrychów" not in section
    assert "+2 Percepcja" in page  # Bystry wzrok: threshold points
    bare = system_character(owner, "ciernie", "Bez przerzutów", attributes={})
    page = client.get(reverse("characters:detail", args=[bare.pk])).content.decode()
    assert polish("None: a failed test cannot be rerolled.") in page


def test_the_ars_magica_sheet_adds_characteristic_and_ability(make_user, client_for):
    owner = make_user()
    character = system_character(
        owner,
        "arsmagica",
        "Magnus",
        attributes={"Komunikacja": 2, "Zręczność": -1},
        skills={"Łacina": 5, "Walka bronią jednoręczną": 3},
    )
    body = client_for(owner).get(reverse("characters:detail", args=[character.pk])).content
    body = body.decode()
    assert polish("Characteristic + ability") in body
    assert "+2 + 5 = +7" in body
    assert "\u22121 + 3 = +2" in body
    assert "Charakterystyki" in body and "Zalety i wady" in body


def test_forum1000_sheets_stay_as_they_were(make_user, make_character, client_for):
    owner = make_user()
    character = make_character(owner, skills={"Otwieranie zamków": 2})
    body = client_for(owner).get(reverse("characters:detail", args=[character.pk])).content
    body = body.decode()
    # 40·2 + 500/2 = 330, the threshold column; movement as before; no reroll section.
    row = body.split("Otwieranie zamków</td>")[1].split("</tr>")[0]
    assert "330" in row
    assert polish("Threshold") in body and "reroll-sources" not in body
    assert "<h2>Cechy</h2>" in body


def test_an_out_of_play_edit_keeps_the_systems_ranges(make_user, client_for):
    owner = make_user()
    character = system_character(owner, "arsmagica", "Wilhelm", attributes={"Siła": 2})
    strength = Attribute.objects.get(system="arsmagica", name="Siła")
    url = reverse("characters:edit", args=[character.pk])
    client = client_for(owner)
    initial = client.get(url).context["form"].initial
    assert initial[f"attr_{strength.pk}"] == 2
    data = form_data("arsmagica", attribute=0, **{f"attr_{strength.pk}": "-3"})
    assert client.post(url, data).status_code == 302
    assert Character.objects.get(pk=character.pk).value_of("Siła") == -3
    refused = client.post(url, {**data, f"attr_{strength.pk}": "-5"})
    assert refused.status_code == 400
    assert Character.objects.get(pk=character.pk).value_of("Siła") == -3


def running_session(system, gm, moderator, characters):
    session = diary_services.session_create(
        gm=gm,
        title=f"Sesja {system}",
        description="",
        system=system,
        criticals_enabled=True,
        npc_mode="fixed_modifiers",
        roll_policy="gm_only",
    )
    for character in characters:
        invited = diary_services.participation_invite(session=session, by=gm, character=character)
        diary_services.participation_decide(participation=invited, by=character.owner, accept=True)
    for step, by in (
        (SessionStatus.PLAN_SUBMITTED, gm),
        (SessionStatus.ACCEPTED, moderator),
        (SessionStatus.RUNNING, gm),
    ):
        session = diary_services.session_transition(session=session, by=by, to=step)
    return session


def test_in_play_a_q10_edit_is_a_proposal_the_gm_approves(make_user, client_for):
    owner, gm = make_user(), make_user()
    character = system_character(
        owner, "q10", "Arya", attributes={"Zręczność": 3}, skills={"Magia": 2}
    )
    running_session("q10", gm, make_user(moderator=True), [character])
    magic = Skill.objects.get(system="q10", name="Magia")
    picks = Item.objects.get(system="q10", name="Wytrychy")
    data = form_data("q10", attribute=3, skills={"Magia": 3})
    del data["hp_current"]
    data[f"item_{picks.pk}"] = "1"
    # Out of range in play is refused just the same.
    bad = client_for(owner).post(
        reverse("characters:edit", args=[character.pk]), {**data, f"skill_{magic.pk}": "7"}
    )
    assert bad.status_code == 400 and not character.proposals.exists()
    response = client_for(owner).post(reverse("characters:edit", args=[character.pk]), data)
    assert response.status_code == 302
    proposal = character.proposals.get(status=ProposalStatus.PENDING)
    sheet = client_for(gm).get(reverse("characters:detail", args=[character.pk])).content.decode()
    assert "Magia" in sheet and "Wytrychy" in sheet  # the diff, line by line
    client_for(gm).post(
        reverse("characters:proposal_decide", args=[character.pk, proposal.pk]),
        {"decision": "approve", "comment": ""},
    )
    character = Character.objects.with_sheet().get(pk=character.pk)
    assert character.skill_level(magic.pk) == 3
    assert character.item_holdings.get().item == picks
    history = client_for(owner).get(reverse("characters:history", args=[character.pk]))
    assert history.status_code == 200 and "Magia" in history.content.decode()


def test_a_proposal_out_of_range_is_refused_on_approval(make_user):
    """The catalog's ranges are checked again when the GM approves (stale proposals)."""
    owner, gm = make_user(), make_user()
    character = system_character(owner, "ciernie", "Ilja", attributes={"Siła": 15})
    running_session("ciernie", gm, make_user(moderator=True), [character])
    strength = Attribute.objects.get(system="ciernie", name="Siła")
    values = {
        "name": "Ilja",
        "description": "",
        "hp_max": character.hp_max,
        "attributes": dict.fromkeys(Attribute.objects.filter(system="ciernie"), 10),
        "skills": {},
        "traits": [],
        "items": {},
    }
    proposal = services.sheet_proposal_create(character=character, by=owner, values=values)
    # Someone tampers with the stored proposal: 25 is beyond ciernie's 1..20.
    proposal.values["attributes"][str(strength.pk)] = 25
    proposal.save(update_fields=["values"])
    with pytest.raises(ValidationError):
        services.sheet_proposal_decide(proposal=proposal, by=gm, approve=True)
    assert Character.objects.get(pk=character.pk).value_of("Siła") == 15


def test_no_ars_magica_page_says_zdolnosc(make_user, client_for):
    """forum1000's "Zdolność" is an ability (trait); Ars Magica's are virtues (zalety)."""
    owner, moderator = make_user(), make_user(moderator=True)
    character = system_character(
        owner, "arsmagica", "Agnieszka", attributes={"Prezencja": 3}, traits=["Kulawy"]
    )
    client = client_for(owner)
    edit = reverse("characters:edit", args=[character.pk])
    data = form_data("arsmagica", attribute=0)
    data["traits"] = [str(Trait.objects.get(system="arsmagica", name="Wyostrzone zmysły").pk)]
    assert client.post(edit, data).status_code == 302
    pages = [
        client.get(url).content.decode()
        for url in (
            reverse("characters:detail", args=[character.pk]),
            reverse("characters:history", args=[character.pk]),
            edit,
            create_url("arsmagica"),
            reverse("characters:catalog", args=["arsmagica"]),
        )
    ]
    mod = client_for(moderator)
    pages.append(mod.get(reverse("characters:catalog_add", args=["arsmagica", "trait"])).content)
    pages[-1] = pages[-1].decode()
    for body in pages:
        assert "zdolnoś" not in body.lower()
    assert "Zalety i wady" in pages[1]  # the history names the virtues' line


# -- what a test uses when the sheet's ability, flaw or item applies (RULES 1.2, 2, 3, 4) --


def sheet_text(client, character) -> str:
    body = client.get(reverse("characters:detail", args=[character.pk])).content.decode()
    words = html.unescape(re.sub(r"<[^>]+>", " ", body))
    return re.sub(r"\s+", " ", words)


SOURCE_CASES = [
    # system, attributes, skills, traits, what the attribute line says, a skill row's number
    (
        "forum1000",
        {"Percepcja": 640, "Zręczność": 500},
        {"Otwieranie zamków": 3},
        ["Dobry Wzrok", "Precyzyjny"],
        ["Percepcja 640 (test cechy: 690 z Dobry Wzrok, gdy ma zastosowanie)",
         "Zręczność 500 (test cechy: 550 z Precyzyjny, gdy ma zastosowanie)"],
        # 40·3 + 500/2 = 370; with Precyzyjny half of +50 in a skill roll: 395.
        "370 (395 z Precyzyjny)",
    ),
    (
        "q10",
        {"Siła": 3, "Zręczność": 2},
        {"Walka wręcz": 2},
        ["Wprawny szermierz"],
        ["Siła 3 (pula: +1z1 z Wprawny szermierz, gdy ma zastosowanie)"],
        "5z2 (6z3 z Wprawny szermierz)",
    ),
    (
        "ciernie",
        {"Percepcja": 12},
        {},
        ["Bystry wzrok"],
        ["Percepcja 12 (test: 14 z Bystry wzrok, gdy ma zastosowanie)"],
        None,
    ),
    (
        "arsmagica",
        {"Percepcja": 1},
        {"Czujność": 3},
        ["Wyostrzone zmysły"],
        ["Percepcja +1 (test: +2 z Wyostrzone zmysły, gdy ma zastosowanie)"],
        "+1 + 3 = +4 (+5 z Wyostrzone zmysły)",
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    ("system", "attributes", "skills", "traits", "attribute_lines", "skill_number"),
    SOURCE_CASES,
    ids=[case[0] for case in SOURCE_CASES],
)
def test_the_sheet_says_what_a_test_uses_with_an_ability_that_applies(
    make_user, client_for, system, attributes, skills, traits, attribute_lines, skill_number
):
    owner = make_user()
    if system == "forum1000":
        from tests.conftest import new_character

        character = new_character(
            owner, "Sokół", attributes=attributes, skills=skills, traits=traits
        )
    else:
        character = system_character(
            owner, system, "Sokół", attributes=attributes, skills=skills, traits=traits
        )
    text = sheet_text(client_for(owner), character)
    for line in attribute_lines:
        assert line in text, text
    if skill_number:
        assert skill_number in text, text
    words = words_for(system)
    assert (
        polish(
            "%(traits)s and items count in a test only when they apply to it: whoever rolls "
            "ticks them in the roll panel (a player names them in a request for a roll).",
            traits=words.traits,
        )
        in text
    )


def test_a_sheet_without_such_sources_says_nothing_more(make_user, client_for):
    owner = make_user()
    character = system_character(owner, "ciernie", "Zwykła", attributes={"Percepcja": 12})
    text = sheet_text(client_for(owner), character)
    assert "gdy ma zastosowanie" not in text and "Percepcja 12 (" not in text
