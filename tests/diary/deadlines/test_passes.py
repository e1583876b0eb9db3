"""The turn passes on: whoever has not posted by the deadline is passed over as the turn
closes, a line of the diary at the turn's end ("Mira czeka w tej turze"), not a post."""

import pytest
from django.urls import reverse

from diary.models import DeadlineRule, GameSession, Post, TurnPass
from diary.selectors import home_turns
from diary.services import turn_open_next
from tests.conftest import polish
from tests.diary.deadlines.helpers import deadline_passes, diary, set_rule, texts, write

pytestmark = pytest.mark.django_db


def test_the_characters_still_awaited_at_the_deadline_wait_this_turn(table, client_for):
    set_rule(table, DeadlineRule.PASS)
    write(table, table.alice, table.lirael)
    closing = deadline_passes(table)
    turn_open_next(session=table.session, by=table.gm)
    line = TurnPass.objects.get()
    assert (line.turn, line.character, line.rule) == (closing, table.borys, DeadlineRule.PASS)
    # Not a post of Borys's player, and not counted as one.
    assert not Post.objects.filter(author=table.bob).exists()
    for reader in (table.alice, table.bob, table.gm, table.moderator):
        body = diary(client_for(reader), table)
        assert texts(body, "turn-pass") == [polish("%(name)s waits this turn", name="Borys")]
        # At the end of its turn: after the turn's last post, before the next turn.
        assert body.index('data-testid="turn-pass"') > body.index("Idę dalej.")
        # Nobody edits it: it has no links of its own.
        line_html = body[body.index('data-testid="turn-pass"') :].split("</li>")[0]
        assert "<a " not in line_html and "<form" not in line_html


def test_before_the_deadline_or_under_wait_no_one_is_passed_over(table):
    set_rule(table, DeadlineRule.PASS)
    from datetime import timedelta

    from django.utils import timezone

    from diary.services import turn_set_deadline

    turn_set_deadline(
        session=table.session, by=table.gm, deadline=timezone.now() + timedelta(days=1)
    )
    turn_open_next(session=table.session, by=table.gm)  # the GM closes it early
    assert not TurnPass.objects.exists()
    set_rule(table, DeadlineRule.WAIT)
    deadline_passes(table)
    turn_open_next(session=table.session, by=table.gm)
    assert not TurnPass.objects.exists()


def test_the_gm_plays_rule_passes_over_those_the_gm_did_not_play(table):
    set_rule(table, DeadlineRule.GM_PLAYS)
    deadline_passes(table)
    write(table, table.gm, table.lirael, "MG prowadzi Lirael przez most.")
    turn_open_next(session=table.session, by=table.gm)
    assert [(p.character, p.rule) for p in TurnPass.objects.all()] == [
        (table.borys, DeadlineRule.GM_PLAYS)
    ]


def test_the_new_turn_awaits_everyone_again(table, client_for):
    set_rule(table, DeadlineRule.PASS)
    deadline_passes(table)
    turn_open_next(session=table.session, by=table.gm)
    # The pass line is no post: the home page still asks Borys's player to move.
    assert [c.name for _s, mine in home_turns(table.bob).my_move for c in mine] == ["Borys"]


def test_a_closed_turn_with_no_post_shows_its_lines(table, client_for):
    set_rule(table, DeadlineRule.PASS)
    write(table, table.alice, table.lirael, "Pierwsza tura.")
    turn_open_next(session=table.session, by=table.gm)
    # Turn 2: nobody posts, the deadline passes, the turn closes.
    deadline_passes(table)
    turn_open_next(session=table.session, by=table.gm)
    write(table, table.alice, table.lirael, "Trzecia tura.")
    body = diary(client_for(table.alice), table)
    assert 'id="turn-2"' in body
    assert texts(body, "turn-pass") == [
        polish("%(name)s waits this turn", name="Borys"),
        polish("%(name)s waits this turn", name="Lirael"),
    ]
    assert body.index('id="turn-2"') < body.index("Trzecia tura.")


def test_the_line_goes_on_the_page_that_shows_the_turns_end(table, client_for):
    from tests import scale

    set_rule(table, DeadlineRule.PASS)
    scale.build(table, 30)
    turn_open_next(session=table.session, by=table.gm)  # a turn of Lirael's alone
    write(table, table.alice, table.lirael, "Ostatni wpis tury.")
    deadline_passes(table)
    turn_open_next(session=table.session, by=table.gm)
    later = [write(table, table.alice, table.lirael, f"Nowa tura {n}.") for n in range(25)]
    client = client_for(table.alice)
    newest = diary(client, table)
    assert texts(newest, "turn-pass") == []
    # The page before it holds the closed turn's end, and its line.
    older = diary(client, table, before=later[-20].pk)
    assert "Ostatni wpis tury." in older
    assert texts(older, "turn-pass") == [polish("%(name)s waits this turn", name="Borys")]
    # Only there: the pages before it do not repeat it.
    first = Post.objects.filter(session=table.session).order_by("pk").first()
    earliest = diary(client, table, after=first.pk - 1)
    assert texts(earliest, "turn-pass") == []


def test_a_turn_closing_moves_the_live_marker_so_the_line_shows_live(table, client_for):
    set_rule(table, DeadlineRule.PASS)
    write(table, table.alice, table.lirael)
    client = client_for(table.alice)
    marker = GameSession.objects.get(pk=table.session.pk).activity_marker
    deadline_passes(table)
    turn_open_next(session=table.session, by=table.gm)
    live = client.get(reverse("diary:session_live", args=[table.session.pk]), {"seen": marker})
    assert live.status_code == 200
    assert polish("%(name)s waits this turn", name="Borys") in live.content.decode()


def test_whoever_the_diary_does_not_await_is_not_passed_over(table):
    """The diary's own count of who is awaited decides (a post as no one counts for an owner
    of one character), and a hidden post is no move."""
    from diary.services import post_hide

    set_rule(table, DeadlineRule.PASS)
    write(table, table.bob, None, "Bartek pisze bez postaci.")
    hidden = write(table, table.alice, table.lirael, "Ukryty wpis.")
    post_hide(post=hidden, by=table.gm, reason="")
    deadline_passes(table)
    turn_open_next(session=table.session, by=table.gm)
    assert [line.character for line in TurnPass.objects.all()] == [table.lirael]
