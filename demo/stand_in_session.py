"""The other NPC mode, gm_character (seed lines 49, 182), in a second demo session:
a wolf played through the GM's stand-in sheet, in initiative and in an opposed roll, and
the pack's charge, a long run of rolls in one post."""

import uuid

from characters.models import Attribute, Character
from characters.systems import RuleSystem
from demo.sheets import forum1000_character, join_session, run_with_accepted_plan
from diary import services as diary_services
from diary.models import GameSession, NpcMode, Post, RollPolicy
from diary.npcs import services as npc_services
from rolls.free.services import FreeRoll, roll_make_free
from rolls.services import roll_make
from rolls.systems.forum1000.cases import case_for
from rolls.systems.forum1000.requests import InitiativeLine, RollRequest, SideRequest

STAND_IN_SESSION_TITLE = "Wilcza noc (NPC na karcie MG)"
DEMO_FIGHT_NAME = "Wilki u brodu"
STAND_IN_SESSION_HERO = "Jarogniew"
# The pack's charge: more rolls in one post than a post shows (rolls.posts.presenters.FOLD_SHOWN),
# so the demo has a long run folded behind "Pokaż … wcześniejszych rzutów".
DEMO_PACK_SIZE = 30


def seed_stand_in_session(users: dict) -> GameSession:
    """The session, running, with its hunter, the wolf on the GM's sheet, their fight and
    the pack's charge."""
    gm = users["gm"]
    session = diary_services.session_create(
        gm=gm,
        title=STAND_IN_SESSION_TITLE,
        description="Druga sesja pokazowa: NPC grają kartami zastępczymi MG (bez przedmiotów).",
        system=RuleSystem.FORUM1000,
        criticals_enabled=True,
        npc_mode=NpcMode.GM_CHARACTER,
        roll_policy=RollPolicy.GM_ONLY,
    )
    # Borys plays in the first demo session; a character plays in one running session at
    # a time, so gracz2 brings his second character here.
    hero = forum1000_character(
        users["gracz2"],
        STAND_IN_SESSION_HERO,
        "Myśliwy znad brodu, druga postać gracza Borysa.",
        hp=(100, 100),
        values=[500, 560, 600, 680, 580, 400, 420, 500],
    )
    join_session(session, gm, hero)
    session = run_with_accepted_plan(session, users)
    wolf = _the_pack_leader(session, gm)
    diary_services.post_create(
        session=session,
        author=gm,
        character=None,
        narration="Z mgły wychodzi **Basior**, a za nim wataha. Jarogniew dobywa broni.",
        nc_note="NPC grają kartami zastępczymi MG: rzuty przeciwstawne i inicjatywa.",
    )
    _the_wolf_fights(session, gm, hero, wolf)
    seed_wolf_pack(session, gm)
    return session


def _the_pack_leader(session: GameSession, gm) -> Character:
    """Basior, an NPC played through the GM's stand-in sheet (no items): the sheet."""
    sheet = forum1000_character(
        gm,
        "Basior",
        "Przewodnik watahy. Karta zastępcza MG: bez przedmiotów.",
        hp=(60, 60),
        values=[520, 560, 700, 600, 450, 200, 150, 400],
    )
    npc = npc_services.npc_create(
        session=session,
        by=gm,
        name="Basior",
        description="Wielki szary wilk prowadzący watahę znad brodu.",
        visible_to_players=True,
    )
    npc_services.npc_stand_in_set(npc=npc, by=gm, character=sheet)
    return sheet


def _the_wolf_fights(session: GameSession, gm, hero: Character, wolf: Character) -> None:
    """The initiative roll opens a fight that is left running (docs/decisions.md); then the
    wolf's strength against the hero's."""
    strength = Attribute.objects.get(system=RuleSystem.FORUM1000, name="Siła").pk
    initiative = RollRequest(
        kind="initiative", initiative=(InitiativeLine(hero.pk), InitiativeLine(wolf.pk))
    )
    roll_make(
        session=session,
        by=gm,
        case=case_for(session, initiative, event_name=DEMO_FIGHT_NAME),
        token=uuid.uuid4(),
    )
    opposed = RollRequest(
        kind="opposed",
        a=SideRequest(wolf.pk, "attribute", (strength,)),
        b=SideRequest(hero.pk, "attribute", (strength,)),
    )
    roll_make(session=session, by=gm, case=case_for(session, opposed), token=uuid.uuid4())


def seed_wolf_pack(session: GameSession, gm) -> Post:
    """The GM's post of the pack's charge, with a free-form attack roll for every wolf."""
    post = diary_services.post_create(
        session=session,
        author=gm,
        character=None,
        narration=(
            "Basior wyje i cała wataha rusza przez bród. Rzucam atak każdego wilka po kolei; "
            "te, które trafią, dopadną Jarogniewa w następnej turze."
        ),
        nc_note=f"{DEMO_PACK_SIZE} rzutów w jednym poście: starsze są zwinięte.",
    )
    for number in range(1, DEMO_PACK_SIZE + 1):
        roll_make_free(
            session=session,
            by=gm,
            free=FreeRoll(expression="1k100", label=f"Wilk {number}: atak"),
            token=uuid.uuid4(),
            post=post,
        )
    return post
