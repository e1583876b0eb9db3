"""Demo data for the other systems: a running session of each of q10, ciernie and arsmagica.

`seed_system_sessions(users)` builds, through the same services the pages use, for each
system: a session run by `gm` with its plan accepted by `moderator`, three characters of
`gracz`, `gracz2` and `gracz3` with full sheets from the system's seeded catalog, an open
turn and a few Polish narration posts; ciernie's session plays its NPCs on the GM's
stand-in sheets (mode gm_character) and has one, for the comparative test. The other
engineers' modules add each system's demo rolls to these sessions; they find the
characters by the short keys of the returned dicts (e.g. `["q10"][1]["eragon"]`).
"""

from characters import services as character_services
from characters.models import Attribute, Character, Item, Skill, Trait
from characters.systems import RuleSystem
from diary import services as diary_services
from diary.models import GameSession, NpcMode, RollPolicy, SessionStatus
from diary.npcs import services as npc_services


def system_character(
    owner,
    system: str,
    name: str,
    *,
    attributes: dict[str, int],
    skills: dict[str, int] | None = None,
    traits=(),
    items: dict[str, int] | None = None,
    hp: tuple[int, int] = (20, 20),
    description: str = "",
    grammatical_gender: str = "masculine",
) -> Character:
    """A character of `system` from catalog names, through characters.services (the sheet's
    own checks apply: ranges, one system). Attributes missing from `attributes` get the
    system's low end (Ars Magica: 0)."""
    from characters.systems import ATTRIBUTE_RANGE

    low, high = ATTRIBUTE_RANGE[system]
    default = 0 if low < 0 <= high else low
    catalog = {a.name: a for a in Attribute.objects.filter(system=system)}
    unknown = set(attributes) - set(catalog)
    if unknown:
        raise ValueError(f"no such {system} attributes: {sorted(unknown)}")
    skill_rows = {s.name: s for s in Skill.objects.filter(system=system)}
    return character_services.character_create(
        owner=owner,
        system=system,
        values={
            "name": name,
            "description": description,
            "grammatical_gender": grammatical_gender,
            "hp_current": hp[0],
            "hp_max": hp[1],
            "attributes": {row: attributes.get(n, default) for n, row in catalog.items()},
            "skills": {skill_rows[n]: level for n, level in (skills or {}).items()},
            "traits": list(Trait.objects.filter(system=system, name__in=list(traits))),
            "items": {
                Item.objects.get(system=system, name=n): quantity
                for n, quantity in (items or {}).items()
            },
        },
    )


# system -> the session, its plan, its characters (key, owner, name, sheet), its posts
SESSIONS = {
    RuleSystem.Q10: {
        "title": "Shur'tugal: Jaja w Kośćcu",
        "description": "Sesja pokazowa Q10 (pule XzY): trzech śmiałków rusza w góry Kościec.",
        "npc_mode": NpcMode.FIXED_MODIFIERS,
        "plan": "Trójka młodych śmiałków szuka w górach **Kościec** skradzionego smoczego "
        "jaja.\n\n1. Przełęcz i przepaść (Atletyka, Trudność 20).\n"
        "2. Strażnicy Urgali przy jaskini (Walka wręcz, Blef).\n"
        "3. Starożytna inskrypcja na wrotach (Wiedza, Trudność 25).",
        "characters": [
            (
                "eragon",
                "gracz",
                "Eragon",
                {
                    "attributes": {"Siła": 3, "Zręczność": 3, "Mądrość": 2, "Charyzma": 2},
                    "skills": {"Walka wręcz": 2, "Atletyka": 2, "Łucznictwo": 3, "Magia": 1},
                    "traits": ["Wprawny szermierz"],
                    "description": "Młody łowca z Carvahall. Siła 3 i Walka wręcz 2: pula 5z2.",
                },
            ),
            (
                "arya",
                "gracz2",
                "Arya",
                {
                    "attributes": {"Siła": 2, "Zręczność": 4, "Mądrość": 4, "Charyzma": 3},
                    "skills": {"Magia": 3, "Łucznictwo": 2, "Wiedza": 3, "Otwieranie zamków": 2},
                    "traits": ["Sokole oko"],
                    "items": {"Wytrychy": 1},
                    "description": "Elfia wysłanniczka, zna stare zaklęcia i stare zamki.",
                    "grammatical_gender": "feminine",
                },
            ),
            (
                "murtagh",
                "gracz3",
                "Murtagh",
                {
                    "attributes": {"Siła": 4, "Zręczność": 3, "Mądrość": 2, "Charyzma": 3},
                    "skills": {"Walka wręcz": 3, "Blef": 2, "Atletyka": 1},
                    "description": "Syn zdrajcy; mieczem włada lepiej niż słowem.",
                },
            ),
        ],
        "posts": [
            (
                "gm",
                None,
                "Wiatr gwiżdże na przełęczy. Przed wami **przepaść** szeroka na trzy kroki, "
                "a za nią ścieżka do jaskini.",
                "Tura 1: Trudność skoku 20 (niełatwy). Deklarujcie Podbicia przed rzutem.",
            ),
            (
                "gracz",
                "eragon",
                "Eragon cofa się kilka kroków, bierze rozbieg i skacze.",
                "Atletyka, deklaruję jedno Podbicie: chcę wylądować cicho.",
            ),
            (
                "gracz2",
                "arya",
                "Arya przygląda się runom wyrytym przy ścieżce.",
                "Wiedza: co mówią runy?",
            ),
        ],
    },
    RuleSystem.CIERNIE: {
        "title": "Ciernie i Gwiazdy: Dryf przy Keplerze",
        "description": "Sesja pokazowa k20: załoga frachtowca i najemnik na stacji w dryfie.",
        # The stand-in NPC sheets (mode gm_character) give the comparative test an opponent.
        "npc_mode": NpcMode.GM_CHARACTER,
        "plan": "Frachtowiec **Cierń** dokuje do martwej stacji przy Keplerze.\n\n"
        "1. Zablokowana śluza (Mechanika przeciw klasie technicznej 4).\n"
        "2. Najemnik w korytarzu (walka wręcz: test porównawczy zwinności).\n"
        "3. Wyciek toksyn (test efektu Wytrzymałości, w minutach).",
        "characters": [
            (
                "vera",
                "gracz",
                "Vera Kos",
                {
                    "grammatical_gender": "feminine",
                    "attributes": {
                        "Siła": 9,
                        "Zręczność": 14,
                        "Zwinność": 12,
                        "Wytrzymałość": 10,
                        "Percepcja": 13,
                        "Inteligencja": 11,
                        "Charyzma": 10,
                        "Wola": 12,
                    },
                    "skills": {"Pilotaż": 4, "Obsługa broni": 3, "Walka wręcz": 1},
                    "traits": ["Refleks pilota", "Bystry wzrok"],
                    "items": {"Uzbrojenie naprowadzane": 1},
                    "description": "Pilotka Ciernia. Dwa źródła przerzutu: refleks i broń.",
                },
            ),
            (
                "tomasz",
                "gracz2",
                "Tomasz Reń",
                {
                    "attributes": {
                        "Siła": 10,
                        "Zręczność": 12,
                        "Zwinność": 9,
                        "Wytrzymałość": 11,
                        "Percepcja": 11,
                        "Inteligencja": 15,
                        "Charyzma": 8,
                        "Wola": 13,
                    },
                    "skills": {"Mechanika": 4, "Otwieranie zamków": 3, "Medycyna": 1},
                    "items": {"Zestaw wytrychów": 1},
                    "description": "Mechanik pokładowy; klasę techniczną zamka zna na oko.",
                },
            ),
            (
                "ilja",
                "gracz3",
                "Ilja Sarnow",
                {
                    "attributes": {
                        "Siła": 15,
                        "Zręczność": 10,
                        "Zwinność": 13,
                        "Wytrzymałość": 14,
                        "Percepcja": 9,
                        "Inteligencja": 9,
                        "Charyzma": 11,
                        "Wola": 10,
                    },
                    "skills": {"Walka wręcz": 4, "Medycyna": 2, "Perswazja": 1},
                    "traits": ["Słabe serce"],
                    "description": "Ochroniarz załogi, sanitariusz z przymusu.",
                },
            ),
        ],
        "posts": [
            (
                "gm",
                None,
                "Stacja milczy. Śluza numer trzy jest zablokowana, a za szybą ktoś się rusza.",
                "Tura 1: śluza ma klasę techniczną 4. NPC gram kartami zastępczymi.",
            ),
            (
                "gracz2",
                "tomasz",
                "Tomasz zdejmuje panel śluzy i przygląda się przekaźnikom.",
                "Mechanika na śluzie.",
            ),
            (
                "gracz",
                "vera",
                "Vera osłania go z bronią gotową do strzału.",
                "Obsługa broni, jeśli ktoś wyjdzie zza szyby.",
            ),
        ],
    },
    RuleSystem.ARSMAGICA: {
        "title": "Ars Magica: Przymierze Cichej Wody",
        "description": "Sesja pokazowa Ars Magica: mag, towarzyszka i grog z przymierza.",
        "npc_mode": NpcMode.FIXED_MODIFIERS,
        "plan": "Przymierze **Cichej Wody** wysyła wyprawę do ruin klasztoru na klifie.\n\n"
        "1. Wspinaczka na klif przy silnym wietrze (Atletyka, kość stresu, dwie kości "
        "pecha).\n2. Łacińska inskrypcja w krypcie (Łacina, czynnik łatwości 9).\n"
        "3. Rozbójnicy w ruinach.",
        "characters": [
            (
                "magnus",
                "gracz",
                "Magnus z Bonisagusów",
                {
                    "attributes": {
                        "Inteligencja": 3,
                        "Percepcja": 1,
                        "Siła": -1,
                        "Wytrzymałość": 0,
                        "Prezencja": 0,
                        "Komunikacja": 2,
                        "Zręczność": -1,
                        "Szybkość": 0,
                    },
                    "skills": {"Łacina": 5, "Sztuki wyzwolone": 3, "Czujność": 2},
                    "description": "Mag przymierza; łacina to jego drugi oddech.",
                },
            ),
            (
                "wilhelm",
                "gracz2",
                "Wilhelm",
                {
                    "attributes": {
                        "Inteligencja": -1,
                        "Percepcja": 0,
                        "Siła": 2,
                        "Wytrzymałość": 2,
                        "Prezencja": -1,
                        "Komunikacja": 0,
                        "Zręczność": 1,
                        "Szybkość": 1,
                    },
                    "skills": {"Walka bronią jednoręczną": 5, "Atletyka": 3, "Czujność": 2},
                    "items": {"Lina z hakiem": 1},
                    "description": "Grog przymierza, weteran spod Legnicy.",
                },
            ),
            (
                "agnieszka",
                "gracz3",
                "Agnieszka z Raciborza",
                {
                    "attributes": {
                        "Inteligencja": 1,
                        "Percepcja": 1,
                        "Siła": 0,
                        "Wytrzymałość": 0,
                        "Prezencja": 3,
                        "Komunikacja": 2,
                        "Zręczność": 0,
                        "Szybkość": -1,
                    },
                    "skills": {"Przywództwo": 4, "Czujność": 3, "Łacina": 1},
                    "traits": ["Wyostrzone zmysły", "Kulawy"],
                    "description": "Towarzyszka maga, kasztelanka bez kasztelu.",
                },
            ),
        ],
        "posts": [
            (
                "gm",
                None,
                "Klif opada prosto do morza, a wiatr szarpie liną. Na górze czernieją ruiny.",
                "Tura 1: wspinaczka to rzut stresu; przy tym wietrze dwie kości pecha.",
            ),
            (
                "gracz2",
                "wilhelm",
                "Wilhelm wbija hak w szczelinę i zaczyna się wspinać.",
                "Atletyka, kość stresu.",
            ),
            (
                "gracz",
                "magnus",
                "Magnus zostaje na dole i wodzi palcem po zatartym napisie na głazie.",
                "Łacina: co tu napisano?",
            ),
            (
                "gracz3",
                "agnieszka",
                "Agnieszka podkasuje suknię i rusza po mokrej skale śladem Wilhelma.",
                "Wspinam się za nim (Siła + Atletyka, kość stresu).",
            ),
        ],
    },
}
STAND_IN = {
    "key": "najemnik",
    "name": "Najemnik z Keplera",
    "npc_description": "Najemnik w pancerzu próżniowym, pilnuje korytarza stacji.",
    "attributes": {
        "Siła": 13, "Zręczność": 11, "Zwinność": 11, "Wytrzymałość": 13,
        "Percepcja": 10, "Inteligencja": 8, "Charyzma": 7, "Wola": 11,
    },
    "skills": {"Walka wręcz": 3, "Obsługa broni": 2},
}  # fmt: skip


def join_session(session: GameSession, gm, character: Character) -> None:
    """The GM invites the character and its owner accepts: it plays in the session."""
    participation = diary_services.participation_invite(session=session, by=gm, character=character)
    diary_services.participation_decide(
        participation=participation, by=character.owner, accept=True
    )


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
    if spec["npc_mode"] == NpcMode.GM_CHARACTER:
        characters[STAND_IN["key"]] = _stand_in(session, gm, system)
    for author, key, narration, nc_note in spec["posts"]:
        diary_services.post_create(
            session=session,
            author=users[author],
            character=characters[key] if key else None,
            narration=narration,
            nc_note=nc_note,
        )
    return session, characters


def _stand_in(session: GameSession, gm, system: str) -> Character:
    """The GM's stand-in sheet for an NPC (no items), played through the NPC."""
    sheet = system_character(
        gm,
        system,
        STAND_IN["name"],
        attributes=STAND_IN["attributes"],
        skills=STAND_IN["skills"],
        description="Karta zastępcza MG: bez przedmiotów.",
    )
    npc = npc_services.npc_create(
        session=session,
        by=gm,
        name=STAND_IN["name"],
        description=STAND_IN["npc_description"],
        visible_to_players=True,
    )
    npc_services.npc_stand_in_set(npc=npc, by=gm, character=sheet)
    sheet.refresh_from_db()
    return sheet


def seed_system_sessions(users: dict) -> dict[str, tuple[GameSession, dict[str, Character]]]:
    """For each of q10, ciernie and arsmagica: (the running session, its characters by key).

    Keys: q10 "eragon", "arya", "murtagh"; ciernie "vera" (two reroll sources), "tomasz",
    "ilja" and the stand-in NPC "najemnik"; arsmagica "magnus", "wilhelm", "agnieszka"."""
    return {str(system): _session(users, system, spec) for system, spec in SESSIONS.items()}
