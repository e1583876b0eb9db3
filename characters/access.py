"""Who may read or tend a character sheet.

Characters know nothing of game sessions, yet a session's GM and fellow
players may read a sheet and its GM may tend the character's state (HP,
effects, potions). The diary app registers those rules here at start-up
(diary/apps.py), so the dependency keeps pointing from diary to characters.
"""

from collections.abc import Callable

from characters.roles import is_moderator

AccessRule = Callable[[object, object], bool]

_read_rules: list[AccessRule] = []
_tend_rules: list[AccessRule] = []
_in_play_rules: list = []  # character -> bool: it plays in a running session


def register_read_rule(rule: AccessRule) -> None:
    if rule not in _read_rules:
        _read_rules.append(rule)


def register_tend_rule(rule: AccessRule) -> None:
    if rule not in _tend_rules:
        _tend_rules.append(rule)


def register_in_play_rule(rule) -> None:
    if rule not in _in_play_rules:
        _in_play_rules.append(rule)


def in_play(character) -> bool:
    return any(rule(character) for rule in _in_play_rules)


def can_edit_character(user, character) -> bool:
    """Only the owner builds and edits the sheet itself."""
    return user.is_authenticated and character.owner_id == user.pk


def runs_session_of_character(user, character) -> bool:
    """The user is GM of a session this character plays in."""
    return user.is_authenticated and any(rule(user, character) for rule in _tend_rules)


def can_tend_character(user, character) -> bool:
    """HP and negative effects: the character's GMs; the owner only while it is not in play
    (during a running session wounds and healing are the GM's and the rolls' business)."""
    if runs_session_of_character(user, character):
        return True
    return can_edit_character(user, character) and not in_play(character)


def can_use_potions(user, character) -> bool:
    """Drinking a potion is the player's own action; the GM may note it too."""
    return can_edit_character(user, character) or runs_session_of_character(user, character)


def can_grant_potions(user, character) -> bool:
    """Healing potions are the GM's to grant (RULES 1.6), not the player's."""
    return runs_session_of_character(user, character)


def can_view_character(user, character) -> bool:
    if not user.is_authenticated:
        return False
    if character.owner_id == user.pk or is_moderator(user):
        return True
    return any(rule(user, character) for rule in _read_rules)
