"""Who tends a character, service errors as 400s, bounded text."""

import pytest
from django.urls import reverse
from django.utils import timezone

from characters import services
from characters.models import Character, HealingPotion, NegativeEffect
from diary import services as diary_services
from diary.models import SessionStatus
from tests.characters.test_character_pages import sheet_post_data
from tests.conftest import polish
from tests.diary_entries import effect_entry, free_entry, grant_entry, hp_entry

pytestmark = pytest.mark.django_db


# --- 6. Only the GM of a running session tends --------------------------------------------


@pytest.fixture
def moved_on(make_user, make_character, make_session):
    """Character played in A (now finished), now plays in B (running) of another GM."""
    gm_a, gm_b, owner = make_user("mg_a"), make_user("mg_b"), make_user("gracz")
    hero = make_character(owner, "Wędrowiec", hp=(80, 100))
    session_a = make_session(gm_a, [hero])
    diary_services.session_transition(session=session_a, by=gm_a, to=SessionStatus.FINISHED)
    session_b = make_session(gm_b, [hero])
    return gm_a, gm_b, hero, session_b


def test_gm_of_a_finished_session_no_longer_tends(moved_on, client_for):
    gm_a, _, hero, _ = moved_on
    client = client_for(gm_a)
    assert (
        client.post(reverse("characters:hp", args=[hero.pk]), {"hp_current": "1"}).status_code
        == 403
    )
    response = client.post(
        reverse("characters:effect_add", args=[hero.pk]), {"kind": "wound", "description": "x"}
    )
    assert response.status_code == 403
    response = client.post(
        reverse("characters:potion_grant", args=[hero.pk]), {"count": "5", "effect": "x"}
    )
    assert response.status_code == 403
    hero.refresh_from_db()
    assert hero.hp_current == 80
    assert not NegativeEffect.objects.exists() and not HealingPotion.objects.exists()


def test_gm_of_the_running_session_tends_in_its_diary(moved_on, client_for):
    # In play the sheet is the sum of the diary's entries: the sheet refuses the GM,
    # the diary's entries (rolls.entries.services) are how the GM of the running session tends.
    _, gm_b, hero, session_b = moved_on
    client = client_for(gm_b)
    assert (
        client.post(reverse("characters:hp", args=[hero.pk]), {"hp_current": "1"}).status_code
        == 403
    )
    response = client.post(
        reverse("characters:potion_grant", args=[hero.pk]), {"count": "1", "effect": "x"}
    )
    assert response.status_code == 403
    hero.refresh_from_db()
    assert hero.hp_current == 80 and not HealingPotion.objects.exists()
    hp_entry(session_b, gm_b, hero, -79)
    grant_entry(session_b, gm_b, hero, 1, "x")
    hero.refresh_from_db()
    assert hero.hp_current == 1 and HealingPotion.objects.count() == 1


# --- 7. A service's ValidationError is a 400 next to the field, never a 500 ---------------


@pytest.fixture
def free_hero(make_user, make_character):
    """A character out of play: its sheet is its owner's bookkeeping."""
    owner = make_user("wolny")
    return owner, make_character(owner, "Wolny", hp=(80, 100))


def test_a_concurrent_hp_max_change_is_a_400_not_a_500(free_hero, client_for, monkeypatch):
    owner, hero = free_hero
    real = services.character_set_hp

    def racing(**kwargs):
        # Someone lowers the maximum between the form's check and the service.
        Character.objects.filter(pk=hero.pk).update(hp_max=60, hp_current=60)
        return real(**kwargs)

    monkeypatch.setattr(services, "character_set_hp", racing)
    client = client_for(owner)
    client.raise_request_exception = False
    response = client.post(reverse("characters:hp", args=[hero.pk]), {"hp_current": "90"})
    assert response.status_code == 400
    assert polish("HP must be between 0 and the maximum.") in response.content.decode()
    assert Character.objects.get(pk=hero.pk).hp_current == 60


def test_a_concurrent_free_of_an_effect_is_a_400(free_hero, client_for, monkeypatch):
    owner, hero = free_hero
    effect = services.effect_add(character=hero, by=owner, kind="wound", description="x")
    real = services.effect_free

    def racing(**kwargs):
        # Another GM tab frees it first.
        NegativeEffect.objects.filter(pk=effect.pk).update(
            freed_at=timezone.now(), freed_note="pierwszy"
        )
        return real(**kwargs)

    monkeypatch.setattr(services, "effect_free", racing)
    client = client_for(owner)
    client.raise_request_exception = False
    response = client.post(
        reverse("characters:effect_free", args=[hero.pk, effect.pk]), {"note": "drugi"}
    )
    assert response.status_code == 400
    assert polish("This effect is already gone.") in response.content.decode()
    effect.refresh_from_db()
    assert effect.freed_note == "pierwszy"


def test_a_concurrently_emptied_potion_is_a_400(table, client_for, monkeypatch):
    # Out of play (the session finished), the owner notes a potion drunk on the sheet.
    potion = grant_entry(table.session, table.gm, table.borys, 1, "+30 PŻ")
    table.session.status = "finished"
    table.session.save()
    real = services.potion_use

    def racing(**kwargs):
        # The GM notes the last potion as drunk in another tab first.
        HealingPotion.objects.filter(pk=potion.pk).update(count=0)
        return real(**kwargs)

    monkeypatch.setattr(services, "potion_use", racing)
    client = client_for(table.bob)
    client.raise_request_exception = False
    response = client.post(reverse("characters:potion_use", args=[table.borys.pk, potion.pk]))
    assert response.status_code == 400
    assert polish("No potions of this kind are left.") in response.content.decode()
    potion.refresh_from_db()
    assert potion.count == 0


# --- 12. Bounded text ---------------------------------------------------------------


def test_a_huge_description_is_refused_next_to_the_field(make_user, client_for):
    owner = make_user()
    response = client_for(owner).post(
        reverse("characters:create") + "?system=forum1000",
        sheet_post_data(description="x" * 2_000_000),
    )
    assert response.status_code == 400
    assert response.context["form"].errors["description"]
    assert 'id="id_description_error"' in response.content.decode()
    assert not Character.objects.exists()


def test_stun_and_immobilisation_hold_a_character_until_freed(
    make_user, make_character, make_session
):
    # The initiative order drops a held character to the end (seed 000 line 119).
    from characters.selectors import held_character_ids

    gm, owner = make_user("mg_held"), make_user("gracz_held")
    held = make_character(owner, "Ogłuszony")
    wounded = make_character(owner, "Ranny")
    session = make_session(gm, [held, wounded])
    effect_entry(session, gm, wounded, "wound", "Cięcie")
    stun = effect_entry(session, gm, held, "stun", "Cios w hełm")
    assert held_character_ids([held.pk, wounded.pk]) == {held.pk}
    free_entry(session, gm, stun, "Ocknął się")
    assert held_character_ids([held.pk, wounded.pk]) == set()
    effect_entry(session, gm, wounded, "immobilisation", "Sieć")
    assert held_character_ids([held.pk, wounded.pk]) == {wounded.pk}
