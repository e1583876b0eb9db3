"""Session rules other apps ask about a user and a session or a character.

diary/access.py decides everything inside the diary (SessionAccess, PostAccess);
these functions answer the same questions for the rolls and characters apps
and read the same rules. The last three are registered with the characters
app (diary/apps.py).
"""

from characters.models import Character
from diary.access import session_access
from diary.models import (
    SHEET_OPENING_STATUSES,
    GameSession,
    Participation,
    ParticipationStatus,
    SessionStatus,
)


def is_gm(user, session: GameSession) -> bool:
    """The GM's powers in the session: its GM or a co-GM (GameSession.runs)."""
    return session.runs(user)


def is_player(user, session: GameSession) -> bool:
    return (
        user.is_authenticated
        and Participation.objects.filter(
            session=session, character__owner=user, status=ParticipationStatus.ACCEPTED
        ).exists()
    )


def can_read_session(user, session: GameSession) -> bool:
    return session_access(user, session).can_read


def shares_session_with_character(user, character) -> bool:
    """A sheet is open to the GM of a session it plays in or its owner asked to join
    (an invitation alone opens nothing: the owner has not agreed), and to the players
    of the sessions it plays in."""
    if Participation.objects.filter(
        character=character,
        session__in=GameSession.objects.run_by(user),
        status__in=SHEET_OPENING_STATUSES,
    ).exists():
        return True
    sessions = Participation.objects.filter(
        character=character, status=ParticipationStatus.ACCEPTED
    ).values("session")
    return Participation.objects.filter(
        session__in=sessions, character__owner=user, status=ParticipationStatus.ACCEPTED
    ).exists()


def runs_session_of_character(user, character) -> bool:
    """The GM of a RUNNING session the character plays in tends its HP, effects and potions
    (not the GM of a finished session it once played in)."""
    return Participation.objects.filter(
        character=character,
        status=ParticipationStatus.ACCEPTED,
        session__in=GameSession.objects.run_by(user),
        session__status=SessionStatus.RUNNING,
    ).exists()


def diary_links_for_tending(user, character) -> list[tuple[str, str]]:
    """The diaries of the running sessions the user runs and the character plays in: there,
    not on the sheet, the GM changes its HP, effects and potions."""
    from django.urls import reverse

    sessions = (
        GameSession.objects.run_by(user)
        .filter(
            participations__character=character,
            participations__status=ParticipationStatus.ACCEPTED,
            status=SessionStatus.RUNNING,
        )
        .order_by("pk")
    )
    return [(s.title, reverse("diary:session", args=[s.pk])) for s in sessions]


def characters_tended_by(user):
    """The same rule as a query: characters accepted in a running session the user runs."""
    return Character.objects.filter(
        participations__status=ParticipationStatus.ACCEPTED,
        participations__session__in=GameSession.objects.run_by(user),
        participations__session__status=SessionStatus.RUNNING,
    ).distinct()


def plays_in_running_session(character) -> bool:
    return Participation.objects.filter(
        character=character,
        status=ParticipationStatus.ACCEPTED,
        session__status=SessionStatus.RUNNING,
    ).exists()


def running_session_of(character) -> tuple[str, str] | None:
    """(session title, GM's username) of the running session the character plays in (one
    at most: diary.services refuses a second), for the sheet's "edits wait for" line."""
    session = (
        GameSession.objects.filter(
            participations__character=character,
            participations__status=ParticipationStatus.ACCEPTED,
            status=SessionStatus.RUNNING,
        )
        .select_related("gm")
        .order_by("pk")
        .first()
    )
    return (session.title, session.gm.username) if session else None
