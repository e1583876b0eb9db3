""" "Since you were last here" in the demo: gracz2 (Borys's player) last read the main
session before its first roll that names Borys, three days ago, so logging in as gracz2
shows the recap above the first unread post — rolls with their outcomes, Borys's wound and
stun, the turns opened, the talk waiting."""

from datetime import timedelta

from django.utils import timezone

from demo.ford.story import SESSION_TITLE
from diary.models import GameSession, ParticipationStatus, ReadMark
from rolls.models import Roll

RECAP_PLAYER = "gracz2"
AWAY_DAYS = 3


def _names(record: dict, character_id: int) -> bool:
    for named in (record.get("characters") or {}).values():
        for person in named if isinstance(named, list) else [named]:
            if isinstance(person, dict) and person.get("id") == character_id:
                return True
    return False


def seed_recap(users: dict) -> bool:
    """gracz2's read mark in the main session, old and behind, unless they have one (they
    read it since, or an earlier run made it). Whether it was made."""
    player = users[RECAP_PLAYER]
    session = GameSession.objects.filter(title=SESSION_TITLE, gm=users["gm"]).first()
    if session is None or ReadMark.objects.filter(user=player, session=session).exists():
        return False
    character_id = (
        session.participations.filter(character__owner=player, status=ParticipationStatus.ACCEPTED)
        .values_list("character_id", flat=True)
        .first()
    )
    rows = Roll.objects.filter(session=session, post__isnull=False).order_by("seq")
    first = next((row for row in rows if _names(row.record, character_id)), None)
    if first is None:
        return False
    ReadMark.objects.create(
        user=player,
        session=session,
        last_seen_post_id=first.post_id - 1,
        last_seen_seq=first.seq - 1,
        moved_at=timezone.now() - timedelta(days=AWAY_DAYS),
    )
    return True
