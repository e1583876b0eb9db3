"""Dice inside a post's narration (rolls.inline, through diary.hooks): `[[2k6+1 obrażenia]]`
rolled once into the chain by the free-roll service as the post is published, shown where
it stood, linked to its entry; kept through every edit; `[[test: …]]` a request for the GM."""

import re
import uuid

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from diary import services as diary_services
from diary.models import GameSession, Post
from rolls.inline.services import INLINE_DICE_MAX
from rolls.ledger import verify as ledger
from rolls.models import AskStatus, InlineRoll, Roll, RollAsk
from tests.conftest import polish

pytestmark = pytest.mark.django_db


def publish(t, text, *, by=None, character=None, token=None):
    return diary_services.post_create(
        session=t.session,
        author=by or t.gm,
        character=character,
        narration=text,
        nc_note="",
        token=token,
    )


def edit(post, text, *, by=None):
    return diary_services.post_edit(
        post=post, by=by or post.author, character=post.character, narration=text, nc_note=""
    )


def allow_players(t):
    GameSession.objects.filter(pk=t.session.pk).update(players_free_rolls=True)
    t.session.refresh_from_db()


def inline_rolls(post):
    return list(InlineRoll.objects.filter(post=post).select_related("roll"))


def test_publishing_rolls_each_marker_once_into_the_chain(table):
    before = Roll.objects.count()
    post = publish(table, "Topór spada. [[2k6+1 obrażenia]] Wilk skacze: [[1k20 unik]].")
    first, second = inline_rolls(post)
    assert Roll.objects.count() == before + 2
    assert (first.roll.post_id, second.roll.post_id) == (post.pk, post.pk)
    assert first.roll.record["result"]["input"]["expression"] == "2k6+1"
    assert first.roll.record["label"] == "obrażenia"
    assert post.narration == (
        f"Topór spada. [[2k6+1 obrażenia #{first.roll.seq}]] "
        f"Wilk skacze: [[1k20 unik #{second.roll.seq}]]."
    )
    stored = Post.objects.get(pk=post.pk)
    assert stored.narration == post.narration
    assert stored.revisions.get().narration == post.narration
    link = reverse("rolls:detail", args=[table.session.pk, first.roll.seq])
    assert f'href="{link}"' in stored.narration_html
    total = first.roll.record["result"]["total"]
    assert f'<strong class="inline-roll-total">{total}</strong>' in stored.narration_html
    assert "[[" not in stored.narration_html
    assert ledger.verify_session(table.session.pk).ok
