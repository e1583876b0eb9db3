""" "Since you were last here" (Od Twojej ostatniej wizyty): what a reader returning to a
session's diary after a while missed, as plain data, built from the diary and (through the
one extension point, diary.hooks.DiaryHooks.recap_rolls) the ledger.

Everything is read from the reader's read mark on: the posts after the mark's post (the
`post_session_keyset` range), the turns after the mark's post's turn (`turn_unique_number`),
the table talk after the reader's talk marks, the chain rows after the mark's chain head;
the characters a turn passed over at its deadline, the announcements and the polls since
the mark last moved. A fixed number of queries however long the session or the absence:
5 here (posts, turns opened, turns passed over, talk, announcements and polls together),
2 in the ledger's part. Shown on the diary page above the first unread post once the mark
stood still RECAP_AFTER_HOURS, and in a player's daily digest e-mail (diary.notifications).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Count, Exists, IntegerField, Min, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from diary import hooks, reading
from diary.models import (
    Announcement,
    CoGameMaster,
    GameSession,
    Participation,
    ParticipationStatus,
    Poll,
    Post,
    SessionStatus,
    TalkKind,
    TalkMessage,
    TalkReadMark,
    TalkThread,
    Turn,
    TurnPass,
)
from diary.scenes.selectors import main_scene_name

# The newest turns a recap details (a reader away for months gets the latest and the count).
RECAP_TURNS = 20
# The newest announcements and polls (together) a recap names, each with its link.
RECAP_NOTICES = 10


@dataclass(frozen=True)
class RecapAuthor:
    """Who wrote in a turn since the mark (the character's name, else the user's), how
    many posts, and a link to the first of them."""

    name: str
    count: int
    url: str
    # The GM's posts for the character (the deadline's rule "the GM plays"): shown as such.
    gm_plays: bool = False
    # The scene the posts are in, when the session runs several (diary/scenes/), else "".
    scene: str = ""


@dataclass(frozen=True)
class RecapTurn:
    number: int
    url: str
    authors: tuple[RecapAuthor, ...] = ()
    opened: bool = False  # opened since the mark
    deadline: datetime | None = None
    # The characters the turn passed over at its deadline (diary/deadlines: "czeka").
    waited: tuple[str, ...] = ()
    # Why the site opened it for the GM (TurnOpenedBySite, diary/deadlines), or "".
    by_site: str = ""

    @property
    def count(self) -> int:
        return sum(author.count for author in self.authors)


@dataclass(frozen=True)
class RecapTalk:
    """Table talk waiting: the OOC thread, or a whisper the reader is a member of."""

    subject: str
    count: int
    url: str
    whisper: bool = False


@dataclass(frozen=True)
class RecapNotice:
    """An announcement of the GM's notice board, or a poll, new since the mark."""

    title: str
    url: str


@dataclass(frozen=True)
class Recap:
    session_id: int
    title: str
    since: datetime | None  # when the reader last read on (None: long ago)
    first_unread_url: str
    turns: tuple[RecapTurn, ...] = ()
    post_count: int = 0
    turns_left_out: int = 0  # older turns with news, past RECAP_TURNS
    ledger: hooks.RecapRolls = field(default_factory=hooks.RecapRolls)
    talk: tuple[RecapTalk, ...] = ()
    announcements: tuple[RecapNotice, ...] = ()
    polls: tuple[RecapNotice, ...] = ()

    @property
    def waited_turns(self) -> list[RecapTurn]:
        return [turn for turn in self.turns if turn.waited]

    @property
    def opened_turns(self) -> list[RecapTurn]:
        return [turn for turn in self.turns if turn.opened]

    @property
    def is_empty(self) -> bool:
        ledger = self.ledger
        return not (
            self.post_count
            or self.opened_turns
            or ledger.rolls
            or ledger.changes
            or ledger.asks
            or self.talk
            or self.announcements
            or self.polls
            or self.waited_turns
        )


def recap_due(*, mark: int | None, moved_at, first_unread_id: int | None, now=None) -> bool:
    """Whether a reader returns "after a while": they have a mark (a first visit has no
    backlog), something is unread, and the mark stood still RECAP_AFTER_HOURS (a mark from
    before the site kept its time counts as old)."""
    if mark is None or first_unread_id is None:
        return False
    if moved_at is None:
        return True
    now = now or timezone.now()
    return moved_at <= now - timedelta(hours=settings.RECAP_AFTER_HOURS)


def _diary_url(session_id: int) -> str:
    return reverse("diary:session", args=[session_id])


def _post_url(session_id: int, post_id: int) -> str:
    return f"{_diary_url(session_id)}?after={post_id - 1}#post-{post_id}"


def _turn_url(session_id: int, number: int) -> str:
    return f"{_diary_url(session_id)}?turn={number}#turn-{number}"


def _posts_by_turn(session, reader, mark: int) -> dict[int, list[RecapAuthor]]:
    """The visible posts after the mark, not the reader's own, counted by turn, author and
    scene (one query over the posts after the mark). In a session that runs several scenes
    each count says its scene."""
    rows = list(
        Post.objects.filter(session=session, pk__gt=mark, hidden_at__isnull=True)
        .exclude(author=reader.pk)
        .values(
            "turn__number",
            "author__username",
            "character__name",
            "npc__name",
            "played_by_gm",
            "scene__name",
        )
        .annotate(n=Count("pk"), first=Min("pk"))
        .order_by("turn__number", "first")
    )
    split = getattr(session, "viewer_has_scenes", False) or any(r["scene__name"] for r in rows)
    by_turn: dict[int, list[RecapAuthor]] = {}
    for row in rows:
        name = row["character__name"] or row["author__username"]
        if row["npc__name"]:
            name = _("%(name)s (NPC)") % {"name": row["npc__name"]}
        author = RecapAuthor(
            name,
            row["n"],
            _post_url(session.pk, row["first"]),
            gm_plays=row["played_by_gm"],
            scene=(row["scene__name"] or main_scene_name()) if split else "",
        )
        by_turn.setdefault(row["turn__number"], []).append(author)
    return by_turn


def _turns_opened(session, mark: int, moved_at) -> list[Turn]:
    """The turns after the one the mark's post belongs to, opened after the mark last moved
    (a turn the reader saw open, with nothing in it yet, is no news); one query, the turns'
    index."""
    marked_turn = Post.objects.filter(pk=mark).values("turn__number")[:1]
    after = Coalesce(Subquery(marked_turn, output_field=IntegerField()), Value(0))
    turns = Turn.objects.filter(session=session, number__gt=after)
    if moved_at is not None:
        turns = turns.filter(opened_at__gt=moved_at)
    return list(turns.only("number", "deadline", "opened_by_site").order_by("number"))


def _turns_passed(session, mark: int, moved_at) -> dict[int, tuple[str, ...]]:
    """Turn number → the characters it passed over at its deadline, in the turn the mark's
    post belongs to and after, passed after the mark last moved; one query, the newest
    RECAP_TURNS turns' worth at most."""
    marked_turn = Post.objects.filter(pk=mark).values("turn__number")[:1]
    after = Coalesce(Subquery(marked_turn, output_field=IntegerField()), Value(0))
    passes = TurnPass.objects.filter(turn__session=session, turn__number__gte=after)
    if moved_at is not None:
        passes = passes.filter(created_at__gt=moved_at)
    rows = passes.order_by("-turn__number", "character__name", "pk").values_list(
        "turn__number", "character__name"
    )
    by_turn: dict[int, tuple[str, ...]] = {}
    for number, name in rows[: RECAP_TURNS * 10]:
        by_turn[number] = (*by_turn.get(number, ()), name)
    return by_turn


def _recap_turns(session, reader, mark: int, moved_at) -> tuple[list[RecapTurn], int, int]:
    """(the newest RECAP_TURNS turns with news, how many posts in all, turns left out)."""
    by_turn = _posts_by_turn(session, reader, mark)
    opened = {turn.number: turn for turn in _turns_opened(session, mark, moved_at)}
    waited = _turns_passed(session, mark, moved_at)
    numbers = sorted(set(by_turn) | set(opened) | set(waited))
    shown = numbers[-RECAP_TURNS:]
    turns = [
        RecapTurn(
            number=number,
            url=_turn_url(session.pk, number),
            authors=tuple(by_turn.get(number, ())),
            opened=number in opened,
            deadline=opened[number].deadline if number in opened else None,
            waited=waited.get(number, ()),
            by_site=opened[number].opened_by_site if number in opened else "",
        )
        for number in shown
    ]
    total = sum(author.count for authors in by_turn.values() for author in authors)
    return turns, total, len(numbers) - len(shown)


def _talk_waiting(session, reader) -> list[RecapTalk]:
    """The OOC thread and the whispers the reader is a member of with messages after the
    reader's talk mark, not their own, counted (one query). A whisper the reader is not in
    is never counted: its existence is its members' alone."""
    seen = TalkReadMark.objects.filter(user=reader.pk, thread=OuterRef("pk")).values(
        "last_seen_message_id"
    )[:1]
    unread = (
        TalkMessage.objects.filter(thread=OuterRef("pk"), id__gt=OuterRef("seen"))
        .exclude(author=reader.pk)
        .order_by()
        .values("thread")
        .annotate(n=Count("pk"))
        .values("n")[:1]
    )
    threads = (
        TalkThread.objects.filter(session=session)
        .filter(Q(kind=TalkKind.OOC) | Q(kind=TalkKind.WHISPER, members=reader.pk))
        .annotate(seen=Coalesce(Subquery(seen, output_field=IntegerField()), Value(0)))
        .annotate(unread=Coalesce(Subquery(unread, output_field=IntegerField()), Value(0)))
        .filter(unread__gt=0)
        .order_by("kind", "-last_message_at", "-id")
    )
    return [
        RecapTalk(thread.subject, thread.unread, thread.get_absolute_url(), thread.is_whisper)
        for thread in threads
    ]


def _notices_since(session, reader, moved_at) -> tuple[list[RecapNotice], list[RecapNotice]]:
    """(the announcements not taken down, the polls) others made since the mark last moved,
    oldest first, the newest RECAP_NOTICES of both: one query (none before the site kept
    the mark's time)."""
    if moved_at is None:
        return [], []
    announcements = (
        Announcement.objects.filter(
            session=session, created_at__gt=moved_at, archived_at__isnull=True
        )
        .exclude(author=reader.pk)
        .annotate(is_poll=Value(False))
        .values_list("is_poll", "pk", "title", "created_at")
        .order_by()
    )
    polls = (
        Poll.objects.filter(session=session, created_at__gt=moved_at)
        .exclude(author=reader.pk)
        .annotate(is_poll=Value(True))
        .values_list("is_poll", "pk", "question", "created_at")
        .order_by()
    )
    newest = announcements.union(polls, all=True).order_by("-created_at", "-pk")
    found: tuple[list[RecapNotice], list[RecapNotice]] = ([], [])
    for is_poll, pk, title, _at in reversed(newest[:RECAP_NOTICES]):
        if is_poll:
            found[1].append(RecapNotice(title, reverse("diary:poll", args=[session.pk, pk])))
        else:
            board = reverse("diary:board", args=[session.pk])
            found[0].append(RecapNotice(title, f"{board}#announcement-{pk}"))
    return found


def session_recap(
    session,
    reader,
    *,
    mark: int,
    seq: int,
    moved_at=None,
    character_ids=(),
    first_unread_url: str = "",
) -> Recap:
    """The reader's recap of the session since their mark (post `mark`, chain head `seq`,
    moved at `moved_at`); `character_ids`: the reader's characters playing in it."""
    turns, post_count, left_out = _recap_turns(session, reader, mark, moved_at)
    ledger = hooks.current().recap_rolls(
        session,
        reader,
        since_seq=seq,
        since_post_id=mark,
        since_at=moved_at,
        character_ids=tuple(character_ids),
    )
    announcements, polls = _notices_since(session, reader, moved_at)
    return Recap(
        session_id=session.pk,
        title=session.title,
        since=moved_at,
        first_unread_url=first_unread_url,
        turns=tuple(turns),
        post_count=post_count,
        turns_left_out=left_out,
        ledger=ledger,
        talk=tuple(_talk_waiting(session, reader)),
        announcements=tuple(announcements),
        polls=tuple(polls),
    )


def page_recap(access, *, first_unread_url: str, now=None) -> Recap | None:
    """The diary page's recap for its reader, from what the session's query read with it
    (access_session(..., reading=True)); None when not due (diary.recap.selectors.recap_due)
    or nothing is in it."""
    session = access.session
    mark = getattr(session, "viewer_read_mark", None)
    moved_at = getattr(session, "viewer_read_moved_at", None)
    first_unread = getattr(session, "viewer_first_unread", None)
    if not recap_due(mark=mark, moved_at=moved_at, first_unread_id=first_unread, now=now):
        return None
    recap = session_recap(
        session,
        access.user,
        mark=mark,
        seq=session.viewer_read_seq or 0,
        moved_at=moved_at,
        character_ids=[character.pk for character in access.my_characters],
        first_unread_url=first_unread_url,
    )
    return None if recap.is_empty else recap


def _sessions_with_unread_play(user) -> list[GameSession]:
    """The running sessions the user runs (as GM or co-GM) or plays in, with a read mark
    and an unread post, each with its mark (one query)."""
    playing = Participation.objects.filter(
        session=OuterRef("pk"), character__owner=user.pk, status=ParticipationStatus.ACCEPTED
    )
    co_running = CoGameMaster.objects.filter(session=OuterRef("pk"), user=user.pk)
    sessions = (
        GameSession.objects.filter(
            Q(gm=user.pk) | Exists(co_running) | Exists(playing), status=SessionStatus.RUNNING
        )
        .annotate(
            viewer_read_mark=reading.read_mark_subquery(user),
            viewer_read_seq=reading.read_seq_subquery(user),
            viewer_read_moved_at=reading.read_moved_subquery(user),
            viewer_first_unread=reading.first_unread_subquery(user),
        )
        .filter(viewer_read_mark__isnull=False, viewer_first_unread__isnull=False)
        .order_by("title", "pk")
    )
    return list(sessions)


def digest_recaps(user) -> list[Recap]:
    """The user's recap of each session they run or play in where play waits unread, for
    the daily digest e-mail: 2 queries, and the recap's own per such session."""
    sessions = _sessions_with_unread_play(user)
    if not sessions:
        return []
    characters: dict[int, list[int]] = {}
    rows = Participation.objects.filter(
        session__in=[session.pk for session in sessions],
        character__owner=user.pk,
        status=ParticipationStatus.ACCEPTED,
    ).values_list("session_id", "character_id")
    for session_id, character_id in rows:
        characters.setdefault(session_id, []).append(character_id)
    recaps = [
        session_recap(
            session,
            user,
            mark=session.viewer_read_mark,
            seq=session.viewer_read_seq or 0,
            moved_at=session.viewer_read_moved_at,
            character_ids=characters.get(session.pk, ()),
            first_unread_url=reading.first_unread_url(session.pk, session.viewer_first_unread),
        )
        for session in sessions
    ]
    return [recap for recap in recaps if not recap.is_empty]
