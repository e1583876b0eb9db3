"""Who may do what with a character sheet: the one place these rules live.

Characters know nothing of game sessions, yet a session's GM and fellow
players may read a sheet and the GM of a running session may tend the
character (HP, effects, potions) and decide on its owner's proposals. The
diary app registers those rules here at start-up (diary/apps.py), so the
dependency keeps pointing from diary to characters.

Views, services and templates read the flags of `CharacterAccess`; none of
them re-derives a rule.
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.http import Http404

from characters.models import Character
from config.roles import is_moderator

AccessRule = Callable[[object, object], bool]

_read_rules: list[AccessRule] = []
_tend_rules: list[AccessRule] = []
_in_play_rules: list = []  # character -> bool: it plays in a running session
_tended_queries: list = []  # user -> queryset of the characters the user tends
_play_places: list = []  # character -> (session title, GM's username) | None
_diary_links: list = []  # (user, character) -> [(title, url)] of the diaries tending it


def register_read_rule(rule: AccessRule) -> None:
    if rule not in _read_rules:
        _read_rules.append(rule)


def register_tend_rule(rule: AccessRule) -> None:
    """(user, character) -> the user is GM of a RUNNING session the character plays in."""
    if rule not in _tend_rules:
        _tend_rules.append(rule)


def register_in_play_rule(rule) -> None:
    if rule not in _in_play_rules:
        _in_play_rules.append(rule)


def register_tended_query(query) -> None:
    """user -> Character queryset: the same rule as the tend rule, as a query (for lists)."""
    if query not in _tended_queries:
        _tended_queries.append(query)


def register_diary_links(query) -> None:
    """(user, character) -> [(session title, diary URL)]: where the user, as GM of a running
    session, tends the character through the diary's entries."""
    if query not in _diary_links:
        _diary_links.append(query)


def register_play_place(query) -> None:
    """character -> (session title, GM's username) of the running session it plays in."""
    if query not in _play_places:
        _play_places.append(query)


def play_place(character) -> tuple[str, str] | None:
    """Where the character plays now, to name whom the owner's edits wait for."""
    for query in _play_places:
        place = query(character)
        if place is not None:
            return place
    return None


def diary_links(user, character) -> list[tuple[str, str]]:
    """The sheet's links to the diaries where its HP, effects and potions are tended."""
    return [link for query in _diary_links for link in query(user, character)]


def in_play(character) -> bool:
    return any(rule(character) for rule in _in_play_rules)


def tended_character_ids(user) -> set[int]:
    """Characters whose sheets the user tends as GM (e.g. to list proposals waiting)."""
    if not user.is_authenticated:
        return set()
    ids: set[int] = set()
    for query in _tended_queries:
        ids.update(query(user).values_list("pk", flat=True))
    return ids


@dataclass(frozen=True)
class CharacterAccess:
    character: object  # Character
    is_owner: bool
    in_play: bool  # accepted in a running session
    can_view: bool  # the sheet and its history
    can_edit: bool  # the owner edits the sheet directly: only out of play
    can_propose: bool  # the owner's edits in play: a proposal for the GM
    can_tend: bool  # HP and negative effects on the sheet: the owner, out of play
    # In play the GM tends the character only through the diary's entries (the
    # sheet shows HP and effects as the sum of the session chain's entries); the sheet links
    # there (`diary_links`).
    tends_in_diary: bool
    # What the services behind the diary's entries check (rolls.entries.services, which also checks
    # the session): the GM in play, or the owner out of play (an NPC's stand-in is its
    # GM's own sheet and plays in no participation).
    can_tend_by_entry: bool
    can_use_potions: bool
    can_use_potions_on_sheet: bool  # in play, potions are used in the diary
    can_grant_potions: bool  # the diary's grant entry (the GM, in play)
    can_grant_potions_on_sheet: bool  # the GM, out of play: never (no one runs it then)
    can_decide_proposal: bool  # approve or reject the owner's proposal
    can_see_proposal: bool  # the pending proposal's diff on the sheet
    # The owner sets the portrait, in play or not (it changes no number); a
    # moderator may remove one (an offensive image) but never put one up for someone.
    can_set_portrait: bool
    can_remove_portrait: bool

    @property
    def can_open_edit_form(self) -> bool:
        return self.can_edit or self.can_propose


def character_access(user, character) -> CharacterAccess:
    """The flags for a character already loaded (services use this on their locked row)."""
    authenticated = user.is_authenticated
    is_owner = authenticated and character.owner_id == user.pk
    playing = in_play(character)
    runs = authenticated and any(rule(user, character) for rule in _tend_rules)
    can_view = authenticated and (
        is_owner or is_moderator(user) or runs or any(r(user, character) for r in _read_rules)
    )
    return CharacterAccess(
        character=character,
        is_owner=is_owner,
        in_play=playing,
        can_view=can_view,
        can_edit=is_owner and not playing,
        can_propose=is_owner and playing,
        # Out of play the sheet is the owner's bookkeeping. In play, wounds and healing are
        # the GM's and the rolls' business, written as entries of the session's chain.
        can_tend=is_owner and not playing,
        tends_in_diary=runs,
        can_tend_by_entry=runs or (is_owner and not playing),
        # Drinking a potion is the player's own action; the GM may note it too. In play it
        # is taken in the diary, where it counts against the turn (rolls:item_use);
        # the sheet's button is the owner's own bookkeeping out of play.
        can_use_potions=is_owner or runs,
        can_use_potions_on_sheet=is_owner and not playing,
        # RULES 1.6: "the GM may grant" healing potions, not the player.
        # In play the grant is an entry in the GM's post (seed line 153), not a sheet write.
        can_grant_potions=runs,
        can_grant_potions_on_sheet=runs and not playing,
        can_decide_proposal=runs,
        can_see_proposal=is_owner or runs,
        can_set_portrait=is_owner,
        can_remove_portrait=is_owner or (authenticated and is_moderator(user)),
    )


def access_character(user, pk: int, *, lock: bool = False) -> CharacterAccess:
    """Look a character up for `user`: 404 when the user may not know it exists.

    With lock=True the row is locked (select_for_update) for the caller's transaction.
    """
    queryset = Character.objects.select_for_update() if lock else Character.objects.with_sheet()
    character = queryset.filter(pk=pk).first()
    if character is None:
        raise Http404
    access = character_access(user, character)
    if not access.can_view:
        raise Http404
    return access


@dataclass(frozen=True)
class CatalogAccess:
    """Every logged-in user reads the catalogs (players build sheets from them);
    moderators add and edit rows in the site, as in the admin."""

    can_read: bool
    can_edit: bool


def catalog_access(user) -> CatalogAccess:
    authenticated = user.is_authenticated
    return CatalogAccess(can_read=authenticated, can_edit=authenticated and is_moderator(user))
