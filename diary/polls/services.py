"""The polls' writes: a poll opened in the OOC thread, a vote cast or changed, a poll closed.
Each checks who acts (diary.access.access_polls / access_poll) inside its transaction; a vote
holds the poll's row lock, so a voter's choices are replaced whole."""

from __future__ import annotations

import uuid
from datetime import datetime

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from diary.access import access_poll, access_polls
from diary.models import (
    POLL_OPTION_MAX,
    POLL_OPTIONS_MAX,
    POLL_OPTIONS_MIN,
    POLL_QUESTION_MAX,
    Poll,
    PollKind,
    PollOption,
    PollVote,
)
from diary.notifications import notices as notifications

CLOSED_MESSAGE = gettext_lazy("This poll is closed: its votes can no longer change.")


def _checked_options(kind: str, options: list) -> list:
    if not POLL_OPTIONS_MIN <= len(options) <= POLL_OPTIONS_MAX:
        raise ValidationError(
            {
                "option_1": _("Give from %(min)s to %(max)s options.")
                % {"min": POLL_OPTIONS_MIN, "max": POLL_OPTIONS_MAX}
            }
        )
    if kind == PollKind.DATES:
        if not all(isinstance(value, datetime) for value in options):
            raise ValidationError({"option_1": _("Enter a date and time, e.g. 2026-12-24 18:00.")})
        keys = options
    else:
        options = [str(value).strip() for value in options]
        if any(not value or len(value) > POLL_OPTION_MAX for value in options):
            raise ValidationError(
                {"option_1": _("An option has 1 to %(max)s characters.") % {"max": POLL_OPTION_MAX}}
            )
        keys = [value.casefold() for value in options]
    if len(set(keys)) != len(keys):
        raise ValidationError({"option_1": _("This option is already in the poll.")})
    return options


def _checked(question: str, kind: str, max_choices: int | None, count: int) -> str:
    question = question.strip()
    if not question or len(question) > POLL_QUESTION_MAX:
        raise ValidationError(
            {"question": _("A question has 1 to %(max)s characters.") % {"max": POLL_QUESTION_MAX}}
        )
    if kind not in PollKind.values:
        raise ValidationError({"kind": _("Choose the kind of poll.")})
    if max_choices is not None and not 1 <= max_choices <= count:
        raise ValidationError({"max_choices": _("The limit is more than the options.")})
    return question


@transaction.atomic
def poll_create(
    *,
    session,
    by,
    question: str,
    kind: str,
    options: list,
    max_choices: int | None,
    anonymous: bool,
    closes_at: datetime | None,
    token: uuid.UUID,
) -> Poll:
    """A poll in the session's OOC thread, by its GM or a player; the table is told. The same
    form sent twice opens one poll."""
    polls = access_polls(by, session.pk, lock=True)
    if not polls.can_create:
        raise PermissionDenied
    existing = Poll.objects.filter(author=by, token=token).first()
    if existing is not None:
        return existing
    options = _checked_options(kind, options)
    question = _checked(question, kind, max_choices, len(options))
    if closes_at is not None and closes_at <= timezone.now():
        raise ValidationError({"closes_at": _("Choose a closing time in the next five years.")})
    try:
        with transaction.atomic():
            poll = Poll.objects.create(
                session=polls.session,
                author=by,
                question=question,
                kind=kind,
                max_choices=max_choices,
                anonymous=anonymous,
                closes_at=closes_at,
                token=token,
            )
    except IntegrityError:  # the same token at the same moment: the other one opened it
        return Poll.objects.get(author=by, token=token)
    dates = kind == PollKind.DATES
    PollOption.objects.bulk_create(
        PollOption(
            poll=poll,
            position=n,
            text="" if dates else value,
            starts_at=value if dates else None,
        )
        for n, value in enumerate(options, start=1)
    )
    notifications.notify_poll_opened(poll)
    return poll


@transaction.atomic
def poll_vote(*, session, poll_pk: int, by, option_ids: list[int]) -> Poll:
    """The voter's choices, replacing any they made before (a vote changes until the poll
    closes). Refused: someone who does not vote here (a moderator, a reader), a closed poll,
    an option of another poll, none or more than the poll allows."""
    polls, poll = access_poll(by, session.pk, poll_pk, lock=True)
    flags = polls.poll(poll)
    if not polls.is_member:
        raise PermissionDenied
    if flags.is_closed:
        raise ValidationError({"choices": CLOSED_MESSAGE})
    chosen = set(option_ids)
    valid = set(poll.options.values_list("pk", flat=True))
    if not chosen or chosen - valid:
        raise ValidationError({"choices": _("Choose among the poll's options.")})
    if poll.max_choices == 1 and len(chosen) > 1:
        raise ValidationError({"choices": _("This poll takes one choice.")})
    if poll.max_choices is not None and len(chosen) > poll.max_choices:
        raise ValidationError(
            {"choices": _("Choose at most %(max)s options.") % {"max": poll.max_choices}}
        )
    PollVote.objects.filter(poll=poll, voter=by).delete()
    PollVote.objects.bulk_create(
        PollVote(poll=poll, option_id=pk, voter=by) for pk in sorted(chosen)
    )
    return poll


@transaction.atomic
def poll_close(*, session, poll_pk: int, by) -> Poll:
    """Its author or the GM closes the poll: read-only from now on. A closed one stays so."""
    polls, poll = access_poll(by, session.pk, poll_pk, lock=True)
    flags = polls.poll(poll)
    if flags.is_closed:
        return poll
    if not flags.can_close:
        raise PermissionDenied
    poll.closed_at, poll.closed_by = timezone.now(), by
    poll.save(update_fields=["closed_at", "closed_by"])
    return poll
