"""The recruiting board's writes: a player's ad (save, withdraw) and a GM's invitation
from one. Each is one transaction that checks who may do it."""

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from diary.models import GameSession, Notification, NotificationKind, PlayerAd
from diary.notifications import notices


def _lock_player(user) -> None:
    """A player's ad writes run one after another (two tabs saving at once make one ad)."""
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()


@transaction.atomic
def ad_save(*, by, system: str, pace: str, text: str) -> PlayerAd:
    """The player's ad: the active one edited, or a new one when none is active."""
    if not by.is_authenticated:
        raise PermissionDenied
    _lock_player(by)
    ad = PlayerAd.objects.filter(author=by, active=True).first()
    if ad is None:
        return PlayerAd.objects.create(author=by, system=system, pace=pace, text=text)
    ad.system, ad.pace, ad.text = system, pace, text
    ad.save(update_fields=["system", "pace", "text", "updated_at"])
    return ad


@transaction.atomic
def ad_withdraw(*, by) -> PlayerAd | None:
    """The player's active ad taken off the board (kept, inactive); None if there was none."""
    if not by.is_authenticated:
        raise PermissionDenied
    _lock_player(by)
    ad = PlayerAd.objects.filter(author=by, active=True).first()
    if ad is not None:
        ad.active = False
        ad.save(update_fields=["active", "updated_at"])
    return ad


@transaction.atomic
def ad_invite(*, ad: PlayerAd, by, session: GameSession, note: str = "") -> Notification:
    """A GM answers an ad: the player is notified with a link to the session's join page.
    Only whoever runs the session (its GM, a co-GM), only a session taking applications
    now, never one's own ad, once per ad's player and session."""
    # The session's row lock serialises two clicks on the same invitation.
    GameSession.objects.select_for_update().filter(pk=session.pk).first()
    session = GameSession.objects.with_places().get(pk=session.pk)
    if not session.runs(by):
        raise PermissionDenied
    if ad.author_id == by.pk:
        raise PermissionDenied
    if not PlayerAd.objects.filter(pk=ad.pk, active=True).exists():
        raise ValidationError(_("The player has withdrawn this ad."))
    if not session.recruiting_open:
        raise ValidationError({"session": _("This session takes no applications now.")})
    invited = Notification.objects.filter(
        kind=NotificationKind.AD_INVITATION, recipient_id=ad.author_id, session=session
    )
    if invited.exists():
        raise ValidationError(
            {"session": _("You have already invited this player to this session.")}
        )
    sent = notices.notify_ad_invitation(ad, session, by=by, note=note)
    if not sent:
        # The player cannot be told (an inactive account): nothing happened.
        raise ValidationError(_("This player cannot be invited now."))
    return sent[0]
