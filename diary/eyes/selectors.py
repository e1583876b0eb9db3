"""Whom a part for chosen eyes may name: the session's members by name."""

from __future__ import annotations

from diary.models import CoGameMaster, GameSession, Participation, ParticipationStatus


def members_by_name(session: GameSession) -> dict[str, set[tuple[int, str]]]:
    """Each name (case-folded) a member of the session goes by → the (user id, name as
    spelled) it may mean: the GM's, the co-GMs' and the players' usernames, and the names
    of the characters playing (accepted). Two queries."""
    named: dict[str, set[tuple[int, str]]] = {}

    def add(name: str, user_id: int) -> None:
        named.setdefault(name.casefold(), set()).add((user_id, name))

    add(session.gm.get_username(), session.gm_id)
    for user_id, username in CoGameMaster.objects.filter(session=session).values_list(
        "user_id", "user__username"
    ):
        add(username, user_id)
    playing = Participation.objects.filter(
        session=session, status=ParticipationStatus.ACCEPTED
    ).values_list("character__owner_id", "character__owner__username", "character__name")
    for owner_id, username, character_name in playing:
        add(username, owner_id)
        add(character_name, owner_id)
    return named
