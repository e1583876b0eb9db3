"""The demo's main session from its start: the session, its three characters and its plan,
the opening posts, then its scenes in the order they are played."""

import uuid
from datetime import timedelta
from zoneinfo import ZoneInfo

from django.utils import timezone

from characters import services as character_services
from characters.models import Character
from characters.systems import RuleSystem
from demo.ford.asks import seed_asks
from demo.ford.drafts import seed_draft
from demo.ford.entries import seed_entries
from demo.ford.eyes import seed_chosen_eyes
from demo.ford.free_rolls import seed_free_rolls
from demo.ford.handout import seed_handout
from demo.ford.inline_dice import seed_inline_dice
from demo.ford.npcs import seed_npcs
from demo.ford.reading import seed_read_marks
from demo.ford.rolls import seed_secret_rolls, seed_tab_rolls
from demo.ford.scenes import seed_scenes
from demo.ford.story import (
    CHARACTERS,
    PLAN_FIRST,
    PLAN_REVIEW_COMMENT,
    PLAN_REVISED,
    POSTS,
    SESSION_TITLE,
)
from demo.ford.voices import seed_npc_voice
from demo.sheets import forum1000_character, join_session, run_with_accepted_plan
from diary import services as diary_services
from diary.models import GameSession, NpcMode, RollPolicy, SessionStatus
from diary.posts.quoting import quote_markdown
from rolls.entries import services as entries


def seed_ford(users: dict) -> GameSession:
    """The session, running, with every scene of the demo played in it."""
    gm = users["gm"]
    session, characters = _session_with_characters(users)
    _plan_returned_once(session, users)
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
    seed_handout(posts[0], gm)
    _quote(posts[0], users, characters)
    _potions(session, gm, characters)
    seed_tab_rolls(session, gm, characters)
    seed_asks(session, users, characters)
    _turn_deadline(session, gm)
    seed_npcs(session, gm, characters, moderator=users["moderator"])
    seed_entries(session, users, characters)
    seed_free_rolls(session, gm, characters)
    seed_inline_dice(session, characters)
    seed_secret_rolls(session, gm, characters)
    seed_chosen_eyes(session, gm)
    seed_npc_voice(session, gm)
    seed_scenes(session, users, characters)
    seed_read_marks(session, users)
    seed_draft(session, users)
    return session


def _session_with_characters(users: dict) -> tuple[GameSession, dict[str, Character]]:
    """The session, in preparation, with its characters (by name) playing in it."""
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
        character = _character(users, spec)
        characters[character.name] = character
        join_session(session, gm, character)
    return session, characters


def _character(users: dict, spec: dict) -> Character:
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


def _plan_returned_once(session: GameSession, users: dict) -> None:
    """The plan's story before the session starts: written, returned by the moderator
    with a comment, revised (the caller's steps then submit it again and accept it)."""
    gm, moderator = users["gm"], users["moderator"]
    diary_services.session_plan_update(session=session, by=gm, scenario=PLAN_FIRST)
    diary_services.session_transition(session=session, by=gm, to=SessionStatus.PLAN_SUBMITTED)
    diary_services.session_plan_review(
        session=session, by=moderator, accept=False, comment=PLAN_REVIEW_COMMENT
    )
    diary_services.session_plan_update(session=session, by=gm, scenario=PLAN_REVISED)


def _quote(quoted, users: dict, characters: dict) -> None:
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


def _potions(session: GameSession, gm, characters: dict) -> None:
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


def _turn_deadline(session: GameSession, gm) -> None:
    """The current turn ends in two days, at 20:00 Polish time."""
    warsaw = ZoneInfo("Europe/Warsaw")
    day = (timezone.now() + timedelta(days=2)).astimezone(warsaw)
    deadline = day.replace(hour=20, minute=0, second=0, microsecond=0)
    diary_services.turn_set_deadline(session=session, by=gm, deadline=deadline)
