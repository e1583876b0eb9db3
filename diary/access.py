"""The one place that decides who may do what in a session and its diary.

`access_session` and `access_post` look the object up (404 where the user may
not know it exists, 403 where they may know it but not act on it), lock it
when asked, and return it with typed flags. Views, services and templates read
the flags; none of them re-derives a rule (Zulip's `access_message` model).

GM and player are roles within a session: its GM (and the co-GMs the GM named, who have the
same powers: `is_gm`), and the owners of its accepted characters. Moderators (a site-wide
group) read everything.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied
from django.db.models import Exists, OuterRef, Q
from django.http import Http404
from django.utils.translation import gettext_lazy as _

from characters.models import Character
from config.roles import MODERATOR_GROUP, is_moderator
from diary import reading as read_marks  # access_session's `reading` flag takes the name
from diary.models import (
    GONE_STATUSES,
    READING_STATUSES,
    SHEET_OPENING_STATUSES,
    Absence,
    Announcement,
    CoGameMaster,
    GameSession,
    Notification,
    Npc,
    NpcMode,
    Participation,
    ParticipationStatus,
    PlayerAd,
    Poll,
    Post,
    SessionStatus,
    TalkKind,
    TalkThread,
    co_gm_list_annotation,
    co_gm_sessions,
)

# What a player is told who tries to edit or hide their post of a closed turn.
CLOSED_TURN_REFUSAL = _(
    "This turn is closed: its posts can no longer be edited or hidden by their authors. "
    "Write in the current turn, or ask the GM."
)


@dataclass(frozen=True)
class PostAccess:
    post: Post
    can_edit: bool
    can_hide: bool
    can_see_revisions: bool
    can_see_hidden_content: bool
    # The author would edit or hide it, but its turn is closed (CLOSED_TURN_REFUSAL).
    locked_by_closed_turn: bool = False

    def refusal(self) -> str:
        """The sentence a refused edit or hide shows: why, when it is the closed turn."""
        return str(CLOSED_TURN_REFUSAL) if self.locked_by_closed_turn else ""

    @property
    def can_see_content(self) -> bool:
        return not self.post.is_hidden or self.can_see_hidden_content

    @property
    def shows_versions_link(self) -> bool:
        return self.can_see_revisions and self.post.version > 1


@dataclass(frozen=True)
class ParticipationFlags:
    participation: Participation
    can_decide: bool  # accept / decline
    can_withdraw: bool  # the GM removes, the owner leaves
    can_open_sheet: bool


@dataclass(frozen=True)
class SessionAccess:
    """What one user may do in one session, computed once per request."""

    session: GameSession
    user: object
    is_gm: bool
    is_moderator: bool
    # The user's own participations in this session, any status (one query).
    my_participations: tuple[Participation, ...] = field(default=())
    # Every participation of the session (the diary's roster), when asked for with
    # `access_session(..., roster=True)`: the same query then gives my_participations.
    roster: tuple[Participation, ...] | None = None

    @property
    def my_characters(self) -> list[Character]:
        """The user's characters playing in the session (accepted), by name."""
        return sorted(
            (
                p.character
                for p in self.my_participations
                if p.status == ParticipationStatus.ACCEPTED
            ),
            key=lambda c: c.name,
        )

    @property
    def is_player(self) -> bool:
        return any(p.status == ParticipationStatus.ACCEPTED for p in self.my_participations)

    @property
    def can_read(self) -> bool:
        if not self.user.is_authenticated:
            return False
        if self.is_gm or self.is_moderator:
            return True
        return any(p.status in READING_STATUSES for p in self.my_participations)

    @property
    def can_see_card(self) -> bool:
        """The public card (title, GM, rules) of a session, e.g. to ask to join it."""
        if not self.user.is_authenticated:
            return False
        return self.session.status != SessionStatus.DRAFT or self.is_gm or self.is_moderator

    @property
    def can_post(self) -> bool:
        return self.session.is_running and (self.is_gm or self.is_player)

    @property
    def can_manage(self) -> bool:
        """Settings, invitations, turns: the GM's."""
        return self.is_gm

    @property
    def can_open_turn(self) -> bool:
        return self.is_gm and self.session.is_running

    @property
    def can_set_turn_deadline(self) -> bool:
        """The current turn's deadline: the GM's, while the session runs."""
        return self.is_gm and self.session.is_running

    @property
    def can_see_hidden_content(self) -> bool:
        return self.is_moderator

    # --- Absences and nudges (diary/absences, diary/nudges) ---

    @property
    def can_see_absences(self) -> bool:
        """Who is away and why (the note): the session's GM and players, and moderators; an
        invited reader or anyone else sees nothing of it."""
        return self.is_gm or self.is_player or self.is_moderator

    @property
    def can_declare_absence(self) -> bool:
        """The session's page offers "Zgłoś nieobecność": to its GM and players, until it
        is finished."""
        return (self.is_gm or self.is_player) and self.session.status != SessionStatus.FINISHED

    @property
    def can_nudge(self) -> bool:
        """The GM nudges awaited players while the session runs (diary.nudges.services
        checks who may be nudged now)."""
        return self.is_gm and self.session.is_running

    @property
    def can_audit(self) -> bool:
        return self.is_moderator

    @property
    def may_change_status(self) -> bool:
        """The GM's steps and the moderators' (accepting a plan); which steps, now, is
        diary.services.transitions_for."""
        return self.is_gm or self.is_moderator

    # --- The session plan and its review ---

    @property
    def can_see_plan(self) -> bool:
        """The plan page: its scenario, every submission and every review comment."""
        return self.is_gm or self.is_moderator

    @property
    def can_edit_plan(self) -> bool:
        """The GM writes the plan while it is a draft (new, or returned by a moderator)."""
        return self.is_gm and self.session.status == SessionStatus.DRAFT

    @property
    def can_review_plan(self) -> bool:
        """A moderator accepts or returns a plan that waits for review."""
        return self.is_moderator and self.session.status == SessionStatus.PLAN_SUBMITTED

    # --- Co-GMs and the session's handover (diary/handover) ---

    @property
    def is_session_gm(self) -> bool:
        """The GM the session is named after (not a co-GM): names and removes co-GMs."""
        return self.user.is_authenticated and self.session.gm_id == self.user.pk

    @property
    def is_co_gm(self) -> bool:
        return self.is_gm and not self.is_session_gm

    @property
    def can_name_co_gms(self) -> bool:
        """The session's GM names and removes co-GMs, until the session is finished."""
        return self.is_session_gm and self.session.status != SessionStatus.FINISHED

    @property
    def can_step_down(self) -> bool:
        """The session's GM hands it to one of its co-GMs (diary.handover.services)."""
        return self.can_name_co_gms and bool(self.session.co_gm_ids)

    @property
    def can_hand_over(self) -> bool:
        """A moderator hands an orphaned session to a new GM (whether it is orphaned now is
        diary.handover.selectors.orphaned_since's)."""
        return self.is_moderator and self.session.status != SessionStatus.FINISHED

    def post(self, post: Post) -> PostAccess:
        """The flags for one post of this session (no query)."""
        user_id = self.user.pk if self.user.is_authenticated else None
        mine = user_id is not None and post.author_id == user_id
        moderates = self.is_gm or self.is_moderator
        if post.is_hidden:
            # What was hidden stays out of sight; only moderators read it and its versions.
            can_see_revisions = self.is_moderator
        else:
            can_see_revisions = self.can_read and (mine or moderates)
        # A closed turn (one before the session's current turn) is read-only for its
        # players: what was written and then rolled on stays as the GM read it. The GM and
        # the moderators still hide a post; the GM still edits their own narration.
        locked_for_me = not moderates and self.turn_is_closed(post)
        return PostAccess(
            post=post,
            can_edit=mine
            and not post.is_hidden
            and self.session.is_running
            and self.can_read
            and not locked_for_me,
            can_hide=not post.is_hidden
            and self.can_read
            and (moderates or (mine and not locked_for_me)),
            can_see_revisions=can_see_revisions,
            can_see_hidden_content=self.is_moderator,
            locked_by_closed_turn=mine and not post.is_hidden and locked_for_me,
        )

    def turn_is_closed(self, post: Post) -> bool:
        """The post's turn is over: the session has opened a later one (no query)."""
        return post.turn_id != self.session.current_turn_id

    def participation(self, participation: Participation) -> ParticipationFlags:
        user_id = self.user.pk if self.user.is_authenticated else None
        owns = participation.character.owner_id == user_id
        status = participation.status
        if status == ParticipationStatus.INVITED:
            can_decide = owns
        elif status == ParticipationStatus.REQUESTED:
            can_decide = self.is_gm
        else:
            can_decide = False
        return ParticipationFlags(
            participation=participation,
            can_decide=can_decide,
            can_withdraw=status not in GONE_STATUSES and (self.is_gm or owns),
            can_open_sheet=owns
            or self.is_moderator
            or (self.is_gm and status in SHEET_OPENING_STATUSES)
            or (self.is_player and status == ParticipationStatus.ACCEPTED),
        )


def may_know_session(session: GameSession, *, card: bool = False) -> Q:
    """SessionAccess.can_read (`card`: .can_see_card) as a filter on users, for asking it of
    many users in one query (the recipients of a notification). The same rules: the GM and
    moderators read every session, a player one they are invited to or play in; the card of
    any session past its draft is for everyone."""
    if card and session.status != SessionStatus.DRAFT:
        return Q()
    rule = (
        Q(pk=session.gm_id)
        | Q(Exists(Group.objects.filter(name=MODERATOR_GROUP, user=OuterRef("pk"))))
        | Q(Exists(CoGameMaster.objects.filter(session=session, user=OuterRef("pk"))))
    )
    if card:
        return rule
    return rule | Q(
        Exists(
            Participation.objects.filter(
                session=session, character__owner=OuterRef("pk"), status__in=READING_STATUSES
            )
        )
    )


def session_roster(session: GameSession) -> tuple[Participation, ...]:
    """Every participation of the session with its character and owner (one query)."""
    return tuple(
        session.participations.select_related("character__owner").order_by(
            "status", "character__name"
        )
    )


def session_access(user, session: GameSession, *, roster: bool = False) -> SessionAccess:
    """The flags for a session already in hand (one query for the user's participations;
    with `roster`, one query for every participation, the user's among them)."""
    if not user.is_authenticated:
        return SessionAccess(session=session, user=user, is_gm=False, is_moderator=False)
    everyone = session_roster(session) if roster else None
    if everyone is not None:
        mine = tuple(p for p in everyone if p.character.owner_id == user.pk)
    else:
        mine = tuple(
            Participation.objects.filter(session=session, character__owner=user).select_related(
                "character"
            )
        )
    return SessionAccess(
        session=session,
        user=user,
        is_gm=session.runs(user),
        is_moderator=is_moderator(user),
        my_participations=mine,
        roster=everyone,
    )


def _get_or_404(queryset, pk: int):
    try:
        return queryset.get(pk=pk)
    except queryset.model.DoesNotExist:
        raise Http404 from None


def access_session(
    user,
    pk: int,
    *,
    lock: bool = False,
    card_only: bool = False,
    roster: bool = False,
    reading: bool = False,
    annotations: dict | None = None,
) -> SessionAccess:
    """The session and what the user may do in it.

    404 when the user may not know it exists, 403 when they may see its card but not
    read it (`card_only=True` asks only for the card, e.g. to ask to join). `roster=True`
    reads every participation (the diary's roster) in the query that finds the user's.
    `reading=True` (the diary) reads the user's read mark and first unread post with it
    (`session.viewer_read_mark`, `.viewer_read_seq`, `.viewer_read_moved_at`,
    `.viewer_first_unread`; diary/reading.py). `annotations`: what else the page reads with
    the session's row (the diary: the notifications it clears and the unread table talk,
    `diary_page_reads`).
    """
    # The current turn rides along: every page of a session shows or uses it.
    # So do its co-GMs' ids (GameSession.co_gm_ids), which say who has the GM's powers.
    sessions = GameSession.objects.select_related("gm", "current_turn").annotate(
        **co_gm_list_annotation()
    )
    if user.is_authenticated and getattr(user, "_is_moderator", None) is None:
        # Whether the user is a moderator, asked in the session's own query (one round trip
        # less a page); config.roles.is_moderator reads it back from the user.
        sessions = sessions.annotate(
            viewer_is_moderator=Exists(
                Group.objects.filter(name=MODERATOR_GROUP, user=user.pk).values("pk")
            )
        )
    if user.is_authenticated and not lock:
        # The header's bell too (diary.notifications.delivery.unread_count reads it back).
        sessions = sessions.annotate(viewer_unread=read_marks.unread_notifications_subquery(user))
        if reading:
            sessions = sessions.annotate(**read_marks.reader_annotations(user))
        sessions = sessions.annotate(**(annotations or {}))
    if lock:
        sessions = sessions.select_for_update(of=("self",))
    session = _get_or_404(sessions, pk)
    if lock:
        session.reread_stale_turn()
    if hasattr(session, "viewer_is_moderator"):
        user._is_moderator = bool(session.viewer_is_moderator)
    if hasattr(session, "viewer_unread"):
        user._unread_notifications = session.viewer_unread or 0
    access = session_access(user, session, roster=roster)
    if not access.can_read:
        if not access.can_see_card:
            raise Http404
        if not card_only:
            raise PermissionDenied
    return access


def access_post(user, pk: int, *, lock: bool = False) -> tuple[SessionAccess, PostAccess]:
    """A post and what the user may do with it; 404 outside the sessions the user reads."""
    posts = Post.objects.select_related("session__gm", "author")
    if lock:
        posts = posts.select_for_update(of=("self",))
    post = _get_or_404(posts, pk)
    access = session_access(user, post.session)
    if not access.can_read:
        raise Http404
    return access, access.post(post)


def access_participation(user, pk: int, *, lock: bool = False) -> ParticipationFlags:
    """A character's place in a session and what the user may do with it; 404 unless the
    user reads the session or owns the character (e.g. a request still waiting)."""
    participations = Participation.objects.select_related("session__gm", "character")
    if lock:
        participations = participations.select_for_update(of=("self",))
    participation = _get_or_404(participations, pk)
    access = session_access(user, participation.session)
    owns = user.is_authenticated and participation.character.owner_id == user.pk
    if not (access.can_read or owns):
        raise Http404
    return access.participation(participation)


def joinable_characters(user, session: GameSession) -> list[Character]:
    """The user's characters that could ask to join: of the session's system, not its GM's
    own session, and not already on its list (a declined one only the GM can bring back)."""
    if not user.is_authenticated or session.runs(user):
        return []
    listed = Participation.objects.filter(session=session).exclude(
        status=ParticipationStatus.WITHDRAWN
    )
    return list(
        Character.objects.filter(owner=user, system=session.system, is_stand_in=False)
        .exclude(pk__in=listed.values("character"))
        .order_by("name")
    )


def sessions_open_to_join(user, sessions) -> set[int]:
    """Of these sessions, the ids where the user has a character that may ask to join
    (two queries, whatever the number of sessions)."""
    if not user.is_authenticated:
        return set()
    # Only where recruitment is open and a place is free (`sessions` come with_places).
    co_run = set(co_gm_sessions(user).values_list("session_id", flat=True))
    sessions = [
        s for s in sessions if s.gm_id != user.pk and s.pk not in co_run and s.recruiting_open
    ]
    characters = list(Character.objects.filter(owner=user).values_list("pk", "system"))
    if not sessions or not characters:
        return set()
    listed: dict[int, set[int]] = {}
    for session_id, character_id in (
        Participation.objects.filter(session__in=[s.pk for s in sessions], character__owner=user)
        .exclude(status=ParticipationStatus.WITHDRAWN)
        .values_list("session_id", "character_id")
    ):
        listed.setdefault(session_id, set()).add(character_id)
    return {
        s.pk
        for s in sessions
        if any(
            system == s.system and pk not in listed.get(s.pk, set()) for pk, system in characters
        )
    }


# ---------------------------------------------------------------------------
# NPCs: the GM keeps the roster; moderators read it; players see the
# visible NPCs' names and descriptions in the diary only.


@dataclass(frozen=True)
class NpcAccess:
    session_access: SessionAccess

    @property
    def session(self) -> GameSession:
        return self.session_access.session

    @property
    def can_open_page(self) -> bool:
        """The session's NPC page: its GM and the moderators who review the plan."""
        return self.session_access.is_gm or self.session_access.is_moderator

    @property
    def can_manage(self) -> bool:
        """Add and edit NPCs and their modifiers: the GM, until the session is finished."""
        return self.session_access.is_gm and self.session.status != SessionStatus.FINISHED

    @property
    def can_correct_modifiers(self) -> bool:
        """Correct a fixed modifier that rolls already used, with a reason kept in the NPC's
        history: a moderator (the GM may not: it stays the same for the whole session)."""
        return self.session_access.is_moderator and self.uses_fixed_modifiers

    @property
    def sees_hidden(self) -> bool:
        return self.can_open_page

    @property
    def uses_fixed_modifiers(self) -> bool:
        return self.session.npc_mode == NpcMode.FIXED_MODIFIERS


def npc_access(session_access: SessionAccess) -> NpcAccess:
    return NpcAccess(session_access)


def access_npc_page(user, pk: int, *, lock: bool = False) -> NpcAccess:
    """The session's NPC page: 404/403 as for the session, then 403 for players."""
    access = NpcAccess(access_session(user, pk, lock=lock))
    if not access.can_open_page:
        raise PermissionDenied
    return access


def access_npc(user, pk: int, npc_pk: int, *, lock: bool = False):
    """(NpcAccess, the session's NPC); 404 for an NPC of another session."""
    access = access_npc_page(user, pk, lock=lock)
    npcs = Npc.objects.filter(session=access.session)
    if lock:
        npcs = npcs.select_for_update()
    return access, _get_or_404(npcs, npc_pk)


# ---------------------------------------------------------------------------
# Absences: each is its user's own to end or withdraw.


def access_absence(user, pk: int):
    """An absence of the user's own; 404 for anyone else's (or none)."""
    if not user.is_authenticated:
        raise Http404
    return _get_or_404(Absence.objects.filter(user_id=user.pk).select_related("session"), pk)


# ---------------------------------------------------------------------------
# Notifications: each is its recipient's alone.


def access_notification(user, pk: int, *, lock: bool = False):
    """A notification of the user's own; 404 for anyone else's (or none)."""
    notifications = Notification.objects.filter(recipient_id=user.pk)
    if lock:
        notifications = notifications.select_for_update()
    return _get_or_404(notifications, pk)


# ---------------------------------------------------------------------------
# Table talk: the session's out-of-character thread and its whispers. The OOC thread is
# read by whoever reads the diary; a whisper by its members (the GM and the players it was
# started with) and, for audit, by moderators, who read everything but write in neither.


@dataclass(frozen=True)
class TalkAccess:
    session_access: SessionAccess
    # None: the session's OOC thread, before its first message.
    thread: TalkThread | None
    kind: str
    is_member: bool

    @property
    def session(self) -> GameSession:
        return self.session_access.session

    @property
    def can_read(self) -> bool:
        return self.is_member or self.session_access.is_moderator

    @property
    def can_write(self) -> bool:
        """The members, until the session is finished (then the talk is read-only, as the
        diary is)."""
        return self.is_member and self.session.status != SessionStatus.FINISHED

    @property
    def keeps_read_mark(self) -> bool:
        """Unread marks are the members' (a moderator reading for audit leaves none)."""
        return self.is_member


def _talks_at_the_table(access: SessionAccess) -> bool:
    """The GM and the players whose characters play (accepted) talk beside the diary."""
    return access.is_gm or access.is_player


def access_ooc(user, pk: int) -> TalkAccess:
    """The session's OOC thread: 404/403 as for the session; whoever reads the diary reads
    it (an invited character's owner too), the GM and players write."""
    access = access_session(user, pk)
    thread = TalkThread.objects.filter(session=access.session, kind=TalkKind.OOC).first()
    return TalkAccess(
        session_access=access,
        thread=thread,
        kind=TalkKind.OOC,
        is_member=_talks_at_the_table(access),
    )


@dataclass(frozen=True)
class WhispersAccess:
    session_access: SessionAccess

    @property
    def session(self) -> GameSession:
        return self.session_access.session

    @property
    def can_open(self) -> bool:
        """The list of whispers: the GM and players (their own), moderators (all)."""
        return _talks_at_the_table(self.session_access) or self.session_access.is_moderator

    @property
    def can_start(self) -> bool:
        """The GM whispers to chosen players; a player to the GM."""
        return (
            _talks_at_the_table(self.session_access)
            and self.session.status != SessionStatus.FINISHED
        )

    @property
    def sees_all(self) -> bool:
        """A moderator who takes no part in the session reads every whisper (audit)."""
        return self.session_access.is_moderator and not _talks_at_the_table(self.session_access)


def access_whispers(user, pk: int) -> WhispersAccess:
    return WhispersAccess(access_session(user, pk))


def access_whisper(user, pk: int, thread_pk: int) -> TalkAccess:
    """One whisper of the session (404 for another session's or none): its members read
    and write, moderators read; anyone else gets the flags to refuse with."""
    access = access_session(user, pk)
    thread = _get_or_404(
        TalkThread.objects.filter(session=access.session, kind=TalkKind.WHISPER), thread_pk
    )
    member = _talks_at_the_table(access) and thread.members.filter(pk=user.pk).exists()
    return TalkAccess(session_access=access, thread=thread, kind=TalkKind.WHISPER, is_member=member)


def sees_quiet_mark(user, session: GameSession) -> bool:
    """The "quiet" mark ("uśpiona") on a session is for whoever runs it (its GM, a co-GM)
    and the moderators: the ones who can wake it up or hand it on. Everyone sees the
    activity times themselves."""
    return user.is_authenticated and (session.runs(user) or is_moderator(user))


# The recruiting board's players' ads (diary/ads/): every logged-in user reads the active
# ads (the views ask for a log-in); their author edits and withdraws them; anyone else
# who runs a session may invite from one (the service checks they run it: GM or co-GM).


@dataclass(frozen=True)
class AdAccess:
    ad: PlayerAd
    user: object

    @property
    def is_author(self) -> bool:
        return self.user.is_authenticated and self.ad.author_id == self.user.pk

    @property
    def can_invite(self) -> bool:
        """Anyone logged in but the ad's own author; which sessions is the service's check."""
        return self.user.is_authenticated and not self.is_author


def access_ad(user, pk: int) -> AdAccess:
    """An active ad (404 for a withdrawn one or none) and what the user may do with it."""
    return AdAccess(
        ad=_get_or_404(PlayerAd.objects.filter(active=True).select_related("author"), pk), user=user
    )


# ---------------------------------------------------------------------------
# The GM's notice board and the polls of the OOC thread. The board is read by whoever reads
# the diary, and written by the GM until the session is finished. A poll is read by whoever
# reads the OOC thread; the GM and the players vote (moderators read it and its counts, and
# never vote); its author or the GM closes it.


@dataclass(frozen=True)
class BoardAccess:
    session_access: SessionAccess

    @property
    def session(self) -> GameSession:
        return self.session_access.session

    @property
    def can_manage(self) -> bool:
        """Write, edit, take down and pin again: the GM, until the session is finished."""
        return self.session_access.can_manage and self.session.status != SessionStatus.FINISHED


def access_board(user, pk: int, *, lock: bool = False) -> BoardAccess:
    """The session's notice board: 404/403 as for the session (whoever reads it reads the
    board)."""
    return BoardAccess(access_session(user, pk, lock=lock))


def access_announcement(
    user, pk: int, announcement_pk: int, *, lock: bool = False
) -> tuple[BoardAccess, Announcement]:
    """(BoardAccess, the session's announcement); 404 for another session's."""
    board = access_board(user, pk, lock=lock)
    announcements = Announcement.objects.filter(session=board.session)
    return board, _get_or_404(announcements, announcement_pk)


@dataclass(frozen=True)
class PollsAccess:
    session_access: SessionAccess

    @property
    def session(self) -> GameSession:
        return self.session_access.session

    @property
    def is_member(self) -> bool:
        """The GM and the players: they open polls and vote (as they write in the OOC
        thread)."""
        return _talks_at_the_table(self.session_access)

    @property
    def can_create(self) -> bool:
        return self.is_member and self.session.status != SessionStatus.FINISHED

    def poll(self, poll: Poll, now=None) -> PollFlags:
        """The flags for one poll of this session (no query)."""
        closed = poll.is_closed(now) or self.session.status == SessionStatus.FINISHED
        user_id = self.session_access.user.pk
        closes_it = self.is_member and (poll.author_id == user_id or self.session_access.can_manage)
        return PollFlags(
            poll=poll,
            is_closed=closed,
            can_vote=self.is_member and not closed,
            may_close=closes_it,
            can_close=closes_it and not closed,
            shows_voters=not poll.anonymous,
        )


@dataclass(frozen=True)
class PollFlags:
    poll: Poll
    is_closed: bool
    can_vote: bool
    # The poll's author or the GM (a moderator never): closes it while it is open.
    may_close: bool
    can_close: bool
    # Whose votes are named beside the counts: never in an anonymous poll, for anyone.
    shows_voters: bool


def polls_access(session_access: SessionAccess) -> PollsAccess:
    """The polls' flags for a session already in hand (the OOC thread's page)."""
    return PollsAccess(session_access)


def access_polls(user, pk: int, *, lock: bool = False) -> PollsAccess:
    """The session's polls: 404/403 as for the session (whoever reads the OOC thread reads
    them)."""
    return PollsAccess(access_session(user, pk, lock=lock))


def access_poll(user, pk: int, poll_pk: int, *, lock: bool = False) -> tuple[PollsAccess, Poll]:
    """(PollsAccess, the session's poll); 404 for another session's. `lock` locks the poll's
    row (its votes change one voter at a time), not the session's."""
    polls = access_polls(user, pk)
    found = Poll.objects.filter(session=polls.session)
    if lock:
        found = found.select_for_update()
    return polls, _get_or_404(found, poll_pk)
