"""Character pages: building a sheet, its derived numbers, who may read and change it."""

import html
from urllib.parse import urlencode

import pytest
from django.urls import reverse

from characters.models import (
    Attribute,
    Character,
    HealingPotion,
    NegativeEffect,
    SheetRevision,
    Skill,
    Trait,
)
from tests.conftest import polish
from tests.diary_entries import effect_entry

pytestmark = pytest.mark.django_db


def sheet_post_data(**overrides) -> dict:
    data = {"name": "Nowa", "description": "", "hp_max": "100", "hp_current": "100"}
    for attribute in Attribute.objects.filter(system="forum1000"):
        data[f"attr_{attribute.pk}"] = "500"
    for skill in Skill.objects.filter(system="forum1000"):
        data[f"skill_{skill.pk}"] = "0"
    data.update(overrides)
    return data


def test_owner_builds_a_character_through_the_form(make_user, client_for):
    owner = make_user()
    lockpicking = Skill.objects.get(system="forum1000", name="Otwieranie zamków")
    precise = Trait.objects.get(system="forum1000", name="Precyzyjny")
    data = sheet_post_data(**{f"skill_{lockpicking.pk}": "3"})
    data["traits"] = [str(precise.pk)]

    response = client_for(owner).post(reverse("characters:create") + "?system=forum1000", data)

    character = Character.objects.get(owner=owner)
    assert response.status_code == 302
    assert response.url == reverse("characters:detail", args=[character.pk])
    assert character.skill_level(lockpicking.pk) == 3
    assert list(character.traits.all()) == [precise]
    assert character.attribute_values.count() == 8


@pytest.mark.parametrize(
    ("field", "value"),
    [("attr", "1001"), ("attr", "-1"), ("attr", "dużo"), ("skill", "-2"), ("hp_max", "0")],
)
def test_bad_sheet_input_is_refused_next_to_the_field(make_user, client_for, field, value):
    owner = make_user()
    attribute = Attribute.objects.get(system="forum1000", name="Siła")
    skill = Skill.objects.get(system="forum1000", name="Torturowanie")
    key = {"attr": f"attr_{attribute.pk}", "skill": f"skill_{skill.pk}", "hp_max": "hp_max"}[field]

    response = client_for(owner).post(
        reverse("characters:create") + "?system=forum1000", sheet_post_data(**{key: value})
    )

    assert response.status_code == 400
    assert response.context["form"].errors[key]
    assert 'class="error"' in response.content.decode()
    assert not Character.objects.filter(owner=owner).exists()


def test_current_hp_above_max_is_refused_in_polish(make_user, client_for):
    owner = make_user()
    response = client_for(owner).post(
        reverse("characters:create") + "?system=forum1000",
        sheet_post_data(hp_max="50", hp_current="60"),
    )
    assert polish("Current HP cannot exceed the maximum.") in response.content.decode()
    assert not Character.objects.exists()


def test_sheet_shows_skill_thresholds_and_movement(table, client_for):
    response = client_for(table.bob).get(reverse("characters:detail", args=[table.borys.pk]))
    body = response.content.decode()
    rows = {row.skill.name: row for row in response.context["sheet"].skills}
    # Otwieranie zamków: level 3, Zręczność 500 → 40·3 + 500/2 = 370.
    assert rows["Otwieranie zamków"].threshold == 370
    # Undeveloped skills are listed with level 0: Uwodzenie on Charyzma 700 → 350.
    assert rows["Uwodzenie"].level == 0
    assert rows["Uwodzenie"].threshold == 350
    # Szybkość 640 → 32 m on foot; no mount on the sheet, so no mounted movement (RULES 1.5).
    assert response.context["sheet"].movement_on_foot == 32
    assert response.context["sheet"].movement_mounted is None
    assert "370" in body and "32" in body
    assert "64 m" not in body


def test_a_sheet_holding_a_mount_shows_mounted_movement(table, client_for):
    from characters.models import Item, ItemHolding

    horse = Item.objects.get(system="forum1000", is_mount=True)
    ItemHolding.objects.create(character=table.borys, item=horse)
    response = client_for(table.bob).get(reverse("characters:detail", args=[table.borys.pk]))
    # Szybkość 640 → 64 m mounted, only now that the sheet holds a mount.
    assert response.context["sheet"].movement_mounted == 64
    assert "64 m" in response.content.decode()


@pytest.mark.parametrize("who", ["bob", "gm", "alice", "moderator"])
def test_sheet_is_readable_by_owner_gm_co_players_and_moderators(table, client_for, who):
    response = client_for(getattr(table, who)).get(
        reverse("characters:detail", args=[table.borys.pk])
    )
    assert response.status_code == 200


def test_sheet_is_hidden_from_strangers(table, client_for):
    response = client_for(table.outsider).get(reverse("characters:detail", args=[table.borys.pk]))
    assert response.status_code == 404


def test_sheet_requires_login(table, client):
    response = client.get(reverse("characters:detail", args=[table.borys.pk]))
    assert response.status_code == 302
    assert reverse("login") in response.url


@pytest.mark.parametrize(
    ("who", "status"),
    # Who reads the sheet (the GM, a fellow player, a moderator) gets 403; who may not know
    # it exists, 404 (docs/decisions.md, Characters).
    [("gm", 403), ("alice", 403), ("moderator", 403), ("outsider", 404)],
)
def test_only_the_owner_edits_the_sheet(table, client_for, who, status):
    url = reverse("characters:edit", args=[table.borys.pk])
    client = client_for(getattr(table, who))
    assert client.get(url).status_code == status
    response = client.post(url, sheet_post_data(name="Przejęty"))
    assert response.status_code == status
    table.borys.refresh_from_db()
    assert table.borys.name == "Borys"


def test_owner_edits_the_sheet_out_of_play(make_user, make_character, client_for):
    # In play the same form sends a proposal (tests/characters/test_sheet_in_play.py).
    owner = make_user()
    borys = make_character(owner, "Borys", skills={"Otwieranie zamków": 3}, traits=["Precyzyjny"])
    url = reverse("characters:edit", args=[borys.pk])
    client = client_for(owner)
    assert client.get(url).status_code == 200
    response = client.post(url, sheet_post_data(name="Borys Srogi", hp_current="90"))
    assert response.status_code == 302
    borys.refresh_from_db()
    assert (borys.name, borys.hp_current) == ("Borys Srogi", 90)
    # Unticked abilities and zeroed skills are gone from the sheet.
    assert borys.traits.count() == 0
    assert borys.skill_levels.count() == 0


def test_in_play_the_sheet_refuses_the_gms_direct_writes_and_stores_nothing(table, client_for):
    """In play the sheet shows HP and effects as the sum of the diary's entries, so
    the GM's direct sheet writes (HP, effect added or freed, potions granted) answer 403."""
    effect = effect_entry(table.session, table.gm, table.borys, "wound", "Strzała w udzie")
    revisions = SheetRevision.objects.filter(character=table.borys).count()
    gm, pk = client_for(table.gm), table.borys.pk
    for url, data in [
        (reverse("characters:hp", args=[pk]), {"hp_current": "55"}),
        (reverse("characters:effect_add", args=[pk]), {"kind": "wound", "description": "Rana"}),
        (reverse("characters:effect_free", args=[pk, effect.pk]), {"note": "opatrzona"}),
        (reverse("characters:potion_grant", args=[pk]), {"count": "2", "effect": "+30 PŻ"}),
    ]:
        assert gm.post(url, data).status_code == 403, url
    table.borys.refresh_from_db()
    effect.refresh_from_db()
    assert table.borys.hp_current == 80 and effect.freed_at is None
    assert NegativeEffect.objects.filter(character=table.borys).count() == 1
    assert not HealingPotion.objects.exists()
    assert SheetRevision.objects.filter(character=table.borys).count() == revisions
    # The sheet offers no such form; it links to the diary's entry forms, Borys preselected.
    page = html.unescape(gm.get(reverse("characters:detail", args=[pk])).content.decode())
    for name in ("characters:hp", "characters:effect_add", "characters:potion_grant"):
        assert reverse(name, args=[pk]) not in page
    assert reverse("characters:effect_free", args=[pk, effect.pk]) not in page
    diary = reverse("diary:session", args=[table.session.pk])
    assert f'href="{diary}?entry_character={pk}#entries"' in page
    gm_diary = gm.get(f"{diary}?entry_character={pk}").content.decode()
    assert f'<option value="{pk}" selected>' in gm_diary


def test_in_play_the_gms_sheet_services_refuse_too(table):
    """The services check the flags themselves: the sheet's writes are the owner's, out of
    play; in play nothing reaches the sheet without an entry of the session's chain."""
    from django.core.exceptions import PermissionDenied

    from characters import services

    effect = effect_entry(table.session, table.gm, table.borys, "stun", "Cios w hełm")
    with pytest.raises(PermissionDenied):
        services.character_set_hp(character=table.borys, by=table.gm, hp_current=1)
    with pytest.raises(PermissionDenied):
        services.effect_add(character=table.borys, by=table.gm, kind="wound", description="x")
    with pytest.raises(PermissionDenied):
        services.effect_free(effect=effect, by=table.gm, note="x")
    with pytest.raises(PermissionDenied):
        services.potion_grant(character=table.borys, by=table.gm, count=1, effect="x")
    table.borys.refresh_from_db()
    effect.refresh_from_db()
    assert table.borys.hp_current == 80 and effect.freed_at is None
    assert NegativeEffect.objects.count() == 1 and not HealingPotion.objects.exists()


def test_players_cannot_grant_themselves_potions(table, client_for):
    response = client_for(table.bob).post(
        reverse("characters:potion_grant", args=[table.borys.pk]), {"count": "9", "effect": "x"}
    )
    assert response.status_code == 403
    assert not HealingPotion.objects.exists()


@pytest.mark.parametrize(("who", "status"), [("alice", 403), ("moderator", 403), ("outsider", 404)])
def test_others_cannot_tend_a_character(table, client_for, who, status):
    response = client_for(getattr(table, who)).post(
        reverse("characters:hp", args=[table.borys.pk]), {"hp_current": "1"}
    )
    assert response.status_code == status
    table.borys.refresh_from_db()
    assert table.borys.hp_current == 80


def test_hp_above_max_is_refused_on_the_sheet(make_user, make_character, client_for):
    owner = make_user()
    character = make_character(owner, hp=(80, 100))
    response = client_for(owner).post(
        reverse("characters:hp", args=[character.pk]), {"hp_current": "101"}
    )
    assert response.status_code == 400
    assert polish("Current HP cannot exceed the maximum (%(max)s).", max=100) in (
        response.content.decode()
    )
    character.refresh_from_db()
    assert character.hp_current == 80


def test_in_play_the_gm_tends_hp_and_effects_not_the_owner(table, client_for):
    owner = client_for(table.bob)
    response = owner.post(reverse("characters:hp", args=[table.borys.pk]), {"hp_current": "100"})
    assert response.status_code == 403
    table.borys.refresh_from_db()
    assert table.borys.hp_current == 80
    page = owner.get(reverse("characters:detail", args=[table.borys.pk])).content.decode()
    assert (
        polish("The character plays in a running session: its GM tends HP and negative effects.")
        in page
    )


def test_outside_play_the_owner_tends_their_character(make_user, make_character, client_for):
    owner = make_user()
    character = make_character(owner, hp=(50, 100))
    client = client_for(owner)
    client.post(reverse("characters:hp", args=[character.pk]), {"hp_current": "70"})
    character.refresh_from_db()
    assert character.hp_current == 70
    # Out of play the sheet stays the owner's bookkeeping: effects added and freed there.
    added = client.post(
        reverse("characters:effect_add", args=[character.pk]),
        {"kind": "wound", "description": "Strzała w udzie"},
    )
    assert added.status_code == 302
    effect = NegativeEffect.objects.get(character=character)
    freed = client.post(
        reverse("characters:effect_free", args=[character.pk, effect.pk]), {"note": "opatrzona"}
    )
    assert freed.status_code == 302
    effect.refresh_from_db()
    assert effect.freed_at is not None and effect.freed_note == "opatrzona"
    page = client.get(reverse("characters:detail", args=[character.pk])).content.decode()
    assert 'data-testid="tend-in-diary"' not in page


def test_every_save_of_the_sheet_is_kept_with_what_changed(table, client_for):
    # Borys plays: the owner's edit is a proposal, the GM's approval saves it.
    client_for(table.bob).post(
        reverse("characters:edit", args=[table.borys.pk]),
        sheet_post_data(
            name="Borys",
            hp_current="80",
            **{f"attr_{Attribute.objects.get(system='forum1000', name='Siła').pk}": "900"},
        ),
    )
    proposal = table.borys.proposals.get()
    client_for(table.gm).post(
        reverse("characters:proposal_decide", args=[table.borys.pk, proposal.pk]),
        {"decision": "approve"},
    )
    history = reverse("characters:history", args=[table.borys.pk])
    for who in (table.gm, table.moderator, table.bob):
        body = client_for(who).get(history).content.decode()
        assert "Siła" in body and "900" in body
    assert table.borys.revisions.count() == 2
    assert client_for(table.outsider).get(history).status_code == 404


def test_the_sheet_writes_negative_modifiers_with_the_one_minus_sign(table, client_for):
    """One minus sign (U+2212) everywhere, the sheet included."""
    from characters.models import Attribute, Trait

    flaw = Trait.objects.create(
        system="forum1000",
        kind="flaw",
        name="Niezdarny",
        attribute=Attribute.objects.get(system="forum1000", name="Zręczność"),
        modifier=-50,
    )
    table.lirael.traits.add(flaw)
    body = client_for(table.alice).get(f"/characters/{table.lirael.pk}/").content.decode()
    assert f"\u2212{abs(flaw.modifier)} {flaw.attribute.name}" in body
    assert f"-{abs(flaw.modifier)} {flaw.attribute.name}" not in body


def test_a_character_built_for_an_application_goes_back_to_it_chosen(make_user, client_for):
    owner = make_user()
    url = reverse("characters:create") + "?system=forum1000&next=/sessions/7/join/"
    page = client_for(owner).get(url)
    assert page.context["form"].system == "forum1000"
    assert 'data-testid="back-after-save"' in page.content.decode()

    response = client_for(owner).post(url, sheet_post_data())

    character = Character.objects.get(owner=owner)
    assert response.status_code == 302
    assert response.url == f"/sessions/7/join/?character={character.pk}"


@pytest.mark.parametrize(
    "target",
    [
        "https://evil.example/",
        "//evil.example/sessions/7/join/",
        "/\\evil.example/",
        "http:/evil.example",
        "javascript:alert(1)",
        "sessions/7/join/",
    ],
)
def test_a_next_outside_the_site_is_never_followed(make_user, client_for, target):
    owner = make_user()
    url = reverse("characters:create") + "?" + urlencode({"system": "forum1000", "next": target})
    page = client_for(owner).get(url)
    assert 'data-testid="back-after-save"' not in page.content.decode()

    response = client_for(owner).post(url, sheet_post_data())

    character = Character.objects.get(owner=owner)
    assert response.status_code == 302
    assert response.url == reverse("characters:detail", args=[character.pk])


def test_the_system_choice_keeps_where_to_go_back(make_user, client_for):
    page = client_for(make_user()).get(reverse("characters:create") + "?next=/sessions/7/join/")
    body = page.content.decode()
    assert page.status_code == 200
    assert not page.context["systems"].errors
    assert '<input type="hidden" name="next" value="/sessions/7/join/">' in body
