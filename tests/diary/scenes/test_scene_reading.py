"""Reading a split session: one read mark per session (the diary is one story), a page of
one scene reads on in that scene without reading another's posts by skipping them, its
"first unread" is that scene's, and the recap says which scene each new post is in."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from diary.models import DIARY_PAGE_SIZE, ReadMark
from diary.recap.presenters import recap_text
from diary.recap.selectors import session_recap
from tests.conftest import polish
from tests.diary.scenes.helpers import diary, split, write

pytestmark = pytest.mark.django_db


def _mark(user, table) -> int:
    return ReadMark.objects.get(user=user, session=table.session).last_seen_post_id


def _first_unread(body: str) -> int | None:
    found = re.search(r'id="post-(\d+)">\s*<p class="new-marker" data-testid="first-unread"', body)
    return int(found.group(1)) if found else None


def test_a_page_of_one_scene_reads_on_up_to_another_scenes_unread_post(table, client_for):
    scene = split(table)
    write(table, table.gm, None, "Początek.")
    bob = client_for(table.bob)
    diary(bob, table)  # Bob has read the beginning
    read_until = _mark(table.bob, table)
    dungeon_1 = write(table, table.gm, None, "Loch pierwszy.", scene=scene.pk)
    upstairs = write(table, table.alice, table.lirael, "Lirael na górze.")
    dungeon_2 = write(table, table.gm, None, "Loch drugi.", scene=scene.pk)
    # Bob reads his own scene: its first unread post is the dungeon's first.
    body = diary(bob, table, scena=scene.pk)
    assert _first_unread(body) == dungeon_1.pk
    assert "Lirael na górze." not in body
    # The mark moved up to the post before the other scene's unread one, not past it.
    assert read_until < _mark(table.bob, table) < upstairs.pk
    # The view of all still leads him to Lirael's post, which he has not read.
    body = diary(bob, table)
    assert _first_unread(body) == upstairs.pk
    # Read there, the whole diary is read.
    assert _mark(table.bob, table) == dungeon_2.pk
    body = diary(bob, table, scena=scene.pk)
    assert _first_unread(body) is None


def test_the_first_unread_link_of_a_scene_keeps_the_scene(table, client_for):
    scene = split(table)
    write(table, table.gm, None, "Początek.")
    bob = client_for(table.bob)
    diary(bob, table)
    first = write(table, table.gm, None, "Loch 0.", scene=scene.pk)
    for n in range(1, DIARY_PAGE_SIZE + 2):
        write(table, table.gm, None, f"Loch {n}.", scene=scene.pk)
    body = diary(bob, table, scena=scene.pk)
    link = re.search(r'href="([^"]+)" data-testid="jump-unread"', body).group(1)
    assert link.endswith(f"?scena={scene.pk}&after={first.pk - 1}#post-{first.pk}")


def test_the_recap_says_which_scene_each_new_post_is_in(table, client_for):
    split(table)
    write(table, table.gm, None, "Początek.")
    diary(client_for(table.alice), table)
    write(table, table.bob, table.borys, "Borys w lochu.")
    write(table, table.gm, None, "Na górze cisza.")
    mark = ReadMark.objects.get(user=table.alice, session=table.session)
    recap = session_recap(
        table.session,
        table.alice,
        mark=mark.last_seen_post_id,
        seq=mark.last_seen_seq,
        moved_at=mark.moved_at,
    )
    authors = [(a.name, a.scene) for turn in recap.turns for a in turn.authors]
    assert authors == [("Borys", "W lochach"), ("mg", polish("Main scene"))]
    # On the page, once she comes back after a while.
    ReadMark.objects.filter(user=table.alice).update(moved_at=timezone.now() - timedelta(days=2))
    body = diary(client_for(table.alice), table)
    assert re.findall(r'data-testid="recap-scene">· ([^<]+)<', body) == [
        "W lochach",
        polish("Main scene"),
    ]
    # And in the digest's text.
    assert "Borys · W lochach (1)" in recap_text(recap)


def test_the_recap_of_a_session_that_never_split_names_no_scene(table, client_for):
    write(table, table.gm, None, "Początek.")
    diary(client_for(table.alice), table)
    write(table, table.bob, table.borys, "Borys idzie.")
    mark = ReadMark.objects.get(user=table.alice, session=table.session)
    recap = session_recap(
        table.session, table.alice, mark=mark.last_seen_post_id, seq=0, moved_at=mark.moved_at
    )
    assert [a.scene for turn in recap.turns for a in turn.authors] == [""]


def test_the_first_unread_link_says_the_posts_scene(table, client_for):
    scene = split(table)
    write(table, table.gm, None, "Początek.")
    alice = client_for(table.alice)
    diary(alice, table)
    write(table, table.bob, table.borys, "Borys w lochu.")
    # The first unread post is on an earlier page than the newest (read for its scene).
    for n in range(DIARY_PAGE_SIZE + 1):
        write(table, table.gm, None, f"Na górze {n}.")
    body = diary(alice, table)
    assert "Borys w lochu." not in body
    assert re.search(r'data-testid="jump-unread-scene">\(W lochach\)<', body)
    # One scene's page: its own first unread post, no name needed.
    assert 'data-testid="jump-unread-scene"' not in diary(alice, table, scena=scene.pk)
