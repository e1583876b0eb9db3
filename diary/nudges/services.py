"""The GM's nudges: one awaited player, or everyone awaited, told to post, at most once a
day per player and session; an absent player is never nudged."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from diary import selectors
from diary.access import session_access
from diary.models import GameSession, Nudge
from diary.notifications import webhooks
from diary.notifications.notices import notify_nudge
from diary.nudges.selectors import last_nudges, next_nudge_at


def _when(moment) -> str:
    return formats.date_format(timezone.localtime(moment), "SHORT_DATETIME_FORMAT")


def _one(now: selectors.AwaitedNow, character_id: int, last, clock) -> list[int]:
    """The owner of the one character asked for, or why not."""
    away = next((c for c in now.absent if c.pk == character_id), None)
    if away is not None:
        raise ValidationError(
            _("%(name)s's player is away: an absent player is not nudged.") % {"name": away.name}
        )
    character = next((c for c in now.awaited if c.pk == character_id), None)
    if character is None:
        raise ValidationError(_("The turn does not await this character: nobody to nudge."))
    again = next_nudge_at(last, character.owner_id, clock)
    if again is not None:
        raise ValidationError(
            _(
                "%(name)s's player was nudged less than a day ago; the next nudge is possible "
                "on %(when)s."
            )
            % {"name": character.name, "when": _when(again)}
        )
    return [character.owner_id]


def _everyone(now: selectors.AwaitedNow, last, clock) -> list[int]:
    owners = sorted({c.owner_id for c in now.awaited})
    ready = [owner for owner in owners if next_nudge_at(last, owner, clock) is None]
    if not owners:
        raise ValidationError(_("The turn awaits nobody present: nobody to nudge."))
    if not ready:
        soonest = min(next_nudge_at(last, owner, clock) for owner in owners)
        raise ValidationError(
            _(
                "Everyone awaited was nudged less than a day ago; the next nudge is possible "
                "on %(when)s."
            )
            % {"when": _when(soonest)}
        )
    return ready


@transaction.atomic
def nudge_send(*, session: GameSession, by, character_id: int | None = None) -> list[Nudge]:
    """The GM nudges the player of one awaited character (`character_id`), or (None) every
    player the current turn awaits who was not nudged in the last day. Each hears it (a
    notification, e-mailed per their choice), the table chat too if the GM asked. Returns
    the nudges made."""
    session = (
        GameSession.objects.select_for_update(of=("self",))
        .select_related("current_turn")
        .get(pk=session.pk)
        .reread_stale_turn()
    )
    if not session_access(by, session).can_nudge:
        raise PermissionDenied
    now = selectors.awaited_now(session)
    if now.turn is None:
        raise ValidationError(_("There is no turn to nudge in yet."))
    clock, last = timezone.now(), last_nudges(session)
    if character_id is not None:
        owners = _one(now, character_id, last, clock)
    else:
        owners = _everyone(now, last, clock)
    nudges = []
    for owner in owners:
        characters = [c for c in now.awaited if c.owner_id == owner]
        names = [c.name for c in characters]
        recipient = characters[0].owner
        nudges.append(
            Nudge.objects.create(session=session, turn=now.turn, recipient=recipient, by=by)
        )
        notify_nudge(now.turn, recipient, by=by, characters=names)
        webhooks.announce_nudge(now.turn, names)
    session.touch()
    return nudges
