"""What the diary page shows of scenes: the chosen scene (`?scena=`), each post's scene name,
"Czekamy na" per scene, and the first unread post of the scene being read."""

from __future__ import annotations

from dataclasses import dataclass

from django.urls import reverse

from diary.scenes import selectors as scene_selectors
from diary.scenes.selectors import SessionScenes


@dataclass(frozen=True)
class DiaryScenes:
    scenes: SessionScenes
    chosen: int | None  # MAIN or a scene's id; None: every scene

    @property
    def query(self) -> str:
        """The filter as a query string's part, kept by the page's links ("" for all)."""
        return "" if self.chosen is None else f"scena={self.chosen}"

    @property
    def filter(self):
        return None if self.chosen is None else scene_selectors.in_scene(self.chosen)

    def context(self) -> dict:
        return {"scenes": self.scenes, "scene_filter": self.chosen, "scene_query": self.query}


def diary_scenes(session, raw: str | None) -> DiaryScenes:
    scenes = scene_selectors.session_scenes(session)
    return DiaryScenes(scenes, scenes.chosen(raw))


def mark_posts(posts, scenes: DiaryScenes) -> None:
    """Each post's scene name, shown in the view of every scene of a split session."""
    if not scenes.scenes.split:
        return
    for post in posts:
        post.scene_name = scenes.scenes.name_of(post.scene_id)


def read_in_scene(session, user, scenes: DiaryScenes) -> int | None:
    """A page of one scene reads that scene: its first unread post becomes the page's (the
    "New" mark, the link, the recap's place). The read mark stays one per session, so the
    page moves it only up to the first unread post of another scene: returns that post's
    id (None: nothing unread elsewhere). Two queries, none without a filter or a mark."""
    if scenes.chosen is None or getattr(session, "viewer_read_mark", None) is None:
        return None
    session.viewer_first_unread = scene_selectors.first_unread_in_scene(
        session, user, scenes.chosen
    )
    return scene_selectors.first_unread_elsewhere(session, user, scenes.chosen)


def posts_read(posts, scenes: DiaryScenes, unread_elsewhere: int | None) -> list:
    """The posts showing this page reads: on a page of one scene, those before another
    scene's first unread post (read_in_scene)."""
    if scenes.chosen is None or unread_elsewhere is None:
        return posts
    return [post for post in posts if post.pk < unread_elsewhere]


def first_unread_url(session_id: int, first_unread: int | None, shown, scenes) -> str | None:
    """The link to the first unread post when a scene is chosen (None: the diary's own)."""
    if scenes.chosen is None or first_unread is None:
        return None
    if first_unread in shown:
        return f"#post-{first_unread}"
    diary = reverse("diary:session", args=[session_id])
    return f"{diary}?{scenes.query}&after={first_unread - 1}#post-{first_unread}"


def awaited_per_scene(status, participations, scenes: DiaryScenes):
    """ "Czekamy na" per scene (None unless the session is split); the roster's lines say
    each character's scene too."""
    if not scenes.scenes.split:
        return None
    for participation in participations:
        participation.scene_name = scenes.scenes.name_of(participation.scene_id)
    if status is None:
        return None
    playing = [c.character for c in status.characters]
    scene_of = {p.character_id: p.scene_id for p in participations}
    return scene_selectors.awaited_by_scene(playing, status.awaited, scene_of, scenes.scenes)


def first_unread_scene(first_unread: int | None, posts, scenes: DiaryScenes) -> str:
    """The scene of the first unread post, said beside its link in a split session's view of
    every scene ("" otherwise): from the page when it shows the post, else one query."""
    if first_unread is None or not scenes.scenes.split or scenes.chosen is not None:
        return ""
    for post in posts:
        if post.pk == first_unread:
            return scenes.scenes.name_of(post.scene_id)
    return scenes.scenes.name_of(scene_selectors.scene_of_post(first_unread))
