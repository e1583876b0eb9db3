"""Scenes' writes: whoever runs the session opens a scene, renames it, closes it, and moves
characters between scenes. Each checks who acts inside its transaction, under the session's
row lock, and moves the session's activity marker: the diary reads its scenes once per
marker (diary.scenes.selectors.session_scenes), and open diaries hear of the change."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from diary.access import SessionAccess, access_session
from diary.models import (
    SCENE_NAME_MAX,
    Participation,
    ParticipationStatus,
    Scene,
    SessionStatus,
)
from diary.scenes.selectors import main_scene_name

# Enough for any split party; a bound, so a form sent in a loop fills no table.
SCENES_MAX = 20


def _managed(by, session) -> SessionAccess:
    access = access_session(by, session.pk, lock=True)
    if not access.can_manage or access.session.status == SessionStatus.FINISHED:
        raise PermissionDenied(_("Only whoever runs the session manages its scenes."))
    return access


def _checked_name(session, name: str, *, scene: Scene | None = None) -> str:
    name = " ".join(name.split())
    if not name:
        raise ValidationError({"name": _("Give the scene a name.")})
    if len(name) > SCENE_NAME_MAX:
        raise ValidationError(
            {"name": _("A scene's name has at most %(max)s characters.") % {"max": SCENE_NAME_MAX}}
        )
    others = Scene.objects.filter(session=session, name__iexact=name)
    if scene is not None:
        others = others.exclude(pk=scene.pk)
    if others.exists() or name.casefold() == main_scene_name().casefold():
        raise ValidationError({"name": _("This session already has a scene of that name.")})
    return name


def _scene_of(session, scene_pk: int) -> Scene:
    scene = Scene.objects.filter(session=session, pk=scene_pk).first()
    if scene is None:
        raise ValidationError({"scene": _("This session has no such scene.")})
    return scene


@transaction.atomic
def scene_create(*, session, by, name: str) -> Scene:
    """A new scene beside the main one, with no one in it yet."""
    session = _managed(by, session).session
    name = _checked_name(session, name)
    if Scene.objects.filter(session=session).count() >= SCENES_MAX:
        raise ValidationError(
            {"name": _("A session runs at most %(max)s scenes.") % {"max": SCENES_MAX}}
        )
    scene = Scene.objects.create(session=session, name=name)
    session.touch()
    return scene


@transaction.atomic
def scene_rename(*, session, by, scene_pk: int, name: str) -> Scene:
    session = _managed(by, session).session
    scene = _scene_of(session, scene_pk)
    scene.name = _checked_name(session, name, scene=scene)
    scene.save(update_fields=["name"])
    session.touch()
    return scene


@transaction.atomic
def scene_close(*, session, by, scene_pk: int) -> Scene:
    """Close a scene: its characters go back to the main scene; its posts stay in it."""
    session = _managed(by, session).session
    scene = _scene_of(session, scene_pk)
    if scene.closed_at is not None:
        raise ValidationError({"scene": _("This scene is already closed.")})
    scene.closed_at = timezone.now()
    scene.save(update_fields=["closed_at"])
    Participation.objects.filter(session=session, scene=scene).update(scene=None)
    session.touch()
    return scene


@transaction.atomic
def scene_move(*, session, by, character_pk: int, scene_pk: int | None) -> Participation:
    """Move a playing character to a scene (None: the main scene); a character is in one
    scene at a time, and its next posts go there."""
    session = _managed(by, session).session
    participation = Participation.objects.filter(
        session=session, character_id=character_pk, status=ParticipationStatus.ACCEPTED
    ).first()
    if participation is None:
        raise ValidationError({"character": _("This character does not play in the session.")})
    scene = None
    if scene_pk is not None:
        scene = _scene_of(session, scene_pk)
        if scene.closed_at is not None:
            raise ValidationError({"scene": _("This scene is closed: no one joins it any more.")})
    participation.scene = scene
    participation.save(update_fields=["scene"])
    session.touch()
    return participation


def post_scene(access: SessionAccess, character, scene: int | None) -> int | None:
    """The scene a new post lands in (called by diary.services.post_create under the
    session's lock): a post narrated as a character, in that character's scene; else the
    open scene whoever runs the session chose; else, for a player, their character's scene
    (one character: the post is theirs); else the main scene (None). No query unless the
    GM names a scene or writes for another player's character."""
    if character is not None:
        for participation in access.my_participations:
            if participation.character_id == character.pk:
                return participation.scene_id
        return (
            Participation.objects.filter(session=access.session, character=character)
            .values_list("scene_id", flat=True)
            .first()
        )
    if access.is_gm:
        if scene is None:
            return None
        if not Scene.objects.filter(
            session=access.session, pk=scene, closed_at__isnull=True
        ).exists():
            raise ValidationError({"scene": _("Choose one of the session's open scenes.")})
        return scene
    playing = [p for p in access.my_participations if p.status == ParticipationStatus.ACCEPTED]
    return playing[0].scene_id if len(playing) == 1 else None


NOT_PLAYING = object()  # player_scene's answer for someone with no character playing here


def player_scene(user, session) -> int | None:
    """The scene a player's post holding only rolls lands in: their one playing character's
    (None: the main scene, or a player of several characters); NOT_PLAYING when no
    character of theirs plays here. One query."""
    if not user.is_authenticated:
        return NOT_PLAYING
    scenes = list(
        Participation.objects.filter(
            session=session, character__owner=user, status=ParticipationStatus.ACCEPTED
        ).values_list("scene_id", flat=True)
    )
    if not scenes:
        return NOT_PLAYING
    return scenes[0] if len(scenes) == 1 else None
