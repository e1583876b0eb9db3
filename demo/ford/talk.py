"""Table talk beside the diary of the demo's main session."""

import uuid

from demo.ford.story import SESSION_TITLE
from diary.models import GameSession, TalkThread
from diary.talk import services as talk_services

# Table talk in the demo session: an OOC conversation gracz has not read yet, a whisper of
# the GM's to gracz (unread: the bell and the "Szepty" badge show it) and one gracz3
# started with the GM, answered.
DEMO_OOC = [
    ("gracz2", "Hej, w tym tygodniu odpisuję wieczorami, wyjeżdżam do piątku."),
    ("gm", "Jasne, tura 3 ma termin dopiero za dwa dni. **Nie spieszcie się.**"),
    ("gracz3", "Czy rzut na Percepcję przy bramie liczy się jako akcja z rzutem?"),
    ("gm", "Tak: to akcja z rzutem (RULES 1.5), ruch do bramy jest osobno."),
]
DEMO_WHISPERS = [
    (
        "gm",
        ["gracz"],
        "Co Lirael widzi w mgle",
        [("gm", "Tylko Lirael dostrzega w mgle sylwetkę z herbem *żurawia*. Inni jej nie widzą.")],
    ),
    (
        "gracz3",
        [],
        "Plan Miry",
        [
            ("gracz3", "Mira chce po cichu obszukać wóz kupca, gdy reszta zagaduje strażnika."),
            ("gm", "Dobrze, opisz to we wpisie; poproszę o rzut na Zręczność."),
        ],
    ),
]


def seed_table_talk(users: dict) -> bool:
    """The demo session's OOC thread and two whispers, unless it has table talk already."""
    session = GameSession.objects.get(title=SESSION_TITLE, gm=users["gm"])
    if TalkThread.objects.filter(session=session).exists():
        return False
    for author, text in DEMO_OOC:
        talk_services.ooc_message_create(
            session=session, author=users[author], text=text, token=uuid.uuid4()
        )
    for by, players, subject, messages in DEMO_WHISPERS:
        (_by_again, first_text), *replies = messages
        thread = talk_services.whisper_create(
            session=session,
            by=users[by],
            players=[users[name] for name in players],
            subject=subject,
            text=first_text,
            token=uuid.uuid4(),
        )
        for author, text in replies:
            talk_services.whisper_message_create(
                thread=thread, author=users[author], text=text, token=uuid.uuid4()
            )
    return True
