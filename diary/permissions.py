"""Who may do what in a session. Pure checks: they read, never write.

GM and player are roles within a session: its GM, and the owners of its
accepted characters. Moderators (a site-wide group) read everything.
"""

from characters.models import Character
from characters.roles import is_moderator
from diary.models import GameSession, Participation, ParticipationStatus, Post, SessionStatus

# Participations that let the owner read the diary: playing, or invited by the GM.
# Asking to join does not open the diary; the GM's acceptance does.
READING_STATUSES = (ParticipationStatus.ACCEPTED, ParticipationStatus.INVITED)


def is_gm(user, session: GameSession) -> bool:
    return user.is_authenticated and session.gm_id == user.pk


def is_player(user, session: GameSession) -> bool:
    return (
        user.is_authenticated
        and Participation.objects.filter(
            session=session, character__owner=user, status=ParticipationStatus.ACCEPTED
        ).exists()
    )


def can_read_session(user, session: GameSession) -> bool:
    if not user.is_authenticated:
        return False
    if is_gm(user, session) or is_moderator(user):
        return True
    return Participation.objects.filter(
        session=session, character__owner=user, status__in=READING_STATUSES
    ).exists()


def can_see_session_card(user, session: GameSession) -> bool:
    """The public card (title, GM, rules) of a session, e.g. to ask to join it."""
    if not user.is_authenticated:
        return False
    return session.status != SessionStatus.DRAFT or is_gm(user, session) or is_moderator(user)


def can_post(user, session: GameSession) -> bool:
    return session.is_running and (is_gm(user, session) or is_player(user, session))


def can_edit_post(user, post: Post) -> bool:
    return user.is_authenticated and post.author_id == user.pk and not post.is_hidden


def can_hide_post(user, post: Post) -> bool:
    if not user.is_authenticated or post.is_hidden:
        return False
    return post.author_id == user.pk or post.session.gm_id == user.pk or is_moderator(user)


def can_see_revisions(user, post: Post) -> bool:
    if not user.is_authenticated:
        return False
    if post.is_hidden:
        return is_moderator(user)
    return post.author_id == user.pk or post.session.gm_id == user.pk or is_moderator(user)


def can_see_hidden_content(user) -> bool:
    return is_moderator(user)


def shares_session_with_character(user, character) -> bool:
    """A sheet is open to the GM of a session it plays in, is invited to or asks to join
    (the GM decides on it), and to the players of the sessions it plays in."""
    if Participation.objects.filter(
        character=character,
        session__gm=user,
        status__in=(*READING_STATUSES, ParticipationStatus.REQUESTED),
    ).exists():
        return True
    sessions = Participation.objects.filter(
        character=character, status=ParticipationStatus.ACCEPTED
    ).values("session")
    return Participation.objects.filter(
        session__in=sessions, character__owner=user, status=ParticipationStatus.ACCEPTED
    ).exists()


def runs_session_of_character(user, character) -> bool:
    """The GM of a session the character plays in tends its HP, effects and potions."""
    return Participation.objects.filter(
        character=character,
        status=ParticipationStatus.ACCEPTED,
        session__gm=user,
        session__status=SessionStatus.RUNNING,  # not a finished session's GM (issue 7.6)
    ).exists()


def characters_tended_by(user):
    """The same rule as a query: characters accepted in a running session the user runs."""
    return Character.objects.filter(
        participations__status=ParticipationStatus.ACCEPTED,
        participations__session__gm=user,
        participations__session__status=SessionStatus.RUNNING,
    ).distinct()


def plays_in_running_session(character) -> bool:
    return Participation.objects.filter(
        character=character,
        status=ParticipationStatus.ACCEPTED,
        session__status=SessionStatus.RUNNING,
    ).exists()
