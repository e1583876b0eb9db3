"""A seeded random walk through the acts that cannot be undone, with Django's test client.

At each step a random actor (the GM, a co-GM, a player, another player, a moderator, an
outsider, a former GM) tries a random act on a running session: naming and removing a
co-GM, handing the session over (a moderator's, or the GM stepping down), leaving it or
removing a player, voting in and closing a poll, nudging, ending or withdrawing an absence,
taking an announcement down; now and then on a finished session, or with another session's
id. Between them the world moves on: posts, turns, invitations, polls, announcements,
absences, and days passing (the rows' times moved back, as the site's tests do).

Where the act has a page or a confirmation, the walk reads it first and checks it says
what the click will do. Then it posts, with variations (valid, no confirmation, no reason,
a stale or foreign id, the same click twice), and checks after every step, against a
model of the world kept here:

- the database changed exactly as the act promised (the watched tables compared row by
  row), or, for a refusal, not at all (every table: tests/site/table_writes.py);
- a refusal is a page of the site's layout with the Polish words that say why; no 500;
- a session has one GM, who plays no character, and a former GM keeps no power;
- a closed poll stays closed and its votes do not change; a player is nudged at most once
  in 24 hours; posts of a player who left or was removed stay;
- each act sends its notifications once, to exactly the people it names.

Seeded (`IRREVERSIBLE_WALK_SEED`, default fixed) and bounded (`IRREVERSIBLE_WALK_STEPS`);
a failure prints the seed and the steps that led to it.
"""

from __future__ import annotations

import html
import itertools
import os
import random
import re
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

import pytest
from django.conf import settings
from django.db.models import F
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from characters.models import Character
from diary import services as diary_services
from diary.absences import services as absence_services
from diary.absences.selectors import today
from diary.access import session_access
from diary.board import services as board_services
from diary.live import page_cache
from diary.models import (
    Absence,
    Announcement,
    CoGameMaster,
    GameSession,
    Notification,
    NotificationKind,
    Nudge,
    Participation,
    Poll,
    PollVote,
    Post,
    SessionHandover,
    SessionStatus,
    Turn,
)
from diary.polls import services as poll_services
from tests.conftest import new_character, new_session, new_user, polish
from tests.site.table_writes import TableWrites

pytestmark = pytest.mark.django_db

DEFAULT_SEED, DEFAULT_STEPS = 20261201, 150
SEED = int(os.environ.get("IRREVERSIBLE_WALK_SEED", DEFAULT_SEED))
STEPS = int(os.environ.get("IRREVERSIBLE_WALK_STEPS", DEFAULT_STEPS))
# The acts whose success the default walk must reach at least once (else it proves little).
IRREVERSIBLE = (
    "act_hand_over",
    "act_remove_co_gm",
    "act_leave",
    "act_close_poll",
    "act_nudge",
    "act_absence",
    "act_take_down",
    "act_vote",
)

K = NotificationKind
ACCEPTED, INVITED, REQUESTED, WITHDRAWN = "accepted", "invited", "requested", "withdrawn"
READING = (ACCEPTED, INVITED)
LISTED = (ACCEPTED, INVITED, REQUESTED)
# What a request may write without changing anything anyone reads (as the access matrix).
NOT_COMPARED = {"sessions", "admin", "counters"}

# The rows the acts change, and the columns compared (a moment compares as "set or not").
WATCHED = {
    GameSession: ("gm_id", "status"),
    CoGameMaster: ("session_id", "user_id"),
    SessionHandover: ("session_id", "from_gm_id", "to_gm_id", "by_id", "reason"),
    Participation: ("session_id", "character_id", "status", "withdrawn_by_id", "removal_reason"),
    Post: ("session_id", "author_id", "character_id"),
    Turn: ("session_id", "number"),
    Poll: ("session_id", "closed_at", "closed_by_id"),
    PollVote: ("poll_id", "option_id", "voter_id"),
    Nudge: ("session_id", "recipient_id", "by_id"),
    Notification: ("recipient_id", "kind", "session_id"),
    Absence: ("user_id", "session_id", "starts_on", "ends_on"),
    Announcement: ("session_id", "archived_at"),
}


def _plain(value):
    """A moment compares as set (True); an unset one stays None."""
    return True if isinstance(value, datetime) else value


def snapshot() -> dict:
    return {
        model.__name__: {
            pk: tuple(_plain(v) for v in row)
            for pk, *row in model.objects.order_by("pk").values_list("pk", *columns)
        }
        for model, columns in WATCHED.items()
    }


def changes(before: dict, after: dict) -> dict:
    """Per table: rows added (sorted), pks removed (sorted), rows changed (pk → new row)."""
    found = {}
    for table, old in before.items():
        new = after[table]
        added = sorted(new[pk] for pk in new.keys() - old.keys())
        removed = sorted(old.keys() - new.keys())
        changed = {pk: new[pk] for pk in old.keys() & new.keys() if old[pk] != new[pk]}
        parts = {
            name: value
            for name, value in (("added", added), ("removed", removed), ("changed", changed))
            if value
        }
        if parts:
            found[table] = parts
    return found


def text(response) -> str:
    return html.unescape(response.content.decode())


CUT = "\x00"


def words(msgid: str, **params) -> str:
    """The Polish message; a parameter given as CUT ends it there (its words up to a value
    the walk does not predict, e.g. a date)."""
    return polish(msgid, **params).split(CUT)[0] if params else polish(msgid)


# -- the model -------------------------------------------------------------------------------


@dataclass
class Seat:
    """A character's place in the running session, as the walk expects it."""

    pk: int
    owner: str
    name: str
    character_id: int
    status: str


@dataclass
class PollState:
    author: str
    options: list[int]
    max_choices: int | None
    closes_day: int | None  # closes itself on that day of the walk
    closed: bool = False
    votes: dict[str, frozenset[int]] = field(default_factory=dict)


@dataclass
class World:
    """The running session as the walk expects it. Days count from the walk's start."""

    day: int = 0
    gm: str = "mg"
    co_gms: set[str] = field(default_factory=set)
    former_gms: set[str] = field(default_factory=set)
    # (day, author or None): what keeps the session from being orphaned.
    activity: list[tuple[int, str | None]] = field(default_factory=lambda: [(0, None)])
    seats: dict[int, Seat] = field(default_factory=dict)
    posted: set[int] = field(default_factory=set)  # character ids with a post this turn
    # Who wrote as no one this turn: it counts for their character if they play only one
    # (diary.selectors.awaited_characters), e.g. a co-GM's narration before she joined.
    wrote_plain: set[str] = field(default_factory=set)
    posts: dict[int, int] = field(default_factory=dict)  # character id → posts
    polls: dict[int, PollState] = field(default_factory=dict)
    nudged: dict[str, int] = field(default_factory=dict)  # player → day last nudged
    absences: dict[int, tuple[str, bool, int, int]] = field(default_factory=dict)
    pinned: dict[int, bool] = field(default_factory=dict)
    log: list[str] = field(default_factory=list)

    # -- who is what --

    def runs(self, who: str) -> bool:
        return who == self.gm or who in self.co_gms

    def seats_of(self, who: str, statuses=LISTED) -> list[Seat]:
        return [s for s in self.seats.values() if s.owner == who and s.status in statuses]

    def plays(self, who: str) -> bool:
        return bool(self.seats_of(who, (ACCEPTED,)))

    def reads(self, who: str) -> bool:
        return self.runs(who) or who == "moder" or bool(self.seats_of(who, READING))

    def orphaned(self) -> bool:
        last = max(day for day, author in self.activity if author is None or self.runs(author))
        return self.day - last >= settings.ORPHANED_AFTER_DAYS

    def poll_closed(self, poll: PollState) -> bool:
        return poll.closed or (poll.closes_day is not None and self.day >= poll.closes_day)

    def away(self, who: str) -> bool:
        return any(
            owner == who and start <= self.day <= end
            for owner, _here, start, end in self.absences.values()
        )

    def awaited(self) -> list[Seat]:
        playing = [s for s in self.seats.values() if s.status == ACCEPTED]
        return [
            s
            for s in playing
            if s.character_id not in self.posted
            and not self.away(s.owner)
            and not (s.owner in self.wrote_plain and [p.owner for p in playing].count(s.owner) == 1)
        ]

    def runs_list(self) -> list[str]:
        return [self.gm, *self.co_gms]

    def may_nudge(self, who: str) -> bool:
        last = self.nudged.get(who)
        return last is None or self.day - last >= 1


# Each player's character that may come and go in the running session.
FREE = {"alicja": "Lirael", "bartek": "Borys", "kasia": "Kira", "obcy": "Obcy"}

LAYOUT = ('class="site-header"', '<main id="content"')
NOT_ALLOWED = "You are not allowed to do this here."
NOT_FOUND = "There is no such page, or it is not yours to see."


class Refused(Exception):
    pass


class Walk:
    def __init__(self, rng: random.Random, people: dict, places: dict):
        self.rng = rng
        self.people = people  # username → user
        self.session = places["A"]
        self.finished = places["B"]
        self.foreign = places["C"]
        self.world = World()
        self.clients: dict[str, Client] = {}
        self.writes = TableWrites(NOT_COMPARED)
        self.tally: Counter = Counter()  # (act, what came of it) → steps: what the walk covered
        for p in Participation.objects.filter(session=self.session).select_related("character"):
            self.world.seats[p.pk] = Seat(
                p.pk, p.character.owner.username, p.character.name, p.character_id, p.status
            )

    # -- helpers ---------------------------------------------------------------------------

    def client(self, who: str) -> Client:
        if who not in self.clients:
            self.clients[who] = Client()
            self.clients[who].force_login(self.people[who])
        return self.clients[who]

    def note(self, line: str) -> None:
        self.world.log.append(f"{len(self.world.log) + 1:3}. day {self.world.day}: {line}")

    def actor(self, *likely: str) -> str:
        """Mostly (`likely`) someone who may do it; else anyone of the roles."""
        w = self.world
        if likely and self.rng.random() < 0.6:
            return self.rng.choice(sorted(set(likely)))
        role = self.rng.choice(
            ["gm", "co_gm", "player", "other_player", "moderator", "outsider", "former_gm"]
        )
        if role == "gm":
            return w.gm
        if role == "co_gm":
            return self.rng.choice(sorted(w.co_gms)) if w.co_gms else "kasia"
        if role == "former_gm":
            return self.rng.choice(sorted(w.former_gms)) if w.former_gms else "mg"
        return {
            "player": "alicja",
            "other_player": "bartek",
            "moderator": "moder",
            "outsider": "obcy",
        }[role]

    def members(self) -> list[str]:
        w = self.world
        return [*w.runs_list(), *(s.owner for s in w.seats.values() if s.status == ACCEPTED)]

    def uid(self, who: str) -> int:
        return self.people[who].pk

    def told(self, recipients, kind: str, actor: str, session=None) -> list[tuple]:
        """The notification rows an act makes: one per recipient (the actor aside)."""
        session = session or self.session
        return sorted((self.uid(who), kind, session.pk) for who in set(recipients) if who != actor)

    def layout(self, response) -> str:
        body = text(response)
        assert all(mark in body for mark in LAYOUT), "not a page of the site's layout"
        return body

    def refused(self, response, *messages: str, **params) -> None:
        """A refusal: the site's layout and one of these messages in Polish, nothing written."""
        assert not self.writes.wrote(), "a refusal wrote to the database"
        if response.status_code == 302:
            response = self.client_of_last.get(response.url.split("#")[0])
        assert response.status_code in (200, 400, 403, 404), response.status_code
        body = self.layout(response)
        wanted = [words(m, **params) for m in messages]
        shown = next((m for m, w in zip(messages, wanted, strict=True) if w in body), None)
        main = re.sub(r"<[^>]+>|\s+", " ", body.split('<main id="content"')[1].split("</main>")[0])
        assert shown is not None, f"none of {wanted} on the page, which says: {main[:600]}"
        self.tally[(self.act, f"refused: {shown[:40]}")] += 1

    def post(self, who: str, url: str, data: dict | None = None):
        self.client_of_last = self.client(who)
        self.writes.mark()
        response = self.client_of_last.post(url, data or {})
        assert response.status_code != 500
        return response

    def get(self, who: str, url: str):
        self.client_of_last = self.client(who)
        response = self.client_of_last.get(url)
        assert response.status_code != 500
        return response

    def expect(self, before: dict, **tables) -> None:
        """The watched tables changed exactly as `tables` says, and no other did."""
        found = changes(before, snapshot())
        tables = {
            k: {part: rows for part, rows in v.items() if rows} for k, v in tables.items() if v
        }
        tables = {k: v for k, v in tables.items() if v}
        self.tally[(self.act, "done" if tables else "no change")] += 1
        assert found == tables, f"expected {tables}, the database changed {found}"

    # -- the acts ---------------------------------------------------------------------------

    def act_name_co_gm(self) -> None:
        w = self.world
        who = self.actor(w.gm)
        target = self.rng.choice(["kasia", "kasia", "olek", "alicja", "moder", w.gm, "nikt"])
        self.note(f"{who} names {target} a co-GM")
        url = reverse("diary:co_gms", args=[self.session.pk])
        before = snapshot()
        response = self.post(who, url, {"username": target})
        if who != w.gm:
            return self.refused(response, NOT_ALLOWED)
        if target == "nikt":
            return self.refused(response, "There is no user with this username.")
        if target == w.gm:
            return self.refused(response, "This user is already the session's GM.")
        if self.world.seats_of(target):
            return self.refused(
                response,
                "This user has a character in this session: a player cannot be its GM or co-GM.",
            )
        if target in w.co_gms:
            return self.refused(response, "This user is already a co-GM of this session.")
        assert response.status_code == 302
        w.co_gms.add(target)
        self.expect(
            before,
            CoGameMaster={"added": [(self.session.pk, self.uid(target))]},
            Notification={"added": self.told([target], K.CO_GM_NAMED, who)},
        )

    def act_remove_co_gm(self) -> None:
        w = self.world
        who = self.actor(w.gm, *w.co_gms)
        session, state = self.session, "running"
        if self.rng.random() < 0.1:
            session, state = self.finished, "finished"
        target = self.rng.choice([*sorted(w.co_gms), "kasia", "alicja"])
        confirm = self.rng.random() < 0.8
        self.note(f"{who} removes co-GM {target} ({state}, confirm={confirm})")
        page_url = reverse("diary:co_gms", args=[session.pk])
        if (state == "running" and w.runs(who)) or who == "moder":
            body = self.layout(self.get(who, page_url))
            shown = target in w.co_gms and state == "running" and (who == w.gm or who == target)
            words = polish(
                "%(user)s loses the GM's powers in this session at once: no more turns, rolls "
                "for others, settings or participants. What they did stays in the diary under "
                "their name.",
                user=target,
            )
            assert (words in body) == shown, f"the confirmation for {target} shown: {not shown}"
        data = {"user": self.uid(target)}
        if confirm:
            data["confirm"] = "yes"
        before = snapshot()
        for _attempt in range(self.rng.choice([1, 1, 2])):
            response = self.post(who, reverse("diary:co_gm_remove", args=[session.pk]), data)
            if state == "finished":
                self.refused(response, NOT_ALLOWED)
                continue
            if not w.reads(who) or not (who == w.gm or who in w.co_gms):
                self.refused(response, NOT_ALLOWED)
                continue
            if target not in w.co_gms or not confirm:
                self.refused(response, "Choose a co-GM of this session and confirm.")
                continue
            if who != w.gm and who != target:
                self.refused(response, NOT_ALLOWED)
                continue
            assert response.status_code == 302
            w.co_gms.discard(target)
            self.expect(before, CoGameMaster={"removed": [self._co_gm_row(before, target)]})
            self.check_no_powers(target)
            before = snapshot()

    def _co_gm_row(self, before: dict, who: str) -> int:
        row = (self.session.pk, self.uid(who))
        return next(pk for pk, values in before["CoGameMaster"].items() if values == row)

    def act_hand_over(self) -> None:
        w = self.world
        who = self.actor("moder", w.gm)
        finished = self.rng.random() < 0.1
        session = self.finished if finished else self.session
        target = self.rng.choice(
            [*sorted(w.co_gms) * 3, "kasia", "olek", "olek", "alicja", "obcy", w.gm, "nikt", ""]
        )
        reason = self.rng.choice(["Prowadzący zniknął.", "Nie mam czasu.", "Zmiana.", "  ", ""])
        self.note(
            f"{who} hands {'the finished' if finished else 'the'} session to {target!r}"
            f" ({reason!r}; orphaned={w.orphaned()})"
        )
        url = reverse("diary:session_handover", args=[session.pk])
        stepping_down = not finished and who == w.gm and bool(w.co_gms)
        moderating = not finished and not stepping_down and who == "moder"
        if stepping_down or moderating:
            body = self.layout(self.get(who, url))
            promise = polish(
                "What happens: the new GM gets the session with every GM's power, %(gm)s keeps "
                "none (not even as co-GM), the handover and its reason go into the session's "
                "history, and every player, the old and the new GM are notified. This cannot "
                "be undone (only handed over again).",
                gm=w.gm,
            )
            assert promise in body, "the handover page does not say what will happen"
        before = snapshot()
        response = self.post(who, url, {"username": target, "reason": reason})
        if not (stepping_down or moderating):
            return self.refused(response, NOT_ALLOWED)
        if not target:
            return self.refused(response, "This field is required.")
        if target == "nikt":
            return self.refused(response, "There is no user with this username.")
        if not reason.strip():
            return self.refused(response, "Give the reason: it stays in the session's history.")
        if stepping_down and target not in w.co_gms:
            return self.refused(
                response, "Hand the session to one of its co-GMs (name a co-GM first)."
            )
        if moderating and not w.orphaned():
            return self.refused(
                response,
                "This session is not orphaned: its GM last posted or opened a turn on "
                "%(last)s. A session may be handed over after %(days)s days without either, "
                "from %(due)s.",
                last=CUT,
                days=CUT,
                due=CUT,
            )
        if target == w.gm:
            return self.refused(response, "This user is already the session's GM.")
        if self.world.seats_of(target):
            return self.refused(
                response,
                "This user has a character in this session: a player cannot be its GM or co-GM.",
            )
        assert response.status_code == 302, response.status_code
        old = w.gm
        players = [s.owner for s in w.seats.values() if s.status == ACCEPTED]
        co_gm_row = self._co_gm_row(before, target) if target in w.co_gms else None
        w.co_gms.discard(target)
        w.former_gms.add(old)
        w.former_gms.discard(target)
        w.gm = target
        w.activity.append((w.day, None))
        self.expect(
            before,
            SessionHandover={
                "added": [(session.pk, self.uid(old), self.uid(target), self.uid(who), reason)]
            },
            GameSession={"changed": {session.pk: (self.uid(target), "running")}},
            CoGameMaster={"removed": [co_gm_row]} if co_gm_row else None,
            Notification={
                "added": self.told([old, target, *w.co_gms, *players], K.SESSION_HANDED_OVER, who)
            },
        )
        self.check_no_powers(old)
        if self.rng.random() < 0.5:
            self.note("    ... and the same click again")
            again = self.post(who, url, {"username": target, "reason": reason})
            self.refused(
                again,
                NOT_ALLOWED,
                "This session is not orphaned: its GM last posted or opened a turn on %(last)s. "
                "A session may be handed over after %(days)s days without either, from %(due)s.",
                "This user is already the session's GM.",
                last=CUT,
                days=CUT,
                due=CUT,
            )

    def act_leave(self) -> None:
        """A player takes their character out (or the GM removes one, with a reason)."""
        w = self.world
        who = self.actor(
            *(s.owner for s in w.seats.values() if s.status in LISTED), w.gm, *w.co_gms
        )
        seats = list(w.seats.values())
        foreign = self.rng.random() < 0.1
        if foreign:
            pk, seat = self.foreign_participation, None
        else:
            own = [s for s in seats if s.owner == who and s.status in LISTED]
            seat = self.rng.choice(own if own and self.rng.random() < 0.8 else seats)
            pk = seat.pk
        confirm = self.rng.random() < 0.8
        reason = self.rng.choice(["Trzy tury bez wpisu.", "", "   "])
        self.note(
            f"{who} takes {seat.name if seat else 'a foreign character'}"
            f" ({seat.status if seat else '-'}) out (confirm={confirm}, {reason!r})"
        )
        url = reverse("diary:participation_withdraw", args=[pk])
        if seat is None:
            response = self.post(who, url, {"confirm": "yes"})
            return self.refused(response, NOT_FOUND, NOT_ALLOWED)
        owns = seat.owner == who
        if not (w.reads(who) or owns):
            return self.refused(self.post(who, url, {"confirm": "yes"}), NOT_FOUND)
        if seat.status not in LISTED or not (w.runs(who) or owns):
            return self.refused(self.post(who, url, {"confirm": "yes"}), NOT_ALLOWED)
        removing, playing = not owns, seat.status == ACCEPTED
        # First the page that says what will happen.
        asked = self.post(who, url)
        self.refused_quietly(asked)
        body = self.layout(asked)
        if removing and playing:
            assert polish("Remove %(name)s from the session?", name=seat.name) in body
            assert (
                polish(
                    "This cannot be undone: %(name)s leaves the session at once and is free to "
                    "play elsewhere; its posts and rolls stay in the diary under its name. "
                    "%(player)s no longer reads the diary and is notified with your reason, "
                    "which they also read on the session's history page. You may invite the "
                    "character again later.",
                    name=seat.name,
                    player=seat.owner,
                )
                in body
            )
        elif removing:
            assert polish("Remove %(name)s from the session?", name=seat.name) in body
        else:
            assert polish("Leave the session with %(name)s?", name=seat.name) in body
            if playing:
                assert seat.name in body.split("confirm-page")[1]
        data = {"confirm": "yes"} if confirm else {}
        if removing and playing:
            data["reason"] = reason
        before = snapshot()
        response = self.post(who, url, data)
        if not confirm:
            return self.refused_quietly(response)
        if removing and playing and not reason.strip():
            return self.refused(response, "Give the player the reason for the removal.")
        assert response.status_code == 302
        seat.status = WITHDRAWN
        removal = reason.strip() if removing and playing else ""
        if playing and removing:
            told = self.told([seat.owner], K.CHARACTER_REMOVED, who)
        elif playing:
            told = self.told([w.gm, *w.co_gms], K.PLAYER_LEFT, who)
        else:
            told = []
        self.expect(
            before,
            Participation={
                "changed": {
                    seat.pk: (
                        self.session.pk,
                        seat.character_id,
                        WITHDRAWN,
                        self.uid(who),
                        removal,
                    )
                }
            },
            Notification={"added": told},
        )
        # Who has no character left here no longer reads the diary.
        if not (w.reads(seat.owner) or self.world.seats_of(seat.owner)):
            gone = self.get(seat.owner, reverse("diary:session", args=[self.session.pk]))
            assert gone.status_code == 403
            assert polish(
                "This session's diary is private: only its GM and the players of its "
                "characters read it."
            ) in self.layout(gone)
        # The same click again: the character is off the list, nothing more happens.
        if self.rng.random() < 0.5:
            self.note("    ... and the same click again")
            self.refused(self.post(who, url, data), NOT_ALLOWED, NOT_FOUND)

    def refused_quietly(self, response) -> None:
        """A page that asks again: nothing written."""
        assert response.status_code == 200, response.status_code
        assert not self.writes.wrote(), "asking to confirm wrote to the database"

    def act_vote(self) -> None:
        w = self.world
        who = self.actor(*self.members())
        polls = sorted(w.polls)
        if not polls or self.rng.random() < 0.1:
            return self._foreign_poll(who, "vote")
        pk = self.rng.choice(polls)
        poll = w.polls[pk]
        options = [*poll.options, self.foreign_option]
        if self.rng.random() < 0.7:  # a vote the poll takes, mostly
            chosen = self.rng.sample(poll.options, 1 if poll.max_choices == 1 else 2)
        else:
            chosen = self.rng.sample(options, self.rng.choice([0, 1, 2]))
        self.note(f"{who} votes {chosen} in poll {pk}")
        url = reverse("diary:poll", args=[self.session.pk, pk])
        if w.reads(who):
            self._poll_page(who, pk)
        before = snapshot()
        response = self.post(who, url, {"choices": chosen})
        if not w.reads(who):
            return self.refused(response, NOT_ALLOWED)
        if not (w.runs(who) or w.plays(who)):
            return self.refused(
                response,
                "Only the GM and the players of this session open polls and vote, and not once "
                "it is finished; moderators read the polls and their results.",
            )
        if not chosen:
            return self.refused(response, "Choose an option.")
        if self.foreign_option in chosen:
            return self.refused(response, "Choose among the poll's options.")
        if w.poll_closed(poll):
            return self.refused(response, "This poll is closed: its votes can no longer change.")
        if poll.max_choices == 1 and len(chosen) > 1:
            return self.refused(response, "This poll takes one choice.")
        assert response.status_code == 302
        mine = [
            p for p, row in before["PollVote"].items() if row[0] == pk and row[2] == self.uid(who)
        ]
        poll.votes[who] = frozenset(chosen)
        self.expect(
            before,
            PollVote={
                "removed": sorted(mine),
                "added": sorted((pk, option, self.uid(who)) for option in chosen),
            },
        )

    def _poll_page(self, who: str, pk: int) -> None:
        """The poll's page says what a click can do: vote while open, close it (its author
        or the GM), and that it is closed."""
        w, poll = self.world, self.world.polls[pk]
        body = self.layout(self.get(who, reverse("diary:poll", args=[self.session.pk, pk])))
        member = w.runs(who) or w.plays(who)
        closed = w.poll_closed(poll)
        assert ('data-testid="poll-closed"' in body) == closed
        assert ('data-testid="poll-vote"' in body) == (member and not closed)
        may_close = member and (poll.author == who or w.runs(who))
        assert ('data-testid="poll-close"' in body) == (may_close and not closed)
        if may_close and not closed:
            assert (
                polish(
                    "Closing is final: nobody can vote or change a vote any more, and the results "
                    "stay as they are."
                )
                in body.split('data-testid="poll-close-note"')[1]
            )

    def _foreign_poll(self, who: str, what: str) -> None:
        """Another session's poll under this session's address: not found."""
        self.note(f"{who} tries to {what} another session's poll here")
        pk = self.foreign_poll
        url = reverse("diary:poll", args=[self.session.pk, pk])
        if what == "close":
            url = reverse("diary:poll_close", args=[self.session.pk, pk])
        response = self.post(who, url, {"choices": [self.foreign_option]})
        self.refused(response, NOT_FOUND if self.world.reads(who) else NOT_ALLOWED)

    def act_close_poll(self) -> None:
        w = self.world
        who = self.actor(*w.runs_list(), *(p.author for p in w.polls.values()))
        if self.rng.random() < 0.1:
            return self._finished_poll(who)
        if not w.polls or self.rng.random() < 0.1:
            return self._foreign_poll(who, "close")
        pk = self.rng.choice(sorted(w.polls))
        poll = w.polls[pk]
        self.note(f"{who} closes poll {pk} (closed={w.poll_closed(poll)})")
        if w.reads(who):
            self._poll_page(who, pk)
        before = snapshot()
        for _attempt in range(self.rng.choice([1, 2])):
            response = self.post(who, reverse("diary:poll_close", args=[self.session.pk, pk]))
            if not w.reads(who):
                self.refused(response, NOT_ALLOWED)
                continue
            member = w.runs(who) or w.plays(who)
            if not (member and (poll.author == who or w.runs(who))):
                self.refused(
                    response, "Only the poll's author or the GM closes it; moderators only read it."
                )
                continue
            assert response.status_code == 302
            if w.poll_closed(poll):
                self.expect(before)
                continue
            poll.closed = True
            self.expect(before, Poll={"changed": {pk: (self.session.pk, True, self.uid(who))}})
            before = snapshot()

    def _finished_poll(self, who: str) -> None:
        """A finished session's poll: closed, whoever asks; nothing changes."""
        self.note(f"{who} closes the finished session's poll")
        before = snapshot()
        url = reverse("diary:poll_close", args=[self.finished.pk, self.finished_poll])
        response = self.post(who, url)
        if response.status_code != 302:
            self.refused(
                response,
                NOT_ALLOWED,
                "Only the poll's author or the GM closes it; moderators only read it.",
            )
        self.expect(before)

    def act_nudge(self) -> None:
        w = self.world
        who = self.actor(*w.runs_list())
        finished = self.rng.random() < 0.1
        session = self.finished if finished else self.session
        choice = self.rng.choice(["one", "one", "everyone", "nobody", "foreign"])
        playing = [s for s in w.seats.values() if s.status == ACCEPTED]
        awaited = w.awaited() if self.rng.random() < 0.7 else []
        seat = self.rng.choice(awaited or playing or [None])
        if choice == "one" and seat is None:
            choice = "everyone"
        self.note(
            f"{who} nudges {seat.name if choice == 'one' else choice}"
            f"{' in the finished session' if finished else ''}"
        )
        if not finished and w.runs(who):
            self._nudge_buttons(who)
        data = {
            "one": {"character": seat.character_id if seat else 0},
            "everyone": {"everyone": "1"},
            "nobody": {},
            "foreign": {"character": self.foreign_character},
        }[choice]
        before = snapshot()
        response = self.post(who, reverse("diary:nudge", args=[session.pk]), data)
        if finished or not w.runs(who):
            return self.refused(response, NOT_ALLOWED)
        if choice == "nobody":
            return self.refused(response, "Choose whom to nudge.")
        awaited = w.awaited()
        if choice == "one" and w.away(seat.owner):
            return self.refused(
                response,
                "%(name)s's player is away: an absent player is not nudged.",
                name=seat.name,
            )
        if choice in ("one", "foreign") and (
            choice == "foreign" or seat.character_id not in {s.character_id for s in awaited}
        ):
            return self.refused(
                response, "The turn does not await this character: nobody to nudge."
            )
        if choice == "one":
            if not w.may_nudge(seat.owner):
                return self.refused(
                    response,
                    "%(name)s's player was nudged less than a day ago; the next nudge is "
                    "possible on %(when)s.",
                    name=seat.name,
                    when=CUT,
                )
            owners = [seat.owner]
        else:
            owners = sorted({s.owner for s in awaited})
            if not owners:
                return self.refused(response, "The turn awaits nobody present: nobody to nudge.")
            owners = [o for o in owners if w.may_nudge(o)]
            if not owners:
                return self.refused(
                    response,
                    "Everyone awaited was nudged less than a day ago; the next nudge is possible "
                    "on %(when)s.",
                    when=CUT,
                )
        assert response.status_code == 302
        for owner in owners:
            w.nudged[owner] = w.day
        self.expect(
            before,
            Nudge={"added": sorted((session.pk, self.uid(o), self.uid(who)) for o in owners)},
            Notification={"added": self.told(owners, K.NUDGE, who)},
        )
        if self.rng.random() < 0.5:
            self.note("    ... and the same click again")
            again = self.post(who, reverse("diary:nudge", args=[session.pk]), data)
            self.refused(
                again,
                "%(name)s's player was nudged less than a day ago; the next nudge is possible "
                "on %(when)s.",
                "Everyone awaited was nudged less than a day ago; the next nudge is possible "
                "on %(when)s.",
                "The turn awaits nobody present: nobody to nudge.",
                name=seat.name if seat else "",
                when=CUT,
            )

    def _nudge_buttons(self, who: str) -> None:
        """The diary's "Czekamy na:" offers a nudge for each awaited player not nudged today,
        and says "nudged today" of the others."""
        w = self.world
        body = text(self.get(who, reverse("diary:session", args=[self.session.pk])))
        if any(w.may_nudge(seat.owner) for seat in w.awaited()):
            status = body.split('data-testid="turn-status"')[-1].split("</section>")[0]
            assert 'data-testid="nudge-note"' in body, (
                f"no nudge offered; the walk awaits {[s.name for s in w.awaited()]}, the page "
                f"says: {re.sub(r'<[^>]+>|\\s+', ' ', status)[:500]}"
            )
            assert (
                polish(
                    "A nudge cannot be taken back: the player is told at once (by e-mail too "
                    "if they chose so), and is nudged at most once a day."
                )
                in body.split('data-testid="nudge-note"')[1]
            )
        for seat in w.awaited():
            can = w.may_nudge(seat.owner)
            assert (f'data-testid="nudge-{seat.character_id}"' in body) == can, seat.name
            assert (f'data-testid="nudged-{seat.character_id}"' in body) == (not can), seat.name

    def act_absence(self) -> None:
        """Ending an absence early ("I'm back") or withdrawing one to come."""
        w = self.world
        who = self.actor(*(a[0] for a in w.absences.values() if a[3] >= w.day))
        mine = [pk for pk, a in w.absences.items() if a[0] == who]
        others = [pk for pk, a in w.absences.items() if a[0] != who]
        pk = self.rng.choice(mine if mine and self.rng.random() < 0.8 else others or [0])
        ending = self.rng.random() < 0.5
        self.note(f"{who} {'ends' if ending else 'withdraws'} absence {pk}")
        if mine:
            self._absence_buttons(who)
        name = "diary:absence_end" if ending else "diary:absence_delete"
        before = snapshot()
        response = self.post(who, reverse(name, args=[pk]))
        if pk not in mine:
            return self.refused(response, NOT_FOUND)
        owner, here, start, end = w.absences[pk]
        if ending and not start <= w.day <= end:
            return self.refused(response, "Only an absence that lasts today can be ended early.")
        if not ending and start <= w.day:
            return self.refused(
                response, "An absence that has begun cannot be withdrawn; end it early instead."
            )
        assert response.status_code == 302
        session_pk = self.session.pk if here else None
        if ending and start < w.day:
            w.absences[pk] = (owner, here, start, w.day - 1)
            changed = (self.uid(owner), session_pk, self.date(start), self.date(w.day - 1))
            self.expect(before, Absence={"changed": {pk: changed}})
        else:
            del w.absences[pk]
            self.expect(before, Absence={"removed": [pk]})
        if self.rng.random() < 0.5:
            self.note("    ... and the same click again")
            self.refused(
                self.post(who, reverse(name, args=[pk])),
                NOT_FOUND,
                "Only an absence that lasts today can be ended early.",
            )

    def _absence_buttons(self, who: str) -> None:
        w = self.world
        body = text(self.get(who, reverse("diary:absences")))
        for pk, (owner, _here, start, end) in w.absences.items():
            if owner != who or end < w.day:
                continue
            row = body.split(f'data-testid="absence-{pk}"')[1].split("</li>")[0]
            assert ('data-testid="absence-end"' in row) == (start <= w.day <= end)
            assert ('data-testid="absence-delete"' in row) == (start > w.day)

    def date(self, day: int) -> date:
        """The calendar date of a day of the walk (today is the walk's `day`)."""
        return today() + timedelta(days=day - self.world.day)

    def act_take_down(self) -> None:
        w = self.world
        who = self.actor(*w.runs_list())
        where = self.rng.choice(["here"] * 8 + ["finished", "foreign"])
        session = self.finished if where == "finished" else self.session
        pk = {
            "here": self.rng.choice(sorted(w.pinned) or [self.foreign_announcement]),
            "finished": self.finished_announcement,
            "foreign": self.foreign_announcement,
        }[where]
        pinned = self.rng.choice(["off", "off", "on", "", "tak"])
        self.note(f"{who} sets announcement {pk} ({where}) pinned={pinned!r}")
        before = snapshot()
        url = reverse("diary:announcement_pin", args=[session.pk, pk])
        response = self.post(who, url, {"pinned": pinned} if pinned else {})
        reads = w.reads(who) if where != "finished" else who in ("mg", "moder", "alicja", "bartek")
        if not reads:
            return self.refused(response, NOT_ALLOWED)
        if pk not in w.pinned and where != "finished":
            return self.refused(response, NOT_FOUND)
        if where == "finished" or not w.runs(who):
            return self.refused(
                response,
                "Only the GM writes on the notice board, and not once the session is finished.",
            )
        if pinned not in ("on", "off"):
            return self.refused(response, "Choose whether to pin the announcement or take it down.")
        assert response.status_code == 302
        body = self.layout(self.get(who, reverse("diary:board", args=[self.session.pk])))
        if w.pinned[pk] == (pinned == "on"):
            self.expect(before)
        else:
            w.pinned[pk] = pinned == "on"
            self.expect(
                before,
                Announcement={
                    "changed": {pk: (self.session.pk, True if pinned == "off" else None)}
                },
            )
        card = body.split(f'id="announcement-{pk}"')[1].split("</article>")[0]
        assert ('data-testid="announcement-pin"' in card) == (not w.pinned[pk])
        assert ('data-testid="announcement-unpin"' in card) == w.pinned[pk]

    def act_invite(self) -> None:
        """The GM invites a character off the list (its owner then accepts), on the
        participants page."""
        w = self.world
        who = self.actor(*w.runs_list())
        owner = self.rng.choice(sorted(FREE))
        name = FREE[owner]
        self.note(f"{who} invites {name} ({owner})")
        response = self.post(
            who,
            reverse("diary:participants", args=[self.session.pk]),
            {"username": owner, "name": name},
        )
        seat = next((s for s in w.seats.values() if s.name == name), None)
        if not w.runs(who):
            return self.refused(response, NOT_ALLOWED)
        if seat is not None and seat.status in LISTED:
            return self.refused(response, "This character is already on the session's list.")
        if w.runs(owner):
            return self.refused(
                response,
                "This character's player runs this session: its GM and co-GMs play no "
                "character in it.",
            )
        assert response.status_code == 302, response.status_code
        p = Participation.objects.get(session=self.session, character__name=name)
        w.seats[p.pk] = Seat(p.pk, owner, name, p.character_id, INVITED)
        if self.rng.random() < 0.8:
            self.note(f"    ... and {owner} accepts")
            answer = self.post(owner, reverse("diary:participation_accept", args=[p.pk]))
            assert answer.status_code == 302
            p.refresh_from_db()
            w.seats[p.pk].status = p.status
            assert p.status == ACCEPTED
        self.tally[(self.act, "done")] += 1

    def act_request(self) -> None:
        """A player asks to join with a character off the list (the GM then answers), on the
        session's card; whoever runs the session is not offered it."""
        w = self.world
        owner = self.rng.choice(["alicja", "bartek", "kasia", "obcy"])
        name = FREE[owner]
        seat = next((s for s in w.seats.values() if s.name == name), None)
        self.note(f"{owner} asks to join with {name}")
        character_id = self.character_ids[name]
        before = snapshot()
        response = self.post(
            owner,
            reverse("diary:session_join", args=[self.session.pk]),
            {"character": character_id},
        )
        full = "Every place in this session is taken: it takes no applications now."
        if w.runs(owner):
            return self.refused(
                response, "You run this session: its GM and co-GMs play no character in it.", full
            )
        if seat is not None and seat.status != WITHDRAWN:
            return self.refused(
                response,
                "Select a valid choice. That choice is not one of the available choices.",
                "Your characters of this session's rule system are already on its list.",
                full,
            )
        assert response.status_code == 302, response.status_code
        p = Participation.objects.get(session=self.session, character_id=character_id)
        if seat is None:
            rows = {"added": [(self.session.pk, character_id, REQUESTED, None, "")]}
            w.seats[p.pk] = Seat(p.pk, owner, name, character_id, REQUESTED)
        else:
            old = before["Participation"][p.pk]
            rows = {"changed": {p.pk: (*old[:2], REQUESTED, *old[3:])}}
            seat.status = REQUESTED
        self.expect(
            before,
            Participation=rows,
            Notification={"added": self.told(w.runs_list(), K.JOIN_REQUEST, owner)},
        )
        if self.rng.random() < 0.6:
            accept = self.rng.random() < 0.7
            self.note(f"    ... and {w.gm} {'accepts' if accept else 'declines'}")
            name = "diary:participation_accept" if accept else "diary:participation_decline"
            answer = self.post(w.gm, reverse(name, args=[p.pk]))
            assert answer.status_code == 302, answer.status_code
            w.seats[p.pk].status = ACCEPTED if accept else "declined"

    # -- the world moves on ------------------------------------------------------------------

    def act_post(self) -> None:
        w = self.world
        writers = [s for s in w.seats.values() if s.status == ACCEPTED]
        if self.rng.random() < 0.3 or not writers:
            author = self.rng.choice([w.gm, *sorted(w.co_gms)])
            self.note(f"{author} narrates")
            diary_services.post_create(
                session=self.session,
                author=self.people[author],
                character=None,
                narration="Mgła gęstnieje.",
                nc_note="",
            )
            w.activity.append((w.day, author))
            w.wrote_plain.add(author)
            return
        seat = self.rng.choice(writers)
        self.note(f"{seat.owner} posts as {seat.name}")
        diary_services.post_create(
            session=self.session,
            author=self.people[seat.owner],
            character=Participation.objects.get(pk=seat.pk).character,
            narration="Idę dalej.",
            nc_note="",
        )
        w.posted.add(seat.character_id)
        w.posts[seat.character_id] = w.posts.get(seat.character_id, 0) + 1

    def act_open_turn(self) -> None:
        w = self.world
        self.note(f"{w.gm} opens the next turn")
        diary_services.turn_open_next(session=self.session, by=self.people[w.gm])
        w.posted, w.wrote_plain = set(), set()
        w.activity.append((w.day, None))

    def act_new_poll(self) -> None:
        w = self.world
        members = sorted(
            {w.gm, *w.co_gms, *(s.owner for s in w.seats.values() if s.status == ACCEPTED)}
        )
        author = self.rng.choice(members)
        closes = self.rng.choice([None, None, 1, 2])
        max_choices = self.rng.choice([1, None, 2])
        self.note(f"{author} opens a poll (max {max_choices}, closes in {closes} days)")
        poll = poll_services.poll_create(
            session=self.session,
            by=self.people[author],
            question="Kiedy gramy?",
            kind="text",
            options=["piątek", "sobota", "niedziela"],
            max_choices=max_choices,
            anonymous=False,
            closes_at=timezone.now() + timedelta(days=closes) if closes else None,
            token=uuid.uuid4(),
        )
        w.polls[poll.pk] = PollState(
            author,
            list(poll.options.values_list("pk", flat=True)),
            max_choices,
            w.day + closes if closes else None,
        )

    def act_new_announcement(self) -> None:
        w = self.world
        author = self.rng.choice([w.gm, *sorted(w.co_gms)])
        self.note(f"{author} pins an announcement")
        a = board_services.announcement_create(
            session=self.session,
            by=self.people[author],
            title="Zasady domu",
            text="Piszemy co dwa dni.",
            token=uuid.uuid4(),
        )
        w.pinned[a.pk] = True

    def act_new_absence(self) -> None:
        w = self.world
        who = self.rng.choice(["alicja", "bartek", "kasia", w.gm])
        # A session's own absence: its GM's or a player's (a co-GM declares one for all).
        here = self.rng.random() < 0.5 and (who == w.gm or w.plays(who))
        start = w.day + self.rng.choice([0, 0, 1, 3])
        end = start + self.rng.choice([0, 2, 5])
        self.note(f"{who} declares an absence days {start}-{end} ({'here' if here else 'all'})")
        absence = absence_services.absence_create(
            user=self.people[who],
            session=self.session if here else None,
            starts_on=self.date(start),
            ends_on=self.date(end),
        )
        w.absences[absence.pk] = (who, here, start, end)

    def act_days_pass(self) -> None:
        w = self.world
        days = self.rng.choice([1, 1, 2, settings.ORPHANED_AFTER_DAYS])
        self.note(f"{days} day(s) pass")
        back = timedelta(days=days)
        for model, names in (
            (GameSession, ["created_at"]),
            (Post, ["created_at"]),
            (Turn, ["opened_at"]),
            (SessionHandover, ["at"]),
            (Nudge, ["created_at"]),
            (Poll, ["created_at", "closes_at", "closed_at"]),
            (CoGameMaster, ["created_at"]),
        ):
            model.objects.update(**{name: F(name) - back for name in names})
        for absence in Absence.objects.all():
            absence.starts_on -= back
            absence.ends_on -= back
            absence.save(update_fields=["starts_on", "ends_on"])
        w.day += days
        # The diary's per-marker cache would keep the rows' old times: the days passed here
        # in a moment, not in the time a marker lasts.
        page_cache.clear()

    # -- after every step --------------------------------------------------------------------

    def check_no_powers(self, who: str) -> None:
        """A former GM or co-GM: no turn, no settings, no nudge."""
        w = self.world
        if w.runs(who):
            return
        access = session_access(self.people[who], GameSession.objects.get(pk=self.session.pk))
        assert not access.is_gm and not access.can_manage and not access.can_nudge
        edit = self.get(who, reverse("diary:session_edit", args=[self.session.pk]))
        assert edit.status_code in (403, 404)
        self.layout(edit)

    def check(self) -> None:
        w = self.world
        session = GameSession.objects.get(pk=self.session.pk)
        assert session.gm.username == w.gm
        co_gms = set(
            CoGameMaster.objects.filter(session=session).values_list("user__username", flat=True)
        )
        assert co_gms == w.co_gms
        # One GM, and whoever runs the session plays no character in it.
        for runner in (w.gm, *w.co_gms):
            assert not w.seats_of(runner), f"{runner} runs the session and plays in it"
        listed = {p.pk: p.status for p in Participation.objects.filter(session=session)}
        assert listed == {pk: s.status for pk, s in w.seats.items()}
        for former in w.former_gms - {w.gm} - w.co_gms:
            assert not session_access(self.people[former], session).is_gm
        # A closed poll stays closed; its votes stay as they were.
        for pk, poll in w.polls.items():
            row = Poll.objects.get(pk=pk)
            if w.poll_closed(poll):
                assert row.is_closed()
            votes: dict[str, set[int]] = {}
            for voter, option in PollVote.objects.filter(poll_id=pk).values_list(
                "voter__username", "option_id"
            ):
                votes.setdefault(voter, set()).add(option)
            assert votes == {k: set(v) for k, v in poll.votes.items()}
        # At most one nudge a day per player.
        times: dict[int, list] = {}
        for recipient, at in Nudge.objects.filter(session=session).values_list(
            "recipient_id", "created_at"
        ):
            times.setdefault(recipient, []).append(at)
        for recipient, moments in times.items():
            moments.sort()
            for a, b in itertools.pairwise(moments):
                assert b - a >= timedelta(hours=24), f"user {recipient} nudged twice in a day"
        # Every post stays, whoever left.
        for character_id, count in w.posts.items():
            assert Post.objects.filter(session=session, character_id=character_id).count() == count

    ACTS = {
        "act_name_co_gm": 3,
        "act_remove_co_gm": 3,
        "act_hand_over": 4,
        "act_leave": 4,
        "act_vote": 3,
        "act_close_poll": 3,
        "act_nudge": 4,
        "act_absence": 3,
        "act_take_down": 3,
        "act_invite": 3,
        "act_request": 2,
        "act_post": 3,
        "act_open_turn": 2,
        "act_new_poll": 1,
        "act_new_announcement": 1,
        "act_new_absence": 2,
        "act_days_pass": 2,
    }

    def run(self, steps: int) -> None:
        names, weights = zip(*self.ACTS.items(), strict=True)
        for _step in range(steps):
            day = today()
            self.act = self.rng.choices(names, weights)[0]
            getattr(self, self.act)()
            self.midnight(day)
            self.check()

    def midnight(self, day: date) -> None:
        """Midnight came during the step: the absences' dates are a day nearer the walk's
        today (the rows' times are not)."""
        gone = (today() - day).days
        if gone:
            self.world.absences = {
                pk: (owner, here, start - gone, end - gone)
                for pk, (owner, here, start, end) in self.world.absences.items()
            }


def build() -> tuple[dict, dict]:
    people = {
        name: new_user(name, moderator=name == "moder")
        for name in ("mg", "kasia", "olek", "alicja", "bartek", "moder", "obcy", "inny", "cezary")
    }
    lirael = new_character(people["alicja"], "Lirael", gender="feminine")
    borys = new_character(people["bartek"], "Borys")
    new_character(people["kasia"], "Kira", gender="feminine")
    new_character(people["obcy"], "Obcy")
    running = new_session(people["mg"], [lirael, borys], title="Wieża")
    finished = new_session(
        people["mg"],
        [new_character(people["alicja"], "Lia"), new_character(people["bartek"], "Bors")],
        title="Dawna kampania",
    )
    foreign = new_session(people["inny"], [new_character(people["cezary"], "Cyryl")], title="Obca")
    return people, {"A": running, "B": finished, "C": foreign}


def test_a_random_walk_through_the_irreversible_acts_keeps_its_promises():
    people, places = build()
    gm, finished, foreign = people["mg"], places["B"], places["C"]
    finished_poll = poll_services.poll_create(
        session=finished,
        by=gm,
        question="Epilog?",
        kind="text",
        options=["tak", "nie"],
        max_choices=1,
        anonymous=False,
        closes_at=None,
        token=uuid.uuid4(),
    )
    finished_announcement = board_services.announcement_create(
        session=finished, by=gm, title="Koniec", text="", token=uuid.uuid4()
    )
    diary_services.session_transition(session=finished, by=gm, to=SessionStatus.FINISHED)
    foreign_poll = poll_services.poll_create(
        session=foreign,
        by=people["inny"],
        question="Obce?",
        kind="text",
        options=["a", "b"],
        max_choices=1,
        anonymous=False,
        closes_at=None,
        token=uuid.uuid4(),
    )
    foreign_announcement = board_services.announcement_create(
        session=foreign, by=people["inny"], title="Obce", text="", token=uuid.uuid4()
    )
    rng = random.Random(SEED)
    walk = Walk(rng, people, places)
    walk.finished_poll, walk.finished_announcement = finished_poll.pk, finished_announcement.pk
    walk.foreign_poll, walk.foreign_announcement = foreign_poll.pk, foreign_announcement.pk
    walk.foreign_option = foreign_poll.options.first().pk
    walk.foreign_participation = Participation.objects.get(session=foreign).pk
    walk.character_ids = dict(
        Character.objects.filter(name__in=FREE.values()).values_list("name", "pk")
    )
    walk.foreign_character = Participation.objects.get(session=foreign).character_id
    try:
        walk.run(STEPS)
        print(
            "\n".join(f"{act} {outcome}: {n}" for (act, outcome), n in sorted(walk.tally.items()))
        )
        if (SEED, STEPS) == (DEFAULT_SEED, DEFAULT_STEPS):
            never = [act for act in IRREVERSIBLE if not walk.tally[(act, "done")]]
            assert not never, f"the default walk never did {never}: choose another default seed"
    except Exception as error:
        steps = "\n".join(walk.world.log[-60:])
        raise AssertionError(
            f"the walk (IRREVERSIBLE_WALK_SEED={SEED}) failed after:\n{steps}\n"
            f"-> {type(error).__name__}: {error}"
        ) from error
