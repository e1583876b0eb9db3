"""Free-form dice: what the rules leave to the GM — damage, random tables,
encounters — rolled from dice notation (rolls.engine.notation) into the session's chain.

One service, `roll_make_free`, with roll_make's guarantees: one transaction under the
session's row lock, a one-time token (a replay answers with its roll, the same token with
other inputs is refused), every refusal before any die, and the chain's one writer
(rolls.ledger.chain_writer.chain_append). The session's GM rolls free-form dice
("what the rules leave to the GM"); its players too where the GM allowed it in the
session's settings (GameSession.players_free_rolls), each into their own post, marked as
a player's roll."""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from diary.models import GameSession, Post
from diary.services import current_turn
from rolls.access import access_free_roll
from rolls.engine import notation as free_notation
from rolls.engine.dice import DiceSource, SystemDice
from rolls.ledger.chain import canonical_json
from rolls.ledger.chain_writer import chain_append, lock_session
from rolls.ledger.fair_dice import fair_roll
from rolls.models import PLAYER_ROLLER
from rolls.presenters import roll_announcement
from rolls.selectors import sheets_in_play
from rolls.services import RollMade, replayed_roll, target_post

LABEL_MAX_LENGTH = 80

FREE_ROLLS_NOT_ALLOWED = gettext_lazy(
    "The GM has not allowed players to make free-form rolls in this session. "
    "Your character's dice are rolled from the roll panel."
)


@dataclass(frozen=True)
class FreeRoll:
    """What the GM asked for: the expression as typed, what it is for, whom it concerns."""

    expression: str
    label: str
    character_id: int | None = None
    # A secret roll (rolls.ledger.secret): only the commitment is public until the GM reveals it.
    secret: bool = False

    def digest(self) -> str:
        payload = {
            "system": free_notation.SYSTEM,
            "test": free_notation.TEST,
            "expression": self.expression,
            "label": self.label,
            "character": self.character_id,
            "secret": self.secret,
        }
        return hashlib.sha256(canonical_json(payload)).hexdigest()


def roll_make_free(
    *,
    session: GameSession,
    by,
    free: FreeRoll,
    token: uuid.UUID,
    post: Post | None = None,
    dice: DiceSource | None = None,
    client_seed: str = "",
) -> RollMade:
    """One chain entry (system "free", test "notation"), not an action roll. RuleError for
    an expression the engine refuses, ValidationError for a label too long, a character
    not playing (or, for a player, not theirs) or a player's secret roll, PermissionDenied
    for anyone but the GM of a running session and its players where the GM allowed it."""
    with transaction.atomic():
        locked = lock_session(session)
        access = _checked_access(by, locked, free)
        replayed = replayed_roll(locked, by, token, free.digest())
        if replayed is not None:
            return replayed
        parsed = free_notation.parse_notation(free.expression)  # RuleError: before any die
        label = free.label.strip()
        if len(label) > LABEL_MAX_LENGTH:
            raise ValidationError({"label": _("The label is too long.")})
        people = _concerned(locked, by, access, free.character_id)
        turn = current_turn(locked)
        if turn is None:
            raise PermissionDenied
        target = target_post(locked, by, turn, post)
        fair = (
            None
            if dice is not None
            else fair_roll(locked, by, turn, client_seed, secret=free.secret)
        )
        roll = chain_append(
            locked,
            by,
            post=target,
            turn_number=turn.number,
            character_id=free.character_id,
            test=free_notation.TEST,
            is_action=False,
            token=token,
            digest=free.digest(),
            body=_record_body(parsed, people, label, fair=fair, dice=dice, by_gm=access.is_gm),
            announce=roll_announcement,
            secret=free.secret,
        )
    return RollMade(roll, created=True)


def _checked_access(by, locked: GameSession, free: FreeRoll):
    """The roller's access to free-form dice in the session; PermissionDenied for anyone who
    may not roll them, ValidationError for a player's secret roll."""
    access = access_free_roll(by, locked)
    if not access.may_roll:
        raise PermissionDenied(FREE_ROLLS_NOT_ALLOWED if access.refused_by_setting else "")
    if free.secret and not access.is_gm:
        raise ValidationError({"secret": _("Only the GM rolls in secret.")})
    return access


def _concerned(locked: GameSession, by, access, character_id: int | None) -> dict:
    """The record's characters: the one the roll concerns, if any, as `{"a": …}`; refused
    where it does not play in the session, or, for a player, is not theirs."""
    if character_id is None:
        return {}
    character = sheets_in_play(locked, ids=[character_id]).get(character_id)
    if character is None:
        raise ValidationError({"character": _("This character does not play in the session.")})
    if not access.is_gm and character.owner_id != by.pk:
        raise ValidationError({"character": _("You roll only for your own character.")})
    return {"a": {"id": character.pk, "name": character.name, "owner": character.owner.username}}


def _record_body(parsed, people: dict, label: str, *, fair, dice, by_gm: bool):
    """The chain entry's body for its sequence number: the dice drawn (from the fair-dice
    seeds, the dice given, or the system's), the result, and a player's roll marked so."""

    def body(seq: int) -> dict:
        source = fair.dice(seq) if fair is not None else (dice or SystemDice())
        result = free_notation.roll_notation(parsed, source)
        record = {
            "kind": free_notation.TEST,
            "characters": people,
            "label": label,
            "result": result.to_dict(),
        }
        if fair is not None:
            record["fair"] = fair.record(source)
        if not by_gm:
            record["roller"] = PLAYER_ROLLER
        return record

    return body
