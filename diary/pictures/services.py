"""Writes of a post's pictures: stored with the post (in its transaction), removed on its
edit, pinned to the session's gallery by whoever runs the session."""

from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from diary.access import access_session
from diary.models import Post, PostPicture
from diary.pictures.uploads import PICTURES_PER_POST


def _stored(encoded) -> str:
    """The file under its content-hash name: the same picture posted twice is one file.
    A file a rolled-back post left behind is never served (only a row names a file)."""
    if default_storage.exists(encoded.name):
        return encoded.name
    return default_storage.save(encoded.name, ContentFile(encoded.content))


def pictures_attach(*, post: Post, images, by) -> list[PostPicture]:
    """Store checked pictures (diary/pictures/uploads.py) on a post, inside the caller's
    transaction, which has checked that `by` may write the post."""
    if not images:
        return []
    kept = PostPicture.objects.filter(post=post).count()
    if kept + len(images) > PICTURES_PER_POST:
        raise ValidationError(
            _("A post carries at most %(count)s pictures.") % {"count": PICTURES_PER_POST}
        )
    pictures = []
    for position, upload in enumerate(images, start=kept):
        pictures.append(
            PostPicture.objects.create(
                post=post,
                session_id=post.session_id,
                image=_stored(upload.full),
                width=upload.full.width,
                height=upload.full.height,
                thumb=_stored(upload.thumb),
                thumb_width=upload.thumb.width,
                thumb_height=upload.thumb.height,
                alt=upload.alt,
                position=position,
                added_by=by,
            )
        )
    return pictures


def pictures_remove(*, post: Post, picture_ids) -> None:
    """Remove some of a post's pictures, inside the caller's transaction (its edit, which
    has checked that the author may still change the post). Their files go once no other
    picture names them."""
    removed = list(PostPicture.objects.filter(post=post, pk__in=list(picture_ids)))
    if not removed:
        return
    PostPicture.objects.filter(pk__in=[p.pk for p in removed]).delete()
    names = {name for p in removed for name in (p.image, p.thumb)}

    def delete_unused():
        for name in names:
            if not PostPicture.objects.filter(Q(image=name) | Q(thumb=name)).exists():
                default_storage.delete(name)

    transaction.on_commit(delete_unused)


@transaction.atomic
def picture_pin(*, session_pk: int, picture_pk: int, by, pinned: bool) -> PostPicture:
    """Pin a picture of the session to its gallery, or unpin it: whoever runs the session."""
    access = access_session(by, session_pk, lock=True)
    if not access.session.runs(by):
        raise PermissionDenied
    picture = (
        PostPicture.objects.select_for_update()
        .select_related("post")
        .filter(session_id=session_pk, pk=picture_pk)
        .first()
    )
    if picture is None or not access.post(picture.post).can_see_content:
        raise ValidationError(_("This picture is no longer in the session."))
    picture.pinned_at = timezone.now() if pinned else None
    picture.save(update_fields=["pinned_at"])
    access.session.touch()
    return picture
