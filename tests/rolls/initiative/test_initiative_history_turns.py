"""Every change in an event's history says which turn it happened in, the holding
effects read off the sheets included (a stun's start and end used to show "—")."""

import html
import re

import pytest
from django.urls import reverse

from characters.models import NegativeEffect
from characters.services import effect_add
from diary.services import turn_open_next
from rolls.initiative import selectors as initiative_selectors
from rolls.models import InitiativeEvent
from tests.conftest import polish
from tests.diary_entries import effect_entry, free_entry
from tests.rolls.initiative.test_initiative_event import fight  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


def effect_turns(event) -> list[tuple[str, str, int | None]]:
    event = InitiativeEvent.objects.get(pk=event.pk)
    return [
        (row.kind, row.character, row.turn)
        for row in initiative_selectors.history_rows(event)
        if row.kind in ("held", "freed")
    ]


def test_a_holding_effects_start_and_end_carry_their_turns(fight):  # noqa: F811
    session = fight.session
    # Turn 1: a stun from the diary (this session's turn 1), until freed.
    stun = effect_entry(session, fight.gm, fight.lirael, "stun", "Ogłuszona", reason="Tarcza")
    turn_open_next(session=session, by=fight.gm)
    # Turn 2: the GM frees her early from the diary; the wolf is immobilised for 1 turn.
    free_entry(session, fight.gm, stun, reason="Ocknęła się")
    effect_entry(session, fight.gm, fight.wolf, "immobilisation", "Sieć", length=1)
    turn_open_next(session=session, by=fight.gm)  # turn 3: the net is gone by itself
    assert NegativeEffect.objects.get(description="Sieć").ended_by_itself

    assert effect_turns(fight.event) == [
        ("held", "Lirael", 1),
        ("freed", "Lirael", 2),
        ("held", "Wilk", 2),
        ("freed", "Wilk", 3),
    ]
    # Who did it and why come from the diary's entries; an effect that ended by
    # itself was nobody's act.
    rows = {
        (row.kind, row.character): row
        for row in initiative_selectors.history_rows(InitiativeEvent.objects.get(pk=fight.event.pk))
        if row.kind in ("held", "freed")
    }
    gm = fight.gm.get_username()
    assert rows[("held", "Lirael")].who == gm and "Tarcza" in rows[("held", "Lirael")].reason
    assert rows[("freed", "Lirael")].who == gm
    assert rows[("freed", "Wilk")].who == ""

    # The page shows them in the history's turn column.
    page = html.unescape(
        fight.gm_client.get(reverse("rolls:initiative", args=[session.pk])).content.decode()
    )
    turn_label = polish("Turn")
    rows = re.findall(r'<tr data-kind="(held|freed)">(.*?)</tr>', page, re.S)
    turns = [
        re.search(rf'<td data-label="{turn_label}">(.*?)</td>', cells).group(1) for _, cells in rows
    ]
    assert turns == ["1", "2", "2", "3"]


def test_an_effect_from_another_sessions_turn_takes_this_sessions_turn(fight):  # noqa: F811
    """`began_turn` counts another session's turns there; here the moment decides."""
    turn_open_next(session=fight.session, by=fight.gm)
    effect_add(
        character=fight.borys,
        by=fight.gm,
        kind="stun",
        description="Zaklęcie z innej sesji",
        began_in_session=fight.session.pk + 1000,
        began_turn=7,
    )
    assert effect_turns(fight.event) == [("held", "Borys", 2)]
