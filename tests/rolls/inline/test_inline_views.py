"""Dice in the narration through the diary's pages: the preview shows each expression's
exact odds (as the free-roll page does) or the refusal next to the narration; publishing
an invalid one is refused there too, nothing stored."""

import html
import uuid

import pytest
from django.test import Client
from django.urls import reverse

from diary.models import GameSession, Post
from rolls.models import InlineRoll, Roll
from tests.conftest import polish

pytestmark = pytest.mark.django_db


def logged_in(user) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="pl")
    client.force_login(user)
    return client


def fields(t, narration):
    return {"narration": narration, "character": t.lirael.pk, "token": uuid.uuid4()}


def allow_players(t):
    GameSession.objects.filter(pk=t.session.pk).update(players_free_rolls=True)


def test_the_preview_shows_each_expression_with_its_exact_odds(table):
    allow_players(table)
    url = reverse("diary:post_preview", args=[table.session.pk])
    answer = logged_in(table.alice).post(url, fields(table, "Skacze! [[1k20+3 skok]]"))
    body = html.unescape(answer.content.decode())
    assert answer.status_code == 200
    assert 'data-testid="inline-dice-preview"' in body
    assert "<strong>1k20+3</strong> skok" in body
    assert 'data-testid="inline-dice-mean">13,50<' in body  # (4 + 23) / 2, exactly
    assert not Post.objects.exists() and not Roll.objects.exists()


def test_an_invalid_expression_is_refused_next_to_the_narration(table):
    allow_players(table)
    client = logged_in(table.alice)
    preview = client.post(
        reverse("diary:post_preview", args=[table.session.pk]), fields(table, "[[2x6 cios]]")
    )
    assert preview.status_code == 400
    assert 'id="id_narration_error"' in preview.content.decode()
    published = client.post(
        reverse("diary:post_create", args=[table.session.pk]), fields(table, "[[2x6 cios]]")
    )
    assert published.status_code == 400
    body = html.unescape(published.content.decode())
    assert 'id="id_narration_error"' in body and "[[2x6 cios]]:" in body
    assert not Post.objects.exists() and not Roll.objects.exists()


def test_a_player_not_allowed_free_rolls_is_told_so_next_to_the_narration(table):
    published = logged_in(table.alice).post(
        reverse("diary:post_create", args=[table.session.pk]), fields(table, "[[1k6 los]]")
    )
    assert published.status_code == 400
    body = html.unescape(published.content.decode())
    refusal = polish(
        "The GM has not allowed players to make free-form rolls in this session. "
        "Your character's dice are rolled from the roll panel."
    )
    assert refusal in body
    assert not Post.objects.exists()


def test_published_dice_show_in_the_diary_linked_to_their_entries(table):
    allow_players(table)
    client = logged_in(table.alice)
    answer = client.post(
        reverse("diary:post_create", args=[table.session.pk]), fields(table, "[[1k20+3 skok]]")
    )
    assert answer.status_code == 302
    row = InlineRoll.objects.select_related("roll").get()
    page = client.get(answer.url).content.decode()
    link = reverse("rolls:detail", args=[table.session.pk, row.roll.seq])
    assert f'<a class="inline-roll" href="{link}"' in page
    assert client.get(link).status_code == 200


def test_the_preview_tells_a_player_without_free_rolls_next_to_the_narration(table):
    url = reverse("diary:post_preview", args=[table.session.pk])
    answer = logged_in(table.alice).post(url, fields(table, "[[1k20+3 skok]]"))
    assert answer.status_code == 400
    body = html.unescape(answer.content.decode())
    assert 'id="id_narration_error"' in body
    assert (
        polish(
            "The GM has not allowed players to make free-form rolls in this session. "
            "Your character's dice are rolled from the roll panel."
        )
        in body
    )


def test_the_preview_refuses_more_dice_than_publishing_would_roll(table):
    allow_players(table)
    narration = " ".join(f"[[1k6 los {i}]]" for i in range(21))
    url = reverse("diary:post_preview", args=[table.session.pk])
    answer = logged_in(table.alice).post(url, fields(table, narration))
    assert answer.status_code == 400
    body = html.unescape(answer.content.decode())
    refusal = polish(
        "A post holds at most %(max)s dice in its text; this one would hold %(count)s.",
        max=20,
        count=21,
    )
    assert 'id="id_narration_error"' in body and refusal in body
    assert not Post.objects.exists() and not Roll.objects.exists()
