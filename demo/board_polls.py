"""The GM's notice board and polls in the OOC thread of the demo's main session: two pinned
announcements and one taken down, a closed anonymous poll and an open scheduling poll with
votes (gracz has not voted yet: the demo's player may)."""

import uuid
from datetime import datetime, time, timedelta

from django.utils import timezone

from demo.ford.story import SESSION_TITLE
from diary.board import services as board_services
from diary.models import Announcement, GameSession
from diary.polls import services as poll_services

ANNOUNCEMENTS = [
    (
        "Zasady domu",
        "- Wpis co najmniej raz na turę; kto nie zdąży, czeka.\n"
        "- Pytania o zasady piszemy **poza grą**, nie w dzienniku.",
        True,
    ),
    ("Przerwa świąteczna", "Od 23 do 27 grudnia nie otwieram tur.", False),
    (
        "Harmonogram i termin tury",
        "Nowa tura co **3 dni**, zwykle wieczorem. Termin widać nad dziennikiem.",
        True,
    ),
]


def _evening(days: int) -> datetime:
    day = timezone.localdate() + timedelta(days=days)
    return timezone.make_aware(datetime.combine(day, time(19, 0)))


def _polls(session, users: dict) -> None:
    closed = poll_services.poll_create(
        session=session,
        by=users["gm"],
        question="Jak często otwieramy tury?",
        kind="text",
        options=["Codziennie", "Co 3 dni", "Raz w tygodniu"],
        max_choices=1,
        anonymous=True,
        closes_at=None,
        token=uuid.uuid4(),
    )
    picks = {"gracz": 1, "gracz2": 1, "gracz3": 2}
    _vote(session, closed, users, {name: [n] for name, n in picks.items()})
    poll_services.poll_close(session=session, poll_pk=closed.pk, by=users["gm"])
    dates = poll_services.poll_create(
        session=session,
        by=users["gracz2"],
        question="Kiedy spotkanie na czacie głosowym?",
        kind="dates",
        options=[_evening(5), _evening(6), _evening(9)],
        max_choices=None,
        anonymous=False,
        closes_at=_evening(4),
        token=uuid.uuid4(),
    )
    _vote(session, dates, users, {"gracz2": [0, 1], "gracz3": [1], "gm": [1, 2]})


def _vote(session, poll, users: dict, picks: dict) -> None:
    options = list(poll.options.order_by("position").values_list("pk", flat=True))
    for name, chosen in picks.items():
        poll_services.poll_vote(
            session=session,
            poll_pk=poll.pk,
            by=users[name],
            option_ids=[options[n] for n in chosen],
        )


def seed_board_and_polls(users: dict) -> bool:
    """The main session's notice board and polls, unless it has announcements already."""
    session = GameSession.objects.get(title=SESSION_TITLE, gm=users["gm"])
    if Announcement.objects.filter(session=session).exists():
        return False
    for title, text, pinned in ANNOUNCEMENTS:
        announcement = board_services.announcement_create(
            session=session, by=users["gm"], title=title, text=text, token=uuid.uuid4()
        )
        if not pinned:
            board_services.announcement_pin(
                session=session, announcement_pk=announcement.pk, by=users["gm"], pinned=False
            )
    _polls(session, users)
    return True
