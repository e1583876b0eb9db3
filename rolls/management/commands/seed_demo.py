"""Demo data for `make run`: users, a running forum1000 session, three characters, posts;
and (rolls/management/demo_systems.py) a running q10, ciernie and arsmagica session.

Everything goes through the same services the pages use. Running it again
changes nothing and prints the credentials again.
"""

import dataclasses
import uuid
from datetime import timedelta
from zoneinfo import ZoneInfo

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from characters import services as character_services
from characters.models import Attribute, Character, Skill, Trait
from characters.systems import RuleSystem
from config.roles import MODERATOR_GROUP
from diary import services as diary_services
from diary.models import GameSession, Npc, NpcMode, Post, RollPolicy, SessionStatus, TalkThread
from diary.npcs import services as npc_services
from diary.posts.quoting import quote_markdown
from diary.reading import read_mark_advance
from diary.talk import services as talk_services
from rolls.entries import services as entries
from rolls.free.services import FreeRoll, roll_make_free
from rolls.initiative import services as initiative_services
from rolls.ledger import fair_dice
from rolls.management.demo_systems import SESSIONS as SYSTEM_SESSIONS
from rolls.management.demo_systems import join_session, seed_system_sessions, system_character
from rolls.models import InitiativeEvent
from rolls.services import roll_ask_create, roll_ask_decline, roll_make, secret_roll_reveal
from rolls.systems.arsmagica.demo import seed_arsmagica_rolls
from rolls.systems.ciernie.demo import seed_ciernie_rolls
from rolls.systems.forum1000.cases import case_for
from rolls.systems.forum1000.requests import GmModifier, InitiativeLine, RollRequest, SideRequest
from rolls.systems.q10.demo import seed_q10_rolls

# Each system's demo rolls (rolls/demo_<system>.py).
DEMO_ROLLS = {
    "q10": seed_q10_rolls,
    "ciernie": seed_ciernie_rolls,
    "arsmagica": seed_arsmagica_rolls,
}

# Development passwords only: printed at the end so a developer can log in.
DEMO_USERS = {
    "gm": "kostka-gm-1000",
    "gracz": "kostka-gracz-1000",
    "gracz2": "kostka-gracz2-1000",
    "gracz3": "kostka-gracz3-1000",
    "moderator": "kostka-mod-1000",
}
SESSION_TITLE = "Mgły nad Czarnym Brodem"
DEMO_GATE_FIGHT_NAME = "Walka u bramy"

ATTRIBUTE_ORDER = [
    "Percepcja", "Zręczność", "Szybkość", "Siła",
    "Siła Woli", "Charyzma", "Inteligencja", "Mądrość",
]  # fmt: skip

# Built from seed 000's examples 1–4.
CHARACTERS = [
    {
        "owner": "gracz",
        "name": "Lirael",
        "grammatical_gender": "feminine",
        "description": "Bardka z południa. Przykład 1: Uwodzenie z Seksapilem i Przystojnym.",
        "hp": (90, 100),
        "attributes": [550, 600, 640, 400, 500, 700, 520, 480],
        "skills": {"Uwodzenie": 1, "Przekupstwo": 2, "Targowanie": 1},
        "traits": ["Seksapil", "Przystojny", "Dobry Wzrok"],
    },
    {
        "owner": "gracz2",
        "name": "Borys",
        "description": "Najemnik. Przykład 2: Torturowanie idzie w parze z Precyzyjnym, "
        "nie z Wyczuciem kłamstwa.",
        "hp": (72, 120),
        "attributes": [480, 500, 560, 720, 600, 380, 450, 520],
        "skills": {"Torturowanie": 2, "Otwieranie zamków": 3, "Zastraszanie": 2},
        "traits": ["Precyzyjny", "Wyczucie kłamstwa"],
        "effects": [("wound", "Cięcie przez ramię po zasadzce na trakcie.")],
    },
    {
        "owner": "gracz3",
        "name": "Mira",
        "grammatical_gender": "feminine",
        "description": "Uczona i medyczka. Przykład 3: Błyskotliwość z Geniuszem zamiast "
        "Dowodzenia.",
        "hp": (80, 80),
        "attributes": [600, 520, 500, 380, 620, 550, 650, 640],
        "skills": {"Błyskotliwość": 2, "Dowodzenie": 1, "Leczenie ran": 2, "Leczenie chorób": 1},
        "traits": ["Geniusz", "Krasomówca"],
        "potions": [(2, "Przywraca 30 PŻ; nie leczy chorób.")],
        "items": {"Koń wierzchowy": 1},  # RULES 1.5: she may ride, Szybkość/10 m per action
    },
]

POSTS = [
    (
        "gm",
        None,
        "Mgła wisi nisko nad brodem. Przewoźnik zniknął, a na brzegu ktoś zostawił "
        "**wywróconą łódź** i ślady prowadzące do starej strażnicy.",
        "Tura 1: opiszcie, co robicie. Krytyki włączone, NPC mają stałe modyfikatory.",
    ),
    (
        "gracz",
        "Lirael",
        "Lirael poprawia płaszcz i z uśmiechem podchodzi do rybaka, który udaje, "
        "że niczego nie widział. *Może wdzięk otworzy mu usta.*",
        "Proszę o rzut na Uwodzenie z Seksapilem i Przystojnym.",
    ),
    (
        "gracz2",
        "Borys",
        "Borys klęka przy zamkniętej skrzyni na łodzi i wyjmuje wytrychy.",
        "Otwieranie zamków z Precyzyjnym.",
    ),
    (
        "gracz3",
        "Mira",
        "Mira ogląda ranę Borysa. — Nie ruszaj się, to tylko chwila.",
        "Leczenie ran na Borysie.",
    ),
]


class Command(BaseCommand):
    help = (
        "Create the demo users, characters, running forum1000 sessions and one running "
        "session of each other system (idempotent)."
    )

    def handle(self, *args, **options):
        with transaction.atomic():
            users = self._users()
            present = GameSession.objects.filter(title=SESSION_TITLE, gm=users["gm"]).exists()
            if not present:
                self._session(users)
                seed_stand_in_session(users)
                seed_application(users)
                seed_search_words(users)
            # A running session of each other system (added to an older demo too).
            systems_present = GameSession.objects.filter(
                title=SYSTEM_SESSIONS[RuleSystem.Q10]["title"], gm=users["gm"]
            ).exists()
            if not systems_present:
                # Their scenes roll the faces their narration tells, so their turns are
                # played as turns opened before dice seeds were committed (server dice, no
                # fair part); the forum1000 session shows the fair dice, and the next turn
                # a user opens in these is committed too.
                with fair_dice.turns_open_unseeded():
                    for system, (session, characters) in seed_system_sessions(users).items():
                        # A roll of every test, through the service the panel uses.
                        DEMO_ROLLS[system](session, characters, users)
            # Portraits for the forum1000 demo characters (added to an older demo too).
            portraits_added = seed_portraits(users)
            # Table talk beside the diary (added to an older demo too).
            talk_added = seed_table_talk(users)
        if present and systems_present and not portraits_added and not talk_added:
            self.stdout.write("Demo data already present.")
        else:
            self.stdout.write(self.style.SUCCESS("Demo data created."))
        self.stdout.write("Development logins (user / password):")
        for username, password in DEMO_USERS.items():
            self.stdout.write(f"  {username} / {password}")

    def _users(self) -> dict:
        User = get_user_model()
        users = {}
        for username, password in DEMO_USERS.items():
            user, created = User.objects.get_or_create(username=username)
            if created:
                user.set_password(password)
                user.save()
            users[username] = user
        Group.objects.get_or_create(name=MODERATOR_GROUP)[0].user_set.add(users["moderator"])
        return users

    def _character(self, users: dict, spec: dict) -> Character:
        character = forum1000_character(
            users[spec["owner"]],
            spec["name"],
            spec["description"],
            hp=spec["hp"],
            values=spec["attributes"],
            skills=spec["skills"],
            traits=spec["traits"],
            items=spec.get("items", {}),
            grammatical_gender=spec.get("grammatical_gender", "masculine"),
        )
        for kind, description in spec.get("effects", []):
            character_services.effect_add(
                character=character, by=character.owner, kind=kind, description=description
            )
        return character

    def _session(self, users: dict) -> GameSession:
        gm = users["gm"]
        session = diary_services.session_create(
            gm=gm,
            title=SESSION_TITLE,
            description="Sesja pokazowa: trzy postacie z przykładów systemu k1000.",
            system=RuleSystem.FORUM1000,
            criticals_enabled=True,
            npc_mode=NpcMode.FIXED_MODIFIERS,
            roll_policy=RollPolicy.PLAYERS_OWN,
        )
        characters = {}
        for spec in CHARACTERS:
            character = self._character(users, spec)
            characters[character.name] = character
            join_session(session, gm, character)
        self._plan_returned_once(session, users)
        session = run_with_accepted_plan(session, users)
        posts = [
            diary_services.post_create(
                session=session,
                author=users[author],
                character=characters.get(character_name),
                narration=narration,
                nc_note=nc_note,
            )
            for author, character_name, narration, nc_note in POSTS
        ]
        self._quote(posts[0], users, characters)
        self._potions(session, gm, characters)
        self._rolls(session, gm, characters)
        self._asks(session, users, characters)
        self._turn_deadline(session, gm)
        seed_npcs(session, gm, characters, moderator=users["moderator"])
        seed_entries(session, users, characters)
        seed_free_rolls(session, gm, characters)
        seed_secret_rolls(session, gm, characters)
        seed_read_marks(session, users)
        return session

    def _quote(self, quoted, users: dict, characters: dict) -> None:
        """A reply quoting part of the GM's opening post, linked back to it (and the
        GM's bell tells of the quote)."""

        diary_services.post_create(
            session=quoted.session,
            author=users["gracz3"],
            character=characters["Mira"],
            narration=quote_markdown(quoted, "ślady prowadzące do starej strażnicy")
            + "Mira przykuca przy śladach. — Świeże. Ktoś szedł tędy o świcie.",
            nc_note="",
        )

    def _potions(self, session: GameSession, gm, characters: dict) -> None:
        """The potions the characters start with, granted in the GM's opening post as
        entries of the session's chain (seed line 153; in play the sheet grants nothing)."""

        for spec in CHARACTERS:
            for count, effect in spec.get("potions", []):
                entries.item_grant(
                    session=session,
                    by=gm,
                    character_id=characters[spec["name"]].pk,
                    count=count,
                    effect=effect,
                    restores_hp=None,
                    frees_kind="",
                    token=uuid.uuid4(),
                    digest="seed_demo",
                )

    def _asks(self, session: GameSession, users: dict, characters: dict) -> None:
        """Players ask for rolls in the current turn, and each state a request can reach
        shows: the GM answers one as asked, one by judgment (another skill, with the
        reason), declines one with the reason, and one waits in the diary's side panel."""
        attribute = {a.name: a.pk for a in Attribute.objects.filter(system=RuleSystem.FORUM1000)}
        skill = {s.name: s.pk for s in Skill.objects.filter(system=RuleSystem.FORUM1000)}
        trait = {t.name: t.pk for t in Trait.objects.filter(system=RuleSystem.FORUM1000)}
        lirael, mira, borys = characters["Lirael"], characters["Mira"], characters["Borys"]
        # Mira has no action roll in this turn yet (one per turn outside combat, RULES 1.5).
        asks = [
            (
                "gracz3",
                mira,
                "Mira przygląda się zamkowi bramy i przypomina sobie, jak działają takie rygle.",
                SideRequest(
                    mira.pk,
                    "attribute",
                    (attribute["Inteligencja"],),
                    trait_ids=(trait["Geniusz"],),
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
                    lirael.pk,
                    "attribute",
                    (attribute["Percepcja"],),
                    trait_ids=(trait["Dobry Wzrok"],),
                ),
            ),
        ]
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
        request = RollRequest(
            kind="attribute",
            a=dataclasses.replace(
                asks[0][3], gm_difficulty=GmModifier(-50, "Gęsta mgła przy bramie")
            ),
        )
        roll_make(
            session=session,
            by=gm,
            case=case_for(session, request),
            token=uuid.uuid4(),
            answers=as_asked,
        )
        # The GM's judgment (seed 000 VII.4): the guard is already terrified; what counts now
        # is whether Borys breaks his will.
        hypnosis = RollRequest(
            kind="skill", a=SideRequest(borys.pk, "skill", skill_id=skill["Hipnoza"])
        )
        roll_make(
            session=session,
            by=gm,
            case=case_for(session, hypnosis),
            token=uuid.uuid4(),
            answers=judged,
            answer_note="Strażnik już drży ze strachu; liczy się, czy Borys złamie jego wolę.",
        )
        roll_ask_decline(
            ask=declined,
            by=gm,
            reason="Strażnik zna medyczkę komendanta z widzenia: tego kłamstwa nie da się rzucić.",
        )

    def _rolls(self, session: GameSession, gm, characters: dict) -> None:
        """A roll of every tab, through the same service the panel uses."""
        attribute = {a.name: a.pk for a in Attribute.objects.filter(system=RuleSystem.FORUM1000)}
        skill = {s.name: s.pk for s in Skill.objects.filter(system=RuleSystem.FORUM1000)}
        trait = {t.name: t.pk for t in Trait.objects.filter(system=RuleSystem.FORUM1000)}
        lirael, borys, mira = characters["Lirael"], characters["Borys"], characters["Mira"]
        wound = borys.effects.filter(kind="wound", freed_at__isnull=True).first()
        seduce, lockpick, look, jump, wrestle, heal, initiative = [
            RollRequest(
                kind="skill",
                a=SideRequest(
                    lirael.pk,
                    "skill",
                    skill_id=skill["Uwodzenie"],
                    trait_ids=(trait["Seksapil"], trait["Przystojny"]),
                    gm_bonus=GmModifier(50, "Przemyślany podarek dla rybaka"),
                ),
            ),
            RollRequest(
                kind="skill",
                a=SideRequest(
                    borys.pk,
                    "skill",
                    skill_id=skill["Otwieranie zamków"],
                    trait_ids=(trait["Precyzyjny"],),
                    gm_difficulty=GmModifier(-100, "Zamek zardzewiały od wilgoci"),
                ),
            ),
            RollRequest(
                kind="attribute",
                a=SideRequest(
                    lirael.pk,
                    "attribute",
                    (attribute["Percepcja"],),
                    trait_ids=(trait["Dobry Wzrok"],),
                ),
            ),
            RollRequest(
                kind="combined",
                a=SideRequest(
                    borys.pk,
                    "combined",
                    (attribute["Zręczność"], attribute["Szybkość"]),
                    action_value=50,
                    action_reason="skok przez burtę",
                ),
            ),
            RollRequest(
                kind="opposed",
                a=SideRequest(borys.pk, "attribute", (attribute["Siła"],)),
                b=SideRequest(lirael.pk, "attribute", (attribute["Siła"],)),
            ),
            RollRequest(
                kind="healing",
                a=SideRequest(mira.pk, "skill", skill_id=skill["Leczenie ran"]),
                patient_id=borys.pk,
                effect_id=wound.pk if wound else None,
            ),
            RollRequest(
                kind="initiative",
                initiative=(
                    InitiativeLine(lirael.pk),
                    InitiativeLine(borys.pk),
                    InitiativeLine(mira.pk, 50, "eliksir zwinności"),
                ),
            ),
        ]
        turns = [
            ([seduce, lockpick, heal], "Rybak mięknie, skrzynia ustępuje, Mira opatruje ramię."),
            ([look, jump], "Z mgły wyłania się strażnica; ktoś zamyka bramę."),
            ([initiative, wrestle], "Strażnik rzuca się na Borysa. Walka!"),
        ]
        for number, (rolls, narration) in enumerate(turns):
            if number:
                diary_services.turn_open_next(session=session, by=gm)
            diary_services.post_create(
                session=session, author=gm, character=None, narration=narration, nc_note=""
            )
            if number == 1:
                # RULES 1.5: Mira rides her horse 50 m, one move action at Szybkość 500.
                diary_services.post_create(
                    session=session,
                    author=mira.owner,
                    character=mira,
                    narration="Mira wskakuje na konia i podjeżdża pod strażnicę.",
                    nc_note="",
                    move_metres=50,
                    move_mounted=True,
                )
            for request in rolls:
                # The initiative roll opens the fight at the gate, left running.
                name = DEMO_GATE_FIGHT_NAME if request.kind == "initiative" else ""
                roll_make(
                    session=session,
                    by=gm,
                    case=case_for(session, request, event_name=name),
                    token=uuid.uuid4(),
                )

    def _turn_deadline(self, session: GameSession, gm) -> None:
        """The current turn ends in two days, at 20:00 Polish time."""
        warsaw = ZoneInfo("Europe/Warsaw")
        day = (timezone.now() + timedelta(days=2)).astimezone(warsaw)
        deadline = day.replace(hour=20, minute=0, second=0, microsecond=0)
        diary_services.turn_set_deadline(session=session, by=gm, deadline=deadline)

    def _plan_returned_once(self, session: GameSession, users: dict) -> None:
        """The plan's story before the session starts: written, returned by the moderator
        with a comment, revised (the caller's steps then submit it again and accept it)."""
        gm, moderator = users["gm"], users["moderator"]
        diary_services.session_plan_update(session=session, by=gm, scenario=PLAN_FIRST)
        diary_services.session_transition(session=session, by=gm, to=SessionStatus.PLAN_SUBMITTED)
        diary_services.session_plan_review(
            session=session, by=moderator, accept=False, comment=PLAN_REVIEW_COMMENT
        )
        diary_services.session_plan_update(session=session, by=gm, scenario=PLAN_REVISED)


def seed_portraits(users: dict) -> int:
    """A portrait for each forum1000 demo character that has none, through the
    checker and service the sheet's upload uses. The number added."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from characters.demo_portraits import demo_portrait_png
    from characters.portraits import portrait_check_and_encode

    added = 0
    for spec in CHARACTERS:
        owner = users[spec["owner"]]
        character = Character.objects.filter(
            owner=owner, name=spec["name"], system=RuleSystem.FORUM1000, is_stand_in=False
        ).first()
        if character is None or character.portrait:
            continue
        upload = SimpleUploadedFile(f"{spec['name']}.png", demo_portrait_png(spec["name"]))
        character_services.character_portrait_set(
            character_pk=character.pk, by=owner, portrait=portrait_check_and_encode(upload)
        )
        added += 1
    return added


PLAN_FIRST = """\
Drużyna eskortuje wóz **starego kupca** przez bród na Czarnej Rzece. We mgle czekają wilki.

1. Targi z kupcem o zapłatę.
2. Przeprawa przez bród i atak wilków.
"""
PLAN_REVIEW_COMMENT = (
    "Brakuje opisu NPC: jak łatwowierny jest kupiec i ilu jest wilków? "
    "Dopisz też, co się dzieje, jeśli drużyna zawróci."
)
PLAN_REVISED = """\
Drużyna eskortuje wóz **starego kupca** przez bród na Czarnej Rzece. We mgle czekają wilki.

1. Targi z kupcem o zapłatę: kupiec jest łatwowierny (perswazja +100).
2. Przeprawa przez bród: trzy wilki, przewodnik stada walczy do końca.
3. Jeśli drużyna zawróci, kupiec jedzie sam, a rano wóz stoi pusty przy brodzie.
"""

# The demo session's NPCs (mode fixed_modifiers, seed 000 line 51): name,
# description, visible to players, and (interaction, modifier, reason) rows.
DEMO_NPCS = [
    (
        "Stary kupiec",
        "Handluje solą i plotkami przy brodzie; wierzy w każdą dobrze opowiedzianą historię.",
        True,
        [("perswazja", 100, "łatwowierny"), ("targowanie", -100, "skąpy")],
    ),
    (
        "Wilki znad brodu",
        "Wataha krążąca we mgle; głodna, ale ostrożna.",
        True,
        [("zastraszanie", 50, "płoszą się od ognia")],
    ),
    (
        "Przewoźnik",
        "Zniknął przed świtem. Gracze jeszcze go nie spotkali.",
        False,
        [("perswazja", -200, "mistrz manipulacji")],
    ),
]


def seed_secret_rolls(session: GameSession, gm, characters: dict) -> None:
    """Two secret GM rolls in the current turn, hidden checks for a trap under the
    gate: Mira's, revealed (the diary shows its result beside its commitment), and Borys's,
    still a commitment only."""

    percepcja = Attribute.objects.get(system=RuleSystem.FORUM1000, name="Percepcja").pk
    trap = GmModifier(-100, "Wnyki ukryte pod liśćmi przy bramie")
    made = [
        roll_make(
            session=session,
            by=gm,
            case=case_for(
                session,
                RollRequest(
                    kind="attribute",
                    a=SideRequest(
                        characters[name].pk, "attribute", (percepcja,), gm_difficulty=trap
                    ),
                ),
            ),
            token=uuid.uuid4(),
            secret=True,
        ).roll
        for name in ("Mira", "Borys")
    ]
    secret_roll_reveal(session=session, by=gm, seq=made[0].seq)


def seed_npcs(session: GameSession, gm, characters: dict, moderator=None) -> None:
    """The roster, and one roll against the merchant's fixed modifier in the current turn."""

    modifiers = {}
    for name, description, visible, rows in DEMO_NPCS:
        npc = npc_services.npc_create(
            session=session, by=gm, name=name, description=description, visible_to_players=visible
        )
        for interaction, value, reason in rows:
            modifiers[(name, interaction)] = npc_services.npc_modifier_create(
                npc=npc, by=gm, interaction=interaction, value=value, reason=reason
            )
    skill = Skill.objects.get(system=RuleSystem.FORUM1000, name="Przekupstwo")
    request = RollRequest(
        kind="skill",
        a=SideRequest(
            characters["Lirael"].pk,
            "skill",
            skill_id=skill.pk,
            npc_modifier_id=modifiers[("Stary kupiec", "perswazja")].pk,
        ),
    )
    roll_make(session=session, by=gm, case=case_for(session, request), token=uuid.uuid4())
    # The roll fixed the merchant's persuasion modifier for the session (seed line 51): the
    # GM can no longer change it; a moderator's correction stays in the NPC's history.
    if moderator is not None:
        used = modifiers[("Stary kupiec", "perswazja")]
        used.refresh_from_db()
        npc_services.npc_modifier_correct(
            modifier=used,
            by=moderator,
            value=used.value,
            reason="łatwowierny, zwłaszcza wobec elfów",
            note="Doprecyzowanie powodu na prośbę MG; wartość bez zmian.",
        )
    seed_npcs_in_fight(session, gm)


def seed_npcs_in_fight(session: GameSession, gm) -> None:
    """The gate fight's tracker with NPCs (RULES 1.7, no sheets in this mode): the wolves
    with the value and HP the GM gave them, already wounded; the ferryman, hidden from
    players, lurking in the order only the GM sees."""

    event = InitiativeEvent.objects.running().filter(session=session).first()
    if event is None:
        return
    wolves = Npc.objects.get(session=session, name="Wilki znad brodu")
    ferryman = Npc.objects.get(session=session, name="Przewoźnik")
    initiative_services.initiative_npc_add(
        event=event, by=gm, npc_id=wolves.pk, score=420, hp_max=40
    )
    initiative_services.initiative_npc_add(event=event, by=gm, npc_id=ferryman.pk, score=700)
    entries.damage_deal(
        session=session,
        by=gm,
        character_id=-wolves.pk,
        delta=-12,
        reason="Borys rozbija wilka pochodnią",
        token=uuid.uuid4(),
        digest="seed",
    )
    # A sheet-less NPC takes effects as a character does: stunned, it waits at the order's end.
    entries.effect_apply(
        session=session,
        by=gm,
        character_id=-wolves.pk,
        kind="stun",
        description="Oszołomione blaskiem pochodni",
        length_turns=1,
        reason="Borys wymachuje płonącą pochodnią",
        token=uuid.uuid4(),
        digest="seed",
    )


# The other NPC mode, gm_character (seed lines 49, 182), in a second demo session:
# a wolf played through the GM's stand-in sheet, in initiative and in an opposed roll.
STAND_IN_SESSION_TITLE = "Wilcza noc (NPC na karcie MG)"
DEMO_FIGHT_NAME = "Wilki u brodu"
STAND_IN_SESSION_HERO = "Jarogniew"


APPLICATION_SESSION_TITLE = "Karawana do Ostrogu"


def forum1000_character(
    owner,
    name: str,
    description: str,
    *,
    hp,
    values,
    skills=None,
    traits=(),
    items=None,
    grammatical_gender="masculine",
) -> Character:
    """A forum1000 sheet: `values` are the attributes in ATTRIBUTE_ORDER."""
    return system_character(
        owner,
        RuleSystem.FORUM1000,
        name,
        attributes=dict(zip(ATTRIBUTE_ORDER, values, strict=True)),
        skills=skills,
        traits=traits,
        items=items,
        hp=hp,
        description=description,
        grammatical_gender=grammatical_gender,
    )


def run_with_accepted_plan(session: GameSession, users: dict) -> GameSession:
    """The GM submits the plan, the moderator accepts it, the GM starts the session."""
    for status in (SessionStatus.PLAN_SUBMITTED, SessionStatus.ACCEPTED, SessionStatus.RUNNING):
        by = users["moderator"] if status == SessionStatus.ACCEPTED else session.gm
        session = diary_services.session_transition(session=session, by=by, to=status)
    return session


def seed_application(users: dict) -> GameSession:
    """A session with a pitch a player applied to: the GM has an application to answer."""
    gm = users["gm"]
    session = diary_services.session_create(
        gm=gm,
        title=APPLICATION_SESSION_TITLE,
        description=(
            "Karawana kupca Welfa wyrusza o świcie przez **Wilcze Pola**.\n\n"
            "- szukamy dwóch, trzech strażników i kogoś, kto zna drogę,\n"
            "- posty co najmniej co dwa dni, tura trwa tydzień."
        ),
        system=RuleSystem.FORUM1000,
        criticals_enabled=True,
        npc_mode=NpcMode.FIXED_MODIFIERS,
        roll_policy=RollPolicy.GM_ONLY,
        # On the recruiting board, with how the table posts.
        recruiting=True,
        player_slots=3,
        posting_habits="posty co 2–3 dni, tura zamykana w niedzielę wieczorem",
    )
    session = run_with_accepted_plan(session, users)
    applicant = forum1000_character(
        users["gracz3"],
        "Zbyszko",
        "Przewodnik karawan, zna Wilcze Pola.",
        hp=(90, 90),
        values=[520, 540, 580, 600, 560, 450, 500, 480],
    )
    diary_services.participation_request(
        session=session,
        by=users["gracz3"],
        character=applicant,
        message="Zbyszko prowadził już trzy karawany przez Wilcze Pola. Piszę codziennie.",
    )
    return session


def seed_stand_in_session(users: dict) -> GameSession:
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
    diary_services.post_create(
        session=session,
        author=gm,
        character=None,
        narration="Z mgły wychodzi **Basior**, a za nim wataha. Jarogniew dobywa broni.",
        nc_note="NPC grają kartami zastępczymi MG: rzuty przeciwstawne i inicjatywa.",
    )
    strength = Attribute.objects.get(system=RuleSystem.FORUM1000, name="Siła").pk
    # The initiative roll opens a fight that is left running (docs/decisions.md).
    initiative = RollRequest(
        kind="initiative", initiative=(InitiativeLine(hero.pk), InitiativeLine(sheet.pk))
    )
    roll_make(
        session=session,
        by=gm,
        case=case_for(session, initiative, event_name=DEMO_FIGHT_NAME),
        token=uuid.uuid4(),
    )
    opposed = RollRequest(
        kind="opposed",
        a=SideRequest(sheet.pk, "attribute", (strength,)),
        b=SideRequest(hero.pk, "attribute", (strength,)),
    )
    roll_make(session=session, by=gm, case=case_for(session, opposed), token=uuid.uuid4())
    seed_wolf_pack(session, gm)
    return session


# The pack's charge: more rolls in one post than a post shows (rolls.posts.presenters.FOLD_SHOWN),
# so the demo has a long run folded behind "Pokaż … wcześniejszych rzutów".
DEMO_PACK_SIZE = 30


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


def seed_entries(session: GameSession, users: dict, characters: dict) -> None:
    """In the fight of the current turn: the GM's damage with reasons, a stun for
    two turns, a potion granted in the GM's post, and Lirael drinking one (HP back, no roll,
    her second action of the turn)."""

    gm, borys, lirael = users["gm"], characters["Borys"], characters["Lirael"]
    diary_services.post_create(
        session=session,
        author=gm,
        character=None,
        narration="Strażnik tnie Borysa mieczem i ogłusza go tarczą, a Lirael ślizga się na "
        "kamieniach brodu. Zza wozu kupiec rzuca Lirael flaszkę z ziołowym wywarem.",
        nc_note="",
    )

    def token() -> dict:
        return {"token": uuid.uuid4(), "digest": "seed_demo"}

    entries.damage_deal(
        session=session,
        by=gm,
        character_id=borys.pk,
        delta=-40,
        reason="Cios miecza strażnika",
        **token(),
    )
    entries.effect_apply(
        session=session,
        by=gm,
        character_id=borys.pk,
        kind="stun",
        description="Ogłuszony uderzeniem tarczy",
        length_turns=2,
        reason="Strażnik uderza tarczą w hełm",
        **token(),
    )
    entries.damage_deal(
        session=session,
        by=gm,
        character_id=lirael.pk,
        delta=-30,
        reason="Upadek na śliskich kamieniach brodu",
        **token(),
    )
    made = entries.item_grant(
        session=session,
        by=gm,
        character_id=lirael.pk,
        count=2,
        effect="Wywar z ziół znad brodu: przywraca 25 PŻ",
        restores_hp=25,
        frees_kind="",
        **token(),
    )
    potion_id = made.entry.record["entry"]["potion"]["id"]
    diary_services.post_create(
        session=session,
        author=users["gracz"],
        character=lirael,
        narration="Lirael łapie flaszkę w locie i wypija wywar jednym haustem.",
        nc_note="",
    )
    entries.item_use(session=session, by=users["gracz"], potion_id=potion_id, **token())
    # A spell or ability used without a roll is the turn's action too (seed 000 VII.1).
    diary_services.post_create(
        session=session,
        author=users["gracz3"],
        character=characters["Mira"],
        narration="Mira kreśli w powietrzu znak Matki i szepcze modlitwę nad rannym Borysem.",
        nc_note="",
    )
    entries.ability_use(
        session=session,
        by=users["gracz3"],
        character_id=characters["Mira"].pk,
        name="Błogosławieństwo Matki",
        description="Borys odzyskuje odwagę; MG oceni, co z tego wynika",
        **token(),
    )


# The GM's free-form rolls in the demo, as (expression, label, character name).
DEMO_FREE_ROLLS = (
    ("2k6+3", "Obrażenia od topora strażnika", "Borys"),
    ("4k6kh3", "Tabela spotkań na szlaku: kto nadjeżdża", None),
    # Labelled terms: the post shows each term's dice under its label.
    ("1k8[cięcie] + 2k6[ogień]", "Płonący miecz strażnika", "Borys"),
    # A success count: how many of the ten guards notice the party (8 or more on a k10).
    ("10k10>=8", "Ilu strażników zauważa drużynę", None),
)


def seed_free_rolls(session: GameSession, gm, characters: dict) -> None:
    """The GM rolls damage, a keep-highest table roll, a labelled damage roll and a success
    count in dice notation, through the service the free-form roll page uses; all land in
    the GM's post of the turn."""

    for expression, label, name in DEMO_FREE_ROLLS:
        roll_make_free(
            session=session,
            by=gm,
            free=FreeRoll(
                expression=expression,
                label=label,
                character_id=characters[name].pk if name else None,
            ),
            token=uuid.uuid4(),
        )
    # The GM allows players' free-form rolls here: a player rolls one into their own post,
    # marked as theirs in the diary and counted per player in the audit.
    GameSession.objects.filter(pk=session.pk).update(players_free_rolls=True)
    session.refresh_from_db()
    player = characters[DEMO_PLAYER_FREE_ROLL[2]]
    roll_make_free(
        session=session,
        by=player.owner,
        free=FreeRoll(
            expression=DEMO_PLAYER_FREE_ROLL[0],
            label=DEMO_PLAYER_FREE_ROLL[1],
            character_id=player.pk,
        ),
        token=uuid.uuid4(),
    )


# A player's free-form roll in the demo session (the GM allows them there).
DEMO_PLAYER_FREE_ROLL = ("2k6+1", "Ile monet wypada z sakiewki", "Borys")


# The demo player has read all but the last few posts others wrote, so the home
# page and the session list show a count and the diary marks the first one "Nowe".
DEMO_UNREAD_POSTS = 3


def seed_read_marks(session: GameSession, users: dict) -> None:
    player = users["gracz"]
    others = list(
        Post.objects.filter(session=session, hidden_at__isnull=True)
        .exclude(author=player)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    first_unread = others[-DEMO_UNREAD_POSTS]
    read_mark_advance(user=player, session_id=session.pk, post_id=first_unread - 1)


# Search: a word in turn 3 of the demo session that all three players may find,
# and one only in the stand-in session, which gracz (Lirael) may not read.
SEARCH_WORD_TURN_3 = "żurawiem"
SEARCH_WORD_HIDDEN_FROM_GRACZ = "jemioły"


def seed_search_words(users: dict) -> None:
    gm = users["gm"]
    session = GameSession.objects.get(title=SESSION_TITLE, gm=gm)
    diary_services.post_create(
        session=session,
        author=users["gracz"],
        character=Character.objects.get(owner=users["gracz"], name="Lirael"),
        narration=f"Lirael przygląda się tarczy strażnika: herb ze złotym {SEARCH_WORD_TURN_3}, "
        "jak u rodu z południa.",
        nc_note="",
    )
    stand_in = GameSession.objects.get(title=STAND_IN_SESSION_TITLE, gm=gm)
    diary_services.post_create(
        session=stand_in,
        author=gm,
        character=None,
        narration=f"Nad brodem wisi wieniec z {SEARCH_WORD_HIDDEN_FROM_GRACZ}: znak, że wilki "
        "strzegą tego miejsca.",
        nc_note="",
    )


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
    import uuid

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
