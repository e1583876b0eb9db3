"""Refusals the form fuzzing found bare: each now says why on the page, next to its field
where the form has one, and stores nothing."""

import html
import re

from django.urls import reverse

from characters.models import Character
from diary.models import Npc, Post
from tests.site.test_access_matrix import World


def errors(response) -> list[str]:
    page = html.unescape(response.content.decode())
    return re.findall(r'<p class="error"[^>]*>([^<]+)</p>', page)


def test_an_empty_post_to_a_form_says_which_fields_it_needs(
    db, make_user, make_character, make_session
):
    world = World(make_user, make_character, make_session)
    client = world.client("gm")
    npcs = Npc.objects.count()
    response = client.post(reverse("diary:npcs", args=[world.session.pk]), {})
    assert response.status_code == 400
    assert re.search(r'id="id_name_error"', response.content.decode())
    assert errors(response)
    assert Npc.objects.count() == npcs


def test_a_post_missing_its_hidden_token_says_so_and_posts_nothing(
    db, make_user, make_character, make_session
):
    world = World(make_user, make_character, make_session)
    client = world.client("player")
    posts = Post.objects.count()
    url = reverse("diary:post_create", args=[world.session.pk])
    response = client.post(url, {"narration": "Idę dalej.", "character": world.character.pk})
    assert response.status_code == 400
    assert 'id="id_token_error"' in response.content.decode()
    assert any("nic nie zostało opublikowane" in e for e in errors(response)), errors(response)
    assert Post.objects.count() == posts


def test_a_catalog_id_beyond_64_bits_is_refused_not_a_server_error(
    db, make_user, make_character, make_session
):
    world = World(make_user, make_character, make_session)
    client = world.client("player")
    characters = Character.objects.count()
    url = reverse("characters:edit", args=[world.character.pk])
    response = client.post(url, {"name": "Cyra", "traits": ["1", "9" * 40]})
    assert response.status_code == 400
    assert errors(response)
    assert Character.objects.count() == characters
