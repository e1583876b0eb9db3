"""RULES 1.5 movement, in the diary's posts and the roll panel together: a post
declares how far its character moves; each move action covers Szybkość/20 m on foot or
Szybkość/10 m mounted (only with a mount on the sheet), and outside combat a turn has two
actions, one of them with a roll."""

import html
import re

import pytest
from django.urls import reverse

from characters.models import Item, ItemHolding
from diary.models import Post
from diary.services import post_edit, post_hide, turn_open_next
from rolls.models import Roll
from tests.conftest import polish
from tests.diary.test_posts import write
from tests.rolls.test_panel import panel_url, single

pytestmark = pytest.mark.django_db

# The table's characters have Szybkość 640: 32 m per move action on foot, 64 m mounted.
ON_FOOT, MOUNTED = 32, 64


def move(client, table, metres, *, character=None, mounted=False, **extra):
    data = {
        "character": (character or table.lirael).pk,
        "narration": "Lirael idzie dalej.",
        "move_metres": str(metres),
        **extra,
    }
    if mounted:
        data["move_mounted"] = "on"
    return write(client, table.session, **data)


def field_error(response, field: str) -> str:
    body = html.unescape(response.content.decode())
    found = re.search(rf'id="id_{field}_error">(.*?)</', body, re.S)
    return found.group(1) if found else ""


def give_a_horse(character):
    ItemHolding.objects.create(
        character=character, item=Item.objects.get(system="forum1000", name="Koń wierzchowy")
    )


def test_one_move_action_covers_szybkosc_over_20_metres(table, client_for):
    response = move(client_for(table.alice), table, ON_FOOT)
    assert response.status_code == 302
    post = Post.objects.get()
    assert (post.move_metres, post.move_mounted, post.move_actions) == (ON_FOOT, False, 1)
    body = html.unescape(client_for(table.bob).get(response.url).content.decode())
    assert "32 m" in body and 'data-testid="post-movement"' in body


def test_two_move_actions_reach_twice_as_far_and_no_further(table, client_for):
    alice = client_for(table.alice)
    assert move(alice, table, 2 * ON_FOOT).status_code == 302
    assert Post.objects.get().move_actions == 2
    turn_open_next(session=table.session, by=table.gm)
    response = move(alice, table, 2 * ON_FOOT + 1)
    assert response.status_code == 400
    error = field_error(response, "move_metres")
    assert "65 m" in error and "3" in error and "Lirael" in error
    assert Post.objects.count() == 1


def test_moves_in_earlier_posts_of_the_turn_count(table, client_for):
    alice = client_for(table.alice)
    assert move(alice, table, ON_FOOT).status_code == 302
    response = move(alice, table, ON_FOOT + 1)  # two more actions: only one is left
    assert response.status_code == 400
    assert field_error(response, "move_metres")
    assert move(alice, table, ON_FOOT).status_code == 302
    assert Post.objects.count() == 2
    # A new turn gives two new actions.
    turn_open_next(session=table.session, by=table.gm)
    assert move(alice, table, 2 * ON_FOOT).status_code == 302


def test_an_action_roll_leaves_one_move(table, client_for):
    assert client_for(table.gm).post(panel_url(table), single(table.lirael)).status_code == 302
    alice = client_for(table.alice)
    assert move(alice, table, 2 * ON_FOOT).status_code == 400
    assert move(alice, table, ON_FOOT).status_code == 302


def test_after_two_moves_an_action_roll_needs_the_gms_reason(table, client_for):
    assert move(client_for(table.alice), table, 2 * ON_FOOT).status_code == 302
    gm = client_for(table.gm)
    refused = gm.post(panel_url(table), single(table.lirael))
    assert refused.status_code == 400
    message = polish(
        "%(name)s has used both actions of this turn moving. Outside combat a turn has two "
        "actions: a third one only if the GM allows it, with a reason.",
        name="Lirael",
    )
    assert message in html.unescape(refused.content.decode())
    assert not Roll.objects.exists()
    reason = "Pościg: Lirael skacze przez płot w biegu"
    allowed = gm.post(panel_url(table), single(table.lirael, extra_action_reason=reason))
    assert allowed.status_code == 302
    roll = Roll.objects.get()
    assert roll.record["extra_action"] == {
        "reason": reason,
        "earlier_seq": None,
        "number": 3,
        "moves": 2,
    }
    shown = polish(
        "A third action this turn (after two moves), allowed by the GM: %(reason)s", reason=reason
    )
    assert shown in html.unescape(client_for(table.bob).get(allowed.url).content.decode())


def test_riding_needs_a_mount_on_the_sheet(table, client_for):
    alice = client_for(table.alice)
    response = move(alice, table, MOUNTED, mounted=True)
    assert response.status_code == 400
    assert polish("%(name)s has no mount on the sheet.", name="Lirael") in field_error(
        response, "move_mounted"
    )
    assert not Post.objects.exists()
    give_a_horse(table.lirael)
    assert move(alice, table, MOUNTED, mounted=True).status_code == 302
    post = Post.objects.get()
    assert (post.move_metres, post.move_mounted, post.move_actions) == (MOUNTED, True, 1)


def test_movement_belongs_to_a_character(table, client_for):
    response = write(
        client_for(table.gm), table.session, narration="Mgła gęstnieje.", move_metres="10"
    )
    assert response.status_code == 400
    assert field_error(response, "move_metres")
    assert not Post.objects.exists()


@pytest.mark.parametrize("bad", ["-1", "abc", "10001", "1.5"])
def test_bad_metres_are_refused_next_to_the_field(table, client_for, bad):
    response = move(client_for(table.alice), table, bad)
    assert response.status_code == 400
    assert field_error(response, "move_metres")
    assert not Post.objects.exists()


def test_in_combat_moves_are_counted_not_refused(table, client_for, monkeypatch):
    monkeypatch.setattr("rolls.selectors.in_combat", lambda session: True)
    alice = client_for(table.alice)
    assert move(alice, table, 2 * ON_FOOT).status_code == 302
    assert move(alice, table, ON_FOOT).status_code == 302
    assert sum(Post.objects.values_list("move_actions", flat=True)) == 3


def test_a_hidden_posts_movement_no_longer_counts(table, client_for):
    alice = client_for(table.alice)
    assert move(alice, table, 2 * ON_FOOT).status_code == 302
    post_hide(post=Post.objects.get(), by=table.gm, reason="pomyłka")
    assert move(alice, table, 2 * ON_FOOT).status_code == 302


def test_an_edit_rechecks_movement_without_its_own_old_moves(table, client_for):
    alice = client_for(table.alice)
    assert move(alice, table, ON_FOOT).status_code == 302
    post = Post.objects.get()
    post_edit(
        post=post,
        by=table.alice,
        character=table.lirael,
        narration="Jednak biegnie.",
        nc_note="",
        move_metres=2 * ON_FOOT,
    )
    post.refresh_from_db()
    assert (post.move_metres, post.move_actions, post.version) == (2 * ON_FOOT, 2, 2)
    assert post.revisions.get(version=2).move_metres == 2 * ON_FOOT
    response = client_for(table.alice).post(
        reverse("diary:post_edit", args=[post.pk]),
        {"character": table.lirael.pk, "narration": "Dalej!", "move_metres": "100"},
    )
    assert response.status_code == 400
    assert field_error(response, "move_metres")
    post.refresh_from_db()
    assert (post.move_metres, post.version) == (2 * ON_FOOT, 2)


def test_the_turn_shows_each_characters_use_of_it(table, client_for):
    alice = client_for(table.alice)
    move(alice, table, ON_FOOT + 1)
    client_for(table.gm).post(panel_url(table), single(table.borys))
    page = client_for(table.bob).get(reverse("diary:session", args=[table.session.pk]))
    rows = {row.character.name: row for row in page.context["turn_status"].characters}
    assert (rows["Lirael"].metres, rows["Lirael"].move_actions, rows["Lirael"].actions) == (
        33,
        2,
        2,
    )
    assert (rows["Borys"].action_rolls, rows["Borys"].actions) == (1, 1)
    body = html.unescape(page.content.decode())
    usage = re.findall(r'data-testid="turn-usage">(.*?)</li>', body, re.S)
    lirael = next(line for line in usage if line.startswith("Lirael"))
    assert "33 m" in lirael and "2/2" in lirael


def test_other_systems_count_no_movement(table, client_for):
    from diary.models import GameSession

    GameSession.objects.filter(pk=table.session.pk).update(system="q10")
    page = client_for(table.alice).get(reverse("diary:session", args=[table.session.pk]))
    assert 'name="move_metres"' not in page.content.decode()
    from django.core.exceptions import ValidationError

    from diary.services import post_create

    table.session.refresh_from_db()
    with pytest.raises(ValidationError) as refused:
        post_create(
            session=table.session,
            author=table.alice,
            character=table.lirael,
            narration="x",
            nc_note="",
            move_metres=5,
        )
    assert "move_metres" in refused.value.message_dict
    assert not Post.objects.exists()
