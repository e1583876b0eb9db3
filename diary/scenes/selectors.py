"""Scenes for a split party: the scenes a session runs beside its main one, who is in
which, and the diary's reads by scene.

The main scene has no row (a post or a participation with no scene is in it), so a session
that never splits reads nothing here: the diary asks with the session's row whether any
scene exists (`page_reads`), and reads the scenes only then, once per activity marker
(every scene change moves it, diary/scenes/services.py)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Exists, OuterRef, Q
from django.utils.translation import gettext

from diary.live.page_cache import memo
from diary.models import Participation, ParticipationStatus, Post, Scene

# ?scena=0: the main scene (it has no row, so no id of its own).
MAIN = 0


def main_scene_name() -> str:
    return gettext("Main scene")


@dataclass(frozen=True)
class SessionScenes:
    """The session's scenes beside the main one, oldest first (closed ones too: their posts
    stay in the diary)."""

    scenes: tuple[Scene, ...] = ()

    @property
    def split(self) -> bool:
        """The GM ever opened a second scene: only then does the diary speak of scenes."""
        return bool(self.scenes)

    @property
    def open_scenes(self) -> list[Scene]:
        return [scene for scene in self.scenes if scene.is_open]

    def name_of(self, scene_id: int | None) -> str:
        for scene in self.scenes:
            if scene.pk == scene_id:
                return scene.name
        return main_scene_name()

    def tabs(self) -> list[tuple[int, str, bool]]:
        """(the ?scena= value, the name, open) of each scene, the main one first."""
        return [(MAIN, main_scene_name(), True)] + [
            (scene.pk, scene.name, scene.is_open) for scene in self.scenes
        ]

    def chosen(self, raw: str | None) -> int | None:
        """The scene a diary's `?scena=` asks for (MAIN or a scene's id), None for every
        scene: a value naming no scene of this session shows them all."""
        if not self.split or raw is None:
            return None
        try:
            value = int(raw)
        except ValueError:
            return None
        if value == MAIN or any(scene.pk == value for scene in self.scenes):
            return value
        return None


def page_reads() -> dict:
    """What the diary reads with the session's row (diary.views.diary_page_reads): whether
    the session has any scene beside the main one."""
    return {"viewer_has_scenes": Exists(Scene.objects.filter(session=OuterRef("pk")))}


def session_scenes(session) -> SessionScenes:
    """The session's scenes: no query when its row said it has none, else one per activity
    marker."""
    if getattr(session, "viewer_has_scenes", True) is False:
        return SessionScenes()

    def read():
        return tuple(Scene.objects.filter(session_id=session.pk).order_by("created_at", "pk"))

    return SessionScenes(memo(("scenes", session.pk, session.activity_marker), read))


def in_scene(scene: int) -> Q:
    """The posts (or participations) of one scene: MAIN or a scene's id."""
    return Q(scene__isnull=True) if scene == MAIN else Q(scene_id=scene)


@dataclass(frozen=True)
class SceneAwaited:
    """One scene's part of the current turn: its characters present and those awaited."""

    scene_id: int | None
    name: str
    awaited: list
    present: int  # its characters, away or not


def awaited_by_scene(playing, awaited, scene_of: dict[int, int | None], scenes: SessionScenes):
    """The turn's awaited characters (diary.selectors.awaited_characters: the one rule)
    grouped by the scene each character is in now, one entry per scene with characters,
    the main scene first. The turn is the session's one turn: it is complete when every
    scene's characters present have acted."""
    waiting = {c.pk for c in awaited}
    groups: dict[int | None, list] = {}
    for character in playing:
        groups.setdefault(scene_of.get(character.pk), []).append(character)
    order = [None, *(scene.pk for scene in scenes.scenes)]
    return [
        SceneAwaited(
            scene_id=scene_id,
            name=scenes.name_of(scene_id),
            awaited=[c for c in groups[scene_id] if c.pk in waiting],
            present=len(groups[scene_id]),
        )
        for scene_id in order
        if scene_id in groups
    ]


def first_unread_in_scene(session, user, scene: int) -> int | None:
    """The first post of one scene the reader has not read (as diary.reading counts it:
    visible, not their own, after the mark or changed since it); one query on the scene's
    keyset index."""
    mark = getattr(session, "viewer_read_mark", None)
    if mark is None:
        return None
    seen = getattr(session, "viewer_read_seq", None) or 0
    return (
        Post.objects.filter(in_scene(scene), session_id=session.pk, hidden_at__isnull=True)
        .exclude(author=user.pk)
        .filter(Q(pk__gt=mark) | Q(changed_seq__gt=seen))
        .order_by("pk")
        .values_list("pk", flat=True)
        .first()
    )


def scene_of_post(post_id: int) -> int | None:
    """The scene a post is in (None: the main scene, or no such post); one query."""
    return Post.objects.filter(pk=post_id).values_list("scene_id", flat=True).first()


def first_unread_elsewhere(session, user, scene: int) -> int | None:
    """The first post the reader has not read in the other scenes: a page of one scene
    moves the read mark only up to it, so no post of another scene is read by skipping."""
    mark = getattr(session, "viewer_read_mark", None)
    if mark is None:
        return None
    return (
        Post.objects.filter(session_id=session.pk, pk__gt=mark, hidden_at__isnull=True)
        .exclude(in_scene(scene))
        .exclude(author=user.pk)
        .order_by("pk")
        .values_list("pk", flat=True)
        .first()
    )


@dataclass(frozen=True)
class ScenesPage:
    """The scenes page: every scene, the main one first, each with its playing characters."""

    scenes: tuple[Scene, ...]
    rows: list[tuple[int, str, Scene | None, list]]  # (?scena= value, name, scene, characters)
    characters: list  # every playing character, by name


def scenes_page(session) -> ScenesPage:
    """Two queries: the scenes, the playing characters with their scene."""
    scenes = tuple(Scene.objects.filter(session=session).order_by("created_at", "pk"))
    playing = list(
        Participation.objects.filter(session=session, status=ParticipationStatus.ACCEPTED)
        .select_related("character__owner")
        .order_by("character__name", "pk")
    )
    groups: dict[int | None, list] = {}
    for participation in playing:
        groups.setdefault(participation.scene_id, []).append(participation.character)
    rows = [(MAIN, main_scene_name(), None, groups.get(None, []))] + [
        (scene.pk, scene.name, scene, groups.get(scene.pk, [])) for scene in scenes
    ]
    return ScenesPage(scenes, rows, [p.character for p in playing])
