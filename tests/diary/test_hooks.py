"""The diary's one extension point (diary/hooks.py): the rolls app fills it in at start-up
with its real parts, and the diary runs without rolls where nothing is registered."""

import pytest

from diary import capabilities, hooks
from diary import selectors as diary_selectors
from rolls import registry, selectors, services
from rolls.ledger import fair_dice
from rolls.posts.presenters import diary_rolls
from rolls.posts.recap import recap_rolls


def test_the_rolls_app_registers_its_real_parts():
    registered = hooks.current()
    assert registered.diary_rolls is diary_rolls
    assert registered.turn_actions is selectors.turn_actions
    assert registered.turn_opened is fair_dice.turn_opened
    assert registered.session_finishing is services.session_finishing
    assert registered.criticals_setting_systems is registry.criticals_setting_systems
    assert registered.recap_rolls is recap_rolls


@pytest.fixture
def without_rolls():
    registered = hooks.current()
    hooks.register(hooks.WITHOUT_ROLLS)
    yield
    hooks.register(registered)


def test_without_a_rules_app_the_diary_shows_no_rolls_and_counts_none(without_rolls):
    assert diary_selectors.diary_rolls([], access=None) is None
    assert diary_selectors.turn_actions(None, None, 1) == hooks.TurnActions()
    assert capabilities.criticals_setting_systems() == frozenset()
    assert hooks.current().turn_opened(None, None, None) is None
    assert hooks.current().session_finishing(None, None) is None
    assert hooks.current().recap_rolls(None, None, since_seq=0) == hooks.RecapRolls()


def test_the_criticals_setting_comes_from_the_registered_systems():
    assert capabilities.criticals_setting_systems() == frozenset(
        registry.criticals_setting_systems()
    )
    assert capabilities.criticals_setting_systems()  # some system offers "criticals off"
