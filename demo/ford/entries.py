"""Diary entries in the demo's main session: HP, effects, potions and an ability."""

import uuid

from diary import services as diary_services
from diary.models import GameSession
from rolls.entries import services as entries


def seed_entries(session: GameSession, users: dict, characters: dict) -> None:
    """In the fight of the current turn: the GM's damage with reasons, a stun for
    two turns, a potion granted in the GM's post, and Lirael drinking one (HP back, no roll,
    her second action of the turn); then Mira's ability, used without a roll."""
    potion_id = _the_guard_strikes(session, users["gm"], characters)
    _lirael_drinks(session, users["gracz"], characters["Lirael"], potion_id)
    _mira_blesses(session, users["gracz3"], characters["Mira"])


def _token() -> dict:
    return {"token": uuid.uuid4(), "digest": "seed_demo"}


def _the_guard_strikes(session: GameSession, gm, characters: dict) -> int:
    """The GM's post: Borys cut and stunned, Lirael falls, the merchant throws her a potion
    (granted: two of them). The potion's id."""
    borys, lirael = characters["Borys"], characters["Lirael"]
    diary_services.post_create(
        session=session,
        author=gm,
        character=None,
        narration="Strażnik tnie Borysa mieczem i ogłusza go tarczą, a Lirael ślizga się na "
        "kamieniach brodu. Zza wozu kupiec rzuca Lirael flaszkę z ziołowym wywarem.",
        nc_note="",
    )
    entries.damage_deal(
        session=session,
        by=gm,
        character_id=borys.pk,
        delta=-40,
        reason="Cios miecza strażnika",
        **_token(),
    )
    entries.effect_apply(
        session=session,
        by=gm,
        character_id=borys.pk,
        kind="stun",
        description="Ogłuszony uderzeniem tarczy",
        length_turns=2,
        reason="Strażnik uderza tarczą w hełm",
        **_token(),
    )
    entries.damage_deal(
        session=session,
        by=gm,
        character_id=lirael.pk,
        delta=-30,
        reason="Upadek na śliskich kamieniach brodu",
        **_token(),
    )
    made = entries.item_grant(
        session=session,
        by=gm,
        character_id=lirael.pk,
        count=2,
        effect="Wywar z ziół znad brodu: przywraca 25 PŻ",
        restores_hp=25,
        frees_kind="",
        **_token(),
    )
    return made.entry.record["entry"]["potion"]["id"]


def _lirael_drinks(session: GameSession, player, lirael, potion_id: int) -> None:
    diary_services.post_create(
        session=session,
        author=player,
        character=lirael,
        narration="Lirael łapie flaszkę w locie i wypija wywar jednym haustem.",
        nc_note="",
    )
    entries.item_use(session=session, by=player, potion_id=potion_id, **_token())


def _mira_blesses(session: GameSession, player, mira) -> None:
    """A spell or ability used without a roll is the turn's action too (seed 000 VII.1)."""
    diary_services.post_create(
        session=session,
        author=player,
        character=mira,
        narration="Mira kreśli w powietrzu znak Matki i szepcze modlitwę nad rannym Borysem.",
        nc_note="",
    )
    entries.ability_use(
        session=session,
        by=player,
        character_id=mira.pk,
        name="Błogosławieństwo Matki",
        description="Borys odzyskuje odwagę; MG oceni, co z tego wynika",
        **_token(),
    )
