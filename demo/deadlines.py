"""The deadline's rule in the demo: the q10 session's turn passes on at the deadline and the
site opened its next turn (its closed turn shows who waited); in the ciernie session the GM
plays, after the deadline, the character whose player did not post.

The turns' deadlines are set through the GM's service, then moved into the past: the demo
shows what a few days of play leave, and cannot wait for them."""

from datetime import timedelta

from django.utils import timezone

from characters.systems import RuleSystem
from demo.systems import SESSIONS
from diary import services as diary_services
from diary.deadlines.selectors import not_acted_in_turn
from diary.models import DeadlineRule, GameSession, Turn

# The length of a demo turn: two days from its opening to its deadline.
TURN_LENGTH = timedelta(days=2)


def seed_deadlines(users: dict) -> bool:
    """Both sessions' rules and what they did, unless the q10 session has its rule already
    (or the sessions are not there). Whether anything was added."""
    gm = users["gm"]
    passing = _session(gm, RuleSystem.Q10)
    playing = _session(gm, RuleSystem.CIERNIE)
    if passing is None or playing is None or passing.deadline_rule != DeadlineRule.WAIT:
        return False
    _the_turn_passes_on(passing, gm)
    _the_gm_plays(playing, gm)
    return True


def _session(gm, system: str) -> GameSession | None:
    return GameSession.objects.filter(title=SESSIONS[system]["title"], gm=gm).first()


def _deadline_passed(session: GameSession, gm, *, ago: timedelta) -> Turn:
    """The current turn's deadline, set by the GM, then passed `ago` ago."""
    now = timezone.now()
    turn = diary_services.turn_set_deadline(session=session, by=gm, deadline=now + TURN_LENGTH)
    Turn.objects.filter(pk=turn.pk).update(opened_at=now - TURN_LENGTH - ago, deadline=now - ago)
    turn.refresh_from_db()
    return turn


def _the_turn_passes_on(session: GameSession, gm) -> None:
    """The turn passes on, and the site opens turns: the deadline passed with Murtagh's
    player silent, so the site opened turn 2 (as the worker's advance_turns does) and
    turn 1 ends with "Murtagh czeka w tej turze"."""
    diary_services.session_update(
        session=session, by=gm, deadline_rule=DeadlineRule.PASS, auto_next_turn=True
    )
    _deadline_passed(session, gm, ago=timedelta(hours=3))
    diary_services.turn_open_due(session_id=session.pk)


def _the_gm_plays(session: GameSession, gm) -> None:
    """The GM plays the character: the deadline passed, and the GM writes for the first
    character still awaited, marked "MG za postać …"."""
    diary_services.session_update(session=session, by=gm, deadline_rule=DeadlineRule.GM_PLAYS)
    turn = _deadline_passed(session, gm, ago=timedelta(hours=1))
    session.refresh_from_db()
    awaited = [c for c in not_acted_in_turn(session, turn) if c.owner_id != gm.pk]
    if not awaited:
        return
    character = awaited[0]
    diary_services.post_create(
        session=session,
        author=gm,
        character=character,
        narration=f"{character.name} zostaje przy konsoli i nasłuchuje, czy stacja odpowie "
        "na wywołanie.",
        nc_note="Termin minął: w tej turze prowadzę tę postać za gracza.",
    )
