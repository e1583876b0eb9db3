"""The admin cannot bypass the diary's rules: game records are read-only there."""

import pytest
from django.contrib.auth import get_user_model
from django.forms.models import model_to_dict
from django.urls import reverse

from characters.models import (
    Attribute,
    Character,
    Item,
    ItemHolding,
    SheetRevision,
    Skill,
    Trait,
)
from diary import services as diary_services
from diary.models import GameSession, Participation, Post, Turn
from rolls.engine.forum1000 import SPEED_ATTRIBUTE
from tests.conftest import polish

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin(client, table):
    superuser = get_user_model().objects.create_superuser("szef", password="x-Sekret-1000")
    client.force_login(superuser)
    return client


@pytest.fixture
def post(table):
    # Straight through the ORM: this test is about the admin, not the posting rules.
    turn = Turn.objects.filter(session=table.session).order_by("number").last()
    return Post.objects.create(
        session=table.session, turn=turn, author=table.alice, narration="Lirael czeka."
    )


def snapshot(table):
    return {
        "sessions": list(GameSession.objects.values_list("id", "title", "status")),
        "participations": list(Participation.objects.values_list("id", "session", "status")),
        "turns": list(Turn.objects.values_list("id", "session", "number")),
        "posts": list(Post.objects.values_list("id", "session", "turn", "narration")),
        "characters": list(Character.objects.values_list("id", "name", "hp_current", "hp_max")),
        "revisions": SheetRevision.objects.count(),
    }


def read_only_objects(table, post):
    return [
        (GameSession, table.session.pk),
        (Turn, post.turn_id),
        (Post, post.pk),
        (Character, table.lirael.pk),
    ]


def url(model, action, *args):
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{action}", args=args)


def test_changelists_and_change_pages_are_readable(admin, table, post):
    for model, pk in read_only_objects(table, post):
        assert admin.get(url(model, "changelist")).status_code == 200
        page = admin.get(url(model, "change", pk))
        assert page.status_code == 200
        # Read-only: no save button, no delete link, no add button.
        body = page.content.decode()
        assert 'name="_save"' not in body
        assert url(model, "delete", pk) not in body


def test_posts_to_change_delete_and_add_are_refused(admin, table, post):
    other = diary_services.session_create(
        gm=table.gm,
        title="Inna",
        description="",
        system=table.session.system,
        criticals_enabled=True,
        npc_mode="fixed_modifiers",
        roll_policy="gm_only",
    )
    before = snapshot(table)
    for model, pk in read_only_objects(table, post):
        # A turn moved to another session, a session renamed, a character's HP raised.
        data = {"session": other.pk, "title": "Zmieniona", "name": "X", "hp_current": 100}
        assert admin.post(url(model, "change", pk), data).status_code == 403
        assert admin.post(url(model, "delete", pk), {"post": "yes"}).status_code == 403
        assert admin.post(url(model, "add"), data).status_code == 403
    # The session's participation inline cannot delete a row either.
    participation = Participation.objects.filter(session=table.session).first()
    inline_delete = {
        "title": table.session.title,
        "participations-TOTAL_FORMS": "1",
        "participations-INITIAL_FORMS": "1",
        "participations-0-id": participation.pk,
        "participations-0-DELETE": "on",
    }
    assert (
        admin.post(url(GameSession, "change", table.session.pk), inline_delete).status_code == 403
    )
    assert snapshot(table) == before


def test_catalogs_stay_editable(admin):
    attribute = Attribute.objects.first()
    page = admin.get(url(Attribute, "change", attribute.pk))
    assert page.status_code == 200
    assert 'name="_save"' in page.content.decode()
    assert admin.get(url(Attribute, "add")).status_code == 200


# --- Catalog rows in use keep their rules ----------------------------------------------------


def change_data(trait, **changes):
    data = {
        "system": trait.system,
        "kind": trait.kind,
        "name": trait.name,
        "attribute": trait.attribute_id,
        "modifier": trait.modifier,
        "keep_modifier": trait.keep_modifier,
        "botch_dice_reduction": trait.botch_dice_reduction,
        "description": trait.description,
    }
    return {**data, **changes}


def trait_state(trait):
    trait.refresh_from_db()
    return (trait.system, trait.kind, trait.name, trait.attribute_id, trait.modifier)


def test_a_trait_in_use_keeps_its_rules_but_not_its_description(admin, table):
    trait = Trait.objects.get(system="forum1000", name="Seksapil")  # on Lirael's sheet
    before = trait_state(trait)
    other_attribute = Attribute.objects.exclude(pk=trait.attribute_id).first()
    response = admin.post(
        url(Trait, "change", trait.pk),
        change_data(
            trait,
            name="Urok",
            kind="flaw",
            modifier=trait.modifier + 300,
            attribute=other_attribute.pk,
            description="Opis poprawiony.",
        ),
    )
    assert response.status_code == 302
    assert trait_state(trait) == before
    assert trait.description == "Opis poprawiony."
    # The change page shows the rules as text, not as inputs.
    body = admin.get(url(Trait, "change", trait.pk)).content.decode()
    assert 'name="modifier"' not in body
    assert 'name="name"' not in body
    assert 'name="description"' in body


def test_a_trait_in_use_cannot_be_deleted(admin, table):
    trait = Trait.objects.get(system="forum1000", name="Seksapil")
    assert admin.post(url(Trait, "delete", trait.pk), {"post": "yes"}).status_code == 403
    # Nor through the changelist's bulk action, which names the row in use.
    bulk = admin.post(
        url(Trait, "changelist"),
        {"action": "delete_selected", "_selected_action": [trait.pk], "post": "yes"},
    )
    assert polish("%(entry)s: in use on a character sheet", entry=trait.name) in (
        bulk.content.decode()
    )
    assert Trait.objects.filter(pk=trait.pk).exists()
    assert table.lirael.traits.filter(pk=trait.pk).exists()


def test_an_unused_trait_can_be_edited_and_deleted(admin, table):
    unused = Trait.objects.exclude(characters__isnull=False).first()
    response = admin.post(url(Trait, "change", unused.pk), change_data(unused, modifier=-70))
    assert response.status_code == 302
    unused.refresh_from_db()
    assert unused.modifier == -70
    assert admin.post(url(Trait, "delete", unused.pk), {"post": "yes"}).status_code == 302
    assert not Trait.objects.filter(pk=unused.pk).exists()


def test_a_new_trait_can_be_added(admin, table):
    attribute = Attribute.objects.get(system="forum1000", name="Siła")
    response = admin.post(
        url(Trait, "add"),
        {
            "system": attribute.system,
            "kind": "ability",
            "name": "Żelazny uchwyt",
            "attribute": attribute.pk,
            "modifier": 50,
            "keep_modifier": 0,
            "botch_dice_reduction": 0,
            "description": "",
        },
    )
    assert response.status_code == 302
    assert Trait.objects.get(system="forum1000", name="Żelazny uchwyt").modifier == 50


def test_other_catalog_rows_in_use_keep_their_rules(admin, table):
    speed = Attribute.objects.get(system="forum1000", name=SPEED_ATTRIBUTE)
    skill = Skill.objects.get(system="forum1000", name="Uwodzenie")  # Lirael's
    item = Item.objects.create(
        system=speed.system, name="Buty wiatru", attribute=speed, modifier=30
    )
    ItemHolding.objects.create(character=table.borys, item=item)
    posts = [
        (speed, {"system": speed.system, "name": "Prędkość", "position": 99}),
        (
            skill,
            {"system": skill.system, "name": "Flirt", "attribute": speed.pk, "heals": "wound"},
        ),
        (
            item,
            {"system": item.system, "name": "Buty", "attribute": speed.pk, "modifier": 900},
        ),
    ]
    for row, data in posts:
        before = model_to_dict(row)
        response = admin.post(url(type(row), "change", row.pk), {**data, "description": "Nowy."})
        assert response.status_code == 302, response.content.decode()[:2000]
        row.refresh_from_db()
        assert {k: v for k, v in model_to_dict(row).items() if k != "description"} == {
            k: v for k, v in before.items() if k != "description"
        }
        assert admin.post(url(type(row), "delete", row.pk), {"post": "yes"}).status_code == 403
    assert table.borys.value_of(SPEED_ATTRIBUTE) is not None
