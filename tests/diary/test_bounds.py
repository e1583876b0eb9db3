"""Every diary text has a bound, and so has the Markdown renderer's work."""

import time

import pytest
from django.urls import reverse

from config.markdown import render_narration
from diary.forms import (
    DESCRIPTION_MAX_LENGTH,
    HIDE_REASON_MAX_LENGTH,
    NAME_MAX_LENGTH,
    NARRATION_MAX_LENGTH,
    NC_NOTE_MAX_LENGTH,
)
from diary.models import GameSession, Post
from diary.services import post_create

pytestmark = pytest.mark.django_db

SESSION = {
    "title": "Długa",
    "system": "forum1000",
    "criticals_enabled": "on",
    "npc_mode": "fixed_modifiers",
    "roll_policy": "gm_only",
}


def test_a_two_million_character_description_is_refused_next_to_the_field(make_user, client_for):
    response = client_for(make_user()).post(
        reverse("diary:session_create"), {**SESSION, "description": "x" * 2_000_000}
    )
    form = response.context["form"]
    assert list(form.errors) == ["description"]
    assert "2000000" in form.errors["description"][0]  # Django's Polish max_length message
    assert "znak" in form.errors["description"][0]
    assert not GameSession.objects.exists()


def test_a_description_at_the_limit_is_kept(make_user, client_for):
    response = client_for(make_user()).post(
        reverse("diary:session_create"), {**SESSION, "description": "x" * DESCRIPTION_MAX_LENGTH}
    )
    assert response.status_code == 302
    assert len(GameSession.objects.get().description) == DESCRIPTION_MAX_LENGTH


def test_session_edit_refuses_a_long_title_and_description(table, client_for):
    response = client_for(table.gm).post(
        reverse("diary:session_edit", args=[table.session.pk]),
        {**SESSION, "title": "t" * 121, "description": "x" * (DESCRIPTION_MAX_LENGTH + 1)},
    )
    assert set(response.context["form"].errors) == {"title", "description"}
    table.session.refresh_from_db()
    assert table.session.description == ""


@pytest.mark.parametrize(
    ("field", "limit"), [("narration", NARRATION_MAX_LENGTH), ("nc_note", NC_NOTE_MAX_LENGTH)]
)
def test_post_texts_are_bounded(table, client_for, field, limit):
    import uuid

    data = {"narration": "a", "nc_note": "", "token": str(uuid.uuid4())}
    data[field] = "x" * (limit + 1)
    response = client_for(table.alice).post(
        reverse("diary:post_create", args=[table.session.pk]), data
    )
    assert response.status_code == 400
    assert list(response.context["post_form"].errors) == [field]
    assert not Post.objects.exists()


def test_hide_reason_and_invite_names_are_bounded(table, client_for):
    post = post_create(
        session=table.session, author=table.alice, character=None, narration="a", nc_note=""
    )
    client_for(table.alice).post(
        reverse("diary:post_hide", args=[post.pk]), {"reason": "r" * (HIDE_REASON_MAX_LENGTH + 1)}
    )
    post.refresh_from_db()
    assert not post.is_hidden
    response = client_for(table.gm).post(
        reverse("diary:participants", args=[table.session.pk]),
        {"username": "u" * (NAME_MAX_LENGTH + 1), "name": "n" * (NAME_MAX_LENGTH + 1)},
    )
    assert set(response.context["invite_form"].errors) == {"username", "name"}


# The worst cases found by fuzzing the renderer, each at the longest narration allowed.
PATHOLOGICAL = ["![", "[", "[](", "![a](", "[a", "_*", "*a ", "**a", "~~a", "&#", "\\", "<"]
# Before the fix the longest allowed text took 2.4 s; 1 s leaves room for a loaded machine.
# Timed in this thread's CPU time: rendering is pure computation, and on a shared machine
# (make test runs its two passes side by side, beside whatever else runs) the wall clock
# also counts the time other processes held the core.
RENDER_BOUND_SECONDS = 1.0


@pytest.mark.parametrize("unit", PATHOLOGICAL)
def test_pathological_markdown_of_the_maximum_length_renders_quickly(unit):
    text = (unit * (NARRATION_MAX_LENGTH // len(unit) + 1))[:NARRATION_MAX_LENGTH]
    timings = []
    for _ in range(2):  # the better of two: the machine is shared
        start = time.thread_time()
        render_narration(text)
        timings.append(time.thread_time() - start)
    assert min(timings) < RENDER_BOUND_SECONDS


def test_nested_brackets_with_a_closing_one_render_quickly():
    text = "[" * (NARRATION_MAX_LENGTH - 1) + "]"
    start = time.thread_time()
    render_narration(text)
    assert time.thread_time() - start < RENDER_BOUND_SECONDS


def test_real_links_still_render_past_many_brackets():
    html = render_narration("[" * 300 + "\n\n" + "[tu](https://example.com) " * 50)
    assert html.count('href="https://example.com"') == 50


def test_images_are_not_rendered_but_their_link_is_kept():
    html = render_narration("![mapa](https://example.com/m.png)")
    assert "<img" not in html and 'href="https://example.com/m.png"' in html
