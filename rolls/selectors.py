"""Reads of the ledger: for the diary, the panel and the audit."""

from __future__ import annotations

from dataclasses import dataclass

from characters.models import Character
from diary.models import NpcMode, ParticipationStatus
from rolls.engine import forum1000 as f1000
from rolls.models import Roll


def playing_characters(session, ids=None) -> dict[int, Character]:
    """The session's accepted characters and its NPCs' stand-ins (or those of them with these
    ids), by id, with the values a roll reads off their sheets."""
    from django.db.models import Q

    playing = Q(
        pk__in=Character.objects.filter(
            participations__session=session, participations__status=ParticipationStatus.ACCEPTED
        ).values("pk")
    )
    # Issue 8, mode gm_character: the NPCs' stand-in sheets play in the panel too (the other
    # side of an opposed roll, initiative), though they are never participants.
    # Only while the session plays NPCs that way (the mode may change until the plan is accepted).
    stand_ins = Q(
        is_stand_in=True,
        npc_role__session=session,
        npc_role__session__npc_mode=NpcMode.GM_CHARACTER,
    )
    characters = Character.objects.with_values().filter(playing | stand_ins)
    if ids is not None:
        characters = characters.filter(pk__in=ids)
    return {c.pk: c for c in characters}


def diary_rolls(posts, access):
    """What the diary page shows of rolls (registered in rolls/apps.py): each post's roll
    views, the chain head and whether the user gets the panel. Two queries a page, and
    the user's role comes from the page's SessionAccess (one participation check a request)."""
    from diary.selectors import DiaryRolls
    from rolls.access import may_roll_in_diary
    from rolls.presenters import roll_view

    by_post: dict[int, list] = {}
    rolls = Roll.objects.filter(post__in=[p.pk for p in posts]).order_by("seq")
    for roll in rolls:
        by_post.setdefault(roll.post_id, []).append(roll_view(roll))
    return DiaryRolls(
        by_post=by_post, head=chain_head(access.session), may_roll=may_roll_in_diary(access)
    )


def action_rolls_in_turn(session, character_id: int, turn_number: int) -> list[Roll]:
    """RULES 1.5: the character's action rolls this turn (defence and counter-rolls excluded)."""
    return list(
        Roll.objects.filter(
            session=session, character_id=character_id, turn_number=turn_number, is_action=True
        ).order_by("seq")
    )


@dataclass(frozen=True)
class ChainHead:
    count: int
    hash: str | None


def chain_head(session) -> ChainHead:
    last = Roll.objects.filter(session=session).order_by("-seq").only("seq", "hash").first()
    return ChainHead(last.seq, last.hash) if last else ChainHead(0, None)


def session_rolls(session):
    return Roll.objects.filter(session=session).select_related("post", "rolled_by").order_by("seq")


@dataclass
class CharacterStats:
    """Per-character roll statistics for the moderators' audit (forum1000 single tests)."""

    character_id: int
    name: str
    count: int = 0
    roll_total: int = 0
    successes: int = 0
    critical_luck: int = 0
    critical_bad_luck: int = 0

    @property
    def mean_roll(self) -> float:
        return self.roll_total / self.count if self.count else 0.0

    @property
    def success_share(self) -> float:
        return self.successes / self.count if self.count else 0.0

    def add(self, result: dict) -> None:
        self.count += 1
        self.roll_total += result["roll"]
        self.successes += bool(result["success"])
        # Raw faces, counted even in simplified sessions: the audit looks at the dice.
        self.critical_luck += result["roll"] <= f1000.CRITICAL_LUCK_MAX
        self.critical_bad_luck += result["roll"] >= f1000.CRITICAL_BAD_LUCK_MIN


def _outcomes(record: dict):
    """(character id, name, single-test result) for every die of a roll record."""
    result, people = record["result"], record["characters"]
    kind = record["kind"]
    if kind == "opposed":
        yield people["a"]["id"], people["a"]["name"], result["a"]
        yield people["b"]["id"], people["b"]["name"], result["b"]
    elif kind == "initiative":
        for person, entry in zip(people["initiative"], result["entries"], strict=True):
            yield person["id"], person["name"], entry["result"]
    else:
        yield people["a"]["id"], people["a"]["name"], result


def character_stats(session) -> list[CharacterStats]:
    stats: dict[int, CharacterStats] = {}
    for record in Roll.objects.filter(session=session).values_list("record", flat=True):
        try:
            for character_id, name, result in list(_outcomes(record)):
                stats.setdefault(character_id, CharacterStats(character_id, name)).add(result)
        except (KeyError, TypeError, ValueError, AttributeError):
            continue  # a damaged record; the chain report above names it
    return sorted(stats.values(), key=lambda s: s.name)


def npc_modifiers(session) -> list:
    """The session's NPC fixed modifiers the GM may target in the panel (issue 8), hidden
    NPCs included: the GM knows them."""
    from diary.models import NpcModifier

    return list(
        NpcModifier.objects.filter(npc__session=session)
        .select_related("npc")
        .order_by("npc__name", "interaction", "pk")
    )
