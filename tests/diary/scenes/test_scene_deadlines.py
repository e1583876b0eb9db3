"""The deadline's rule and the turns the site opens, in a split session: the turn is the
session's one turn, complete when every scene's characters present have acted; whoever a
scene still awaits at the deadline is passed over (or played by the GM, in their scene)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from diary.deadlines.selectors import turn_due
from diary.models import DeadlineRule, GameSession, TurnOpenedBySite, TurnPass
from diary.selectors import awaited_now
from diary.services import turn_open_next, turn_set_deadline
from tests.diary.deadlines.helpers import deadline_passes, set_rule
from tests.diary.scenes.helpers import split, write

pytestmark = pytest.mark.django_db


def _session(table):
    return GameSession.objects.select_related("current_turn").get(pk=table.session.pk)


def test_the_site_opens_the_turn_once_every_scene_has_acted(table):
    set_rule(table, DeadlineRule.PASS, auto=True)
    split(table)
    turn_set_deadline(
        session=table.session, by=table.gm, deadline=timezone.now() + timedelta(days=2)
    )
    write(table, table.alice, table.lirael, "Na górze gotowe.")
    # The main scene has acted; the dungeon has not.
    assert turn_due(_session(table), timezone.now()) == ""
    assert [c.name for c in awaited_now(_session(table)).awaited] == ["Borys"]
    write(table, table.bob, table.borys, "W lochu gotowe.")
    assert turn_due(_session(table), timezone.now()) == TurnOpenedBySite.ALL_ACTED


def test_at_the_deadline_the_scene_that_has_not_acted_is_passed_over(table):
    set_rule(table, DeadlineRule.PASS)
    split(table)
    write(table, table.alice, table.lirael, "Lirael działa na górze.")
    deadline_passes(table)
    turn_open_next(session=table.session, by=table.gm)
    assert [(p.character, p.rule) for p in TurnPass.objects.all()] == [
        (table.borys, DeadlineRule.PASS)
    ]


def test_the_gm_plays_an_awaited_character_in_that_characters_scene(table):
    set_rule(table, DeadlineRule.GM_PLAYS)
    scene = split(table)
    write(table, table.alice, table.lirael, "Lirael działa na górze.")
    deadline_passes(table)
    played = write(table, table.gm, table.borys, "MG prowadzi Borysa przez loch.")
    assert played.played_by_gm and played.scene == scene
    assert awaited_now(_session(table)).awaited == []
