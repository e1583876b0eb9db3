"""The recruiting board grown up, and a session gone quiet: the caravan says its pace,
language and tags; an English-speaking table recruits beside it; a player's "szukam gry"
ad waits for a GM; and the Ars Magica session's last post and turn change lie further back
than INACTIVE_AFTER_DAYS, so it is marked quiet for its GM and the moderators."""

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from characters.systems import RuleSystem
from demo.application_session import APPLICATION_SESSION_TITLE
from demo.sheets import run_with_accepted_plan
from demo.systems import SESSIONS
from diary import services as diary_services
from diary.ads import services as ad_services
from diary.models import (
    GameSession,
    NpcMode,
    PlayerAd,
    PlayLanguage,
    Post,
    PostingPace,
    RollPolicy,
    Turn,
)

ENGLISH_SESSION_TITLE = "The Salt Road"
AD_TEXT = (
    "Szukam drugiej gry obok karawany: lubię śledztwa i mroczne klimaty, piszę codziennie "
    "wieczorem. Chętnie zagram kogoś cichego, kto widzi więcej, niż mówi."
)
# How far back the quiet session's last post and turn change lie, past the threshold.
QUIET_FOR_DAYS = settings.INACTIVE_AFTER_DAYS + 5


def seed_board(users: dict) -> bool:
    """The board's demo, unless the ad is there already. Whether it was added."""
    if PlayerAd.objects.filter(author=users["gracz3"]).exists():
        return False
    caravan = GameSession.objects.get(title=APPLICATION_SESSION_TITLE, gm=users["gm"])
    diary_services.session_update(
        session=caravan,
        by=users["gm"],
        posting_pace=PostingPace.EVERY_FEW_DAYS,
        language=PlayLanguage.POLISH,
        tags="przygoda,podróż,dla początkujących",
    )
    _english_table(users)
    ad_services.ad_save(
        by=users["gracz3"],
        system=RuleSystem.FORUM1000,
        pace=PostingPace.DAILY,
        text=AD_TEXT,
    )
    _quiet(GameSession.objects.get(title=SESSIONS[RuleSystem.ARSMAGICA]["title"]))
    return True


def _english_table(users: dict) -> GameSession:
    session = diary_services.session_create(
        gm=users["gracz2"],
        title=ENGLISH_SESSION_TITLE,
        description=(
            "Salt caravans cross the **Grey Flats** and not all of them arrive. "
            "A slow, dark mystery for two or three players."
        ),
        system=RuleSystem.FORUM1000,
        criticals_enabled=True,
        npc_mode=NpcMode.FIXED_MODIFIERS,
        roll_policy=RollPolicy.GM_ONLY,
        recruiting=True,
        player_slots=3,
        posting_habits="one post a week, the turn closes on Friday",
        posting_pace=PostingPace.WEEKLY,
        language=PlayLanguage.ENGLISH,
        tags="horror,mystery",
    )
    return run_with_accepted_plan(session, users)


def _quiet(session: GameSession) -> None:
    """The session's posts and turns moved back in time (and its start with them): a demo
    of a game nobody has touched for a while."""
    back = timedelta(days=QUIET_FOR_DAYS)
    then = timezone.now() - back - timedelta(days=30)
    GameSession.objects.filter(pk=session.pk).update(created_at=then)
    for post in Post.objects.filter(session=session).only("pk", "created_at"):
        Post.objects.filter(pk=post.pk).update(created_at=post.created_at - back)
    for turn in Turn.objects.filter(session=session).only("pk", "opened_at"):
        Turn.objects.filter(pk=turn.pk).update(opened_at=turn.opened_at - back)
