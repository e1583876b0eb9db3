"""The diary's one extension point: what it asks of the app that plays the game's rules.

The diary imports no rolls module (an import contract says so), yet its page shows rolls,
its movement check counts action rolls, opening a turn commits the turn's dice seeds and
ending a session reveals what is sealed. The rolls app gives the diary those parts as one
`DiaryHooks` in its AppConfig.ready() (rolls/apps.py); the diary asks `current()`. Each hook
runs where the diary calls it: the turn and session hooks inside the transaction, under the
session's row lock, that opens the turn or ends the session. Without a rules app the diary
runs without rolls (`WITHOUT_ROLLS`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class DiaryRolls:
    """What the diary page shows of rolls, computed by the rolls app: each post's roll views
    (for rolls/post_rolls.html) and the chain head (for rolls/chain_head.html)."""

    by_post: dict[int, str] = field(default_factory=dict)  # each post's rolls, as HTML
    head: object | None = None
    may_roll: bool = False
    # Players' requests for rolls: those on each post of the page, those still open in the
    # whole session (the GM answers them while it runs), and whether this user may ask.
    asks_by_post: dict[int, list] = field(default_factory=dict)
    open_asks: list = field(default_factory=list)
    shows_open_asks: bool = False  # the list of open requests is shown (the GM, running)
    may_ask: bool = False
    # RULES 1.5, the current turn: action rolls per character id, and the limit outside
    # combat (None in combat: counted and shown, not refused).
    action_counts: dict[int, int] = field(default_factory=dict)
    action_limit: int | None = 1
    # The running initiative event's order and marker (rolls.initiative.selectors
    # .FightView), or None; and whether this user runs it (the GM's controls).
    fight: object | None = None
    may_run_fight: bool = False
    # Potions and items used per character this turn (actions without a roll), the
    # GM's entry forms (HP, effect, item grant; None for everyone else) and whether the
    # item-use link shows.
    item_counts: dict[int, int] = field(default_factory=dict)
    entry_forms: dict | None = None
    may_use_items: bool = False
    # A player's link to the free-form roll page, where the GM allowed it (the GM's link
    # comes with the entry forms).
    may_roll_free: bool = False
    # Failed rolls this user may reroll (a system's przerzut), by post.
    reroll_offers_by_post: dict[int, list] = field(default_factory=dict)


@dataclass(frozen=True)
class TurnActions:
    """What the rolls app knows of one character's turn (RULES 1.5): its action rolls, and
    whether an initiative event runs (in combat actions are counted, not refused)."""

    action_rolls: int = 0
    in_combat: bool = False
    item_uses: int = 0  # potions, items, spells and abilities used: actions without a roll


@dataclass(frozen=True)
class RecapItem:
    """One line of "since you were last here" from the ledger: its words as the diary shows
    them, the link to it, and whether it names one of the reader's characters."""

    text: str
    url: str
    mine: bool = False


@dataclass(frozen=True)
class RecapRolls:
    """What the rolls app adds to a reader's recap (diary/recap/): the rolls since the read
    mark with their outcomes, what changed on the reader's characters (HP, effects, items,
    initiative place), and the reader's requests answered or declined. `truncated`: older
    rolls were left out past the recap's cap (the diary holds them)."""

    rolls: tuple[RecapItem, ...] = ()
    changes: tuple[RecapItem, ...] = ()
    asks: tuple[RecapItem, ...] = ()
    truncated: bool = False


@dataclass(frozen=True)
class NarrationDice:
    """A narration whose dice markers were rolled (diary/posts/dice_markers.py): the text to
    store, each marker numbered; each marker's result as HTML, in the markers' order; the
    results no marker names any more (struck through), as HTML."""

    text: str
    pieces: list[str]
    removed: str = ""


@dataclass(frozen=True)
class NarrationPreview:
    """What the preview adds for a narration's dice: each expression with its exact odds
    (HTML), or the refusal to show next to the narration."""

    html: str = ""
    error: str = ""


def _no_narration_dice(**_kwargs) -> None:
    return None


def _no_narration_preview(**_kwargs) -> NarrationPreview:
    return NarrationPreview()


@dataclass(frozen=True)
class DiaryHooks:
    """The parts of the diary the rules app fills in (rolls/apps.py registers them)."""

    # (posts, SessionAccess, *, turn, entry_character, roll) -> DiaryRolls | None: what the
    # diary page shows of rolls (rolls.posts.presenters.diary_rolls). `entry_character`: a
    # link's preselected character for the GM's entry forms; `roll`: the seq a roll's link
    # names, shown even where its post's run of rolls is folded.
    diary_rolls: Callable[..., DiaryRolls | None]
    # (session, turn, character id) -> TurnActions: the movement check's count of the
    # character's action rolls this turn (rolls.selectors.turn_actions).
    turn_actions: Callable[[Any, Any, int], TurnActions]
    # (session, turn, by): a turn has opened; the turns before it are closed (the fair
    # dice's commit and reveal, rolls.ledger.fair_dice.turn_opened).
    turn_opened: Callable[[Any, Any, Any], None]
    # (session, by): the session is about to end (every secret roll and seed revealed,
    # rolls.services.session_finishing).
    session_finishing: Callable[[Any, Any], None]
    # () -> the names of the systems whose rolls read "Krytyki wyłączone"
    # (rolls.registry.criticals_setting_systems; diary.capabilities asks).
    criticals_setting_systems: Callable[[], Collection[str]]
    # (session, reader, *, since_seq, since_at, character_ids) -> RecapRolls: the ledger's
    # part of the reader's "since you were last here": chain rows after `since_seq`, the
    # reader's requests closed after `since_at`, their characters' changes among them, the
    # secret rolls shown only as the diary shows them to this reader
    # (rolls.posts.recap.recap_rolls).
    recap_rolls: Callable[..., RecapRolls]
    # (*, post, by, text, client_seed) -> NarrationDice | None: the narration's dice markers
    # rolled (None: it has none), inside the transaction that writes the post, under the
    # session's row lock; ValidationError {"narration": …} for a marker refused
    # (rolls.inline.services.narration_dice).
    narration_dice: Callable[..., NarrationDice | None] = _no_narration_dice
    # (*, session, user, text) -> NarrationPreview: the preview's odds of each marker
    # (rolls.inline.presenters.narration_preview).
    narration_preview: Callable[..., NarrationPreview] = _no_narration_preview


def _nothing(*_args, **_kwargs) -> None:
    return None


WITHOUT_ROLLS = DiaryHooks(
    diary_rolls=_nothing,
    turn_actions=lambda _session, _turn, _character_id: TurnActions(),
    turn_opened=_nothing,
    session_finishing=_nothing,
    criticals_setting_systems=tuple,
    recap_rolls=lambda *_args, **_kwargs: RecapRolls(),
)

_registered: list[DiaryHooks] = [WITHOUT_ROLLS]


def register(hooks: DiaryHooks) -> None:
    """The rules app's parts, once at start-up (a later call replaces them)."""
    _registered[0] = hooks


def current() -> DiaryHooks:
    return _registered[0]
