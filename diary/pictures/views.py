"""The pictures' pages: a picture's file (full or thumbnail) for whoever reads the
session's diary, the session's gallery, and the GM's pin. Also the upload limit the post
form's views put in place before the body is read.

Media under MEDIA_URL is public by its address (characters/media.py serves portraits);
a post's picture is not: its file is served here, after the same check as the diary's."""

from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.storage import default_storage
from django.http import FileResponse, Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_GET, require_POST

from characters.portraits import PortraitSizeLimit
from diary.access import access_session
from diary.pictures import selectors
from diary.pictures import services as picture_services
from diary.pictures.forms import PicturePinForm
from diary.pictures.uploads import PICTURE_MAX_BYTES, PICTURES_FOLDER


def upload_limited(view):
    """Put the pictures' size limit first among the upload handlers before anything reads
    the body: a file past PICTURE_MAX_BYTES is skipped as it is read (never kept), and the
    view finds its field in `request.oversized_pictures`. CSRF is checked after that, as
    it reads the body (the portrait upload does the same)."""
    protected = csrf_protect(view)

    @csrf_exempt  # only so the limit is in place before the body is read: checked below
    @wraps(view)
    def limited(request, *args, **kwargs):
        limit = PortraitSizeLimit(request, max_bytes=PICTURE_MAX_BYTES, skip_file=True)
        request.upload_handlers.insert(0, limit)
        request.oversized_pictures = limit.exceeded_fields
        return protected(request, *args, **kwargs)

    return limited


@login_required
@require_GET
def picture_file(request, pk: int, name: str):
    """A picture's file, for whoever may read the session's diary (a hidden post's only for
    whoever reads hidden posts); 404 for anything else."""
    access = access_session(request.user, pk)
    picture = selectors.picture_by_file(
        access.session, f"{PICTURES_FOLDER}/{name}", see_hidden=access.can_see_hidden_content
    )
    if picture is None:
        raise Http404
    stored = f"{PICTURES_FOLDER}/{name}"
    try:
        opened = default_storage.open(stored, "rb")
    except OSError:
        raise Http404 from None
    response = FileResponse(opened, content_type="image/webp")
    # The name is the content's hash, so it never changes; private: only this reader's.
    response["Cache-Control"] = "private, max-age=31536000, immutable"
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Security-Policy"] = "default-src 'none'"
    return response


@login_required
@require_GET
def gallery(request, pk: int):
    """The session's handouts the GM pinned, then every picture of the session."""
    access = access_session(request.user, pk)
    pictures = selectors.session_pictures(access.session, see_hidden=access.can_see_hidden_content)
    return render(
        request,
        "diary/pictures/gallery.html",
        {
            "session": access.session,
            "pinned": [p for p in pictures if p.pinned_at is not None],
            "pictures": pictures,
            "can_pin": access.session.runs(request.user),
        },
    )


@login_required
@require_POST
def picture_pin(request, pk: int, picture_pk: int):
    access = access_session(request.user, pk)
    if not access.session.runs(request.user):
        raise PermissionDenied
    form = PicturePinForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose to pin the picture or to unpin it."))
        return redirect("diary:gallery", pk=pk)
    pinned = form.cleaned_data["pinned"] == "on"
    try:
        picture_services.picture_pin(
            session_pk=pk, picture_pk=picture_pk, by=request.user, pinned=pinned
        )
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        if pinned:
            messages.success(request, _("The picture is pinned in the gallery."))
        else:
            messages.success(request, _("The picture is unpinned."))
    return redirect("diary:gallery", pk=pk)
