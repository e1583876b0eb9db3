"""Scenes for a split party: whoever runs the session opens scenes and moves characters;
each post lands in its scene; the diary filters by scene and marks each post's scene in the
view of all; "Czekamy na" is told per scene. A session that never splits shows none of it."""

import re

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from diary.models import Participation, Post, Scene
from diary.scenes.services import scene_close, scene_create, scene_move, scene_rename
from tests.conftest import polish
from tests.diary.scenes.helpers import diary, split, write

pytestmark = pytest.mark.django_db


def _scene_of(table, character):
    return Participation.objects.get(session=table.session, character=character).scene


def test_a_session_that_never_splits_shows_nothing_of_scenes(table, client_for):
    write(table, table.gm, None, "Noc zapada.")
    write(table, table.alice, table.lirael, "Lirael czuwa.")
    assert list(Post.objects.values_list("scene", flat=True)) == [None, None]
    for reader in (table.alice, table.gm):
        body = diary(client_for(reader), table)
        assert 'data-testid="scene-tabs"' not in body
        assert 'data-testid="post-scene"' not in body
        assert 'data-testid="awaited-scene' not in body
        assert polish("Main scene") not in body
    # A ?scena= for a session with no scenes shows the whole diary.
    body = diary(client_for(table.alice), table, scena="0")
    assert "Noc zapada." in body and "Lirael czuwa." in body


def test_the_gm_opens_a_scene_and_moves_a_character(table, client_for):
    gm = client_for(table.gm)
    url = reverse("diary:scenes", args=[table.session.pk])
    assert gm.get(url).status_code == 200
    response = gm.post(url, {"action": "create", "name": "W lochach"})
    assert response.status_code == 302
    scene = Scene.objects.get(session=table.session)
    assert scene.name == "W lochach" and scene.is_open
    response = gm.post(url, {"action": "move", "character": table.borys.pk, "scene": scene.pk})
    assert response.status_code == 302
    assert _scene_of(table, table.borys) == scene
    assert _scene_of(table, table.lirael) is None
    page = gm.get(url).content.decode()
    assert re.search(rf'data-testid="scene-{scene.pk}">.*?Borys', page, re.S)
    # The diary's roster says where each character is.
    body = diary(gm, table)
    assert "· W lochach" in body[body.index(f"roster-scene-{table.borys.pk}") :][:80]


def test_bad_scene_forms_are_refused_next_to_their_field(table, client_for):
    gm = client_for(table.gm)
    url = reverse("diary:scenes", args=[table.session.pk])
    empty = gm.post(url, {"action": "create", "name": "  "})
    assert empty.status_code == 400
    assert polish("Give the scene a name.") in empty.content.decode()
    scene_create(session=table.session, by=table.gm, name="W lochach")
    twice = gm.post(url, {"action": "create", "name": "w LOCHACH"})
    assert twice.status_code == 400
    assert polish("This session already has a scene of that name.") in twice.content.decode()
    stranger = gm.post(url, {"action": "move", "character": "999999", "scene": "0"})
    assert stranger.status_code == 400
    assert polish("Choose one of the characters playing in the session.") in (
        stranger.content.decode()
    )
    assert Scene.objects.count() == 1


def test_only_whoever_runs_the_session_manages_scenes(table, client_for):
    url = reverse("diary:scenes", args=[table.session.pk])
    for user in (table.alice, table.moderator):
        assert client_for(user).get(url).status_code == 403
        assert client_for(user).post(url, {"action": "create", "name": "X"}).status_code == 403
    with pytest.raises(PermissionDenied):
        scene_create(session=table.session, by=table.alice, name="X")
    assert not Scene.objects.exists()


def test_a_players_post_lands_in_their_characters_scene(table):
    scene = split(table)
    borys = write(table, table.bob, table.borys, "Borys schodzi do lochu.")
    lirael = write(table, table.alice, table.lirael, "Lirael zostaje na górze.")
    # A player writing as no one: their one character's scene.
    plain = write(table, table.bob, None, "(OOC) Borys zapala pochodnię.")
    # A player cannot send their post elsewhere.
    steered = write(table, table.bob, table.borys, "Borys nasłuchuje.", scene=None)
    assert (borys.scene, lirael.scene, plain.scene, steered.scene) == (scene, None, scene, scene)


def test_the_gm_picks_the_scene_and_a_closed_scene_takes_no_post(table, client_for):
    scene = split(table)
    assert write(table, table.gm, None, "Kapie woda.", scene=scene.pk).scene == scene
    assert write(table, table.gm, None, "Na górze cisza.").scene is None
    # The GM's form offers the scenes; a player's does not.
    assert 'name="scene"' in diary(client_for(table.gm), table)
    assert 'name="scene"' not in diary(client_for(table.alice), table)
    scene_close(session=table.session, by=table.gm, scene_pk=scene.pk)
    assert _scene_of(table, table.borys) is None  # back in the main scene
    with pytest.raises(ValidationError):
        write(table, table.gm, None, "Za późno.", scene=scene.pk)
    with pytest.raises(ValidationError):
        scene_move(
            session=table.session, by=table.gm, character_pk=table.lirael.pk, scene_pk=scene.pk
        )
    # Its posts stay, marked with its name.
    assert Post.objects.filter(scene=scene).count() == 1


def test_the_gm_sends_a_post_to_a_scene_through_the_form(table, client_for):
    import uuid

    scene = split(table)
    gm = client_for(table.gm)
    response = gm.post(
        reverse("diary:post_create", args=[table.session.pk]),
        {"narration": "Szczury piszczą.", "nc_note": "", "token": uuid.uuid4(), "scene": scene.pk},
    )
    assert response.status_code == 302
    assert Post.objects.get(narration="Szczury piszczą.").scene == scene
    wrong = gm.post(
        reverse("diary:post_create", args=[table.session.pk]),
        {"narration": "Gdzie?", "nc_note": "", "token": uuid.uuid4(), "scene": "999999"},
    )
    assert wrong.status_code == 400
    assert polish("Choose one of the session's open scenes.") in wrong.content.decode()
    assert not Post.objects.filter(narration="Gdzie?").exists()


def test_renaming_a_scene_renames_its_posts_marks(table, client_for):
    scene = split(table)
    write(table, table.bob, table.borys, "Borys w ciemności.")
    scene_rename(session=table.session, by=table.gm, scene_pk=scene.pk, name="Katakumby")
    body = diary(client_for(table.alice), table)
    assert polish("Scene: %(name)s", name="Katakumby") in body


def test_the_diary_filters_by_scene_and_marks_each_post_in_the_view_of_all(table, client_for):
    scene = split(table)
    write(table, table.gm, None, "Narracja na górze.")
    write(table, table.bob, table.borys, "Borys w lochu.")
    write(table, table.alice, table.lirael, "Lirael na górze.")
    alice = client_for(table.alice)  # a player of the other scene reads everything
    everything = diary(alice, table)
    assert all(text in everything for text in ("Narracja", "Borys w lochu", "Lirael na górze"))
    marks = re.findall(r'data-testid="post-scene">([^<]*)<', everything)
    assert marks == [
        polish("Scene: %(name)s", name=polish("Main scene")),
        polish("Scene: %(name)s", name="W lochach"),
        polish("Scene: %(name)s", name=polish("Main scene")),
    ]
    assert polish("All scenes") in everything
    dungeon = diary(alice, table, scena=scene.pk)
    assert "Borys w lochu" in dungeon
    assert "Lirael na górze" not in dungeon and "Narracja na górze" not in dungeon
    assert 'data-testid="post-scene"' not in dungeon  # one scene: no marks
    assert f'aria-current="page" data-testid="scene-tab-{scene.pk}"' in dungeon
    main = diary(alice, table, scena="0")
    assert "Lirael na górze" in main and "Borys w lochu" not in main
    # A value naming no scene of the session: every scene.
    assert "Borys w lochu" in diary(alice, table, scena="nie")


def test_a_filtered_diary_pages_by_keyset_within_its_scene(table, client_for, settings):
    from diary import selectors
    from diary.scenes.selectors import in_scene

    scene = split(table)
    for n in range(7):
        write(table, table.bob, table.borys, f"Loch {n}.")
        write(table, table.alice, table.lirael, f"Góra {n}.")
    newest = selectors.diary_page(table.session, size=3, scene=in_scene(scene.pk))
    assert [p.narration for p in newest.posts] == ["Loch 4.", "Loch 5.", "Loch 6."]
    older = selectors.diary_page(
        table.session, size=3, before=newest.older_cursor, scene=in_scene(scene.pk)
    )
    assert [p.narration for p in older.posts] == ["Loch 1.", "Loch 2.", "Loch 3."]
    first = selectors.diary_page(
        table.session, size=3, before=older.older_cursor, scene=in_scene(scene.pk)
    )
    assert [p.narration for p in first.posts] == ["Loch 0."]
    assert first.older_cursor is None
    later = selectors.diary_page(
        table.session, size=3, after=first.posts[0].pk, scene=in_scene(scene.pk)
    )
    assert [p.narration for p in later.posts] == ["Loch 1.", "Loch 2.", "Loch 3."]
    assert later.older_cursor == later.posts[0].pk and later.newer_cursor == later.posts[-1].pk
    main = selectors.diary_page(table.session, size=3, scene=in_scene(0))
    assert [p.narration for p in main.posts] == ["Góra 4.", "Góra 5.", "Góra 6."]
    # The page's links keep the filter.
    body = diary(client_for(table.alice), table, scena=scene.pk, before=newest.posts[0].pk)
    assert f'href="?after={older.posts[-1].pk}&scena={scene.pk}" rel="next"' in body


def _awaited_line(body: str, key) -> str:
    return re.search(rf'data-testid="awaited-scene-{key}">(.*?)</li>', body, re.S).group(1)


def test_awaited_is_told_per_scene(table, client_for):
    scene = split(table)
    gm = client_for(table.gm)
    body = diary(gm, table)
    main_line, dungeon_line = _awaited_line(body, 0), _awaited_line(body, scene.pk)
    assert "Lirael" in main_line and "Borys" not in main_line
    assert "W lochach" in dungeon_line and "Borys" in dungeon_line
    write(table, table.bob, table.borys, "Borys działa.")
    body = diary(gm, table)
    assert polish("everyone here has posted.") in _awaited_line(body, scene.pk)
    assert "Lirael" in _awaited_line(body, 0)


def test_a_players_post_holding_only_rolls_lands_in_their_scene(table):
    from diary.services import post_create_for_rolls

    scene = split(table)
    turn = table.session.current_turn
    bob = post_create_for_rolls(session=table.session, author=table.bob, turn=turn)
    gm = post_create_for_rolls(session=table.session, author=table.gm, turn=turn)
    assert (bob.scene_id, gm.scene_id) == (scene.pk, None)
    with pytest.raises(PermissionDenied):
        post_create_for_rolls(session=table.session, author=table.outsider, turn=turn)


def test_the_gm_reading_one_scene_writes_in_it_by_default(table, client_for):
    scene = split(table)
    gm = client_for(table.gm)
    selected = re.compile(r'<option value="(\d+)" selected>')
    assert selected.findall(diary(gm, table, scena=scene.pk)) == [str(scene.pk)]
    assert selected.findall(diary(gm, table)) == ["0"]
