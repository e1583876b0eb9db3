"""forum1000 rolls and requests made the way the panel makes them: a request
(rolls.systems.forum1000.requests) becomes its Case (case_for reads the sheets now) and goes
through the one roll service, rolls.services.roll_make or roll_ask_create."""

from __future__ import annotations

import uuid

from rolls.services import RollMade, roll_ask_create, roll_make
from rolls.systems.forum1000.cases import case_for
from rolls.systems.forum1000.requests import RollRequest, SideRequest


def make_roll(session, by, request: RollRequest, *, event_name: str = "", **kwargs) -> RollMade:
    """roll_make for a forum1000 request; `kwargs` as roll_make's (token defaults to a new one)."""
    kwargs.setdefault("token", uuid.uuid4())
    case = case_for(session, request, event_name=event_name)
    return roll_make(session=session, by=by, case=case, **kwargs)


def ask_roll(session, by, side: SideRequest, post=None):
    """A player's request for the test `side` names (its kind is the side's test)."""
    case = case_for(session, RollRequest(kind=side.test, a=side))
    return roll_ask_create(session=session, by=by, case=case, post=post)
