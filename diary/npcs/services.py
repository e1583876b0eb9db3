"""Writes to a session's NPC roster.

Each service takes the acting user (`by`) and asks diary.access whether they may manage
the roster (`NpcAccess.can_manage`), raising PermissionDenied before anything is written:
services never trust a view.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from characters.models import Character
from characters.portraits import portrait_clear, portrait_store
from characters.systems import NPC_MODIFIER_LIMIT, NPC_MODIFIER_STEP
from diary.access import NpcAccess, session_access
from diary.models import (
    GONE_STATUSES,
    GameSession,
    Npc,
    NpcMode,
    NpcModifier,
    NpcModifierCorrection,
)
from diary.npcs.forms import npc_value_error


def _check_may_manage(session: GameSession, by) -> None:
    """The roster is the GM's until the session is finished (diary.access decides).

    The session's row is read again, locked, inside the caller's transaction, so a session
    finished meanwhile is seen as finished.
    """
    current = GameSession.objects.select_for_update().get(pk=session.pk)
    if not NpcAccess(session_access(by, current)).can_manage:
        raise PermissionDenied


def _check_name_free(session: GameSession, name: str, npc: Npc | None = None) -> None:
    others = Npc.objects.filter(session=session, name=name)
    if npc is not None:
        others = others.exclude(pk=npc.pk)
    if others.exists():
        raise ValidationError({"name": _("The session already has an NPC of this name.")})


def npc_create(
    *, session: GameSession, by, name: str, description: str, visible_to_players: bool
) -> Npc:
    with transaction.atomic():
        _check_may_manage(session, by)
        _check_name_free(session, name)
        npc = Npc.objects.create(
            session=session,
            name=name,
            description=description,
            visible_to_players=visible_to_players,
        )
    session.touch()
    return npc


def npc_update(*, npc: Npc, by, name: str, description: str, visible_to_players: bool) -> Npc:
    """NPCs are never deleted (a roll may name one): the GM hides them from players instead."""
    with transaction.atomic():
        _check_may_manage(npc.session, by)
        _check_name_free(npc.session, name, npc)
        npc.name = name
        npc.description = description
        npc.visible_to_players = visible_to_players
        npc.save(update_fields=["name", "description", "visible_to_players", "updated_at"])
    npc.session.touch()
    return npc


def check_npc_modifier(value: int, reason: str) -> None:
    """RULES 1.2 for an NPC's fixed modifier: a GM difficulty value, with a reason."""
    errors = {}
    if value == 0 or abs(value) > NPC_MODIFIER_LIMIT or value % NPC_MODIFIER_STEP:
        errors["value"] = npc_value_error()
    if not reason.strip():
        errors["reason"] = _("An NPC modifier needs a reason: the roll shows it to everyone.")
    if errors:
        raise ValidationError(errors)


def modifier_fixed_message(modifier: NpcModifier) -> str:
    """Why the GM may no longer change a modifier: the roll that used it first."""
    return _(
        "Roll #%(seq)s already used this modifier: it stays as it is for the rest of the "
        "session, the same for every character. Only a moderator may correct it."
    ) % {"seq": modifier.used_by_seq}


def _locked_modifier(modifier: NpcModifier) -> NpcModifier:
    """The modifier's row as it is now, held until the transaction ends (a roll marks it
    used under the session's lock, which the caller already holds)."""
    return NpcModifier.objects.select_for_update().get(pk=modifier.pk)


def npc_modifier_create(*, npc: Npc, by, interaction: str, value: int, reason: str) -> NpcModifier:
    with transaction.atomic():
        _check_may_manage(npc.session, by)
        check_npc_modifier(value, reason)
        existing = NpcModifier.objects.filter(npc=npc, interaction=interaction).first()
        if existing is not None and existing.used_by_seq:
            raise ValidationError({"interaction": modifier_fixed_message(existing)})
        if existing is not None:
            raise ValidationError(
                {"interaction": _("This NPC already has a modifier for this interaction.")}
            )
        modifier = NpcModifier.objects.create(
            npc=npc, interaction=interaction, value=value, reason=reason.strip()
        )
    npc.session.touch()
    return modifier


def npc_modifier_update(*, modifier: NpcModifier, by, value: int, reason: str) -> NpcModifier:
    """The GM changes a modifier no roll has used yet."""
    session = modifier.npc.session
    with transaction.atomic():
        _check_may_manage(session, by)
        modifier = _locked_modifier(modifier)
        if modifier.used_by_seq:
            raise ValidationError({"value": modifier_fixed_message(modifier)})
        check_npc_modifier(value, reason)
        modifier.value, modifier.reason = value, reason.strip()
        modifier.save(update_fields=["value", "reason"])
    session.touch()
    return modifier


def npc_modifier_delete(*, modifier: NpcModifier, by) -> None:
    """Only a modifier no roll has used: a used one stays for the whole session."""
    session = modifier.npc.session
    with transaction.atomic():
        _check_may_manage(session, by)
        modifier = _locked_modifier(modifier)
        if modifier.used_by_seq:
            raise ValidationError({"value": modifier_fixed_message(modifier)})
        modifier.delete()
    session.touch()


def npc_modifier_correct(
    *, modifier: NpcModifier, by, value: int, reason: str, note: str
) -> NpcModifierCorrection:
    """A moderator corrects a modifier (used or not), with a reason kept in the NPC's
    history: rolls already made keep their own copy (the roll record)."""
    session = modifier.npc.session
    with transaction.atomic():
        current = GameSession.objects.select_for_update().get(pk=session.pk)
        if not NpcAccess(session_access(by, current)).can_correct_modifiers:
            raise PermissionDenied
        modifier = _locked_modifier(modifier)
        check_npc_modifier(value, reason)
        if not note.strip():
            raise ValidationError(
                {"note": _("A correction needs its reason: it stays in the history.")}
            )
        correction = NpcModifierCorrection.objects.create(
            modifier=modifier,
            by=by,
            old_value=modifier.value,
            new_value=value,
            old_reason=modifier.reason,
            new_reason=reason.strip(),
            note=note.strip(),
        )
        modifier.value, modifier.reason = value, reason.strip()
        modifier.save(update_fields=["value", "reason"])
    session.touch()
    return correction


def stand_in_candidates(session: GameSession):
    """The GM's own sheets that could become a stand-in of this session's NPC."""
    return Character.objects.filter(
        owner_id=session.gm_id, system=session.system, npc_role__isnull=True
    ).order_by("name", "pk")


def npc_stand_in_set(*, npc: Npc, by, character) -> Npc:
    """Mode gm_character (seed lines 49, 182): the NPC is played through the GM's sheet,
    which becomes a stand-in: no items, never a participant, playing through its NPC."""
    session = npc.session
    with transaction.atomic():
        _check_may_manage(session, by)
        character = Character.objects.select_for_update().get(pk=character.pk)
        if session.npc_mode != NpcMode.GM_CHARACTER:
            raise ValidationError(
                _(
                    "This session gives NPCs fixed modifiers; "
                    "stand-in sheets are for the other mode."
                )
            )
        if npc.stand_in_id:
            raise ValidationError(_("This NPC already has its stand-in sheet."))
        if character.owner_id != session.gm_id or character.system != session.system:
            raise ValidationError(
                {
                    "character": _(
                        "A stand-in is one of the GM's own sheets, of the session's system."
                    )
                }
            )
        if Npc.objects.filter(stand_in=character).exists():
            raise ValidationError({"character": _("This sheet already stands in for an NPC.")})
        if character.item_holdings.exists():
            raise ValidationError(
                {"character": _("An NPC's stand-in sheet carries no items: remove them first.")}
            )
        if character.potions.filter(count__gt=0).exists():
            raise ValidationError(
                {"character": _("An NPC's stand-in sheet carries no potions or healing items.")}
            )
        if character.participations.exclude(status__in=GONE_STATUSES).exists():
            raise ValidationError(
                {"character": _("This sheet is on a session's list: a stand-in never is.")}
            )
        character.is_stand_in = True
        character.save(update_fields=["is_stand_in", "updated_at"])
        npc.stand_in = character
        npc.save(update_fields=["stand_in", "updated_at"])
    session.touch()
    return npc


# An NPC's portrait is checked and stored as a character's is (characters/portraits.py). A
# replaced or removed portrait's file is kept: posts the NPC spoke in keep showing the face
# they were written with (their speech blocks are rendered once, diary/posts/voices.py).


def npc_portrait_set(*, npc: Npc, by, portrait) -> Npc:
    with transaction.atomic():
        _check_may_manage(npc.session, by)
        npc = Npc.objects.select_for_update().get(pk=npc.pk)
        portrait_store(npc, portrait, keep_replaced=True)
    npc.session.touch()
    return npc


def npc_portrait_remove(*, npc: Npc, by) -> Npc:
    with transaction.atomic():
        _check_may_manage(npc.session, by)
        npc = Npc.objects.select_for_update().get(pk=npc.pk)
        portrait_clear(npc, keep_file=True)
    npc.session.touch()
    return npc
