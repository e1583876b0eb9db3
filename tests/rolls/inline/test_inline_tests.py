"""A sheet test named in a narration (`[[test: Percepcja]]`, rolls.inline): the player's
request for that test of the narrating character's sheet, made as the request page makes it
(rolls.services.roll_ask_create), shown where the marker stood, then its answer."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from diary import services as diary_services
from diary.models import Post
from diary.posts.rendering import post_body_html
from rolls.models import AskStatus, InlineRoll, RollAsk
from rolls.services import roll_ask_decline
from rolls.systems.forum1000.requests import RollRequest, SideRequest
from tests.conftest import polish
from tests.rolling import make_roll
from tests.rolls.test_panel import skill

pytestmark = pytest.mark.django_db


def narrate(t, text, *, by=None, character="borys"):
    return diary_services.post_create(
        session=t.session,
        author=by or t.bob,
        character=t.borys if character == "borys" else character,
        narration=text,
        nc_note="",
    )


def refusal(t, text, **kwargs) -> str:
    with pytest.raises(ValidationError) as refused:
        narrate(t, text, **kwargs)
    return " ".join(refused.value.message_dict["narration"])


def test_a_named_test_asks_the_gm_and_shows_it_waits(table):
    post = narrate(table, "Borys nasłuchuje. [[test: percepcja]]")
    ask = RollAsk.objects.get()
    assert (ask.post, ask.character, ask.test, ask.status) == (
        post,
        table.borys,
        "attribute",
        AskStatus.OPEN,
    )
    assert "Percepcja" in ask.summary
    assert post.narration == f"Borys nasłuchuje. [[test: percepcja #{ask.pk}]]"
    assert f"test: percepcja — {polish('waiting for the GM')}" in post.narration_html
    assert InlineRoll.objects.get().ask == ask


def test_a_named_skill_is_asked_for_with_the_sheet_level(table):
    narrate(table, "[[test: Otwieranie zamków]]")
    ask = RollAsk.objects.get()
    assert ask.test == "skill" and "Otwieranie zamków" in ask.summary


def test_the_answer_shows_where_the_marker_stood_and_the_cached_body_changes(table):
    post = narrate(table, "[[test: Otwieranie zamków]]")
    ask = RollAsk.objects.get()
    before = post_body_html(Post.objects.get(pk=post.pk), gm_id=table.gm.pk, can_see_content=True)
    request = RollRequest(
        kind="skill", a=SideRequest(table.borys.pk, "skill", skill_id=skill("Otwieranie zamków"))
    )
    made = make_roll(table.session, table.gm, request, answers=ask)
    stored = Post.objects.get(pk=post.pk)
    link = reverse("rolls:detail", args=[table.session.pk, made.roll.seq])
    assert f'href="{link}"' in stored.narration_html
    assert polish("waiting for the GM") not in stored.narration_html
    # The answer's outcome in the system's words, not the whole roll.
    assert f"{polish('quality')} " in stored.narration_html
    assert polish("Answers the request for a roll: %(summary)s", summary="") not in (
        stored.narration_html
    )
    after = post_body_html(stored, gm_id=table.gm.pk, can_see_content=True)
    assert after != before and link in after


def test_a_declined_test_says_so(table):
    post = narrate(table, "[[test: Percepcja]]")
    roll_ask_decline(ask=RollAsk.objects.get(), by=table.gm, reason="Nic tu nie słychać.")
    assert polish("declined by the GM") in Post.objects.get(pk=post.pk).narration_html


def test_an_unknown_name_is_refused_with_the_names_near_it(table):
    said = refusal(table, "[[test: Percepcje]]")
    assert (
        polish("No attribute or skill of that name; did you mean: %(names)s?", names="Percepcja")
        in said
    )
    assert not Post.objects.exists() and not RollAsk.objects.exists()


def test_the_gm_is_sent_to_the_roll_panel(table):
    said = refusal(table, "[[test: Percepcja]]", by=table.gm, character=None)
    assert polish("The GM rolls tests in the roll panel.") in said
    assert not RollAsk.objects.exists()


def test_a_test_needs_the_narrating_character(table):
    said = refusal(table, "[[test: Percepcja]]", by=table.bob, character=None)
    assert polish("A test is made by the narrating character: choose it.") in said
    assert not RollAsk.objects.exists()


def test_a_second_test_while_the_first_waits_says_so_next_to_the_narration(table):
    post = narrate(table, "Borys nasłuchuje. [[test: percepcja]]")
    with pytest.raises(ValidationError) as refused:
        diary_services.post_edit(
            post=post,
            by=table.bob,
            character=table.borys,
            narration=f"{post.narration} [[test: Otwieranie zamków]]",
            nc_note="",
        )
    said = " ".join(refused.value.message_dict["narration"])
    assert (
        polish(
            "%(name)s already has an open request in this post: wait for the GM's answer, or "
            "withdraw it first.",
            name="Borys",
        )
        in said
    )
    assert RollAsk.objects.count() == 1 and InlineRoll.objects.count() == 1
