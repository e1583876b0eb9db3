"""Sheets in play, who tends a character, errors, bounds."""

import uuid

import pytest
from django.urls import reverse

from characters import services
from characters.access import access_character
from characters.models import (
    Attribute,
    Character,
    SheetProposal,
    Trait,
)
from diary import services as diary_services
from diary.models import SessionStatus
from tests.characters.test_character_pages import sheet_post_data
from tests.conftest import polish
from tests.diary_entries import effect_entry, free_entry, grant_entry, hp_entry

pytestmark = pytest.mark.django_db


def _strength():
    return Attribute.objects.get(system="forum1000", name="Siła")


def _borys_data(**overrides):
    """The owner's form for Borys (fixture values) with some changes."""
    data = sheet_post_data(name="Borys", hp_current="80")
    data.update(overrides)
    return data


# --- 5. In play, the owner's edits wait for the GM ---------------------------------------


def test_in_play_the_owners_edit_becomes_a_proposal_and_changes_nothing(table, client_for):
    strength = _strength()
    response = client_for(table.bob).post(
        reverse("characters:edit", args=[table.borys.pk]),
        _borys_data(hp_max="200", hp_current="200", **{f"attr_{strength.pk}": "1000"}),
    )
    assert response.status_code == 302
    borys = Character.objects.get(pk=table.borys.pk)
    assert (borys.hp_current, borys.hp_max) == (80, 100)
    assert borys.value_of("Siła") == 450
    proposal = SheetProposal.objects.get(character=borys)
    assert proposal.status == "pending" and proposal.proposed_by == table.bob
    assert table.borys.revisions.count() == 1  # only the creation


def test_the_pending_proposal_shows_as_a_diff_to_owner_and_gm_only(table, client_for):
    strength = _strength()
    client_for(table.bob).post(
        reverse("characters:edit", args=[table.borys.pk]),
        _borys_data(**{f"attr_{strength.pk}": "1000"}),
    )
    url = reverse("characters:detail", args=[table.borys.pk])
    for who in (table.bob, table.gm):
        body = client_for(who).get(url).content.decode()
        assert polish("Changes waiting for the GM's approval") in body
        assert "Siła" in body and "450" in body and "1000" in body
    gm_page = client_for(table.gm).get(url).content.decode()
    assert polish("Approve the changes") in gm_page and polish("Reject the changes") in gm_page
    owner_page = client_for(table.bob).get(url).content.decode()
    assert polish("Approve the changes") not in owner_page
    for who in (table.alice, table.moderator):
        body = client_for(who).get(url).content.decode()
        assert polish("Changes waiting for the GM's approval") not in body


def test_a_new_proposal_supersedes_the_pending_one(table, client_for):
    client = client_for(table.bob)
    url = reverse("characters:edit", args=[table.borys.pk])
    client.post(url, _borys_data(name="Borys I"))
    client.post(url, _borys_data(name="Borys II"))
    statuses = list(
        SheetProposal.objects.filter(character=table.borys).order_by("id").values_list("status")
    )
    assert statuses == [("superseded",), ("pending",)]


def test_gm_approves_a_proposal_and_the_history_says_who(table, client_for):
    strength = _strength()
    seductive = Trait.objects.get(system="forum1000", name="Seksapil")
    client_for(table.bob).post(
        reverse("characters:edit", args=[table.borys.pk]),
        _borys_data(hp_max="120", traits=[str(seductive.pk)], **{f"attr_{strength.pk}": "700"}),
    )
    proposal = SheetProposal.objects.get()
    response = client_for(table.gm).post(
        reverse("characters:proposal_decide", args=[table.borys.pk, proposal.pk]),
        {"decision": "approve", "comment": "Zasłużone."},
    )
    assert response.status_code == 302
    borys = Character.objects.get(pk=table.borys.pk)
    assert borys.value_of("Siła") == 700
    assert borys.hp_max == 120 and borys.hp_current == 80  # current HP stays the GM's
    assert list(borys.traits.all()) == [seductive]
    proposal.refresh_from_db()
    assert proposal.status == "approved" and proposal.decided_by == table.gm
    assert proposal.comment == "Zasłużone."
    history = client_for(table.bob).get(reverse("characters:history", args=[borys.pk]))
    body = history.content.decode()
    assert polish("Proposed by %(who)s, approved by %(gm)s", who="bartek", gm="mg") in body
    assert "700" in body


def test_gm_rejects_a_proposal_and_nothing_changes(table, client_for):
    strength = _strength()
    client_for(table.bob).post(
        reverse("characters:edit", args=[table.borys.pk]),
        _borys_data(**{f"attr_{strength.pk}": "1000"}),
    )
    proposal = SheetProposal.objects.get()
    client_for(table.gm).post(
        reverse("characters:proposal_decide", args=[table.borys.pk, proposal.pk]),
        {"decision": "reject", "comment": "Za dużo."},
    )
    proposal.refresh_from_db()
    assert proposal.status == "rejected" and proposal.comment == "Za dużo."
    borys = Character.objects.get(pk=table.borys.pk)
    assert borys.value_of("Siła") == 450
    assert borys.revisions.count() == 1


@pytest.mark.parametrize("who", ["bob", "alice", "moderator"])
def test_only_the_running_sessions_gm_decides(table, client_for, who):
    client_for(table.bob).post(
        reverse("characters:edit", args=[table.borys.pk]), _borys_data(name="Borys Wielki")
    )
    proposal = SheetProposal.objects.get()
    response = client_for(getattr(table, who)).post(
        reverse("characters:proposal_decide", args=[table.borys.pk, proposal.pk]),
        {"decision": "approve"},
    )
    assert response.status_code == 403  # each of them reads the sheet
    proposal.refresh_from_db()
    assert proposal.status == "pending"
    assert Character.objects.get(pk=table.borys.pk).name == "Borys"


def test_approval_revalidates_hp_max_against_current_hp(table, client_for):
    client_for(table.bob).post(
        reverse("characters:edit", args=[table.borys.pk]), _borys_data(hp_max="90")
    )
    proposal = SheetProposal.objects.get()
    # Meanwhile the GM heals Borys to 95 (in the diary: in play the sheet writes no HP): the
    # proposed maximum is now below the current HP.
    hp_entry(table.session, table.gm, table.borys, +15, "Opatrunek")
    response = client_for(table.gm).post(
        reverse("characters:proposal_decide", args=[table.borys.pk, proposal.pk]),
        {"decision": "approve"},
    )
    assert response.status_code == 400
    assert (
        polish(
            "The maximum HP (%(max)s) would be below the current HP (%(current)s).",
            max=90,
            current=95,
        )
        in response.content.decode()
    )
    proposal.refresh_from_db()
    assert proposal.status == "pending"
    assert Character.objects.get(pk=table.borys.pk).hp_max == 100


def test_approval_revalidates_the_catalog(table, client_for):
    seductive = Trait.objects.get(system="forum1000", name="Seksapil")
    client_for(table.bob).post(
        reverse("characters:edit", args=[table.borys.pk]),
        _borys_data(traits=[str(seductive.pk)]),
    )
    proposal = SheetProposal.objects.get()
    seductive.characters.clear()
    Trait.objects.filter(pk=seductive.pk).delete()  # the catalog changed since
    response = client_for(table.gm).post(
        reverse("characters:proposal_decide", args=[table.borys.pk, proposal.pk]),
        {"decision": "approve"},
    )
    assert response.status_code == 400
    assert (
        polish(
            "The catalog has changed since this proposal was made; ask the player to send it again."
        )
        in response.content.decode()
    )
    proposal.refresh_from_db()
    assert proposal.status == "pending"


def test_gm_finds_waiting_proposals_on_the_home_page(table, client_for):
    client_for(table.bob).post(
        reverse("characters:edit", args=[table.borys.pk]), _borys_data(name="Borys Wielki")
    )
    body = client_for(table.gm).get(reverse("home")).content.decode()
    assert polish("Sheet changes waiting for your decision") in body
    assert reverse("characters:detail", args=[table.borys.pk]) in body
    other = client_for(table.alice).get(reverse("home")).content.decode()
    assert polish("Sheet changes waiting for your decision") not in other


def test_outside_play_the_owner_still_edits_directly(make_user, make_character, client_for):
    owner = make_user()
    character = make_character(owner, "Wolna", hp=(80, 100))
    client_for(owner).post(
        reverse("characters:edit", args=[character.pk]),
        sheet_post_data(name="Wolna", hp_current="90"),
    )
    character.refresh_from_db()
    assert character.hp_current == 90
    assert not SheetProposal.objects.exists()


def test_every_change_of_the_sheet_is_in_its_history(table, client_for):
    # In play the GM changes HP, effects and potions through the diary's entries.
    session, gm, pk = table.session, table.gm, table.borys.pk
    hp_entry(session, gm, table.borys, -25, "Cios")
    effect = effect_entry(session, gm, table.borys, "wound", "Rana")
    free_entry(session, gm, effect, "opatrzona")
    potion = grant_entry(session, gm, table.borys, 2, "+30 PŻ")
    # In play the potion is drunk in the diary; the sheet's history has it too.
    from rolls.access import sign_token

    used = client_for(table.bob).post(
        reverse("rolls:item_use", args=[table.session.pk]),
        {"token": sign_token(table.bob, table.session, uuid.uuid4()), "potion": str(potion.pk)},
    )
    assert used.status_code == 302, used.content.decode()
    kinds = list(table.borys.revisions.order_by("id").values_list("kind", "edited_by__username"))
    assert kinds == [
        ("created", "bartek"),
        ("damage", "mg"),
        ("effect_added", "mg"),
        ("effect_freed", "mg"),
        ("potion_granted", "mg"),
        ("potion_used", "bartek"),
    ]
    body = client_for(table.bob).get(reverse("characters:history", args=[pk])).content.decode()
    hp_set = polish("HP changed in the diary")
    assert hp_set[0].upper() + hp_set[1:] in body and "Rana" in body and "opatrzona" in body


def test_sheet_record_change_is_there_for_other_apps(table):
    services.sheet_record_change(character=table.borys, by=table.gm, note="Leczenie: rzut #3")
    revision = table.borys.revisions.first()
    assert (revision.kind, revision.note, revision.edited_by) == (
        "other",
        "Leczenie: rzut #3",
        table.gm,
    )


# --- 8. One access layer --------------------------------------------------------------


def test_access_character_flags(table):
    from django.http import Http404

    owner = access_character(table.bob, table.borys.pk)
    assert owner.can_view and owner.can_propose and not owner.can_edit and not owner.can_tend
    # In play a potion is used in the diary (rolls:item_use), not on the sheet.
    assert owner.can_use_potions and not owner.can_use_potions_on_sheet
    assert not owner.can_grant_potions
    gm = access_character(table.gm, table.borys.pk)
    assert gm.can_decide_proposal and not gm.can_propose
    # In play the GM tends the character only through the diary's entries.
    assert not gm.can_tend and not gm.can_grant_potions_on_sheet
    assert gm.tends_in_diary and gm.can_tend_by_entry and gm.can_grant_potions
    assert not (owner.tends_in_diary or owner.can_tend_by_entry)
    fellow = access_character(table.alice, table.borys.pk)
    assert fellow.can_view and not (fellow.can_tend or fellow.can_propose or fellow.can_edit)
    with pytest.raises(Http404):
        access_character(table.outsider, table.borys.pk)
    with pytest.raises(Http404):
        access_character(table.gm, 999_999)


# --- 12. Bounded text -------------------------------------------------------------------


def test_a_long_gm_comment_is_refused(table, client_for):
    client_for(table.bob).post(
        reverse("characters:edit", args=[table.borys.pk]), _borys_data(name="Borys Wielki")
    )
    proposal = SheetProposal.objects.get()
    response = client_for(table.gm).post(
        reverse("characters:proposal_decide", args=[table.borys.pk, proposal.pk]),
        {"decision": "reject", "comment": "x" * 5000},
    )
    assert response.status_code == 400
    proposal.refresh_from_db()
    assert proposal.status == "pending"


def test_a_proposal_below_the_current_hp_is_refused_next_to_the_field(table, client_for):
    response = client_for(table.bob).post(
        reverse("characters:edit", args=[table.borys.pk]), _borys_data(hp_max="70")
    )
    assert response.status_code == 400
    assert response.context["form"].errors["hp_max"] == [
        polish(
            "The maximum HP (%(max)s) would be below the current HP (%(current)s).",
            max=70,
            current=80,
        )
    ]
    assert not SheetProposal.objects.exists()


def test_a_proposal_that_changes_nothing_is_refused(table, client_for):
    borys = table.borys
    data = sheet_post_data(name="Borys", hp_max="100")
    for row in borys.attribute_values.all():
        data[f"attr_{row.attribute_id}"] = str(row.value)
    for row in borys.skill_levels.all():
        data[f"skill_{row.skill_id}"] = str(row.level)
    data["traits"] = [str(t.pk) for t in borys.traits.all()]
    response = client_for(table.bob).post(reverse("characters:edit", args=[borys.pk]), data)
    assert response.status_code == 400
    assert polish("The proposal changes nothing on the sheet.") in response.content.decode()
    assert not SheetProposal.objects.exists()


def test_a_proposal_left_when_play_ends_gives_way_to_a_direct_edit(table, client_for):
    client_for(table.bob).post(
        reverse("characters:edit", args=[table.borys.pk]), _borys_data(name="Borys Wielki")
    )
    diary_services.session_transition(session=table.session, by=table.gm, to=SessionStatus.FINISHED)
    response = client_for(table.bob).post(
        reverse("characters:edit", args=[table.borys.pk]), _borys_data(name="Borys Stary")
    )
    assert response.status_code == 302
    assert Character.objects.get(pk=table.borys.pk).name == "Borys Stary"
    assert SheetProposal.objects.get().status == "superseded"


def test_the_edit_form_starts_from_the_owners_pending_proposal(table, client_for):
    client = client_for(table.bob)
    url = reverse("characters:edit", args=[table.borys.pk])
    client.post(url, _borys_data(name="Borys Wielki"))
    form = client.get(url).context["form"]
    assert form["name"].value() == "Borys Wielki"
    assert "hp_current" not in form.fields
