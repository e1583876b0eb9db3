"""The GM plays the character: after the deadline, under that rule, the GM writes for a
character still awaited; the post is the GM's, marked "MG za postać Mira", and counts as
the character's move. Before the deadline, under another rule, or for a character that has
acted, the server refuses it in words."""

import html
import re
import uuid
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import formats, timezone, translation

from diary.models import DeadlineRule, Post
from diary.services import post_edit, turn_open_next, turn_set_deadline
from tests.conftest import polish
from tests.diary.deadlines.helpers import deadline_passes, diary, set_rule, texts, write

pytestmark = pytest.mark.django_db


def _refusal(table, character=None) -> str:
    with pytest.raises(ValidationError) as refused:
        write(table, table.gm, character or table.borys, "Borys milczy.")
    return " ".join(refused.value.message_dict["character"])


def test_before_the_deadline_or_under_another_rule_the_gm_may_not(table):
    set_rule(table, DeadlineRule.PASS)
    deadline_passes(table)
    assert _refusal(table) == polish(
        "In this session the GM does not play the players' characters (after the deadline: "
        "“%(rule)s”). The GM can change the rule in the session's settings.",
        rule=polish("The turn passes on"),
    )
    set_rule(table, DeadlineRule.GM_PLAYS)
    turn_open_next(session=table.session, by=table.gm)  # a new turn, no deadline yet
    assert _refusal(table) == polish(
        "This turn has no deadline: the GM plays another player's character only after the "
        "turn's deadline."
    )
    deadline = timezone.now() + timedelta(days=1)
    turn_set_deadline(session=table.session, by=table.gm, deadline=deadline)
    with translation.override("pl"):
        shown = formats.date_format(timezone.localtime(deadline), "SHORT_DATETIME_FORMAT")
    assert _refusal(table) == polish(
        "The GM plays another player's character only after the turn's deadline (%(deadline)s).",
        deadline=shown,
    )
    assert not Post.objects.filter(author=table.gm).exists()


def test_after_the_deadline_the_gm_writes_for_an_awaited_character(table, client_for):
    set_rule(table, DeadlineRule.GM_PLAYS)
    write(table, table.alice, table.lirael)
    deadline_passes(table)
    gm = client_for(table.gm)
    page = diary(gm, table)
    # The composer offers the awaited character of the other player, marked, and not Lirael.
    composer = page[page.index('id="write"') :]
    composer = composer[composer.index('name="character"') : composer.index("</select>")]
    options = re.findall(r'<option value="(\d+)"[^>]*>([^<]*)</option>', composer)
    assert (str(table.borys.pk), polish("%(name)s (the GM plays)", name="Borys")) in options
    assert str(table.lirael.pk) not in {value for value, _label in options}
    assert texts(page, "awaited")[0].endswith("Borys")
    response = gm.post(
        reverse("diary:post_create", args=[table.session.pk]),
        {
            "character": table.borys.pk,
            "narration": "Borys stoi na straży.",
            "nc_note": "",
            "token": uuid.uuid4(),
        },
    )
    assert response.status_code == 302
    post = Post.objects.get(narration="Borys stoi na straży.")
    assert (post.author, post.character, post.played_by_gm) == (table.gm, table.borys, True)
    body = diary(client_for(table.bob), table)
    # Marked in the post's header as the GM's for the character.
    assert texts(body, "played-by-gm") == [
        f"{polish('GM for %(name)s', name='Borys')} ({table.gm.username})"
    ]
    # It counts as Borys's move: no one is awaited now.
    assert texts(body, "awaited") == [polish("Everyone has posted in this turn.")]
    # Not a second time: the turn no longer awaits Borys.
    assert _refusal(table) == polish(
        "The turn no longer awaits %(name)s: the GM plays only a character that has not acted "
        "in this turn.",
        name="Borys",
    )


def test_the_refusal_through_the_page_is_said_next_to_the_field(table, client_for):
    set_rule(table, DeadlineRule.GM_PLAYS)
    gm = client_for(table.gm)
    response = gm.post(
        reverse("diary:post_create", args=[table.session.pk]),
        {
            "character": table.borys.pk,
            "narration": "Za wcześnie.",
            "nc_note": "",
            "token": uuid.uuid4(),
        },
    )
    body = html.unescape(response.content.decode())
    assert response.status_code == 400
    assert (
        polish(
            "This turn has no deadline: the GM plays another player's character only after the "
            "turn's deadline."
        )
        in body
    )
    assert not Post.objects.filter(narration="Za wcześnie.").exists()


def test_a_player_never_writes_for_another_players_character(table):
    set_rule(table, DeadlineRule.GM_PLAYS)
    deadline_passes(table)
    with pytest.raises(ValidationError):
        write(table, table.alice, table.borys, "Nie moja postać.")


def test_the_gm_edits_the_post_and_it_stays_the_characters(table, client_for):
    set_rule(table, DeadlineRule.GM_PLAYS)
    deadline_passes(table)
    post = write(table, table.gm, table.borys, "Borys czeka przy ognisku.")
    response = client_for(table.gm).post(
        reverse("diary:post_edit", args=[post.pk]),
        {"character": table.borys.pk, "narration": "Borys pilnuje ogniska.", "nc_note": ""},
    )
    assert response.status_code == 302
    post.refresh_from_db()
    assert (post.narration, post.character, post.played_by_gm) == (
        "Borys pilnuje ogniska.",
        table.borys,
        True,
    )
    with pytest.raises(ValidationError):
        post_edit(post=post, by=table.gm, character=None, narration="Inaczej.", nc_note="")
