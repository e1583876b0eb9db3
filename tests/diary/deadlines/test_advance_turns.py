"""The site opens the next turn for a GM who lets it (advance_turns, run every few minutes
by make serve): as the GM, through the GM's own turn opening, once every character has
acted or, when the turn passes on, at the deadline; never twice for one due turn."""

import io
from datetime import timedelta

import pytest
from django.core.management import call_command

from diary.models import (
    DeadlineRule,
    GameSession,
    Notification,
    NotificationKind,
    SessionStatus,
    Turn,
    TurnOpenedBySite,
)
from diary.services import session_transition, turn_open_due, turn_open_next
from tests.conftest import polish
from tests.diary.deadlines.helpers import (
    current_turn,
    deadline_passes,
    diary,
    set_rule,
    texts,
    write,
)

pytestmark = pytest.mark.django_db


def advance() -> str:
    out = io.StringIO()
    call_command("advance_turns", stdout=out)
    return out.getvalue().strip()


def test_at_the_deadline_the_site_opens_the_next_turn_once(table, client_for):
    set_rule(table, DeadlineRule.PASS, auto=True)
    write(table, table.alice, table.lirael)
    closed = deadline_passes(table, length=timedelta(days=3))
    assert advance() == "Turns opened: 1"
    assert advance() == "Turns opened: 0"  # run again: the new turn is not due
    turns = list(Turn.objects.filter(session=table.session).order_by("number"))
    assert [t.number for t in turns] == [1, 2]
    opened = turns[-1]
    assert opened == current_turn(table)
    assert (opened.opened_by, opened.opened_by_site) == (table.gm, TurnOpenedBySite.DEADLINE)
    # The same pace: a deadline as far from its opening as the closed turn's.
    assert abs((opened.deadline - opened.opened_at) - (closed.deadline - closed.opened_at)) < (
        timedelta(seconds=5)
    )
    # The players hear of it as of the GM's turn: a new turn, opened by the GM.
    told = Notification.objects.filter(kind=NotificationKind.TURN_OPENED, turn=opened)
    assert {(n.recipient, n.actor) for n in told} == {
        (table.alice, table.gm),
        (table.bob, table.gm),
    }
    # The turn passed over Borys, and the diary says who opened the new one.
    body = diary(client_for(table.alice), table)
    assert texts(body, "turn-pass") == [polish("%(name)s waits this turn", name="Borys")]
    assert texts(body, "opened-by-site") == [
        polish("The site opened this turn (the deadline passed)")
    ]


def test_once_every_character_has_acted_it_opens_before_the_deadline(table):
    set_rule(table, DeadlineRule.PASS, auto=True)
    deadline_passes(table, ago=timedelta(hours=-5))  # five hours still to go
    write(table, table.alice, table.lirael)
    assert advance() == "Turns opened: 0"
    write(table, table.bob, table.borys)
    assert advance() == "Turns opened: 1"
    assert current_turn(table).opened_by_site == TurnOpenedBySite.ALL_ACTED


def test_under_gm_plays_the_deadline_waits_for_the_gms_posts(table):
    set_rule(table, DeadlineRule.GM_PLAYS, auto=True)
    write(table, table.alice, table.lirael)
    deadline_passes(table)
    assert advance() == "Turns opened: 0"
    write(table, table.gm, table.borys, "MG prowadzi Borysa.")
    assert advance() == "Turns opened: 1"
    assert current_turn(table).opened_by_site == TurnOpenedBySite.ALL_ACTED


@pytest.mark.parametrize(
    "setup",
    ["wait", "auto_off", "no_deadline", "finished", "no_characters"],
)
def test_a_session_it_may_not_advance_is_left_alone(table, make_user, make_session, setup):
    session = table.session
    if setup == "wait":
        deadline_passes(table)  # the rule is "wait for everyone", the site opens nothing
    elif setup == "auto_off":
        set_rule(table, DeadlineRule.PASS)
        deadline_passes(table)
    elif setup == "no_deadline":
        set_rule(table, DeadlineRule.PASS, auto=True)
        write(table, table.alice, table.lirael)
        write(table, table.bob, table.borys)
    elif setup == "finished":
        set_rule(table, DeadlineRule.PASS, auto=True)
        deadline_passes(table)
        session_transition(session=session, by=table.gm, to=SessionStatus.FINISHED)
    else:
        empty = make_session(make_user())
        table.session, table.gm = empty, empty.gm
        set_rule(table, DeadlineRule.PASS, auto=True)
        from django.utils import timezone

        from diary.services import turn_set_deadline

        turn_set_deadline(session=empty, by=empty.gm, deadline=timezone.now() + timedelta(1))
        session = empty
    turns = Turn.objects.filter(session=session).count()
    assert advance() == "Turns opened: 0"
    assert Turn.objects.filter(session=session).count() == turns


def test_a_turn_opened_meanwhile_by_the_gm_is_not_opened_again(table):
    set_rule(table, DeadlineRule.PASS, auto=True)
    deadline_passes(table)
    turn_open_next(session=table.session, by=table.gm)
    assert turn_open_due(session_id=table.session.pk) is None
    assert GameSession.objects.get(pk=table.session.pk).current_turn.number == 2


def test_an_absent_player_does_not_hold_the_turn_but_is_passed_over(table):
    """Everyone present has acted: the site opens the next turn though Borys's player is
    away, and the closed turn says Borys waited."""
    from diary.absences import services as absence_services
    from diary.absences.selectors import today
    from diary.models import TurnPass

    set_rule(table, DeadlineRule.PASS, auto=True)
    deadline_passes(table, ago=timedelta(hours=-5))  # five hours still to go
    absence_services.absence_create(
        user=table.bob, session=table.session, starts_on=today(), ends_on=today(), note=""
    )
    write(table, table.alice, table.lirael)
    assert advance() == "Turns opened: 1"
    assert current_turn(table).opened_by_site == TurnOpenedBySite.ALL_ACTED
    assert [p.character for p in TurnPass.objects.filter(turn__session=table.session)] == [
        table.borys
    ]
