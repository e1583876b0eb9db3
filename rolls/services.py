"""Making a roll: the only write to the ledger.

`roll_make` works in ONE transaction, in steps: lock the session row (appends
to a session's chain are serialised; other sessions never wait); check who may
roll (rolls.access); answer a repeated one-time token with the roll it already
made, for its own roller only; check the rules and build the engine test (every
refusal before any die) and find or create the post the roll lands in; then
roll, apply healing to the patient, and append the hash-chained row.

Issue 12: the session row holds the chain's head (seq, hash) and the current turn, so an
append is one lock, one insert and one update of that row (the head and the activity
marker together); the turn's earlier action rolls are counted, never loaded.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from characters.models import (
    HEALED_EFFECT_KINDS,
    Character,
    EffectKind,
    HealingKind,
    NegativeEffect,
    SheetChangeKind,
    Skill,
)
from characters.services import sheet_record_change
from diary import permissions as diary_permissions
from diary.models import GameSession, Post
from diary.notifications import notify_ask_answered
from diary.selectors import move_actions_in_turn
from diary.services import current_turn, post_create_for_rolls
from rolls.access import askable_modes, check_may_roll, check_may_roll_case, may_ask
from rolls.cases import Case
from rolls.engine import forum1000 as f1000
from rolls.engine import systems
from rolls.engine.dice import DiceSource, SystemDice
from rolls.initiative_services import check_no_running_event, initiative_event_open
from rolls.ledger import chain_hash
from rolls.models import AskStatus, Roll, RollAsk, SecretRoll
from rolls.requests import (
    SIDE_TESTS,
    NpcTarget,
    RequestError,
    RollRequest,
    SideRequest,
    build_side,
    build_test,
    npc_target,
)
from rolls.secret import SECRET_TEST, secret_split
from rolls.selectors import (
    action_rolls_in_turn,
    ask_summary,
    in_combat,
    playing_characters,
)


@dataclass(frozen=True)
class RollMade:
    roll: Roll
    created: bool  # False: the token had already made this roll; nothing was stored


class TokenReused(Exception):
    """The one-time token already made a different roll."""


class ChainHeadMoved(Exception):
    """The session's head was not the one this writer read: it did not hold the session's
    lock. The transaction rolls back; nothing is stored."""


def lock_session(session: GameSession) -> GameSession:
    """The session row, locked (one chain at a time; other sessions never wait), fresh, with
    its current turn (the head: rolls.services.chain_append, diary.services.current_turn).
    Only the session's row is locked, not the turn's."""
    return (
        GameSession.objects.select_for_update(of=("self",))
        .select_related("current_turn")
        .get(pk=session.pk)
    )


# ---------------------------------------------------------------------------
# Checks (they read, never write)


def prepare(session: GameSession, request: RollRequest, characters: dict | None = None):
    """The engine test for a request, or RequestError/RuleError: the panel's preview.
    `characters`: the sheets the caller already read (rolls.selectors.playing_characters)."""
    if characters is None:
        characters = playing_characters(session, ids=request.character_ids)
    return build_test(request, characters, session.criticals_enabled, session)


def check_action_limit(
    session: GameSession,
    request: RollRequest,
    turn,
    name: str,
    extra_action_reason: str = "",
    counted=None,
) -> dict | None:
    """RULES 1.5 outside combat: two actions per character per turn, one of them with a
    roll. A second action roll, or one after two moves, is refused (RequestError on the
    reason field) unless the GM gives a reason; then this returns what the roll's record
    keeps of it. Initiative, defence (side b) and rolls in
    combat (rolls.selectors.in_combat) are never refused here. `counted`: the character's
    action rolls this turn if the caller already counted them (the panel's preview)."""
    character_id = request.acting_character_id
    if request.kind == "initiative" or character_id is None or turn is None:
        return None
    if in_combat(session):
        return None
    earlier = (
        counted if counted is not None else action_rolls_in_turn(session, character_id, turn.number)
    )
    moves = move_actions_in_turn(turn, character_id)
    # Issue 9: a potion or item used is an action without a roll, like a move.
    uses = earlier.item_uses
    if not earlier and moves + uses < f1000.MOVE_ACTIONS_PER_TURN:
        return None
    reason = extra_action_reason.strip()
    if not reason and earlier:
        raise RequestError(
            "extra_action_reason", "second_action_roll", name=name, seq=earlier.first_seq
        )
    if not reason:
        code = "no_action_left_items" if uses else "no_action_left"
        raise RequestError("extra_action_reason", code, name=name)
    record = {"reason": reason, "earlier_seq": earlier.first_seq}
    return record | ({"moves": moves} if moves else {}) | ({"item_uses": uses} if uses else {})


# ---------------------------------------------------------------------------
# The write


def _target_post(session: GameSession, by, turn, post: Post | None) -> Post:
    """The chosen post, else the roller's latest post of this turn, else a new one."""
    if post is not None:
        if post.session_id != session.pk or post.author_id != by.pk or post.turn_id != turn.pk:
            raise ValidationError(
                {"post": _("Rolls land only in your own post of the current turn.")}
            )
        if post.is_hidden:
            raise ValidationError({"post": _("This post is hidden; choose another one.")})
        return post
    latest = (
        Post.objects.filter(session=session, author=by, turn=turn, hidden_at__isnull=True)
        .order_by("-id")
        .first()
    )
    if latest is not None:
        return latest
    # A post that holds only rolls; its author can add narration by editing it.
    return post_create_for_rolls(session=session, author=by, turn=turn)


def _participants_record(request: RollRequest, characters: dict) -> dict:
    def named(pk):
        character = characters[pk]
        return {"id": character.pk, "name": character.name, "owner": character.owner.username}

    record: dict = {}
    if request.a:
        record["a"] = named(request.a.character_id)
    if request.b:
        record["b"] = named(request.b.character_id)
    if request.patient_id:
        record["patient"] = named(request.patient_id)
    if request.initiative:
        record["initiative"] = [named(line.character_id) for line in request.initiative]
    return record


def _apply_healing(request: RollRequest, result, seq: int, by) -> dict:
    """RULES 1.6, in the roll's transaction: the patient's HP, and one freed effect, both
    written to the sheet's history too."""
    patient = Character.objects.select_for_update().get(pk=request.patient_id)
    hp_before = patient.hp_current
    freed = None
    if result.effect.frees_effect and request.effect_id:
        effect = NegativeEffect.objects.select_for_update().get(pk=request.effect_id)
        effect.freed_at = timezone.now()
        effect.freed_note = _("Healed by roll #%(seq)s") % {"seq": seq}
        effect.save(update_fields=["freed_at", "freed_note"])
        freed = {"id": effect.pk, "kind": effect.kind, "description": effect.description}
    patient.hp_current = result.effect.hp_after
    patient.save(update_fields=["hp_current", "updated_at"])
    sheet_record_change(
        character=patient,
        by=by,
        kind=SheetChangeKind.HEALING,
        note=_("Healing roll #%(seq)s: HP %(before)s → %(after)s")
        % {"seq": seq, "before": hp_before, "after": patient.hp_current},
    )
    return {"hp_before": hp_before, "hp_after": patient.hp_current, "freed_effect": freed}


def _check_healing_effect(request: RollRequest, skill_heals: str) -> None:
    if not request.effect_id:
        return
    effect = (
        NegativeEffect.objects.select_for_update()
        .filter(pk=request.effect_id, character_id=request.patient_id, freed_at__isnull=True)
        .first()
    )
    if effect is None:
        raise RequestError("effect", "not_on_sheet")
    if effect.kind not in HEALED_EFFECT_KINDS[HealingKind(skill_heals)]:
        raise RequestError("effect", "wrong_effect_kind", kind=EffectKind(effect.kind).label)


def healing_skill_kind(request: RollRequest) -> str:
    skill = Skill.objects.filter(pk=request.a.skill_id).first() if request.a else None
    if skill is None or not skill.heals:
        raise RequestError("a-skill", "not_a_healing_skill")
    return skill.heals


def roll_make(
    *,
    session: GameSession,
    by,
    request: RollRequest,
    token: uuid.UUID,
    post: Post | None = None,
    answers: RollAsk | None = None,
    dice: DiceSource | None = None,
    extra_action_reason: str = "",
    event_name: str = "",
    characters: dict | None = None,
    secret: bool = False,
) -> RollMade:
    """`answers`: the request answered (the GM's one click); an initiative roll opens an event
    named `event_name`; `characters`: the panel's sheets; `secret`: issue 13, rolls.secret."""
    with transaction.atomic():
        # Under the lock: the chain head, the turn's actions, the token, the patient's HP.
        locked, characters = _lock(session, request, characters)
        check_may_roll(by, locked, request, characters, extra_action_reason=extra_action_reason)
        digest = checked_digest(by, locked, request.kind, request.digest(), secret, answers)
        if (replayed := _replay_digest(locked, by, token, digest)) is not None:
            return replayed
        checked = _check(
            locked, by, request, characters, post, extra_action_reason, answers, secret
        )
        roll = _append(locked, by, request, token, checked, dice or SystemDice(), secret, digest)
        _after_append(locked, by, request, checked, roll, event_name)
    return RollMade(roll, created=True)


def _after_append(session, by, request: RollRequest, checked, roll: Roll, event_name: str):
    """In the roll's transaction: an initiative roll opens its event (issue 9), an answer
    closes the request it answers."""
    if request.kind == "initiative":
        initiative_event_open(session=session, roll=roll, by=by, name=event_name)
    if checked.ask is not None:
        _close_ask(checked.ask, AskStatus.ANSWERED, answer=roll)


@dataclass(frozen=True)
class _Checked:
    """A roll that may be made: its engine test, its turn and the post it lands in."""

    test: object
    turn: object
    post: Post
    characters: dict
    ask: RollAsk | None = None  # the request this roll answers, locked
    extra_action: dict | None = None  # a second action roll the GM allowed (RULES 1.5)
    npc: NpcTarget | None = None


def _lock(session: GameSession, request: RollRequest, characters: dict | None = None):
    """The session row locked (one chain at a time), and the sheets the roll reads: the
    request's characters among those given (the panel read them a moment ago; a character
    not among them is not playing), else read now."""
    locked = lock_session(session)
    if request.patient_id:
        # HP is tended outside sessions too (the sheet): hold the patient still.
        list(Character.objects.select_for_update().filter(pk=request.patient_id))
    if characters is None:
        return locked, playing_characters(locked, ids=request.character_ids)
    return locked, {pk: characters[pk] for pk in request.character_ids if pk in characters}


def _check(
    session: GameSession,
    by,
    request: RollRequest,
    characters,
    post,
    extra_action_reason="",
    answers=None,
    secret: bool = False,
) -> _Checked:
    """Every refusal before any die (a running initiative event, the rules, the healing
    effect, the turn, the action limit, the post, the request answered), then the post the
    roll lands in, created if needed."""
    check_no_running_event(session, request)
    if request.kind == "healing":
        _check_healing_effect(request, healing_skill_kind(request))
    test = build_test(request, characters, session.criticals_enabled, session)
    turn = current_turn(session)
    if turn is None:
        raise PermissionDenied
    acting = characters.get(request.acting_character_id)
    # A secret roll is no action of the character's (rolls.secret): never counted or refused.
    extra = (
        None
        if secret
        else check_action_limit(
            session, request, turn, acting.name if acting else "", extra_action_reason
        )
    )
    ask = _open_ask(session, by, answers) if answers is not None else None
    if ask is not None:
        _check_answer_matches(ask, request)
    if ask is not None and post is None:
        # The answer gets its own post, after the request: the diary reads in order.
        target = post_create_for_rolls(session=session, author=by, turn=turn)
    else:
        target = _target_post(session, by, turn, post)
    npc = npc_target(request.a, session) if request.kind in SIDE_TESTS else None
    return _Checked(test, turn, target, characters, extra_action=extra, ask=ask, npc=npc)


def _open_ask(session: GameSession, by, ask: RollAsk) -> RollAsk:
    """The request this roll answers: the session's, still open; only its GM answers."""
    if not diary_permissions.is_gm(by, session):
        raise PermissionDenied
    ask = RollAsk.objects.select_for_update().filter(pk=ask.pk, session=session).first()
    if ask is None or not ask.is_open:
        raise ValidationError({"ask": _("This request is no longer open.")})
    return ask


ANSWER_DIFFERS = gettext_lazy(
    "This roll is not what the request asks (%(what)s). An answer rolls the player's "
    "request as asked, with the GM's modifiers added; roll something else without "
    "answering."
)


def _check_answer_matches(ask: RollAsk, request: RollRequest) -> None:
    """An answer rolls the request's character, test and sources exactly (side a of an
    opposed roll); the GM adds only modifiers and an NPC's. Otherwise the roll would show
    the request's words over something else."""
    side = request.a if request.kind in SIDE_TESTS or request.kind == "opposed" else None
    if side is None:
        differs = [_("the kind of roll")]
    else:
        differs = [
            label
            for label, same in [
                (_("the character"), side.character_id == ask.character_id),
                (_("the test"), side.test == ask.test),
                (_("the attributes"), sorted(side.attribute_ids) == sorted(ask.attribute_ids)),
                (_("the skill"), side.test != "skill" or side.skill_id == ask.skill_id),
                (_("abilities and flaws"), set(side.trait_ids) == set(ask.trait_ids)),
                (_("items"), set(side.item_ids) == set(ask.item_ids)),
            ]
            if not same
        ]
    if differs:
        raise ValidationError({"ask": ANSWER_DIFFERS % {"what": ", ".join(map(str, differs))}})


def _close_ask(ask: RollAsk, status: str, *, answer: Roll | None = None) -> None:
    ask.status = status
    ask.answer = answer
    ask.closed_at = timezone.now()
    ask.save(update_fields=["status", "answer", "closed_at"])
    if answer is not None:
        notify_ask_answered(ask, roll=answer)  # issue 13: the asking player hears of it


# ---------------------------------------------------------------------------
# Secret rolls (issue 13; rolls.secret)

# Kinds that write to a sheet or open an event: a hidden check must change nothing anyone sees.
NOT_SECRET_KINDS = ("healing", "initiative")
SECRET_KIND_REFUSED = gettext_lazy(
    "A healing or initiative roll cannot be secret: it changes a sheet or opens an event "
    "that everyone sees."
)
SECRET_ANSWER_REFUSED = gettext_lazy(
    "A secret roll cannot answer a player's request: the player would not see the answer."
)


def check_may_roll_secret(by, session: GameSession, *, kind: str, answers=None) -> None:
    """Only the session's GM rolls in secret, and only what changes nothing in sight."""
    if not diary_permissions.is_gm(by, session):
        raise PermissionDenied
    if kind in NOT_SECRET_KINDS:
        raise ValidationError({"secret": SECRET_KIND_REFUSED})
    if answers is not None:
        raise ValidationError({"secret": SECRET_ANSWER_REFUSED})


def checked_digest(by, session, kind: str, digest: str, secret: bool, answers) -> str:
    """The request's digest, a secret one's after its checks (check_may_roll_secret)."""
    if not secret:
        return digest
    check_may_roll_secret(by, session, kind=kind, answers=answers)
    return secret_digest(digest)


def secret_digest(digest: str) -> str:
    """The request digest of the same inputs rolled in secret: a replayed token with the
    box changed is another request (TokenReused), never the other roll."""
    return hashlib.sha256(f"secret:{digest}".encode("ascii")).hexdigest()


def chain_append(
    session: GameSession,
    by,
    *,
    post: Post,
    turn_number: int,
    character_id: int | None,
    test: str,
    is_action: bool,
    token: uuid.UUID,
    digest: str,
    body: Callable[[int], dict],
    secret: bool = False,
) -> Roll:
    """The chain's one writer: every row of a session's chain (forum1000 rolls, the case
    systems' rolls, diary entries) is appended here, under the session's row lock the caller
    holds. `body(seq)` gives the record's own keys (kind, characters, result…); it may roll
    and write in the same transaction (healing needs the roll's number). The envelope —
    format, session, seq, turn, post, who and when — is the same for every row.

    The head comes from the locked session row (lock_session), not from a "last roll"
    query; one UPDATE moves it and the activity marker, and only if it is still the head
    this writer read (else ChainHeadMoved: the insert rolls back, the head never drifts).

    `secret` (issue 13, rolls.secret): the chain gets only the envelope, the test and a
    commitment to the full record; the full record and its salt go to SecretRoll. The row
    names no character and is no action roll: nothing in the diary may tell what it was."""
    seq = session.chain_seq + 1
    prev_hash = session.chain_hash
    content = body(seq)
    now = timezone.now()
    record = {
        "format": 1,
        "session": session.pk,
        "seq": seq,
        "turn": turn_number,
        "post": post.pk,
        "rolled_by": {"id": by.pk, "username": by.get_username()},
        "rolled_at": now.isoformat(),
        **content,
    }
    hidden = None
    if secret:
        hidden, record = secret_split(record, system=session.system, test=test)
        character_id, test, is_action = None, SECRET_TEST, False
    roll = Roll.objects.create(
        session=session,
        seq=seq,
        post=post,
        rolled_by=by,
        character_id=character_id,
        system=session.system,
        test=test,
        turn_number=turn_number,
        is_action=is_action,
        record=record,
        prev_hash=prev_hash,
        hash=chain_hash(prev_hash, record),
        token=token,
        request_digest=digest,
        created_at=now,
    )
    moved = GameSession.objects.filter(pk=session.pk, chain_seq=seq - 1).update(
        chain_seq=seq, chain_hash=roll.hash, activity_at=now
    )
    if moved != 1:
        raise ChainHeadMoved(f"session {session.pk}: the head is not #{seq - 1}")
    if hidden is not None:
        SecretRoll.objects.create(roll=roll, **hidden)
    session.chain_seq, session.chain_hash, session.activity_at = seq, roll.hash, now
    return roll


def _append(
    session, by, request, token, checked: _Checked, dice: DiceSource, secret=False, digest=""
) -> Roll:
    """Roll, apply healing, and append the hash-chained row (the record says it all)."""

    def body(seq: int) -> dict:
        result = f1000.roll(checked.test, dice)
        healing = _apply_healing(request, result, seq, by) if request.kind == "healing" else None
        return _record(request, checked, result, healing)

    return chain_append(
        session,
        by,
        post=checked.post,
        turn_number=checked.turn.number,
        character_id=request.acting_character_id,
        test=request.kind,
        is_action=request.kind != "initiative",
        token=token,
        digest=digest or request.digest(),
        body=body,
        secret=secret,
    )


def _record(request, checked: _Checked, result, healing) -> dict:
    return (
        {
            "kind": request.kind,
            "characters": _participants_record(request, checked.characters),
            "result": result.to_dict(),
            "healing": healing,
            # The NPC the roll targeted (issue 8), as it was at the roll; no key without one.
            **({"npc": checked.npc.to_record()} if checked.npc else {}),
        }
        | ({"extra_action": checked.extra_action} if checked.extra_action else {})
        | _answer_record(checked.ask)
    )


def _answer_record(ask: RollAsk | None) -> dict:
    """A roll that answers a request names it (and its post) in the hashed record."""
    if ask is None:
        return {}
    return {"answers": {"ask": ask.pk, "post": ask.post_id, "summary": ask.summary}}


# ---------------------------------------------------------------------------
# The case systems (issue 10): q10, ciernie, arsmagica, through rolls.cases.Case


def roll_make_case(
    *,
    session: GameSession,
    by,
    case: Case,
    token: uuid.UUID,
    post: Post | None = None,
    answers: RollAsk | None = None,
    dice: DiceSource | None = None,
    characters: dict | None = None,
    secret: bool = False,
) -> RollMade:
    """A case system's roll, with roll_make's guarantees: ONE transaction under the
    session's row lock; who may roll checked (rolls.access); a repeated token answers with
    its roll (its digest is `case.digest()`), the same token with other inputs is refused
    (TokenReused); every refusal before any die; the post it lands in as roll_make's (an
    answer to a request gets its own post after it); and the one chain writer.
    `characters`: as roll_make's (the panel's sheets, read once)."""
    with transaction.atomic():
        locked = lock_session(session)
        ids = [pk for pk in (case.character_id, case.other_character_id) if pk is not None]
        if characters is None:
            characters = playing_characters(locked, ids=ids)
        else:
            characters = {pk: characters[pk] for pk in ids if pk in characters}
        check_may_roll_case(by, locked, case, characters)
        digest = checked_digest(by, locked, case.mode, case.digest(), secret, answers)
        replayed = _replay_digest(locked, by, token, digest)
        if replayed is not None:
            return replayed
        test = case.engine_test()  # RuleError: refused before any die
        turn = current_turn(locked)
        if turn is None:
            raise PermissionDenied
        ask = _open_ask(locked, by, answers) if answers is not None else None
        if ask is not None:
            _check_case_answers(ask, case)
        if ask is not None and post is None:
            # The answer gets its own post, after the request: the diary reads in order.
            target = post_create_for_rolls(session=locked, author=by, turn=turn)
        else:
            target = _target_post(locked, by, turn, post)
        earlier = (
            action_rolls_in_turn(locked, case.character_id, turn.number)
            if case.is_action and case.character_id is not None and not secret
            else None
        )

        def body(_seq: int) -> dict:
            result = systems.roll(case.system, test, dice or SystemDice())
            return _case_record(case, characters, result, earlier, ask)

        roll = chain_append(
            locked,
            by,
            post=target,
            turn_number=turn.number,
            character_id=case.character_id,
            test=case.mode,
            is_action=case.is_action,
            token=token,
            digest=digest,
            body=body,
            secret=secret,
        )
        if ask is not None:
            _close_ask(ask, AskStatus.ANSWERED, answer=roll)
    return RollMade(roll, created=True)


def _replay_digest(session: GameSession, by, token: uuid.UUID, digest: str) -> RollMade | None:
    existing = Roll.objects.filter(session=session, token=token).first()
    if existing is None:
        return None
    if existing.rolled_by_id != by.pk or existing.request_digest != digest:
        raise TokenReused
    return RollMade(existing, created=False)


def _named(character) -> dict:
    return {"id": character.pk, "name": character.name, "owner": character.owner.username}


def _case_record(case: Case, characters: dict, result, earlier, ask) -> dict:
    people = {}
    if case.character_id is not None:
        people["a"] = _named(characters[case.character_id])
    if case.other_character_id is not None:
        people["b"] = _named(characters[case.other_character_id])
    record = {
        "kind": case.mode,
        "characters": people,
        "what": case.what,
        # The engine's case and its dice: system, test, input, dice, result.
        "result": result.to_dict(),
    }
    if earlier:
        # Issue 10: these systems count a turn's action rolls and show them, never refuse.
        record["action_count"] = {"number": earlier.count + 1, "earlier_seq": earlier.first_seq}
    return record | _answer_record(ask)


def _check_case_answers(ask: RollAsk, case: Case) -> None:
    """An answer rolls what was asked: the same mode, character and named fields; the GM
    adds only modifiers (and what a request leaves to the GM, e.g. a difficulty)."""
    differs = [
        label
        for label, same in [
            (_("the kind of roll"), ask.test == case.mode),
            (_("the character"), ask.character_id == case.character_id),
            (_("the test"), (ask.case_fields or {}) == case.request_fields),
        ]
        if not same
    ]
    if differs:
        raise ValidationError({"ask": ANSWER_DIFFERS % {"what": ", ".join(map(str, differs))}})


# ---------------------------------------------------------------------------
# A player's request for a roll (RollAsk): made, withdrawn; answered by roll_make.


@transaction.atomic
def roll_ask_create(*, session: GameSession, by, side: SideRequest, post: Post | None) -> RollAsk:
    """Checked now against RULES 1.2 (seed 000 examples 2 and 3 are refused), before the GM
    sees it: the sources must be on the character's sheet and tied to the tested attribute."""
    locked = lock_session(session)
    characters = playing_characters(locked, ids=[side.character_id])
    character = characters.get(side.character_id)
    if not may_ask(by, locked) or character is None or character.owner_id != by.pk:
        raise PermissionDenied
    # A request names what the sheet gives; modifiers are the GM's to add (RULES 1.2).
    if side.uses_gm_modifiers or side.action_value:
        raise PermissionDenied
    if side.test not in SIDE_TESTS:
        raise RequestError("a-test", "required")
    build_side(side, characters, locked.criticals_enabled, "a-")  # refusals, no die
    turn = current_turn(locked)
    target = _ask_post(locked, by, turn, post)
    # One open request per character and post: the same form sent twice asks once (the
    # session's row lock above serialises the check; a constraint backs it).
    if RollAsk.objects.filter(post=target, character=character, status=AskStatus.OPEN).exists():
        raise ValidationError({"post": ALREADY_ASKED % {"name": character.name}})
    ask = RollAsk.objects.create(
        session=locked,
        post=target,
        asked_by=by,
        character=character,
        test=side.test,
        attribute_ids=list(side.attribute_ids),
        skill_id=side.skill_id if side.test == "skill" else None,
        trait_ids=list(side.trait_ids),
        item_ids=list(side.item_ids),
        summary=ask_summary(character, side),
    )
    locked.touch()
    return ask


@transaction.atomic
def roll_ask_create_case(*, session: GameSession, by, case: Case, post: Post | None) -> RollAsk:
    """A case system's request (issue 10): the player's own character, a mode a player may
    ask for, no typed modifiers; checked by the engine now (no die), stored with the
    mode and the named fields (`Case.request_fields`) the GM's answer must roll."""
    locked = lock_session(session)
    characters = playing_characters(locked, ids=[case.character_id])
    character = characters.get(case.character_id)
    if not may_ask(by, locked) or character is None or character.owner_id != by.pk:
        raise PermissionDenied
    if case.system != locked.system or case.mode not in askable_modes(locked.system):
        raise PermissionDenied
    if case.gm_typed:  # a request names what the sheet gives; modifiers are the GM's
        raise PermissionDenied
    if case.other_character_id is not None and case.other_character_id not in (
        playing_characters(locked, ids=[case.other_character_id])
    ):
        raise PermissionDenied
    case.engine_test()  # refusals, no die
    turn = current_turn(locked)
    target = _ask_post(locked, by, turn, post)
    if RollAsk.objects.filter(post=target, character=character, status=AskStatus.OPEN).exists():
        raise ValidationError({"post": ALREADY_ASKED % {"name": character.name}})
    ask = RollAsk.objects.create(
        session=locked,
        post=target,
        asked_by=by,
        character=character,
        test=case.mode,
        case_fields=dict(case.request_fields),
        summary=case_ask_summary(character, case)[: RollAsk._meta.get_field("summary").max_length],
    )
    locked.touch()
    return ask


def case_ask_summary(character, case: Case) -> str:
    """ "Eryk: Siła + Atletyka (5z2) · podbicia: 1": the system panel's words, else `what`."""
    from rolls.cases import panel_for

    system_panel = panel_for(case.system)
    summary = system_panel.summary(case) if system_panel and system_panel.summary else case.what
    return f"{character.name}: {summary}"


ALREADY_ASKED = gettext_lazy(
    "%(name)s already has an open request in this post: wait for the GM's answer, or "
    "withdraw it first."
)
NO_POST_TO_ASK_IN = gettext_lazy(
    "Describe the action in a post of this turn first; the request is attached to it."
)
ASK_IN_OWN_POST = gettext_lazy("A request belongs to your own post of the current turn.")


def _ask_post(session: GameSession, by, turn, post: Post | None) -> Post:
    """The request belongs to the post that describes the action: the one chosen, else the
    player's latest post of this turn."""
    if post is None:
        post = (
            Post.objects.filter(session=session, author=by, turn=turn, hidden_at__isnull=True)
            .order_by("-id")
            .first()
        )
        if post is None:
            raise ValidationError({"post": NO_POST_TO_ASK_IN})
    elif post.session_id != session.pk or post.author_id != by.pk or post.turn_id != turn.pk:
        raise ValidationError({"post": ASK_IN_OWN_POST})
    elif post.is_hidden:
        raise ValidationError({"post": _("This post is hidden; choose another one.")})
    return post


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
        raise ValidationError(_("This request is no longer open."))
    _close_ask(ask, AskStatus.WITHDRAWN)
    locked.touch()
    return ask
