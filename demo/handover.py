"""The GM handover in the demo: a co-GM at the main session's table, and a session whose
history shows it passed from one GM to another."""

from characters.systems import RuleSystem
from demo.ford.story import SESSION_TITLE
from demo.sheets import run_with_accepted_plan
from diary import services as diary_services
from diary.handover import services as handover_services
from diary.models import CoGameMaster, GameSession, NpcMode, RollPolicy, SessionHandover

HANDED_OVER_TITLE = "Wieża nad Mokradłami"
HANDOVER_REASON = (
    "Wyjeżdżam na pół roku i nie dam rady pisać; sesję przejmuje gm, który współprowadził ją "
    "od początku."
)


def seed_handover(users: dict) -> bool:
    """The co-GM (mg2, who plays no character there) of the main session, and a session mg2
    started and handed to gm, its co-GM, with the reason in its history. Whether they were
    added (nothing when already there)."""
    if SessionHandover.objects.filter(session__title=HANDED_OVER_TITLE).exists():
        return False
    gm, co_gm = users["gm"], users["mg2"]
    main = GameSession.objects.filter(title=SESSION_TITLE, gm=gm).first()
    if main is not None and not CoGameMaster.objects.filter(session=main, user=co_gm).exists():
        handover_services.co_gm_name(session=main, by=gm, user=co_gm)
    session = diary_services.session_create(
        gm=co_gm,
        title=HANDED_OVER_TITLE,
        description="Stara wieża wyrasta z bagien; kto w niej mieszka, nie wiadomo.",
        system=RuleSystem.FORUM1000,
        criticals_enabled=True,
        npc_mode=NpcMode.FIXED_MODIFIERS,
        roll_policy=RollPolicy.GM_ONLY,
        recruiting=True,
        player_slots=4,
        posting_habits="tura co tydzień",
    )
    session = run_with_accepted_plan(session, users)
    handover_services.co_gm_name(session=session, by=co_gm, user=gm)
    handover_services.session_step_down(session=session, by=co_gm, to_gm=gm, reason=HANDOVER_REASON)
    return True
