"""Writes of the GM handover: co-GMs named and removed, a session handed to a new GM (by a
moderator when it is orphaned, or by its GM stepping down to a co-GM). Each in one
transaction under the session's row lock, its permission checked inside."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from diary.access import session_access
from diary.handover import selectors
from diary.models import CoGameMaster, GameSession, SessionHandover
from diary.notifications import notices as notifications


def _locked(session: GameSession) -> GameSession:
    return (
        GameSession.objects.select_for_update(of=("self",)).select_related("gm").get(pk=session.pk)
    )


def _check_may_run(session: GameSession, user, *, field: str = "username") -> None:
    """A co-GM or a new GM: an active user who is not the session's GM and has no
    character on its list (a player cannot judge their own character's rolls)."""
    if user.pk == session.gm_id:
        raise ValidationError({field: _("This user is already the session's GM.")})
    if selectors.plays_in(session, user):
        raise ValidationError(
            {
                field: _(
                    "This user has a character in this session: a player cannot be its GM or co-GM."
                )
            }
        )


@transaction.atomic
def co_gm_name(*, session: GameSession, by, user) -> CoGameMaster:
    """The session's GM names a co-GM, who gets the GM's powers in this session."""
    session = _locked(session)
    if not session_access(by, session).can_name_co_gms:
        raise PermissionDenied
    _check_may_run(session, user)
    if CoGameMaster.objects.filter(session=session, user=user).exists():
        raise ValidationError({"username": _("This user is already a co-GM of this session.")})
    co_gm = CoGameMaster.objects.create(session=session, user=user, named_by=by)
    notifications.notify_co_gm_named(session, user=user, by=by)
    session.touch()
    return co_gm


@transaction.atomic
def co_gm_remove(*, session: GameSession, by, user) -> None:
    """The session's GM takes a co-GM's powers away; a co-GM may also step back."""
    session = _locked(session)
    if not (session_access(by, session).can_name_co_gms or by.pk == user.pk):
        raise PermissionDenied
    removed, _rows = CoGameMaster.objects.filter(session=session, user=user).delete()
    if not removed:
        raise ValidationError(_("This user is not a co-GM of this session."))
    session.touch()


def _hand_over(session: GameSession, *, by, to_gm, reason: str) -> SessionHandover:
    """The session's GM becomes `to_gm` (no longer a co-GM, if they were); the old GM keeps
    no power here. Recorded and told to everyone in the session."""
    handover = SessionHandover.objects.create(
        session=session, from_gm=session.gm, to_gm=to_gm, by=by, reason=reason
    )
    old_gm = session.gm
    CoGameMaster.objects.filter(session=session, user=to_gm).delete()
    session.gm = to_gm
    session.save(update_fields=["gm", "updated_at"])
    session.__dict__.pop("_co_gm_ids", None)
    session.__dict__.pop("co_gm_list", None)
    session.touch()
    notifications.notify_session_handed_over(handover, old_gm=old_gm)
    return handover


@transaction.atomic
def session_hand_over(*, session: GameSession, by, to_gm, reason: str, now=None) -> SessionHandover:
    """A moderator hands an orphaned session to a new GM, saying why. A session whose GM
    is still there (not orphaned) is refused, with the day it may be handed over."""
    session = _locked(session)
    if not session_access(by, session).can_hand_over:
        raise PermissionDenied
    state = selectors.orphaned_state(session, now)
    if not state.status_allows:
        raise ValidationError(
            _("Only a running session (or one ready to start) can be handed over.")
        )
    if not state.orphaned:
        raise ValidationError(
            _(
                "This session is not orphaned: its GM last posted or opened a turn on "
                "%(last)s. A session may be handed over after %(days)s days without either, "
                "from %(due)s."
            )
            % {
                "last": formats.date_format(
                    timezone.localtime(state.last_activity), "SHORT_DATE_FORMAT"
                ),
                "days": state.days,
                "due": formats.date_format(
                    timezone.localtime(state.may_be_handed_over_at), "SHORT_DATE_FORMAT"
                ),
            }
        )
    _check_may_run(session, to_gm)
    return _hand_over(session, by=by, to_gm=to_gm, reason=reason.strip())


@transaction.atomic
def session_step_down(*, session: GameSession, by, to_gm, reason: str) -> SessionHandover:
    """The session's GM hands it to one of its co-GMs, saying why, and keeps no power in it."""
    session = _locked(session)
    if not session_access(by, session).can_step_down:
        raise PermissionDenied
    if to_gm.pk not in session.co_gm_ids:
        raise ValidationError(
            {"username": _("Hand the session to one of its co-GMs (name a co-GM first).")}
        )
    _check_may_run(session, to_gm)
    return _hand_over(session, by=by, to_gm=to_gm, reason=reason.strip())
