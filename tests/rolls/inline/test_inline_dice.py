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
from rolls.models import InlineRoll, Roll
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


def test_a_post_sent_twice_rolls_its_dice_once(table):
    token = uuid.uuid4()
    first = publish(table, "[[1k6 zasadzka]]", token=token)
    rolls = Roll.objects.count()
    again = publish(table, "[[1k6 zasadzka]]", token=token)
    assert again.pk == first.pk
    assert Roll.objects.count() == rolls
    assert InlineRoll.objects.count() == 1


def test_an_edit_never_rolls_again_and_shows_what_was_rolled(table):
    post = publish(table, "Cios: [[2k6+1 obrażenia]].")
    (row,) = inline_rolls(post)
    rolls = Roll.objects.count()
    # The marker still names its roll: other words in it change nothing shown.
    post = edit(post, f"Cios, mocniej: [[3k6 inne słowa #{row.roll.seq}]].")
    assert Roll.objects.count() == rolls
    assert f"[[3k6 inne słowa #{row.roll.seq}]]" in post.narration
    assert "2k6+1 obrażenia" in post.narration_html
    assert "3k6" not in post.narration_html
    assert "inline-rolls-removed" not in post.narration_html


def test_a_marker_taken_out_of_the_text_stays_shown_struck_through(table):
    post = publish(table, "Cios: [[2k6+1 obrażenia]].")
    (row,) = inline_rolls(post)
    post = edit(post, "Cios chybił.")
    assert InlineRoll.objects.filter(pk=row.pk).exists()
    html = Post.objects.get(pk=post.pk).narration_html
    link = reverse("rolls:detail", args=[table.session.pk, row.roll.seq])
    removed = re.search(r'<p class="inline-rolls-removed"[^>]*>(.*)</p>', html).group(1)
    assert removed.startswith("<del><a ") and f'href="{link}"' in removed
    assert polish("removed from the text") in removed


def test_a_marker_whose_number_was_deleted_gets_its_roll_back(table):
    post = publish(table, "[[1k100 los]]")
    (row,) = inline_rolls(post)
    rolls = Roll.objects.count()
    post = edit(post, "Jeszcze raz: [[1k100 los]]")
    assert Roll.objects.count() == rolls
    assert post.narration == f"Jeszcze raz: [[1k100 los #{row.roll.seq}]]"


def test_a_new_marker_in_an_edit_is_rolled_while_its_turn_is_current(table):
    post = publish(table, "Początek.")
    post = edit(post, "Początek. [[1k4 strzała]]")
    (row,) = inline_rolls(post)
    assert row.roll.post_id == post.pk
    diary_services.turn_open_next(session=table.session, by=table.gm)
    rolls = Roll.objects.count()
    with pytest.raises(ValidationError) as refused:
        edit(
            Post.objects.get(pk=post.pk), f"Początek. [[1k4 strzała #{row.roll.seq}]] [[1k6 nowa]]"
        )
    assert "narration" in refused.value.message_dict
    assert Roll.objects.count() == rolls
    assert Post.objects.get(pk=post.pk).version == 2


def test_a_number_of_no_roll_of_the_post_is_refused(table):
    other = publish(table, "[[1k6 cudzy]]")
    (row,) = inline_rolls(other)
    with pytest.raises(ValidationError) as refused:
        publish(table, f"Podrobiony: [[1k6 cudzy #{row.roll.seq}]]")
    assert "narration" in refused.value.message_dict
    assert Post.objects.count() == 1


@pytest.mark.parametrize("marker", ["[[2x6 obrażenia]]", "[[101k6]]", "[[obrażenia]]"])
def test_an_invalid_expression_is_refused_and_nothing_is_stored(table, marker):
    rolls = Roll.objects.count()
    with pytest.raises(ValidationError) as refused:
        publish(table, f"Dobre [[1k6 dobre]] i złe {marker}")
    assert "narration" in refused.value.message_dict
    assert (Roll.objects.count(), Post.objects.count(), InlineRoll.objects.count()) == (rolls, 0, 0)


def test_a_post_holds_a_limited_number_of_dice(table):
    with pytest.raises(ValidationError) as refused:
        publish(table, " ".join(f"[[1k6 kość {n}]]" for n in range(INLINE_DICE_MAX + 1)))
    assert "narration" in refused.value.message_dict
    assert not Post.objects.exists()
    post = publish(table, " ".join(f"[[1k6 kość {n}]]" for n in range(INLINE_DICE_MAX)))
    assert len(inline_rolls(post)) == INLINE_DICE_MAX


@pytest.mark.fair_dice
def test_a_player_rolls_inline_only_where_the_gm_allowed_free_rolls(table):
    with pytest.raises(ValidationError) as refused:
        publish(table, "[[1k20 skok]]", by=table.alice, character=table.lirael)
    assert "narration" in refused.value.message_dict
    assert not Post.objects.exists()
    allow_players(table)
    post = publish(table, "[[1k20+3 skok]]", by=table.alice, character=table.lirael)
    (row,) = inline_rolls(post)
    assert (row.roll.rolled_by, row.roll.record["roller"]) == (table.alice, "player")
    assert "fair" in row.roll.record  # the turn's fair dice, with the roller's seed


@pytest.mark.fair_dice
def test_the_roller_seed_sent_with_the_post_goes_into_the_fair_dice(table):
    seed = "ab" * 16
    post = diary_services.post_create(
        session=table.session,
        author=table.gm,
        character=None,
        narration="[[1k20 los]]",
        nc_note="",
        client_seed=seed,
    )
    (row,) = inline_rolls(post)
    fair = row.roll.record["fair"]
    assert fair["client_seed"] == seed and fair["client_seed_by"] == "browser"


@pytest.mark.fair_dice
def test_the_chain_verifies_after_inline_rolls_and_edits(table):
    post = publish(table, "[[1k6 a]] [[2k8 b]]")
    edit(post, "[[3k4 c]]")
    assert InlineRoll.objects.count() == 3
    assert ledger.verify_session(table.session.pk).ok


def test_a_quote_of_a_post_with_dice_carries_words_that_roll_nothing(table):
    from diary.posts.quoting import quote_markdown

    post = publish(table, "Cios: [[2k6+1 obrażenia]].")
    (row,) = inline_rolls(post)
    quoted = quote_markdown(post)
    assert f"> Cios: 2k6+1 obrażenia (#{row.roll.seq})." in quoted
    rolls = Roll.objects.count()
    reply = publish(table, quoted + "Odpowiedź.")
    assert Roll.objects.count() == rolls and not inline_rolls(reply)


def test_dice_inside_text_for_chosen_eyes_are_refused_and_beside_it_shown(table):
    """A roll is public in the chain and under its post: a die for chosen eyes would not be."""
    with pytest.raises(ValidationError) as refused:
        publish(table, "Jawne.\n\n[dla: bartek]\nTylko Bartek: [[1k8 cichy]]\n[/dla]")
    assert (
        polish("Dice are rolled in the open: write them outside the text for chosen eyes.")
        in refused.value.message_dict["narration"]
    )
    assert not Post.objects.exists() and not InlineRoll.objects.exists()
    post = publish(table, "Wszyscy widzą [[1k6 jawny]].\n\n[dla: bartek]\nTylko Bartek.\n[/dla]")
    (row,) = inline_rolls(post)
    stored = Post.objects.get(pk=post.pk)
    assert reverse("rolls:detail", args=[table.session.pk, row.roll.seq]) in stored.narration_html
    assert "Tylko Bartek" not in stored.narration_html
    assert "\ue000" not in (stored.narration_public or "")
    assert f"1k6 jawny (#{row.roll.seq})" in stored.narration_public
