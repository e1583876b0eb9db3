"""The catalogs in the site — every logged-in user reads them, moderators extend
them; a row in use keeps its rules; bad input is refused next to the field."""

import pytest
from django.urls import reverse

from characters import services
from characters.models import Attribute, Character, Item, Skill, Trait
from tests.conftest import polish

pytestmark = pytest.mark.django_db


def catalog_url(system="q10"):
    return reverse("characters:catalog", kwargs={"system": system})


def add_url(system, kind):
    return reverse("characters:catalog_add", kwargs={"system": system, "kind": kind})


def edit_url(entry, kind):
    return reverse(
        "characters:catalog_edit",
        kwargs={"system": entry.system, "kind": kind, "entry_pk": entry.pk},
    )


@pytest.mark.parametrize("system", ["forum1000", "q10", "ciernie", "arsmagica"])
def test_every_logged_in_user_reads_each_systems_catalog(make_user, client_for, system):
    response = client_for(make_user()).get(catalog_url(system))
    assert response.status_code == 200
    body = response.content.decode()
    for skill in Skill.objects.filter(system=system):
        assert skill.name in body
    # A player sees no add or edit links.
    assert add_url(system, "skill") not in body


def test_the_catalogs_show_the_seeds_words_and_rule_fields(make_user, client_for):
    client = client_for(make_user())
    ciernie = client.get(catalog_url("ciernie")).content.decode()
    assert "Uzbrojenie naprowadzane" in ciernie and polish("reroll source") in ciernie
    q10 = client.get(catalog_url("q10")).content.decode()
    assert "+1z1 Siła" in q10  # Wprawny szermierz: the seed's pool modifier 1z1
    assert "Atrybuty" in q10
    ars = client.get(catalog_url("arsmagica")).content.decode()
    assert "Charakterystyki" in ars and "Zalety i wady" in ars


def test_an_unknown_system_or_kind_is_404(make_user, client_for):
    moderator = client_for(make_user(moderator=True))
    assert moderator.get(catalog_url("dnd")).status_code == 404
    assert moderator.get(add_url("q10", "spell")).status_code == 404
    assert moderator.get(add_url("dnd", "skill")).status_code == 404


def test_anonymous_is_sent_to_log_in(client):
    response = client.get(catalog_url())
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


def test_only_moderators_add_and_edit(make_user, client_for):
    player = client_for(make_user())
    skill = Skill.objects.filter(system="q10").first()
    before = Skill.objects.count()
    assert player.get(add_url("q10", "skill")).status_code == 403
    data = {"name": "Pływanie", "attribute": skill.attribute_id, "description": ""}
    assert player.post(add_url("q10", "skill"), data).status_code == 403
    assert player.post(edit_url(skill, "skill"), {**data, "name": "X"}).status_code == 403
    assert Skill.objects.count() == before
    skill.refresh_from_db()
    assert skill.name != "X"


def test_a_moderator_adds_a_skill_to_the_q10_catalog(make_user, client_for):
    moderator = client_for(make_user(moderator=True))
    strength = Attribute.objects.get(system="q10", name="Siła")
    page = moderator.get(catalog_url("q10")).content.decode()
    assert add_url("q10", "skill") in page
    response = moderator.post(
        add_url("q10", "skill"),
        {"name": "Pływanie", "attribute": strength.pk, "description": "Przepłynięcie rzeki."},
    )
    assert response.status_code == 302
    skill = Skill.objects.get(system="q10", name="Pływanie")
    assert skill.attribute == strength and skill.heals == ""
    assert "Pływanie" in moderator.get(catalog_url("q10")).content.decode()


def test_a_moderator_adds_a_ciernie_reroll_source_and_a_q10_ability_with_kept_dice(
    make_user, client_for
):
    moderator = client_for(make_user(moderator=True))
    response = moderator.post(
        add_url("ciernie", "item"),
        {"name": "Celownik taktyczny", "attribute": "", "modifier": "0", "rerolls": "on"},
    )
    assert response.status_code == 302
    assert Item.objects.get(system="ciernie", name="Celownik taktyczny").rerolls
    wisdom = Attribute.objects.get(system="q10", name="Mądrość")
    response = moderator.post(
        add_url("q10", "trait"),
        {
            "kind": "ability",
            "name": "Uczony",
            "attribute": wisdom.pk,
            "modifier": "2",
            "keep_modifier": "1",
        },
    )
    assert response.status_code == 302
    trait = Trait.objects.get(system="q10", name="Uczony")
    assert (trait.modifier, trait.keep_modifier, trait.rerolls) == (2, 1, False)


def test_fields_of_other_systems_are_not_offered_nor_stored(make_user, client_for):
    moderator = client_for(make_user(moderator=True))
    form = moderator.get(add_url("arsmagica", "item")).context["form"]
    assert "keep_modifier" not in form.fields and "rerolls" not in form.fields
    assert "is_mount" not in form.fields
    assert "rerolls" in moderator.get(add_url("ciernie", "trait")).context["form"].fields
    presence = Attribute.objects.get(system="arsmagica", name="Prezencja")
    moderator.post(
        add_url("arsmagica", "trait"),
        {
            "kind": "ability",
            "name": "Głos dowódcy",
            "attribute": presence.pk,
            "modifier": "1",
            "keep_modifier": "3",
            "rerolls": "on",
        },
    )
    trait = Trait.objects.get(system="arsmagica", name="Głos dowódcy")
    assert (trait.keep_modifier, trait.rerolls) == (0, False)


@pytest.mark.parametrize(
    ("system", "kind", "data", "field"),
    [
        # A duplicate name in the same system.
        ("q10", "skill", {"name": "atletyka", "attribute": "q10:Siła"}, "name"),
        # An attribute of another system.
        ("q10", "skill", {"name": "Nowa", "attribute": "ciernie:Siła"}, "attribute"),
        # Modifiers beyond the system's range.
        ("ciernie", "trait", {"kind": "ability", "name": "N", "attribute": "ciernie:Siła",
                              "modifier": "13"}, "modifier"),
        ("q10", "trait", {"kind": "ability", "name": "N", "attribute": "q10:Siła",
                          "modifier": "1", "keep_modifier": "-11"}, "keep_modifier"),
        ("arsmagica", "item", {"name": "N", "attribute": "", "modifier": "2"}, "attribute"),
        ("forum1000", "attribute", {"name": "Nowa", "position": "-1"}, "position"),
        ("forum1000", "attribute", {"name": "", "position": "1"}, "name"),
        ("ciernie", "trait", {"kind": "ability", "name": "N", "attribute": "ciernie:Siła",
                              "modifier": "dużo"}, "modifier"),
    ],
)  # fmt: skip
def test_bad_catalog_input_is_refused_next_to_the_field(
    make_user, client_for, system, kind, data, field
):
    moderator = client_for(make_user(moderator=True))
    if data.get("attribute"):
        owner, name = data["attribute"].split(":")
        data = {**data, "attribute": Attribute.objects.get(system=owner, name=name).pk}
    model = {"attribute": Attribute, "skill": Skill, "trait": Trait, "item": Item}[kind]
    before = model.objects.count()
    response = moderator.post(add_url(system, kind), data)
    assert response.status_code == 400
    assert response.context["form"].errors[field]
    assert f'id="id_{field}_error"' in response.content.decode()
    assert model.objects.count() == before


def q10_character(owner, skills=None, traits=()):
    attributes = dict.fromkeys(Attribute.objects.filter(system="q10"), 3)
    return services.character_create(
        owner=owner,
        system="q10",
        values={
            "name": "Eragon",
            "description": "",
            "hp_current": 10,
            "hp_max": 10,
            "attributes": attributes,
            "skills": skills or {},
            "traits": list(traits),
            "items": {},
        },
    )


def test_an_entry_in_use_keeps_its_rules_and_its_description_stays_editable(make_user, client_for):
    moderator_user = make_user(moderator=True)
    moderator = client_for(moderator_user)
    trait = Trait.objects.get(system="q10", name="Wprawny szermierz")
    q10_character(make_user(), traits=[trait])
    page = moderator.get(edit_url(trait, "trait"))
    assert page.context["form"].fields["modifier"].disabled
    other = Attribute.objects.get(system="q10", name="Mądrość")
    response = moderator.post(
        edit_url(trait, "trait"),
        {
            "kind": "flaw",
            "name": "Inny",
            "attribute": other.pk,
            "modifier": "5",
            "keep_modifier": "5",
            "description": "Nowy opis.",
        },
    )
    assert response.status_code == 302
    trait.refresh_from_db()
    assert (trait.kind, trait.name, trait.modifier, trait.keep_modifier) == (
        "ability",
        "Wprawny szermierz",
        1,
        1,
    )
    assert trait.description == "Nowy opis."
    # The service refuses it again for any other caller.
    with pytest.raises(services.ValidationError):
        services.catalog_entry_update(by=moderator_user, entry=trait, values={"modifier": 3})
    trait.refresh_from_db()
    assert trait.modifier == 1


def test_an_entry_not_in_use_can_change_its_rules(make_user, client_for):
    moderator = client_for(make_user(moderator=True))
    item = Item.objects.get(system="q10", name="Wytrychy")
    response = moderator.post(
        edit_url(item, "item"),
        {"name": "Wytrychy mistrza", "attribute": item.attribute_id, "modifier": "2",
         "keep_modifier": "1", "description": ""},
    )  # fmt: skip
    assert response.status_code == 302
    item.refresh_from_db()
    assert (item.name, item.modifier, item.keep_modifier) == ("Wytrychy mistrza", 2, 1)


def test_an_attribute_of_a_held_skill_is_in_use(make_user, client_for):
    moderator = client_for(make_user(moderator=True))
    athletics = Skill.objects.get(system="q10", name="Atletyka")
    q10_character(make_user(), skills={athletics: 2})
    strength = athletics.attribute
    assert moderator.get(edit_url(strength, "attribute")).context["form"].fields["name"].disabled
    body = moderator.get(catalog_url("q10")).content.decode()
    assert polish("in use") in body


def test_the_service_refuses_a_player_and_an_attribute_of_another_system(make_user):
    player, moderator = make_user(), make_user(moderator=True)
    strength = Attribute.objects.get(system="q10", name="Siła")
    with pytest.raises(services.PermissionDenied):
        services.catalog_entry_create(
            by=player, model=Skill, system="q10", values={"name": "A", "attribute": strength}
        )
    with pytest.raises(services.ValidationError):
        services.catalog_entry_create(
            by=moderator, model=Skill, system="ciernie", values={"name": "A", "attribute": strength}
        )
    assert not Skill.objects.filter(name="A").exists()


def test_the_navigation_links_the_catalogs(make_user, client_for):
    body = client_for(make_user()).get(reverse("home")).content.decode()
    assert reverse("characters:catalog_index") in body
    index = client_for(make_user()).get(reverse("characters:catalog_index")).content.decode()
    for system in ("forum1000", "q10", "ciernie", "arsmagica"):
        assert catalog_url(system) in index


def test_no_character_is_touched_by_a_catalog_edit(make_user, client_for):
    moderator = client_for(make_user(moderator=True))
    character = q10_character(make_user())
    revisions = character.revisions.count()
    skill = Skill.objects.get(system="q10", name="Magia")
    moderator.post(
        edit_url(skill, "skill"),
        {"name": "Magia", "attribute": skill.attribute_id, "description": "Zaklęcia."},
    )
    assert Character.objects.get(pk=character.pk).revisions.count() == revisions


def test_the_admin_shows_a_rows_system_fields_only(make_user, client_for):
    admin_user = make_user()
    admin_user.is_staff = admin_user.is_superuser = True
    admin_user.save()
    client = client_for(admin_user)
    ciernie = Item.objects.get(system="ciernie", name="Uzbrojenie naprowadzane")
    q10 = Trait.objects.get(system="q10", name="Wprawny szermierz")
    ciernie_form = client.get(reverse("admin:characters_item_change", args=[ciernie.pk]))
    q10_form = client.get(reverse("admin:characters_trait_change", args=[q10.pk]))
    assert 'name="rerolls"' in ciernie_form.content.decode()
    assert 'name="keep_modifier"' not in ciernie_form.content.decode()
    assert 'name="is_mount"' not in ciernie_form.content.decode()
    assert 'name="keep_modifier"' in q10_form.content.decode()
    assert 'name="rerolls"' not in q10_form.content.decode()


def test_a_catalog_page_takes_a_fixed_number_of_queries(
    make_user, client_for, django_assert_max_num_queries
):
    client = client_for(make_user())
    for n in range(5):
        services.catalog_entry_create(
            by=make_user(moderator=True),
            model=Item,
            system="ciernie",
            values={"name": f"Przedmiot {n}", "attribute": None, "modifier": 0, "rerolls": True},
        )
    with django_assert_max_num_queries(12):
        assert client.get(catalog_url("ciernie")).status_code == 200
