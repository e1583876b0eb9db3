"""Reads of the pictures: each post's pictures on the diary page's own query (a JSON
column, no query more), the session's gallery, and the file a reader asks for."""

import json
import posixpath
from dataclasses import dataclass

from django.db import connection, models
from django.db.models import F, OuterRef, Subquery
from django.db.models.functions import JSONObject

from characters.sheet_rows import JSONRows
from diary.models import PostPicture

_COLUMNS = (
    "id",
    "image",
    "width",
    "height",
    "thumb",
    "thumb_width",
    "thumb_height",
    "alt",
    "position",
    "pinned_at",
)


@dataclass(frozen=True)
class PictureRow:
    id: int
    image: str
    width: int
    height: int
    thumb: str
    thumb_width: int
    thumb_height: int
    alt: str
    position: int
    pinned: bool

    @property
    def image_file(self) -> str:
        """The file's name in the picture's address (diary:picture_file)."""
        return posixpath.basename(self.image)

    @property
    def thumb_file(self) -> str:
        return posixpath.basename(self.thumb)


def with_pictures(posts):
    """The posts' queryset, each row carrying its pictures (read by `post_pictures`)."""
    rows = (
        PostPicture.objects.filter(post_id=OuterRef("pk"))
        .order_by()
        .values("post_id")
        .annotate(
            rows=JSONRows(
                JSONObject(**{name: F(name) for name in _COLUMNS}),
                order_by=[F("position"), F("id")],
            )
        )
        .values("rows")[:1]
    )
    return posts.annotate(picture_rows=Subquery(rows, output_field=models.TextField()))


def _row(data: dict) -> PictureRow:
    return PictureRow(
        **{name: data[name] for name in _COLUMNS if name != "pinned_at"},
        pinned=data["pinned_at"] is not None,
    )


def post_pictures(post) -> tuple[PictureRow, ...]:
    """The post's pictures in order: from its row when `with_pictures` read them, else one
    query (a post read elsewhere)."""
    if not hasattr(post, "picture_rows"):
        post.picture_rows = json.dumps(
            list(PostPicture.objects.filter(post_id=post.pk).values(*_COLUMNS)), default=str
        )
    if not post.picture_rows:
        return ()
    rows = [_row(data) for data in json.loads(post.picture_rows)]
    if connection.vendor == "sqlite":  # SQLite cannot order the aggregate
        rows.sort(key=lambda row: (row.position, row.id))
    return tuple(rows)


def session_pictures(session, *, see_hidden: bool) -> list[PostPicture]:
    """Every picture of the session the reader may see, oldest first (one query): those of
    hidden posts only for whoever reads hidden posts."""
    pictures = PostPicture.objects.filter(session=session).select_related(
        "post__character", "post__author", "post__turn"
    )
    if not see_hidden:
        pictures = pictures.filter(post__hidden_at__isnull=True)
    return list(pictures.order_by("post_id", "position", "id"))


def picture_by_file(session, name: str, *, see_hidden: bool) -> PostPicture | None:
    """A picture of the session stored under this file name (full or thumbnail) that the
    reader may see (one of a hidden post only for whoever reads hidden posts)."""
    pictures = PostPicture.objects.filter(session=session).filter(
        models.Q(image=name) | models.Q(thumb=name)
    )
    if not see_hidden:
        pictures = pictures.filter(post__hidden_at__isnull=True)
    return pictures.first()


def editable_pictures(post) -> list[PostPicture]:
    """The post's pictures in order, as its edit offers them for removal."""
    return list(PostPicture.objects.filter(post=post).order_by("position", "id"))
