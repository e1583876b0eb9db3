"""Every write to sessions and the diary: one transaction each.

Services check permissions and invariants themselves (they never trust a
view) and raise PermissionDenied or ValidationError before writing anything.
"""

import uuid

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from characters.models import Character
from characters.selectors import mount_holder_ids
from characters.services import effects_end_by_turn
from characters.systems import ATTRIBUTE_RANGE, MOVEMENT_RULES, SPEED_ATTRIBUTE
from config.markdown import render_narration
from diary import hooks, permissions, reading, selectors
from diary.access import SessionAccess, access_participation, session_access
from diary.deadlines import selectors as deadline_selectors
from diary.deadlines import services as deadline_services
from diary.drafts import services as draft_services
from diary.eyes.rendering import render_post_narration
from diary.models import (
    AUTO_NEXT_TURN_NEEDS_A_RULE,
    GONE_STATUSES,
    DeadlineRule,
    DraftPlace,
    GameSession,
    Npc,
    Participation,
    ParticipationStatus,
    PlanDecision,
    PlanSubmission,
    Post,
    PostRevision,
    SessionPlan,
    SessionStatus,
    Turn,
)
from diary.notifications import delivery as notification_delivery
from diary.notifications import notices as notifications
from diary.pictures import services as picture_services
from diary.posts import dice_markers, voices
from diary.scenes import services as scene_services

# ---------------------------------------------------------------------------
# Sessions
# ---------------------------------------------------------------------------


@transaction.atomic
def session_create(
    *,
    gm,
    title: str,
    description: str,
    system: str,
    criticals_enabled: bool,
    npc_mode: str,
    roll_policy: str,
    players_free_rolls: bool = False,
    recruiting: bool = False,
    player_slots: int = 4,
    posting_habits: str = "",
    deadline_rule: str = DeadlineRule.WAIT,
    auto_next_turn: bool = False,
    posting_pace: str = "",
    language: str = "pl",
    tags: str = "",
) -> GameSession:
    if not gm.is_authenticated:
        raise PermissionDenied
    if system not in ATTRIBUTE_RANGE:
        # A session of every system whose sheets can be built, and no other.
        raise ValidationError({"system": _("Unknown rule system.")})
    _check_auto_next_turn(deadline_rule, auto_next_turn)
    return GameSession.objects.create(
        gm=gm,
        title=title,
        description=description,
        system=system,
        criticals_enabled=criticals_enabled,
        npc_mode=npc_mode,
        roll_policy=roll_policy,
        players_free_rolls=players_free_rolls,
        recruiting=recruiting,
        player_slots=player_slots,
        posting_habits=posting_habits.strip(),
        deadline_rule=deadline_rule,
        auto_next_turn=auto_next_turn,
        posting_pace=posting_pace,
        language=language,
        tags=tags,
    )


@transaction.atomic
def session_update(*, session: GameSession, by, **fields) -> GameSession:
    session = GameSession.objects.select_for_update().get(pk=session.pk)
    if not session_access(by, session).can_manage:
        raise PermissionDenied
    locked = {"system", "criticals_enabled", "npc_mode"}
    places = fields.get("player_slots", session.player_slots)
    if places != session.player_slots:
        # Fewer places than characters playing would leave someone seated past the places.
        taken = _places_taken(session)
        if places < taken:
            raise ValidationError(
                {
                    "player_slots": _(
                        "Characters playing now: %(taken)s; the places cannot be fewer."
                    )
                    % {"taken": taken}
                }
            )
    for name, value in fields.items():
        if name in locked and session.rules_locked and getattr(session, name) != value:
            raise ValidationError(
                {name: _("This setting is fixed once the session plan is accepted.")}
            )
        if (
            name in PLAN_SETTINGS
            and session.status == SessionStatus.PLAN_SUBMITTED
            and getattr(session, name) != value
        ):
            # What the moderators review is what will run.
            raise ValidationError(
                {name: _("The plan is with the moderators: take it back to draft to change this.")}
            )
        setattr(session, name, value)
    _check_auto_next_turn(session.deadline_rule, session.auto_next_turn)
    session.save()
    if any(name in fields for name in DEADLINE_SETTINGS):
        # The diary's turn block says the rule: open diaries refresh to show it.
        session.touch()
    return session


# The deadline's rule: shown in the diary's turn block (diary/deadlines/).
DEADLINE_SETTINGS = ("deadline_rule", "auto_next_turn")


def _check_auto_next_turn(rule: str, auto_next_turn: bool) -> None:
    """The site opens turns only under a rule that lets a turn end without everyone."""
    if auto_next_turn and rule == DeadlineRule.WAIT:
        raise ValidationError({"auto_next_turn": AUTO_NEXT_TURN_NEEDS_A_RULE})


# The session's settings that are part of its plan, snapshotted with each submission.
PLAN_SETTINGS = ("criticals_enabled", "npc_mode", "roll_policy")


# Who may move a session from one status to the next: "gm" or "moderator".
TRANSITIONS: dict[tuple[str, str], str] = {
    (SessionStatus.DRAFT, SessionStatus.PLAN_SUBMITTED): "gm",
    (SessionStatus.PLAN_SUBMITTED, SessionStatus.DRAFT): "gm",
    (SessionStatus.PLAN_SUBMITTED, SessionStatus.ACCEPTED): "moderator",
    (SessionStatus.ACCEPTED, SessionStatus.RUNNING): "gm",
    (SessionStatus.RUNNING, SessionStatus.FINISHED): "gm",
}


def session_allowed_transitions(*, session: GameSession, user) -> list[str]:
    """The statuses this user may move the session to now."""
    access = session_access(user, session)
    return transitions_for(access)


def transitions_for(access) -> list[str]:
    """The statuses a SessionAccess's user may move its session to now."""
    allowed = []
    for (source, target), role in TRANSITIONS.items():
        if source != access.session.status:
            continue
        if (role == "gm" and access.is_gm) or (role == "moderator" and access.is_moderator):
            allowed.append(target)
    return allowed


@transaction.atomic
def session_transition(*, session: GameSession, by, to: str) -> GameSession:
    session = GameSession.objects.select_for_update().get(pk=session.pk)
    role = TRANSITIONS.get((session.status, to))
    if role is None:
        raise ValidationError(
            _("A session cannot go from “%(source)s” to “%(target)s”.")
            % {"source": session.get_status_display(), "target": SessionStatus(to).label}
            if to in SessionStatus.values
            else _("Unknown session status.")
        )
    if to not in session_allowed_transitions(session=session, user=by):
        raise PermissionDenied
    if to == SessionStatus.RUNNING:
        _check_cast_free_to_start(session)
    if to == SessionStatus.FINISHED:
        hooks.current().session_finishing(session, by)
    source = session.status
    session.status = to
    session.save(update_fields=["status", "updated_at"])
    _plan_record_transition(session=session, by=by, source=source, to=to)
    if to == SessionStatus.RUNNING and not session.turns.exists():
        turn = Turn.objects.create(session=session, number=1, opened_by=by)
        session.touch(current_turn=turn)
        hooks.current().turn_opened(session, turn, by)
        notifications.notify_turn_opened(turn, by=by)
    return session


# ---------------------------------------------------------------------------
# Participants
# ---------------------------------------------------------------------------


def _check_character_fits(session: GameSession, character: Character) -> None:
    if character.system != session.system:
        raise ValidationError(
            {"character": _("This character is built for another rule system than the session.")}
        )
    if session.status == SessionStatus.FINISHED:
        raise ValidationError(_("The session is finished."))
    if session.runs(character.owner):
        # Whoever judges the rolls plays no character here (as a co-GM is named).
        raise ValidationError(
            {
                "character": _(
                    "This character's player runs this session: its GM and co-GMs play no "
                    "character in it."
                )
            }
        )
    if character.is_stand_in:
        # A stand-in plays only through its NPC, never as a participant.
        raise ValidationError(
            {"character": _("This sheet is an NPC's stand-in: it never joins as a participant.")}
        )


def _running_elsewhere(session: GameSession, character: Character) -> GameSession | None:
    """The running session, other than this one, the character plays in: its HP, effects
    and potions belong to one story, so it plays in one running session at a time."""
    return (
        GameSession.objects.filter(
            participations__character=character,
            participations__status=ParticipationStatus.ACCEPTED,
            status=SessionStatus.RUNNING,
        )
        .exclude(pk=session.pk)
        .first()
    )


def _check_not_playing_elsewhere(session: GameSession, character: Character) -> None:
    """Asking, inviting and accepting all refuse a character busy in a running session.
    The character's row lock serialises two sessions accepting it at the same moment."""
    Character.objects.select_for_update().filter(pk=character.pk).first()
    elsewhere = _running_elsewhere(session, character)
    if elsewhere is not None:
        raise ValidationError(
            {
                "character": _(
                    "This character already plays in the running session “%(session)s”; it "
                    "plays in one running session at a time."
                )
                % {"session": elsewhere.title}
            }
        )


def _check_cast_free_to_start(session: GameSession) -> None:
    """A session starts only if none of its characters plays in another running session."""
    for participation in session.participations.filter(
        status=ParticipationStatus.ACCEPTED
    ).select_related("character"):
        elsewhere = _running_elsewhere(session, participation.character)
        if elsewhere is not None:
            raise ValidationError(
                _(
                    "%(character)s already plays in the running session “%(session)s”; a "
                    "character plays in one running session at a time."
                )
                % {"character": participation.character.name, "session": elsewhere.title}
            )


def _reopen_or_create(session: GameSession, character: Character, status: str) -> Participation:
    """A declined or withdrawn character may be invited again, and a withdrawn one may ask
    again; anything else is a duplicate. The caller holds the session's row lock."""
    existing = Participation.objects.filter(session=session, character=character).first()
    if existing is None:
        return Participation.objects.create(session=session, character=character, status=status)
    if status == ParticipationStatus.REQUESTED and existing.status == ParticipationStatus.DECLINED:
        raise ValidationError(
            {
                "character": _(
                    "The GM has declined this character; only an invitation can bring it back."
                )
            }
        )
    if existing.status not in (ParticipationStatus.DECLINED, ParticipationStatus.WITHDRAWN):
        raise ValidationError({"character": _("This character is already on the session's list.")})
    existing.status = status
    existing.decided_at = None
    existing.save(update_fields=["status", "decided_at"])
    return existing


@transaction.atomic
def participation_invite(*, session: GameSession, by, character: Character) -> Participation:
    # The session's row lock serialises two clicks on the same invitation.
    session = GameSession.objects.select_for_update().get(pk=session.pk)
    if not session_access(by, session).can_manage:
        raise PermissionDenied
    _check_character_fits(session, character)
    _check_free_place(session, field="character")
    _check_not_playing_elsewhere(session, character)
    participation = _reopen_or_create(session, character, ParticipationStatus.INVITED)
    notifications.notify_invitation(participation, by=by)
    return participation


@transaction.atomic
def participation_request(
    *, session: GameSession, by, character: Character, message: str = ""
) -> Participation:
    session = GameSession.objects.select_for_update().get(pk=session.pk)
    if character.owner_id != by.pk or not session_access(by, session).can_see_card:
        raise PermissionDenied
    _check_recruiting(session)
    _check_character_fits(session, character)
    _check_not_playing_elsewhere(session, character)
    participation = _reopen_or_create(session, character, ParticipationStatus.REQUESTED)
    participation.message = message.strip()
    participation.gm_note = ""
    participation.save(update_fields=["message", "gm_note"])
    notifications.notify_join_request(participation, by=by)
    return participation


def _check_recruiting(session: GameSession) -> None:
    """Applications are taken while recruitment is open and a place is free (the caller
    holds the session's row lock)."""
    if not session.recruiting or session.status in (SessionStatus.DRAFT, SessionStatus.FINISHED):
        raise ValidationError(_("This session is not recruiting: the GM has closed recruitment."))
    if _places_taken(session) >= session.player_slots:
        raise ValidationError(_("This session has no free places: every place is taken."))


def _places_taken(session: GameSession) -> int:
    return session.participations.filter(status=ParticipationStatus.ACCEPTED).count()


def _check_free_place(session: GameSession, *, field: str | None = None) -> None:
    """A character is seated (accepted, either way in) or invited only while a place is
    free. The caller holds the session's row lock, so two acceptances at once count each
    other and cannot both take the last place."""
    taken = _places_taken(session)
    if taken >= session.player_slots:
        message = _(
            "Every place in this session is taken (%(taken)s of %(places)s); the GM can raise "
            "the number of places in the session's settings."
        ) % {"taken": taken, "places": session.player_slots}
        raise ValidationError({field: message} if field else message, code="no_free_place")


@transaction.atomic
def participation_decide(
    *, participation: Participation, by, accept: bool, note: str = ""
) -> Participation:
    """An invitation is answered by the owner, a request by the GM (diary.access)."""
    # The session's row first (as every service locks it before what it holds): the places
    # are counted under it. A participation never moves to another session.
    session = GameSession.objects.select_for_update().filter(pk=participation.session_id).first()
    flags = access_participation(by, participation.pk, lock=True)
    participation = flags.participation
    if not flags.can_decide:
        raise PermissionDenied
    if accept:
        _check_free_place(session)
        _check_not_playing_elsewhere(participation.session, participation.character)
    participation.status = ParticipationStatus.ACCEPTED if accept else ParticipationStatus.DECLINED
    participation.decided_at = timezone.now()
    update = ["status", "decided_at"]
    if by.pk != participation.character.owner_id:
        # The GM's answer to an application carries a note the applicant reads.
        participation.gm_note = note.strip()
        update.append("gm_note")
    participation.save(update_fields=update)
    notifications.notify_participation_decided(participation, by=by)
    return participation


@transaction.atomic
def participation_withdraw(*, participation: Participation, by, reason: str = "") -> Participation:
    """The owner leaves, or the GM (or a co-GM) removes a character; the row stays as
    history, and so do the character's posts and rolls, under its name. The character is
    free to play elsewhere. A playing character's removal needs the GM's reason, which its
    player reads; its leaving is told to the GM and co-GMs."""
    flags = access_participation(by, participation.pk, lock=True)
    participation = flags.participation
    if participation.status in GONE_STATUSES:
        raise ValidationError(_("This character is not on the session's list any more."))
    if not flags.can_withdraw:
        raise PermissionDenied
    playing = participation.status == ParticipationStatus.ACCEPTED
    removed = by.pk != participation.character.owner_id
    reason = reason.strip()
    if removed and playing and not reason:
        raise ValidationError({"reason": _("Give the player the reason for the removal.")})
    participation.status = ParticipationStatus.WITHDRAWN
    participation.decided_at = timezone.now()
    participation.withdrawn_by = by
    participation.removal_reason = reason if removed else ""
    participation.save(update_fields=["status", "decided_at", "withdrawn_by", "removal_reason"])
    if playing and removed:
        notifications.notify_character_removed(participation, by=by)
    elif playing:
        notifications.notify_player_left(participation, by=by)
    return participation


# ---------------------------------------------------------------------------
# Turns
# ---------------------------------------------------------------------------


def _locked_with_turn(session_id: int) -> GameSession:
    """The session's row, locked, with its current turn read in the same query (and read
    again if a turn opened while the lock was awaited)."""
    return (
        GameSession.objects.select_for_update(of=("self",))
        .select_related("current_turn")
        .get(pk=session_id)
        .reread_stale_turn()
    )


@transaction.atomic
def turn_open_next(*, session: GameSession, by, opened_by_site: str = "", deadline=None) -> Turn:
    """The GM opens the next turn (the site does it for the GM through here too, with why
    in `opened_by_site` and the new turn's `deadline`). The closing turn passes over whoever
    it still awaits when its deadline passed under a rule other than waiting."""
    # The row lock makes two simultaneous clicks open two turns, one after the other.
    session = _locked_with_turn(session.pk)
    if not session_access(by, session).can_manage:
        raise PermissionDenied
    if not session.is_running:
        raise ValidationError(_("Turns are opened only while the session is running."))
    deadline_services.turn_passes_record(
        session=session, turn=session.current_turn, now=timezone.now()
    )
    last = session.turns.aggregate(last=Max("number"))["last"] or 0
    turn = Turn.objects.create(
        session=session,
        number=last + 1,
        opened_by=by,
        opened_by_site=opened_by_site,
        deadline=deadline,
    )
    # Effects whose length in turns ran out end by themselves as the turn opens.
    effects_end_by_turn(session_id=session.pk, turn_number=turn.number, by=by)
    # The head moves with the marker, under the lock that made the turn.
    session.touch(current_turn=turn)
    hooks.current().turn_opened(session, turn, by)
    notifications.notify_turn_opened(turn, by=by)
    return turn


@transaction.atomic
def turn_open_due(*, session_id: int) -> Turn | None:
    """The site opens a session's next turn when it is due (diary.deadlines.selectors.
    turn_due), as its GM, through the GM's own turn_open_next: the same passes, dice seeds'
    commit and reveal, effects and notices. Checked under the session's row lock, so two
    runs at once open one turn: the second finds the new turn, not due. The next turn's
    deadline is as long as the closed one's, counted from now. None: nothing was due."""
    now = timezone.now()
    session = (
        GameSession.objects.select_for_update(of=("self",))
        .select_related("current_turn", "gm")
        .filter(pk=session_id)
        .first()
    )
    if session is None:
        return None
    session.reread_stale_turn()
    reason = deadline_selectors.turn_due(session, now)
    if not reason:
        return None
    closing = session.current_turn
    return turn_open_next(
        session=session,
        by=session.gm,
        opened_by_site=reason,
        deadline=now + (closing.deadline - closing.opened_at),
    )


def current_turn(session: GameSession) -> Turn | None:
    """The turn being played: the session row's head, set where turns open (with
    `select_related("current_turn")` this costs no query)."""
    return session.current_turn


# ---------------------------------------------------------------------------
# Posts
# ---------------------------------------------------------------------------


def _check_narrator(access: SessionAccess, character: Character | None) -> None:
    """A post may speak as one of the author's own characters playing in the session (read
    from the access's participations: no query)."""
    if character is None:
        return
    if character.pk not in {c.pk for c in access.my_characters}:
        raise ValidationError(
            {"character": _("You can narrate only as your own character playing in this session.")}
        )


def _check_narrator_or_gm_plays(
    access: SessionAccess, turn: Turn | None, character: Character | None
) -> bool:
    """_check_narrator, except that the GM may write for another player's character the
    deadline's rule lets the GM play now (diary.deadlines.services.check_gm_may_play).
    Whether the post is the GM's for that character."""
    if (
        character is None
        or not access.is_gm
        or character.pk in {c.pk for c in access.my_characters}
    ):
        _check_narrator(access, character)
        return False
    deadline_services.check_gm_may_play(
        session=access.session, turn=turn, character=character, now=timezone.now()
    )
    return True


def _check_not_empty(narration: str, nc_note: str) -> None:
    if not narration.strip() and not nc_note.strip():
        raise ValidationError(
            {"narration": _("Write the narration or something out of character (OOC).")}
        )


def _movement_rules(session: GameSession, character: Character | None, mounted: bool):
    """The system's movement rules, once the post may move its character at all."""
    rules = MOVEMENT_RULES.get(session.system)
    if rules is None:
        raise ValidationError(
            {"move_metres": _("Movement is counted per action only in the k1000 system.")}
        )
    if character is None:
        raise ValidationError(
            {"move_metres": _("Movement belongs to a character: choose who this post narrates.")}
        )
    if mounted and character.pk not in mount_holder_ids([character.pk]):
        raise ValidationError(
            {"move_mounted": _("%(name)s has no mount on the sheet.") % {"name": character.name}}
        )
    return rules


def _move_actions(
    rules, character: Character, metres: int, mounted: bool
) -> tuple[int, int | None]:
    """The move actions `metres` take at the character's Szybkość, and that Szybkość."""
    speed = Character.objects.with_values().get(pk=character.pk).value_of(SPEED_ATTRIBUTE)
    try:
        return rules.move_actions(metres, speed or 0, mounted), speed
    except ValueError:
        raise ValidationError(
            {
                "move_metres": _("At Szybkość %(speed)s %(name)s cannot move this way.")
                % {"speed": speed or 0, "name": character.name}
            }
        ) from None


def _past_actions_left(
    rules, *, character: Character, metres: int, mounted: bool, speed, actions: int, left: int
) -> ValidationError:
    """The refusal of movement that takes more move actions than the turn has left."""
    on_foot, on_mount = rules.movement_metres(speed)
    return ValidationError(
        {
            "move_metres": _(
                "%(metres)s m takes move actions: %(actions)s (%(per)s m each). "
                "%(name)s has actions left in this turn: %(left)s (two a turn, one of "
                "them may have a roll)."
            )
            % {
                "metres": metres,
                "actions": actions,
                "per": on_mount if mounted else on_foot,
                "name": character.name,
                "left": max(left, 0),
            }
        }
    )


def _check_movement(
    *,
    session: GameSession,
    turn: Turn,
    character: Character | None,
    metres: int | None,
    mounted: bool,
    post: Post | None = None,
) -> int:
    """RULES 1.5: the move actions a post's movement takes at the character's Szybkość.
    Outside combat a turn has two actions, one of them with a roll: movement past what is
    left is refused. In combat (an initiative event runs) it is counted, not refused."""
    if not metres:
        if mounted:
            raise ValidationError({"move_metres": _("Say how many metres the character rides.")})
        return 0
    rules = _movement_rules(session, character, mounted)
    actions, speed = _move_actions(rules, character, metres, mounted)
    known = selectors.turn_actions(session, turn, character.pk)
    if known.in_combat:
        return actions
    used = selectors.move_actions_in_turn(turn, character.pk, exclude_post=post)
    left = rules.MOVE_ACTIONS_PER_TURN - used - min(known.action_rolls, 1) - known.item_uses
    if actions > left:
        raise _past_actions_left(
            rules,
            character=character,
            metres=metres,
            mounted=mounted,
            speed=speed,
            actions=actions,
            left=left,
        )
    return actions


def _narration_fields(
    narration: str, nc_note: str, session: GameSession, by, kept: frozenset[str] = frozenset()
) -> dict:
    """A post's narration (or its note: a post is never empty) and what is rendered from it
    once: its parts for chosen eyes checked and kept apart (diary.eyes.rendering), its NPC
    blocks checked as `by` may write them (`kept`: the NPCs the post already spoke as)."""
    _check_not_empty(narration, nc_note)
    render = voices.piece_renderer(narration, session=session, by=by, kept=kept)
    rendered = render_post_narration(narration, session, render)
    return {
        "narration": narration,
        "narration_html": rendered.html,
        "narration_eyes": rendered.parts,
        "narration_public": rendered.public,
    }


def post_create(
    *,
    session: GameSession,
    author,
    character: Character | None,
    narration: str,
    nc_note: str,
    token: uuid.UUID | None = None,
    move_metres: int | None = None,
    move_mounted: bool = False,
    npc: Npc | None = None,
    images=(),
    scene: int | None = None,
    client_seed: str = "",
) -> Post:
    """A new post; with a token already used by this author, the post it made (nothing new
    is stored: the same form sent twice publishes once, and rolls its dice once).
    `images`: checked pictures (diary/pictures/uploads.py), stored with the post. `scene`:
    the id of the scene whoever runs the session writes in (diary/scenes/; None: the main
    scene); a post narrated as a character goes to that character's scene, a player's
    always to theirs. `client_seed`: the roller's share of the dice its narration's markers
    roll."""
    try:
        return _post_write(
            session=session,
            author=author,
            character=character,
            narration=narration,
            nc_note=nc_note,
            token=token,
            move_metres=move_metres,
            move_mounted=move_mounted,
            npc=npc,
            images=images,
            scene=scene,
            client_seed=client_seed,
        )
    except (IntegrityError, PermissionDenied, ValidationError):
        # The token is looked up only when the write fails: a form sent again (the second
        # send waited for the first's lock, then hit the token's unique constraint), or one
        # sent again after the session changed under it, answers with the post it made.
        existing = (
            Post.objects.filter(author=author, token=token).first() if token is not None else None
        )
        if existing is None:
            raise
        return existing


@transaction.atomic
def _post_write(
    *,
    session: GameSession,
    author,
    character: Character | None,
    narration: str,
    nc_note: str,
    token: uuid.UUID | None,
    move_metres: int | None,
    move_mounted: bool,
    npc: Npc | None = None,
    images=(),
    scene: int | None = None,
    client_seed: str = "",
) -> Post:
    # Locked like turn_open_next, so a post never lands in a turn that was just closed
    # (and id order stays turn order, which the diary's keyset pages rely on). The lock
    # also serialises two sends of the same form.
    session = _locked_with_turn(session.pk)
    access = session_access(author, session)
    if not access.can_post:
        raise PermissionDenied
    turn = current_turn(session)
    played_by_gm = _check_narrator_or_gm_plays(access, turn, character)
    npc = voices.check_speaker(npc, session=session, by=author, character=character)
    narration_fields = _narration_fields(narration, nc_note, session, author)
    move_actions = _check_movement(
        session=session, turn=turn, character=character, metres=move_metres, mounted=move_mounted
    )
    # A repeated token (the same form sent twice, or to two sessions at once) fails on the
    # unique constraint; this transaction rolls back and post_create finds the first post.
    post = Post.objects.create(
        session=session,
        turn=turn,
        author=author,
        character=character,
        npc=npc,
        **narration_fields,
        nc_note=nc_note,
        token=token,
        move_metres=move_metres or None,
        move_mounted=bool(move_metres) and move_mounted,
        move_actions=move_actions,
        played_by_gm=played_by_gm,
        scene_id=scene_services.post_scene(access, character, scene),
    )
    # What was drafted for this post goes with it, in its transaction.
    draft_services.draft_posted(author=author, session=session, place=DraftPlace.POST)
    # What the view redirects to: the newest page, where a post just written is.
    post.just_written = True
    # After the token's constraint: a form sent twice never rolls.
    if fields := _roll_dice(post, author, narration, nc_note, client_seed):
        post.save(update_fields=fields)
    _first_revision(post, author)
    picture_services.pictures_attach(post=post, images=images, by=author)
    session.touch()
    notifications.notify_post_created(post)
    notifications.notify_quoted(post)
    return post


def _first_revision(post: Post, author) -> None:
    """A post's history starts with what it was written as."""
    PostRevision.objects.create(
        post=post,
        version=1,
        narration=post.narration,
        nc_note=post.nc_note,
        character=post.character,
        move_metres=post.move_metres,
        move_mounted=post.move_mounted,
        written_by=author,
    )


def _set_fields(post: Post, fields: dict) -> list[str]:
    for name, value in fields.items():
        setattr(post, name, value)
    return list(fields)


def _roll_dice(
    post: Post, by, narration: str, nc_note: str, client_seed: str, kept=frozenset()
) -> list[str]:
    """Rolls the narration's dice markers (`[[2k6+1 obrażenia]]`) into `post` through the
    rules app (diary.hooks), and sets the post's narration fields with each marker numbered
    and each result where it stood (diary.posts.dice_markers); the fields set, none for a
    narration without dice in a post that never had any. An edit's dice keep their results:
    only a marker new in it is rolled. A refused marker: ValidationError {"narration": …}.
    `kept`: the NPCs whose blocks the post already held (diary.posts.voices)."""
    dice = hooks.current().narration_dice(post=post, by=by, text=narration, client_seed=client_seed)
    if dice is None:
        return []
    fields = _narration_fields(dice_markers.slotted(dice.text), nc_note, post.session, by, kept)
    return _set_fields(post, dice_markers.with_results(fields, dice))


@transaction.atomic
def post_create_for_rolls(*, session: GameSession, author, turn: Turn) -> Post:
    """An empty post to hold rolls (the roll panel's target when the roller has none)."""
    # SessionAccess.can_post, without the moderator check it does not need: the GM writes
    # with no query, a player with one.
    if not session.is_running:
        raise PermissionDenied
    # A player's post lands in their character's scene (diary/scenes/), read in the one
    # query that says they play here.
    gm = permissions.is_gm(author, session)
    scene = None if gm else scene_services.player_scene(author, session)
    if not gm and scene is scene_services.NOT_PLAYING:
        raise PermissionDenied
    post = Post.objects.create(session=session, turn=turn, author=author, scene_id=scene)
    PostRevision.objects.create(post=post, version=1, written_by=author)
    session.touch()
    # What lands in it is the post's first content, not a change to a post already read.
    post.made_for_rolls = True
    # Written a moment ago: its link is the newest page, with no count (Post.get_absolute_url).
    post.newest_in_session = True
    return post


def _check_edit_narrator(access: SessionAccess, post: Post, character: Character | None):
    if post.played_by_gm:
        # The GM's post for another player's character stays that character's.
        if character is None or character.pk != post.character_id:
            raise ValidationError(
                {"character": _("The GM's post for a player's character keeps its character.")}
            )
    else:
        _check_narrator(access, character)


def _edit_voices(post: Post, by, npc: Npc | None, character, narration: str, nc_note: str, kept):
    """An edit's NPC and narration fields: the NPC (and `kept`, the blocks' NPCs) the post
    already spoke as may stay, though hidden since."""
    npc = voices.check_speaker(npc, session=post.session, by=by, character=character, kept=post.npc)
    return npc, _narration_fields(narration, nc_note, post.session, by, kept)


@transaction.atomic
def post_edit(
    *,
    post: Post,
    by,
    character: Character | None,
    narration: str,
    nc_note: str,
    move_metres: int | None = None,
    move_mounted: bool = False,
    npc: Npc | None = None,
    client_seed: str = "",
) -> Post:
    """A new version of the post. Movement is checked again against the post's own turn,
    counting the character's other posts of that turn, not this one's old movement."""
    # The session's row first, as turn_open_next takes it: an edit never lands in a turn
    # closed a moment ago.
    GameSession.objects.select_for_update().get(pk=post.session_id)
    post = Post.objects.select_for_update().select_related("session", "turn").get(pk=post.pk)
    access = session_access(by, post.session)
    flags = access.post(post)
    if not flags.can_edit:
        raise PermissionDenied(flags.refusal())
    _check_edit_narrator(access, post, character)
    kept = frozenset(voices.voice_names(post.narration))
    npc, narration_fields = _edit_voices(post, by, npc, character, narration, nc_note, kept)
    post.move_actions = _check_movement(
        session=post.session,
        turn=post.turn,
        character=character,
        metres=move_metres,
        mounted=move_mounted,
        post=post,
    )
    post.move_metres = move_metres or None
    post.move_mounted = bool(move_metres) and move_mounted
    post.version += 1
    before = post.narration
    post.character = character
    post.npc = npc
    if not _roll_dice(post, by, narration, nc_note, client_seed, kept):
        _set_fields(post, narration_fields)
    post.nc_note, post.edited_at = nc_note, timezone.now()
    post.save()
    PostRevision.objects.create(
        post=post,
        version=post.version,
        narration=post.narration,
        nc_note=nc_note,
        character=character,
        move_metres=post.move_metres,
        move_mounted=post.move_mounted,
        written_by=by,
    )
    post.session.touch()
    notifications.notify_quoted(post, before=before)
    return post


@transaction.atomic
def post_edit_with_pictures(*, images=(), remove_pictures=(), **edit) -> Post:
    """post_edit, and the post's pictures changed in the same transaction once the edit was
    allowed: `remove_pictures` (their ids) removed, then `images` added."""
    post = post_edit(**edit)
    picture_services.pictures_remove(post=post, picture_ids=remove_pictures)
    picture_services.pictures_attach(post=post, images=images, by=edit["by"])
    return post


@transaction.atomic
def post_hide(*, post: Post, by, reason: str) -> Post:
    GameSession.objects.select_for_update().get(pk=post.session_id)
    post = Post.objects.select_for_update().select_related("session").get(pk=post.pk)
    flags = session_access(by, post.session).post(post)
    if not flags.can_hide:
        raise PermissionDenied(flags.refusal())
    post.hidden_at = timezone.now()
    post.hidden_by = by
    post.hidden_reason = reason
    post.save(update_fields=["hidden_at", "hidden_by", "hidden_reason"])
    post.session.touch()
    return post


# ---------------------------------------------------------------------------
# Reading the diary
# ---------------------------------------------------------------------------


def diary_page_seen(
    *, user, session: GameSession, posts: list[Post], newest: bool, whole_diary: bool = True
) -> None:
    """What showing a diary page to its reader records, from what the session's query read
    with it (`access_session(..., reading=True)`; without it, nothing): the read mark moves
    to the newest post shown and the chain head (one write, only when it moves and the page
    reads on from the mark), and the notifications about what the page shows are read (one
    UPDATE, only when the query found such an unread one; the bell already counts them
    read). `newest`: the page reaches the newest post (a new turn's notices are read too).
    A page of one scene (`whole_diary` False) leaves the chain head the mark saw: a roll
    landing in another scene's post stays news (diary/scenes/)."""
    if not hasattr(session, "viewer_read_mark"):
        return
    first_unread = getattr(session, "viewer_first_unread", None)
    if reading.page_continues_reading(
        posts, mark=session.viewer_read_mark, first_unread=first_unread
    ):
        reading.read_mark_advance(
            user=user,
            session_id=session.pk,
            post_id=posts[-1].pk,
            seq=session.chain_seq if whole_diary else (session.viewer_read_seq or 0),
            known=session.viewer_read_mark,
            known_seq=session.viewer_read_seq or 0,
        )
    notification_delivery.notifications_read_on_page(
        user=user, session=session, post_ids=[post.pk for post in posts], newest=newest
    )


# ---------------------------------------------------------------------------
# The session plan and its review
# ---------------------------------------------------------------------------


def _pending_submission(session: GameSession) -> PlanSubmission | None:
    return (
        PlanSubmission.objects.select_for_update()
        .filter(session=session, decision=PlanDecision.PENDING)
        .order_by("-number")
        .first()
    )


def _plan_record_transition(*, session: GameSession, by, source: str, to: str) -> None:
    """Every status step of the plan leaves its trace: a submission keeps the plan as
    submitted; accepting or taking it back closes that submission."""
    if to == SessionStatus.PLAN_SUBMITTED:
        plan = SessionPlan.objects.filter(session=session).first()
        number = PlanSubmission.objects.filter(session=session).aggregate(n=Max("number"))["n"] or 0
        PlanSubmission.objects.create(
            session=session,
            number=number + 1,
            scenario=plan.scenario if plan else "",
            scenario_html=plan.scenario_html if plan else "",
            criticals_enabled=session.criticals_enabled,
            npc_mode=session.npc_mode,
            roll_policy=session.roll_policy,
            npcs=selectors.npc_designs(session),
            submitted_by=by,
        )
        notifications.notify_plan_submitted(session, by=by)
        return
    if source != SessionStatus.PLAN_SUBMITTED:
        return
    submission = _pending_submission(session)
    if submission is None:  # submitted before plans were kept
        return
    if to == SessionStatus.ACCEPTED:
        submission.decision = PlanDecision.ACCEPTED
        submission.reviewed_by = by
        notifications.notify_plan_reviewed(session, by=by, accepted=True)
    elif to == SessionStatus.DRAFT:
        submission.decision = PlanDecision.WITHDRAWN
    submission.reviewed_at = timezone.now()
    submission.save(update_fields=["decision", "reviewed_by", "reviewed_at"])


@transaction.atomic
def session_plan_update(*, session: GameSession, by, scenario: str) -> SessionPlan:
    """The GM writes the plan's scenario while the plan is a draft."""
    session = GameSession.objects.select_for_update().get(pk=session.pk)
    if not session_access(by, session).can_edit_plan:
        raise PermissionDenied
    plan, _created = SessionPlan.objects.get_or_create(session=session)
    plan.scenario = scenario
    plan.scenario_html = render_narration(scenario)
    plan.save()
    draft_services.draft_posted(author=by, session=session, place=DraftPlace.PLAN)
    return plan


@transaction.atomic
def session_plan_submit(*, session: GameSession, by, scenario: str | None = None) -> GameSession:
    """The GM sends the plan to the moderators. With `scenario` (the plan page's form), what
    is typed is saved first, in the same step, so the moderators review what the GM sees;
    without it (the status button), the stored scenario goes. An empty scenario is refused
    and nothing is stored: there would be nothing to review."""
    session = GameSession.objects.select_for_update().get(pk=session.pk)
    if SessionStatus.PLAN_SUBMITTED not in transitions_for(session_access(by, session)):
        # Not the GM's draft: the plain step says why (a status it cannot leave, or 403).
        return session_transition(session=session, by=by, to=SessionStatus.PLAN_SUBMITTED)
    if scenario is None:
        plan = SessionPlan.objects.filter(session=session).first()
        scenario = plan.scenario if plan else ""
    if not scenario.strip():
        raise ValidationError({"scenario": _("Write the scenario before you submit the plan.")})
    session_plan_update(session=session, by=by, scenario=scenario)
    return session_transition(session=session, by=by, to=SessionStatus.PLAN_SUBMITTED)


@transaction.atomic
def session_plan_review(
    *, session: GameSession, by, accept: bool, comment: str
) -> PlanSubmission | None:
    """A moderator accepts the submitted plan (the session may then start) or returns it to
    the GM with a comment, which is required (the session goes back to draft)."""
    session = GameSession.objects.select_for_update().get(pk=session.pk)
    if not session_access(by, session).can_review_plan:
        raise PermissionDenied
    comment = comment.strip()
    if not accept and not comment:
        raise ValidationError({"comment": _("Say what the GM should change in the plan.")})
    if accept:
        session_transition(session=session, by=by, to=SessionStatus.ACCEPTED)
        submission = PlanSubmission.objects.filter(session=session).order_by("-number").first()
    else:
        # Returning is the moderators' own way back to draft (TRANSITIONS gives the plain
        # step back to the GM, who takes a submission back without a comment).
        submission = _pending_submission(session)
        session.status = SessionStatus.DRAFT
        session.save(update_fields=["status", "updated_at"])
        if submission is None:
            return None
        submission.decision = PlanDecision.RETURNED
        submission.reviewed_by = by
        submission.reviewed_at = timezone.now()
        notifications.notify_plan_reviewed(session, by=by, accepted=False)
    if submission is not None:
        submission.comment = comment
        submission.save(update_fields=["decision", "reviewed_by", "reviewed_at", "comment"])
    return submission


# The turn's deadline
# ---------------------------------------------------------------------------


@transaction.atomic
def turn_set_deadline(*, session: GameSession, by, deadline) -> Turn:
    """The GM sets (or clears, with None) the current turn's deadline; a set one lies in
    the future. Open diaries refresh to show it."""
    session = GameSession.objects.select_for_update().get(pk=session.pk)
    if not session_access(by, session).can_set_turn_deadline:
        raise PermissionDenied
    turn = current_turn(session)
    if turn is None:
        raise ValidationError(_("There is no turn to set a deadline for."))
    if deadline is not None and deadline <= timezone.now():
        raise ValidationError({"deadline": _("The deadline must be in the future.")})
    turn.deadline = deadline
    turn.save(update_fields=["deadline"])
    session.touch()
    return turn
