"""An absence and a nudge: in the demo's main session one player is away for a week from
the day the demo is seeded (with a note), and the GM has nudged another player the turn
awaits (the main session's current turn awaits nobody, so the first of the GM's running
sessions whose turn does)."""

from datetime import timedelta

from demo.ford.story import SESSION_TITLE
from diary import selectors
from diary.absences.selectors import today
from diary.absences.services import absence_create
from diary.models import Absence, GameSession, SessionStatus
from diary.nudges.services import nudge_send

ABSENT = "gracz3"  # Mira's player: "Mira — nieobecna do …"
NOTE = "Wyjazd służbowy, odpisuję wieczorami."


def seed_absences(users: dict) -> bool:
    """gracz3 away from the main session for a week from today, and the GM's nudge to
    another player; nothing when the main session has an absence already."""
    main = GameSession.objects.get(title=SESSION_TITLE, gm=users["gm"])
    if Absence.objects.filter(session=main).exists():
        return False
    absence_create(
        user=users[ABSENT],
        session=main,
        starts_on=today(),
        ends_on=today() + timedelta(days=6),
        note=NOTE,
    )
    running = GameSession.objects.filter(gm=users["gm"], status=SessionStatus.RUNNING)
    for session in [main, *running.exclude(pk=main.pk).order_by("pk")]:
        awaited = [
            c for c in selectors.awaited_now(session).awaited if c.owner_id != users[ABSENT].pk
        ]
        if awaited:
            nudge_send(session=session, by=users["gm"], character_id=awaited[0].pk)
            break
    return True
