"""Who may roll what: the one place the rolls app decides it (DESIGN.md, "Access").

Views, services and the panel read `RollAccess`; none of them re-derives a rule.
The panel's one-time tokens and its links are tied to the user here too:
a token is signed for the user and the game session it was issued in, and a
panel URL carries a signature (`sig`) of its fields for that user, so a link
someone else wrote opens a clean panel (views.panel).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.core import signing
from django.core.exceptions import PermissionDenied
from django.http import Http404, QueryDict
from django.shortcuts import get_object_or_404
from django.utils.crypto import constant_time_compare

from characters.selectors import catalog_version_subquery
from config.roles import is_moderator
from diary import permissions as diary_permissions
from diary.models import GameSession, NpcMode, RollPolicy, co_gm_list_annotation
from rolls import registry
from rolls.ledger.chain_writer import lock_session


def system_modes(system: str) -> tuple[str, ...]:
    """Every mode (kind of roll) of this system's panel; none for a system without one."""
    plugin = registry.system_for(system)
    return plugin.mode_keys if plugin else ()


def gm_only_modes(system: str) -> frozenset[str]:
    """Modes only the GM rolls: they involve other players' characters or the GM's judgment."""
    plugin = registry.system_for(system)
    return plugin.gm_only_modes if plugin else frozenset()


@dataclass(frozen=True)
class RollAccess:
    """What one user may do with one session's roll panel."""

    session: GameSession
    user_id: int | None
    is_gm: bool
    may_roll: bool  # the panel is offered at all
    may_roll_modes: tuple[str, ...]  # the kinds of roll this user may make here
    # Modifiers a person types (GM difficulty/bonus, action, initiative) are the GM's (RULES 1.2).
    may_type_modifiers: bool

    @property
    def may_allow_extra_action(self) -> bool:
        """RULES 1.5: only the GM allows a second action roll in a turn (with a reason)."""
        return self.may_roll and self.is_gm

    def may_roll_mode(self, mode: str) -> bool:
        return mode in self.may_roll_modes

    @property
    def may_target_npcs(self) -> bool:
        """Mode fixed_modifiers: the GM applies an NPC's fixed modifier."""
        return self.may_type_modifiers and self.session.npc_mode == NpcMode.FIXED_MODIFIERS

    def may_roll_for(self, character) -> bool:
        """The GM rolls for any playing character; a player for their own only."""
        return self.may_roll and (self.is_gm or character.owner_id == self.user_id)

    @property
    def may_roll_secret(self) -> bool:
        """Only the GM rolls in secret, and reveals (rolls.ledger.secret)."""
        return self.may_roll and self.is_gm


def access_roll_panel(user, session: GameSession) -> RollAccess:
    """The user's rights at this session's roll panel (GM: everything; players: their own)."""
    is_gm = diary_permissions.is_gm(user, session)
    may_roll = _may_roll_at_all(user, session, is_gm)
    every = system_modes(session.system)
    if not may_roll:
        modes: tuple[str, ...] = ()
    elif is_gm:
        modes = every
    else:
        withheld = gm_only_modes(session.system)
        modes = tuple(m for m in every if m not in withheld)
    return RollAccess(
        session=session,
        user_id=user.pk,
        is_gm=is_gm,
        may_roll=may_roll,
        may_roll_modes=modes,
        may_type_modifiers=may_roll and is_gm,
    )


def may_roll_at_all(user, session: GameSession) -> bool:
    """Whether the panel is offered to this user."""
    return _may_roll_at_all(user, session, diary_permissions.is_gm(user, session))


def may_roll_in_diary(session_access) -> bool:
    """The same, from the diary page's SessionAccess: no query of its own."""
    return _may_roll_at_all(
        session_access.user,
        session_access.session,
        session_access.is_gm,
        is_player=session_access.is_player,
    )


def _may_roll_at_all(user, session: GameSession, is_gm: bool, is_player=None) -> bool:
    if not session.is_running or not user.is_authenticated or not system_modes(session.system):
        return False
    if is_gm:
        return True
    if session.roll_policy != RollPolicy.PLAYERS_OWN:
        return False
    return diary_permissions.is_player(user, session) if is_player is None else is_player


@dataclass(frozen=True)
class FreeRollAccess:
    """Who may roll free-form dice (rolls.free.services) in one session: its GM always while it
    runs; its players only where the GM allowed it in the session's settings."""

    is_gm: bool
    is_player: bool
    may_roll: bool

    @property
    def refused_by_setting(self) -> bool:
        """A player of a running session whose GM has not allowed free-form rolls."""
        return self.is_player and not self.may_roll


def access_free_roll(user, session: GameSession) -> FreeRollAccess:
    if not user.is_authenticated:
        return FreeRollAccess(is_gm=False, is_player=False, may_roll=False)
    is_gm = diary_permissions.is_gm(user, session)
    is_player = not is_gm and diary_permissions.is_player(user, session)
    allowed = is_gm or (is_player and session.players_free_rolls)
    return FreeRollAccess(
        is_gm=is_gm,
        is_player=is_player and session.is_running,
        may_roll=session.is_running and allowed,
    )


def may_roll_free_in_diary(session_access) -> bool:
    """A player's link to the free-form roll page, from the diary page's SessionAccess (no
    query): where the GM allowed it, while the session runs."""
    session = session_access.session
    return (
        session.is_running
        and session.players_free_rolls
        and session_access.is_player
        and not session_access.is_gm
    )


def may_write_entries(user, session: GameSession) -> bool:
    """The GM of a running session deals damage, applies effects and grants items
    from the diary (each an entry in the session's chain)."""
    return session.is_running and diary_permissions.is_gm(user, session)


def may_write_entries_in_diary(session_access) -> bool:
    """The same, from the diary page's SessionAccess: no query of its own."""
    return session_access.session.is_running and session_access.is_gm


def may_use_item(user, session: GameSession, character) -> bool:
    """In a running session, a character's potion or healing item is used by its
    owner (their action) or by the GM (noting it for them)."""
    return (
        session.is_running
        and user.is_authenticated
        and (character.owner_id == user.pk or diary_permissions.is_gm(user, session))
    )


def may_allow_extra_item_use(user, session: GameSession) -> bool:
    """RULES 1.5: the same permission as a further action roll, the GM's only."""
    return access_roll_panel(user, session).may_allow_extra_action


def may_open_item_use(session_access) -> bool:
    """The diary's link to the item-use page: players and the GM of a running session."""
    return session_access.session.is_running and (session_access.is_gm or session_access.is_player)


def may_ask(user, session: GameSession) -> bool:
    """Players of a running session ask the GM for rolls, whoever may roll there (the GM
    answers; seed 000: the player names the skill and what applies, the GM rolls)."""
    return (
        session.is_running
        and bool(system_modes(session.system))
        and user.is_authenticated
        and not diary_permissions.is_gm(user, session)
        and diary_permissions.is_player(user, session)
    )


def askable_modes(system: str) -> tuple[str, ...]:
    """The modes a player's request may name: those a player may roll (the GM-only ones are
    the GM's to start)."""
    withheld = gm_only_modes(system)
    return tuple(mode for mode in system_modes(system) if mode not in withheld)


def check_may_roll(user, session: GameSession, case, characters: dict, extra_action_reason=""):
    """RULES 1.x and the session's policy, for the roll service: the session's system and one
    of its modes open to this user; the acting character one this user rolls for; everyone
    else the case names playing in the session; typed modifiers and a further action roll
    allowed by the GM only. PermissionDenied if not."""
    access = access_roll_panel(user, session)
    if case.system != session.system or not access.may_roll_mode(case.mode):
        raise PermissionDenied
    if extra_action_reason.strip() and not access.may_allow_extra_action:
        raise PermissionDenied
    if case.gm_typed and not access.may_type_modifiers:
        raise PermissionDenied
    acting = characters.get(case.character_id) if case.character_id is not None else None
    if case.character_id is not None and (acting is None or not access.may_roll_for(acting)):
        raise PermissionDenied
    if any(pk not in characters for pk in case.character_ids):
        raise PermissionDenied


# ---------------------------------------------------------------------------
# Tokens and links belong to the user they were issued to


def _salt(kind: str, user, session: GameSession) -> str:
    return f"rolls.panel.{kind}:{user.pk}:{session.pk}"


def sign_token(user, session: GameSession, token: uuid.UUID) -> str:
    """The form value of a one-time token issued to this user in this session."""
    return signing.Signer(salt=_salt("token", user, session)).sign(str(token))


def issue_token(user, session: GameSession) -> str:
    return sign_token(user, session, uuid.uuid4())


def read_token(user, session: GameSession, value) -> uuid.UUID | None:
    """The token, if this value was issued to this user in this session; else None."""
    if not isinstance(value, str):
        return None
    try:
        return uuid.UUID(signing.Signer(salt=_salt("token", user, session)).unsign(value))
    except (signing.BadSignature, ValueError):
        return None


LINK_SIGNATURE = "sig"


def _canonical(query: QueryDict) -> str:
    pairs = sorted(
        (key, value) for key, values in query.lists() if key != LINK_SIGNATURE for value in values
    )
    canonical = QueryDict(mutable=True)
    for key, value in pairs:
        canonical.appendlist(key, value)
    return canonical.urlencode()


def signed_query(user, session: GameSession, query: QueryDict) -> str:
    """The panel's query string with its fields in a fixed order and signed for this user."""
    canonical = _canonical(query)
    signature = signing.Signer(salt=_salt("link", user, session)).signature(canonical)
    return f"{canonical}&{LINK_SIGNATURE}={signature}" if canonical else ""


def query_is_signed(user, session: GameSession, query: QueryDict) -> bool:
    """Whether this panel URL was written by the panel for this very user."""
    given = query.get(LINK_SIGNATURE)
    if not given:
        return False
    expected = signing.Signer(salt=_salt("link", user, session)).signature(_canonical(query))
    return constant_time_compare(given, expected)


# ---------------------------------------------------------------------------
# Initiative events


@dataclass(frozen=True)
class FightAccess:
    """Who sees an initiative event and who runs it: the order and the history are open to
    everyone who reads the session's diary (its participants, moderators); the marker, the
    modifiers, the handovers and the end are the GM's, while the session runs."""

    session: GameSession
    can_read: bool
    can_manage: bool
    # NPCs hidden from players show in the order for the GM and moderators only.
    sees_hidden_npcs: bool = False


def access_fight(user, session: GameSession) -> FightAccess:
    can_read = diary_permissions.can_read_session(user, session)
    is_gm = diary_permissions.is_gm(user, session)
    return FightAccess(
        session,
        can_read,
        can_manage=can_read and is_gm and session.is_running,
        sees_hidden_npcs=can_read and (is_gm or is_moderator(user)),
    )


def fight_access_in_diary(session_access) -> FightAccess:
    """The same, from the diary page's SessionAccess: no query of its own."""
    session = session_access.session
    return FightAccess(
        session,
        session_access.can_read,
        can_manage=session_access.can_read and session_access.is_gm and session.is_running,
        sees_hidden_npcs=session_access.is_gm or session_access.is_moderator,
    )


def may_read_secret(user, session: GameSession) -> bool:
    """A secret roll's hidden record and salt, before the reveal: its session's GM,
    and moderators (they audit; a dispute about a hidden roll is theirs to settle). Never a
    player, even one whose character the roll concerns."""
    return diary_permissions.is_gm(user, session) or is_moderator(user)


def session_for_reader(
    request, pk: int, *, lock: bool = False, annotations: dict | None = None
) -> GameSession:
    """The session a page of the rolls app reads, for a user who may read it (Http404
    otherwise: no one learns which sessions exist)."""
    # The current turn rides along: the panel and the roll read it off the row; so does the
    # catalogs' version, under which the forms find the catalogs cached (no query of its own).
    # `lock`: the row locked for the rest of the transaction
    # (rolls.ledger.chain_writer.lock_session).
    # `annotations`: what else a page reads with the row (the panel: the diary's newest
    # visible post, where its line says the GM's roll lands, rolls.panel.Panel.plan).
    # The co-GMs' ids too: whether the reader has the GM's powers costs no query of its own.
    version = {
        "catalog_version": catalog_version_subquery(),
        **co_gm_list_annotation(),
        **(annotations or {}),
    }
    if lock:
        try:
            session = lock_session(pk, related=("gm",), annotations=version)
        except GameSession.DoesNotExist:
            raise Http404 from None
    else:
        sessions = GameSession.objects.select_related("gm", "current_turn").annotate(**version)
        session = get_object_or_404(sessions, pk=pk)
    # Its GM always reads a session (diary.access.SessionAccess.can_read), which the row
    # already says: the participations and the moderator check are read for others only.
    if diary_permissions.is_gm(request.user, session):
        return session
    if not diary_permissions.can_read_session(request.user, session):
        raise Http404
    return session
