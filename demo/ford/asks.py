"""Players' requests for rolls in the demo's main session, one in each state a request can
reach: answered as asked, answered by the GM's judgment, declined, waiting."""

import dataclasses
import uuid

from demo.sheets import CatalogIds, forum1000_catalog
from diary import services as diary_services
from diary.models import GameSession
from rolls.services import roll_ask_create, roll_ask_decline, roll_make
from rolls.systems.forum1000.cases import case_for
from rolls.systems.forum1000.requests import GmModifier, RollRequest, SideRequest


def seed_asks(session: GameSession, users: dict, characters: dict) -> None:
    """Players ask for rolls in the current turn, and each state a request can reach
    shows: the GM answers one as asked, one by judgment (another skill, with the
    reason), declines one with the reason, and one waits in the diary's side panel."""
    catalog = forum1000_catalog()
    asks = _asks(characters, catalog)
    borys = characters["Borys"]
    made = []
    for username, character, narration, side in asks:
        post = diary_services.post_create(
            session=session,
            author=users[username],
            character=character,
            narration=narration,
            nc_note="",
            # Borys crosses the yard first: one move action (Szybkość 560 → 28 m).
            move_metres=20 if character == borys else None,
        )
        case = case_for(session, RollRequest(kind=side.test, a=side))
        made.append(roll_ask_create(session=session, by=users[username], case=case, post=post))
    as_asked, judged, declined, _waiting = made
    gm = users["gm"]
    _answer_as_asked(session, gm, as_asked, asks[0][3])
    _answer_by_judgment(session, gm, judged, borys, catalog)
    roll_ask_decline(
        ask=declined,
        by=gm,
        reason="Strażnik zna medyczkę komendanta z widzenia: tego kłamstwa nie da się rzucić.",
    )


def _answer_as_asked(session: GameSession, gm, ask, side: SideRequest) -> None:
    """The roll asked for, with the GM's difficulty for the fog."""
    request = RollRequest(
        kind="attribute",
        a=dataclasses.replace(side, gm_difficulty=GmModifier(-50, "Gęsta mgła przy bramie")),
    )
    roll_make(
        session=session,
        by=gm,
        case=case_for(session, request),
        token=uuid.uuid4(),
        answers=ask,
    )


def _answer_by_judgment(session: GameSession, gm, ask, borys, catalog: CatalogIds) -> None:
    """The GM's judgment (seed 000 VII.4): the guard is already terrified; what counts now
    is whether Borys breaks his will."""
    hypnosis = RollRequest(
        kind="skill", a=SideRequest(borys.pk, "skill", skill_id=catalog.skill["Hipnoza"])
    )
    roll_make(
        session=session,
        by=gm,
        case=case_for(session, hypnosis),
        token=uuid.uuid4(),
        answers=ask,
        answer_note="Strażnik już drży ze strachu; liczy się, czy Borys złamie jego wolę.",
    )


def _asks(characters: dict, catalog: CatalogIds) -> list[tuple]:
    """(player, character, narration, the roll asked for), in the order they are asked."""
    attribute, skill, trait = catalog
    lirael, mira, borys = characters["Lirael"], characters["Mira"], characters["Borys"]
    # Mira has no action roll in this turn yet (one per turn outside combat, RULES 1.5).
    return [
        (
            "gracz3",
            mira,
            "Mira przygląda się zamkowi bramy i przypomina sobie, jak działają takie rygle.",
            SideRequest(
                mira.pk, "attribute", (attribute["Inteligencja"],), trait_ids=(trait["Geniusz"],)
            ),
        ),
        (
            "gracz2",
            borys,
            "Borys przygważdża strażnika do ściany i warczy mu prosto w twarz.",
            SideRequest(borys.pk, "skill", skill_id=skill["Zastraszanie"]),
        ),
        (
            "gracz3",
            mira,
            "Mira chce przekonać strażnika, że jest medyczką wezwaną do komendanta.",
            SideRequest(mira.pk, "skill", skill_id=skill["Błyskotliwość"]),
        ),
        (
            "gracz",
            lirael,
            "Lirael wypatruje w mgle, kto jeszcze kręci się przy bramie.",
            SideRequest(
                lirael.pk, "attribute", (attribute["Percepcja"],), trait_ids=(trait["Dobry Wzrok"],)
            ),
        ),
    ]
