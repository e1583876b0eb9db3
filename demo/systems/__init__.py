"""The demo's running session of each other system: q10, ciernie and arsmagica.

Each system's demo is a module of this package (demo/systems/<system>.py), chosen here by
the system's name: its `SESSION` (title, plan, characters, posts) and its rolls.
`seed_system_sessions(users)` builds, through the same services the pages use, for each
system: a session run by `gm` with its plan accepted by `moderator`, three characters of
`gracz`, `gracz2` and `gracz3` with full sheets from the system's seeded catalog, an open
turn and a few Polish narration posts; ciernie's session plays its NPCs on the GM's
stand-in sheets (mode gm_character) and has one, for the comparative test. The rolls find
the characters by the short keys of the returned dicts (e.g. `["q10"][1]["eragon"]`).
"""

from characters.models import Character
from characters.systems import RuleSystem
from demo.sheets import join_session, system_character
from demo.systems import arsmagica, ciernie, q10
from diary import services as diary_services
from diary.models import GameSession, RollPolicy, SessionStatus
from diary.npcs import services as npc_services

# system -> the session, its plan, its characters (key, owner, name, sheet), its posts
SESSIONS = {
    RuleSystem.Q10: q10.SESSION,
    RuleSystem.CIERNIE: ciernie.SESSION,
    RuleSystem.ARSMAGICA: arsmagica.SESSION,
}
# system -> its demo rolls, made by `seed(session, characters by key, users by name)`
ROLLS = {
    RuleSystem.Q10: q10.seed_q10_rolls,
    RuleSystem.CIERNIE: ciernie.seed_ciernie_rolls,
    RuleSystem.ARSMAGICA: arsmagica.seed_arsmagica_rolls,
}


def seed_system_sessions(users: dict) -> dict[str, tuple[GameSession, dict[str, Character]]]:
    """For each of q10, ciernie and arsmagica: (the running session, its characters by key).

    Keys: q10 "eragon", "arya", "murtagh"; ciernie "vera" (two reroll sources), "tomasz",
    "ilja" and the stand-in NPC "najemnik"; arsmagica "magnus", "wilhelm", "agnieszka"."""
    return {str(system): _session(users, system, spec) for system, spec in SESSIONS.items()}


def _session(users: dict, system: str, spec: dict) -> tuple[GameSession, dict[str, Character]]:
    gm, moderator = users["gm"], users["moderator"]
    session = diary_services.session_create(
        gm=gm,
        title=spec["title"],
        description=spec["description"],
        system=system,
        criticals_enabled=True,
        npc_mode=spec["npc_mode"],
        roll_policy=RollPolicy.PLAYERS_OWN,
    )
    characters = {}
    for key, owner, name, sheet in spec["characters"]:
        character = system_character(users[owner], system, name, **sheet)
        characters[key] = character
        join_session(session, gm, character)
    diary_services.session_plan_update(session=session, by=gm, scenario=spec["plan"])
    diary_services.session_transition(session=session, by=gm, to=SessionStatus.PLAN_SUBMITTED)
    diary_services.session_plan_review(session=session, by=moderator, accept=True, comment="")
    session = diary_services.session_transition(session=session, by=gm, to=SessionStatus.RUNNING)
    if stand_in := spec.get("stand_in"):
        characters[stand_in["key"]] = _stand_in(session, gm, system, stand_in)
    for author, key, narration, nc_note in spec["posts"]:
        diary_services.post_create(
            session=session,
            author=users[author],
            character=characters[key] if key else None,
            narration=narration,
            nc_note=nc_note,
        )
    return session, characters


def _stand_in(session: GameSession, gm, system: str, spec: dict) -> Character:
    """The GM's stand-in sheet for an NPC (no items), played through the NPC."""
    sheet = system_character(
        gm,
        system,
        spec["name"],
        attributes=spec["attributes"],
        skills=spec["skills"],
        description="Karta zastępcza MG: bez przedmiotów.",
    )
    npc = npc_services.npc_create(
        session=session,
        by=gm,
        name=spec["name"],
        description=spec["npc_description"],
        visible_to_players=True,
    )
    npc_services.npc_stand_in_set(npc=npc, by=gm, character=sheet)
    sheet.refresh_from_db()
    return sheet
