"""Writes of the deadline's rule. Each runs inside the caller's transaction, under the
session's row lock the caller holds (diary.services: a turn opening, a post written), so
what it reads of the turn cannot change under it."""

from django.core.exceptions import ValidationError
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from characters.models import Character
from diary.absences.selectors import absent_owner_ids
from diary.deadlines.selectors import deadline_passed, not_acted_in_turn
from diary.models import DeadlineRule, GameSession, Turn, TurnPass


def turn_passes_record(*, session: GameSession, turn: Turn | None, now) -> list[TurnPass]:
    """The turn closes: under a rule other than waiting, past its deadline, each character
    it still awaits is passed over ("Mira czeka w tej turze"). Before the deadline, or
    under "wait for everyone", nothing is written; a turn that closes before its deadline
    passes over only the characters of players away (they were not waited for)."""
    if session.deadline_rule == DeadlineRule.WAIT or turn is None:
        return []
    passed = not_acted_in_turn(session, turn)
    if not deadline_passed(turn, now):
        away = absent_owner_ids([session.pk])[session.pk]
        passed = [character for character in passed if character.owner_id in away]
    return TurnPass.objects.bulk_create(
        TurnPass(turn=turn, character=character, rule=session.deadline_rule, created_at=now)
        for character in passed
    )


def check_gm_may_play(
    *, session: GameSession, turn: Turn | None, character: Character, now
) -> None:
    """The GM writes for another player's character only under "the GM plays the
    character", after the turn's deadline, and while the turn still awaits that character;
    anything else is refused in words next to the character field."""
    if session.deadline_rule != DeadlineRule.GM_PLAYS:
        raise ValidationError(
            {
                "character": _(
                    "In this session the GM does not play the players' characters (after the "
                    "deadline: “%(rule)s”). The GM can change the rule in the session's "
                    "settings."
                )
                % {"rule": DeadlineRule(session.deadline_rule).label}
            }
        )
    if not deadline_passed(turn, now):
        raise ValidationError({"character": _gm_too_early(turn)})
    if character.pk not in {c.pk for c in not_acted_in_turn(session, turn)}:
        raise ValidationError(
            {
                "character": _(
                    "The turn no longer awaits %(name)s: the GM plays only a character that "
                    "has not acted in this turn."
                )
                % {"name": character.name}
            }
        )


def _gm_too_early(turn: Turn | None) -> str:
    if turn is None or turn.deadline is None:
        return _(
            "This turn has no deadline: the GM plays another player's character only after "
            "the turn's deadline."
        )
    return _(
        "The GM plays another player's character only after the turn's deadline (%(deadline)s)."
    ) % {
        "deadline": formats.date_format(timezone.localtime(turn.deadline), "SHORT_DATETIME_FORMAT")
    }
