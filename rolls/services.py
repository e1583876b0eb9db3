"""Making a roll: the only write to the ledger, one path for every system.

`roll_make` works in ONE transaction, in steps: lock the session row (appends to a
session's chain are serialised; other sessions never wait) and the rows the case's effects
write; check who may roll (rolls.access); answer a repeated one-time token with the roll it
already made, for its own roller only; check the rules, the effects and the turn's action
limit (every refusal before any die) and find or create the post the roll lands in; then
roll through the system's engine, let the effects write (a healed patient), append the
hash-chained row, and let them finish (an opened initiative event).

The session row holds the chain's head (seq, hash) and the current turn, so an append is
one lock, one insert and one update of that row (the head and the activity marker
together); the turn's earlier action rolls are counted, never loaded.

A player's request for a roll (RollAsk) is made, withdrawn and declined here too; the GM
answers it with `roll_make(answers=…)`, as asked or differently (with a reason).
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from dataclasses import dataclass

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from diary import permissions as diary_permissions
from diary.models import GameSession, Post, SessionStatus
from diary.notifications.notices import notify_ask_closed
from diary.selectors import move_actions_in_turn, newest_visible_post, own_posts_in_turn
from diary.services import current_turn, post_create_for_rolls
from rolls import registry
from rolls.access import access_roll_panel, askable_modes, check_may_roll, may_ask
from rolls.engine import systems as engine_systems
from rolls.engine.dice import DiceSource, SystemDice
from rolls.ledger.chain_writer import chain_append, lock_session
from rolls.ledger.fair_dice import NOT_READ, FairRoll, fair_roll, reveal_all, secret_stream_freed
from rolls.ledger.secret import (
    HIDDEN_CHANGED,
    REVEAL_TEST,
    commitment_matches,
    reveal_token,
)
from rolls.models import (
    ASK_NOTE_MAX_LENGTH,
    SESSION_END_KIND,
    AskStatus,
    Roll,
    RollAsk,
    SecretRoll,
)
from rolls.plugins import Case, RequestError, RollContext
from rolls.presenters import roll_announcement
from rolls.roll_plan import PlanChanged, RollPlan
from rolls.selectors import (
    TokenUse,
    TurnActionState,
    action_rolls_in_turn,
    in_combat,
    locked_reads,
    sheets_in_play,
)

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RollMade:
    roll: Roll
    created: bool  # False: the token had already made this roll; nothing was stored


class TokenReused(Exception):
    """The one-time token already made a different roll."""


# ---------------------------------------------------------------------------
# Checks (they read, never write)


def check_turn_action(
    session: GameSession,
    turn,
    character_id: int,
    name: str,
    extra_action_reason: str = "",
    counted=None,
) -> dict | None:
    """RULES 1.5 and seed 000 VII.1 outside combat, for a system that refuses a further
    action: a turn is one action that does something (an action roll, or a potion or item
    used without a roll) and one move, or two moves. Another such action, or one after two
    moves, is refused (RequestError on the reason field) unless the GM gives a reason; then
    this returns what the record keeps of it (`number`: which action of the turn it is).
    Rolls and item uses share this one check and its one permission. Nothing is refused in
    combat. `counted`: the character's actions this turn if the caller already counted them."""
    # What the panel or the roll already read in one query (turn_action_state), else each.
    state = counted if isinstance(counted, TurnActionState) else None
    if turn is None or (state.in_combat if state is not None else in_combat(session)):
        return None
    earlier = (
        counted if counted is not None else action_rolls_in_turn(session, character_id, turn.number)
    )
    moves = state.moves if state is not None else move_actions_in_turn(turn, character_id)
    deeds = earlier.count + earlier.item_uses
    system = registry.system_for(session.system)
    if not deeds and moves < system.actions_per_turn:
        return None
    reason = extra_action_reason.strip()
    if not reason and earlier.count:
        raise RequestError(
            "extra_action_reason", "second_action_roll", name=name, seq=earlier.first_seq
        )
    if not reason and earlier.item_uses:
        raise RequestError("extra_action_reason", "item_used", name=name)
    if not reason:
        raise RequestError("extra_action_reason", "no_action_left", name=name)
    record = {"reason": reason, "earlier_seq": earlier.first_seq, "number": deeds + moves + 1}
    return (
        record
        | ({"moves": moves} if moves else {})
        | ({"item_uses": earlier.item_uses} if earlier.item_uses else {})
    )


def check_action_limit(
    session: GameSession, case: Case, turn, name: str, extra_action_reason: str = "", counted=None
) -> dict | None:
    """check_turn_action for a roll: what is no action (initiative, a defence) never counts."""
    if not case.is_action or case.character_id is None:
        return None
    return check_turn_action(
        session, turn, case.character_id, name, extra_action_reason, counted=counted
    )


def _action_record(session, case: Case, turn, characters, extra_action_reason, counted) -> dict:
    """What the record says of the character's further action roll in the turn: allowed by
    the GM (a system that refuses it otherwise), or counted. `counted`: the acting
    character's TurnActionState, read after the lock (_locked_reads); None when the roll is
    no action (a secret roll is none, nor is a roll of no character)."""
    if counted is None:
        return {}
    system = registry.system_for(case.system)
    if system.refuses_extra_action_rolls:
        acting = characters.get(case.character_id)
        name = acting.name if acting else ""
        allowed = check_action_limit(session, case, turn, name, extra_action_reason, counted)
        return {"extra_action": allowed} if allowed else {}
    if not counted:
        return {}
    return {"action_count": {"number": counted.count + 1, "earlier_seq": counted.first_seq}}


# ---------------------------------------------------------------------------
# Secret rolls (rolls.ledger.secret)

SECRET_VISIBLE_REFUSED = gettext_lazy(
    "This roll cannot be secret: it changes a sheet or opens an event that everyone sees."
)
SECRET_ANSWER_REFUSED = gettext_lazy(
    "A secret roll cannot answer a player's request: the player would not see the answer."
)


def check_may_roll_secret(by, session: GameSession, *, visible: bool, answers=None) -> None:
    """Only the session's GM rolls in secret, and only what changes nothing in sight."""
    if not diary_permissions.is_gm(by, session):
        raise PermissionDenied
    if visible:
        raise ValidationError({"secret": SECRET_VISIBLE_REFUSED})
    if answers is not None:
        raise ValidationError({"secret": SECRET_ANSWER_REFUSED})


def checked_digest(by, session, case: Case, secret: bool, answers) -> str:
    """The case's digest, a secret one's after its checks (check_may_roll_secret)."""
    if not secret:
        return case.digest()
    check_may_roll_secret(by, session, visible=case.is_visible_to_all, answers=answers)
    return secret_digest(case.digest())


def secret_digest(digest: str) -> str:
    """The digest of the same inputs rolled in secret: a replayed token with the box
    changed is another request (TokenReused), never the other roll."""
    return hashlib.sha256(f"secret:{digest}".encode("ascii")).hexdigest()


# ---------------------------------------------------------------------------
# The write


def target_post(session: GameSession, by, turn, post: Post | None, newest=NOT_READ) -> Post:
    """The post a roll or an entry lands in (planned_post), created when it is a new one."""
    planned = planned_post(session, by, turn, post, newest=newest)
    return planned or post_create_for_rolls(session=session, author=by, turn=turn)


def planned_post(
    session: GameSession,
    by,
    turn,
    post: Post | None,
    *,
    context: RollContext | None = None,
    ask: RollAsk | None = None,
    newest=NOT_READ,
) -> Post | None:
    """Where a roll lands, read and never written: the post an effect names (a reroll goes
    beside the roll it repeats); the chosen post of the roller's own of this turn; None (a
    new post after it) for an answer to a request; else, for the GM, the resolution post
    (planned_resolution_post); for a player, their latest post of this turn (the action the roll
    belongs to). None: a new post at the end of the diary. `newest`: the diary's newest
    visible post (or None), when the caller already read it."""
    if context is not None:
        named = (effect.post(context) for effect in context.case.effects)
        if (target := next((p for p in named if p is not None), None)) is not None:
            return target
    if post is not None:
        if post.session_id != session.pk or post.author_id != by.pk or post.turn_id != turn.pk:
            raise ValidationError(
                {"post": _("Rolls land only in your own post of the current turn.")}
            )
        if post.is_hidden:
            raise ValidationError({"post": _("This post is hidden; choose another one.")})
        return post
    if ask is not None:
        return None
    if diary_permissions.is_gm(by, session):
        return planned_resolution_post(session, by, turn, newest)
    latest = own_posts_in_turn(session, by, turn, newest=1)
    return latest[0] if latest else None


def planned_resolution_post(session: GameSession, by, turn, newest=NOT_READ) -> Post | None:
    """Where the GM's roll or entry resolves what came before it: the GM's own post of this
    turn when it is the diary's newest post (the resolution post of a moment ago, or an
    opening no one has answered yet); None for a new post at the bottom. Never a post above
    the players' posts it resolves. `newest`: that post (or None) if the caller read it."""
    if newest is NOT_READ:
        newest = newest_visible_post(session)
    if newest is not None and newest.author_id == by.pk and newest.turn_id == turn.pk:
        return newest
    return None


def replayed_roll(
    session: GameSession, by, token: uuid.UUID, digest: str, used=NOT_READ
) -> RollMade | None:
    """The roll this token already made (the same request sent again), or None; the token
    with another request, or another roller's, is refused (TokenReused). `used`: what the
    caller read of that roll after the lock (a TokenUse, or None); the full roll is fetched
    only to answer with it, a rare path."""
    if used is NOT_READ:
        existing = Roll.objects.filter(session=session, token=token).first()
        used = existing and TokenUse(existing.pk, existing.rolled_by_id, existing.request_digest)
    if used is None:
        return None
    if used.rolled_by_id != by.pk or used.request_digest != digest:
        raise TokenReused
    return RollMade(Roll.objects.get(pk=used.roll_id), created=False)


def roll_make(
    *,
    session: GameSession,
    by,
    case: Case,
    token: uuid.UUID,
    post: Post | None = None,
    answers: RollAsk | None = None,
    answer_note: str = "",
    dice: DiceSource | None = None,
    characters: dict | None = None,
    secret: bool = False,
    extra_action_reason: str = "",
    client_seed: str = "",
    plan: str | None = None,
) -> RollMade:
    """Roll a case (the module's docstring). `answers`: the request answered, `answer_note` why
    the roll differs; `characters`: the sheets the panel read (others are not playing);
    `secret`: rolls.ledger.secret; `extra_action_reason`: the GM allows another action;
    `client_seed`: the page's share of the turn's fair dice (rolls.ledger.fair_dice);
    `dice`: faces given instead; `plan`: the digest of the roll the page described
    (rolls.roll_plan): any other roll is refused (PlanChanged) before a die falls."""
    with transaction.atomic():
        locked = lock_session(session)
        for effect in case.effects:
            effect.lock()
        sheets = _sheets(locked, case, characters)
        check_may_roll(by, locked, case, sheets, extra_action_reason=extra_action_reason)
        digest = checked_digest(by, locked, case, secret, answers)
        turn = current_turn(locked)
        read = _locked_reads(locked, by, case, token, turn, post, answers, secret, dice)
        if (replayed := replayed_roll(locked, by, token, digest, read.token_use)) is not None:
            return replayed
        test = case.engine_test()  # RuleError: refused before any die
        if turn is None:
            raise PermissionDenied
        context = RollContext(locked, by, case, sheets, turn)
        for effect in case.effects:
            effect.check(context)
        action = _action_record(locked, case, turn, sheets, extra_action_reason, read.action)
        ask = _open_ask(locked, by, answers) if answers is not None else None
        answer = answer_record(ask, case, answer_note) if ask is not None else {}
        target = _planned_target(context, post, ask, answer, action, secret, read.newest_post, plan)
        target = target or post_create_for_rolls(session=locked, author=by, turn=turn)
        dice = dice or fair_roll(locked, by, turn, client_seed, read.turn_seed, secret=secret)
        body = _record_body(context, test, dice, action | _answer_part(answer))
        row = _case_row(case, post=target, turn=turn, token=token, digest=digest)
        roll = chain_append(locked, by, **row, body=body, announce=roll_announcement, secret=secret)
        for effect in case.effects:
            effect.after(context, roll)
        if ask is not None:
            status = AskStatus.ANSWERED_DIFFERENTLY if "rolled" in answer else AskStatus.ANSWERED
            _close_ask(ask, status, answer=roll, note=answer.get("note", ""))
    return RollMade(roll, created=True)


def _case_row(case: Case, *, post: Post, turn, token: uuid.UUID, digest: str) -> dict:
    """The chain row's fields (chain_append) that say what was rolled, for whom, where."""
    return {
        "post": post,
        "turn_number": turn.number,
        "character_id": case.character_id,
        "test": case.mode,
        "is_action": case.is_action,
        "token": token,
        "digest": digest,
    }


def _planned_target(context: RollContext, post, ask, answer, action, secret, newest, plan):
    """Where the roll lands (planned_post: an answer with no post chosen gets a post of its
    own after the request, so the diary reads in order), once the roll is the one its page
    described: `plan`, that RollPlan's digest; another roll is refused (PlanChanged) before
    any die. `answer`, `action`: the record's parts (answer_record, _action_record)."""
    by, turn = context.by, context.turn
    target = planned_post(context.session, by, turn, post, context=context, ask=ask, newest=newest)
    if plan is not None:
        made = RollPlan.of(
            by,
            context.case,
            turn,
            target,
            ask,
            differs="rolled" in answer,
            secret=secret,
            extra_action="extra_action" in action,
        )
        if made.digest() != plan:
            raise PlanChanged(made)
    return target


def _locked_reads(locked, by, case: Case, token, turn, post, answers, secret, dice):
    """What this roll reads under the lock, in one statement after it (locked_reads: never
    in the lock's own statement, whose subqueries would see the snapshot from before a wait
    for the lock): its token's earlier roll always; the character's action state when the
    roll is an action; the newest post when the GM's roll lands in the resolution post; the
    turn's seed when the fair dice roll."""
    if turn is None:
        return locked_reads(locked, token=token)
    acting = not secret and case.is_action and case.character_id is not None
    return locked_reads(
        locked,
        token=token,
        action_of=case.character_id if acting else None,
        turn=turn,
        newest_post=post is None and answers is None and diary_permissions.is_gm(by, locked),
        turn_seed=dice is None,
    )


def _answer_part(answer: dict) -> dict:
    return {"answers": answer} if answer else {}


def _record_body(context: RollContext, test, dice: DiceSource | FairRoll | None, extra: dict):
    """The roll's record, given its number: the dice rolled now (faces given in advance, or
    the turn's fair dice, whose every draw the record keeps, or for a turn opened before
    seeds were committed the server's), what the case's effects wrote (a healed patient's
    HP, an opened event), the action count and the request it answers."""
    case = context.case

    def body(seq: int) -> dict:
        fair = dice if isinstance(dice, FairRoll) else None
        source = fair.dice(seq) if fair is not None else (dice or SystemDice())
        result = engine_systems.roll(case.system, test, source)
        if fair is not None:
            extra["fair"] = fair.record(source)
        parts = {}
        for effect in case.effects:
            written = effect.apply(context, result, seq)
            if effect.key and written is not None:
                parts[effect.key] = written
        return {
            "kind": case.mode,
            "characters": _people_record(case, context.characters),
            "what": case.what,
            # The engine's case and its dice: system, test, input, dice, result.
            "result": result.to_dict(),
            **parts,
            **extra,
        }

    return body


def _sheets(session, case: Case, given: dict | None) -> dict:
    """The sheets the case names: among those given (the panel read them a moment ago; one
    not among them is not playing), else read now."""
    ids = case.character_ids
    if given is None:
        return sheets_in_play(session, ids=ids)
    return {pk: given[pk] for pk in ids if pk in given}


def _named(character) -> dict:
    return {"id": character.pk, "name": character.name, "owner": character.owner.username}


def _people_record(case: Case, sheets: dict) -> dict:
    """Who the roll was for, by part, as they were named then."""
    return {
        role: [_named(sheets[pk]) for pk in value]
        if isinstance(value, list)
        else _named(sheets[value])
        for role, value in case.people.items()
    }


# ---------------------------------------------------------------------------
# A player's request for a roll (RollAsk): made, withdrawn, declined; answered by roll_make.

ALREADY_ASKED = gettext_lazy(
    "%(name)s already has an open request in this post: wait for the GM's answer, or "
    "withdraw it first."
)
NO_POST_TO_ASK_IN = gettext_lazy(
    "Describe the action in a post of this turn first; the request is attached to it."
)
ASK_IN_OWN_POST = gettext_lazy("A request belongs to your own post of the current turn.")
ASK_CLOSED = gettext_lazy("This request is no longer open.")
ANSWER_NOTE_NEEDED = gettext_lazy(
    "This roll differs from the request (%(what)s): say why in “Why the roll differs from "
    "the request”; the post shows both."
)
DECLINE_REASON_NEEDED = gettext_lazy("Say why you decline the request: the player reads it.")


def secret_roll_reveal(*, session, by, seq: int):
    """The GM reveals secret roll #seq: one chain entry, in the secret roll's post, holding
    the full record and the salt (so its time and content are in the chain too). A roll is
    revealed once: a second call answers with the first reveal (RollMade.created False).
    PermissionDenied for anyone but the GM of a running session; SecretRoll.DoesNotExist
    for a number that is not a secret roll of this session."""
    with transaction.atomic():
        locked = lock_session(session)
        access = access_roll_panel(by, locked)
        if not (access.may_roll and access.is_gm):
            raise PermissionDenied
        hidden = (
            SecretRoll.objects.select_for_update(of=("self",))
            .select_related("roll__post", "reveal__post")
            .get(roll__session=locked, roll__seq=seq)
        )
        if hidden.reveal is not None:
            return RollMade(hidden.reveal, created=False)
        turn = current_turn(locked)
        if turn is None:
            raise PermissionDenied
        roll = _reveal_secret(locked, by, hidden, turn.number)
        # Its turn's secret seed may now be free to publish (rolls.ledger.fair_dice).
        secret_stream_freed(locked, by, hidden.roll.turn_number)
    return RollMade(roll, created=True)


def _reveal_secret(locked: GameSession, by, hidden: SecretRoll, turn_number: int) -> Roll:
    secret_row = hidden.roll
    # The hidden half is guarded (rolls.models, 0010_secret_roll_guard); should it still
    # have been changed, revealing it would chain a lie: refuse, and say so.
    if not commitment_matches(
        secret_row.record["secret"]["commitment"], hidden.record, hidden.salt
    ):
        logger.error(
            "secret roll #%s of session %s no longer gives its commitment",
            secret_row.seq,
            locked.pk,
        )
        raise ValidationError(HIDDEN_CHANGED)

    def body(_seq: int) -> dict:
        return {
            "kind": REVEAL_TEST,
            "reveals": {
                "seq": secret_row.seq,
                "commitment": secret_row.record["secret"]["commitment"],
                "salt": hidden.salt,
                "record": hidden.record,
            },
        }

    roll = chain_append(
        locked,
        by,
        post=secret_row.post,  # the result shows beside the commitment
        turn_number=turn_number,
        character_id=None,
        test=REVEAL_TEST,
        is_action=False,
        token=reveal_token(secret_row),
        digest=hashlib.sha256(f"reveal:{secret_row.hash}".encode()).hexdigest(),
        body=body,
        announce=roll_announcement,
    )
    hidden.reveal = roll
    hidden.save(update_fields=["reveal"])
    return roll


def session_finishing(session: GameSession, by) -> None:
    """The session ends (diary.services.session_transition, under its lock, by its GM): every
    secret roll still sealed is revealed, so a GM who rolled several and showed the one they
    liked is seen doing it; then every dice seed still held is published (rolls.ledger.fair_dice);
    then the chain's last entry says the session ended, so that anyone holding the export
    can check that nothing stays sealed after it (docs/audit.md)."""
    turn = current_turn(session)
    sealed = (
        SecretRoll.objects.select_for_update(of=("self",))
        .select_related("roll__post")
        .filter(roll__session=session, reveal__isnull=True)
        .order_by("roll__seq")
    )
    for hidden in sealed:
        _reveal_secret(session, by, hidden, turn.number if turn else hidden.roll.turn_number)
    reveal_all(session, by)
    chain_append(
        session,
        by,
        post=None,
        turn_number=turn.number if turn else 0,
        character_id=None,
        test=SESSION_END_KIND,
        is_action=False,
        token=uuid.uuid4(),
        digest="",
        body=lambda _seq: {
            "kind": SESSION_END_KIND,
            SESSION_END_KIND: {"status": SessionStatus.FINISHED.value},
        },
        announce=None,
    )


@transaction.atomic
def roll_ask_create(*, session: GameSession, by, case: Case, post: Post | None) -> RollAsk:
    """A player asks the GM for a roll of their own character: a mode a player may ask for,
    no typed modifiers; checked by the engine now (no die, RULES 1.2: what applies must be
    on the sheet and tied to what is tested), stored with the mode and what the request
    names (`Case.request_fields`), which the GM's answer is held against."""
    locked = lock_session(session)
    sheets = sheets_in_play(locked, ids=case.character_ids)
    character = sheets.get(case.character_id)
    if not may_ask(by, locked) or character is None or character.owner_id != by.pk:
        raise PermissionDenied
    if case.system != locked.system or case.mode not in askable_modes(locked.system):
        raise PermissionDenied
    if case.gm_typed:  # a request names what the sheet gives; modifiers are the GM's
        raise PermissionDenied
    if any(pk not in sheets for pk in case.character_ids):
        raise PermissionDenied
    case.engine_test()  # refusals, no die
    turn = current_turn(locked)
    target = _ask_post(locked, by, turn, post)
    # One open request per character and post: the same form sent twice asks once (the
    # session's row lock above serialises the check; a constraint backs it).
    if RollAsk.objects.filter(post=target, character=character, status=AskStatus.OPEN).exists():
        raise ValidationError({"post": ALREADY_ASKED % {"name": character.name}})
    summary = f"{character.name}: {registry.system_for(case.system).request_summary(case)}"
    ask = RollAsk.objects.create(
        session=locked,
        post=target,
        asked_by=by,
        character=character,
        test=case.mode,
        case_fields=dict(case.request_fields),
        summary=summary[: RollAsk._meta.get_field("summary").max_length],
    )
    locked.touch()
    return ask


def _ask_post(session: GameSession, by, turn, post: Post | None) -> Post:
    """The request belongs to the post that describes the action: the one chosen, else the
    player's latest post of this turn."""
    if post is None:
        latest = own_posts_in_turn(session, by, turn, newest=1)
        if not latest:
            raise ValidationError({"post": NO_POST_TO_ASK_IN})
        return latest[0]
    if post.session_id != session.pk or post.author_id != by.pk or post.turn_id != turn.pk:
        raise ValidationError({"post": ASK_IN_OWN_POST})
    if post.is_hidden:
        raise ValidationError({"post": _("This post is hidden; choose another one.")})
    return post


def _open_ask(session: GameSession, by, ask: RollAsk) -> RollAsk:
    """The request this roll answers: the session's, still open; only its GM answers."""
    if not diary_permissions.is_gm(by, session):
        raise PermissionDenied
    ask = RollAsk.objects.select_for_update().filter(pk=ask.pk, session=session).first()
    if ask is None or not ask.is_open:
        raise ValidationError({"ask": ASK_CLOSED})
    return ask


def answer_differences(ask: RollAsk, case: Case) -> list[str]:
    """What of the request the roll does not roll as asked, in words ([] for none)."""
    asked = ask.case_fields or {}
    proposed = set(registry.system_for(case.system).proposed_fields)
    rolled = {
        name: value
        for name, value in case.request_fields.items()
        if name in asked or name not in proposed
    }
    return [
        str(label)
        for label, same in [
            (_("the kind of roll"), ask.test == case.mode),
            (_("the character"), ask.character_id == case.character_id),
            (_("the test"), asked == rolled),
        ]
        if not same
    ]


def answer_record(ask: RollAsk, case: Case, note: str) -> dict:
    """What the roll's record says of the request it answers. The GM answers by judgment
    (seed 000 VII.4: the GM chooses the skill by their own view of the situation; seed 001:
    the GM decides what a raise costs): a roll other than the one asked needs a reason, and
    the record keeps both what was asked and what was rolled."""
    answer = {"ask": ask.pk, "post": ask.post_id, "summary": ask.summary}
    differs = answer_differences(ask, case)
    if not differs:
        return answer
    note = note.strip()
    if not note:
        raise ValidationError({"answer_note": ANSWER_NOTE_NEEDED % {"what": ", ".join(differs)}})
    if len(note) > ASK_NOTE_MAX_LENGTH:
        raise ValidationError(
            {"answer_note": _("At most %(max)s characters.") % {"max": ASK_NOTE_MAX_LENGTH}}
        )
    system = registry.system_for(case.system)
    rolled = system.request_summary(case)
    name = case.names.get("a")
    return answer | {"rolled": f"{name}: {rolled}" if name else rolled, "note": note}


# Called with each request as it closes (answered, declined, withdrawn), inside the closing
# transaction: a narration that asked for it shows the answer (rolls.inline, registered in
# rolls/apps.py; the wing sits above this module, so it is not imported here).
ask_closed_listeners: list = []


def _close_ask(
    ask: RollAsk, status: str, *, answer: Roll | None = None, note: str = "", by=None
) -> None:
    ask.status = status
    ask.answer = answer
    ask.note = note
    ask.closed_at = timezone.now()
    if by is not None:
        ask.closed_by = by
    elif answer is not None:
        ask.closed_by_id = answer.rolled_by_id
    ask.save(update_fields=["status", "answer", "note", "closed_at", "closed_by"])
    notify_ask_closed(ask)
    for listener in ask_closed_listeners:
        listener(ask)


@transaction.atomic
def roll_ask_withdraw(*, ask: RollAsk, by) -> RollAsk:
    """Its player withdraws an open request while the session runs (rolls.access.may_ask,
    as when it was made): a finished session's requests stay as they were."""
    # The session first, then the request: the order roll_ask_create and roll_make lock in.
    locked = GameSession.objects.select_for_update().get(pk=ask.session_id)
    ask = RollAsk.objects.select_for_update().get(pk=ask.pk)
    if ask.asked_by_id != by.pk or not may_ask(by, locked):
        raise PermissionDenied
    if not ask.is_open:
        raise ValidationError(ASK_CLOSED)
    _close_ask(ask, AskStatus.WITHDRAWN, by=by)
    locked.touch()
    return ask


@transaction.atomic
def roll_ask_decline(*, ask: RollAsk, by, reason: str) -> RollAsk:
    """The GM of a running session declines an open request, saying why: it will not be
    rolled (the player may ask again, differently)."""
    locked = GameSession.objects.select_for_update().get(pk=ask.session_id)
    ask = RollAsk.objects.select_for_update().get(pk=ask.pk)
    if not locked.is_running or not diary_permissions.is_gm(by, locked):
        raise PermissionDenied
    if not ask.is_open:
        raise ValidationError({"reason": ASK_CLOSED})
    reason = reason.strip()
    if not reason:
        raise ValidationError({"reason": DECLINE_REASON_NEEDED})
    if len(reason) > ASK_NOTE_MAX_LENGTH:
        raise ValidationError(
            {"reason": _("At most %(max)s characters.") % {"max": ASK_NOTE_MAX_LENGTH}}
        )
    _close_ask(ask, AskStatus.DECLINED, note=reason, by=by)
    locked.touch()
    return ask
