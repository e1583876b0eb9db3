"""Image uploads (portraits, and the pictures attached to diary posts): check an uploaded
image by its content, then re-encode it.

Nothing the user sent is stored as is: the image is decoded by Pillow (its format read from
the bytes, never from the name or the declared type; SVG and anything else Pillow does not
decode is refused), turned the right way up (EXIF orientation), stripped of every metadata
block (EXIF, GPS, ICC, comments), bounded to a largest side (a portrait: PORTRAIT_MAX_SIDE)
and saved as WebP under a content-hash name. `image_decode` and `image_encode` are the two
halves, for a caller that keeps more than one size of the same upload (diary/pictures/).
"""

import hashlib
import io
from dataclasses import dataclass
from functools import wraps

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.files.uploadhandler import FileUploadHandler, SkipFile, StopUpload
from django.db import transaction
from django.utils.translation import gettext_lazy as _
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from PIL import Image, ImageOps

PORTRAIT_MAX_BYTES = 5 * 1024 * 1024
PORTRAIT_MIN_SIDE = 32
PORTRAIT_MAX_SOURCE_SIDE = 8000
PORTRAIT_MAX_SOURCE_PIXELS = 40_000_000
PORTRAIT_MAX_SIDE = 512
ACCEPTED_FORMATS = {"JPEG", "PNG", "WEBP", "GIF"}


@dataclass(frozen=True)
class EncodedImage:
    name: str
    content: bytes
    width: int
    height: int


Portrait = EncodedImage


def too_large_error(max_bytes: int | None = None) -> ValidationError:
    return ValidationError(
        _("The file is too large (at most %(mb)d MB).")
        % {"mb": (max_bytes or PORTRAIT_MAX_BYTES) // 2**20},
        code="too_large",
    )


class PortraitSizeLimit(FileUploadHandler):
    """Stops keeping an upload once it passes its limit (PORTRAIT_MAX_BYTES unless
    `max_bytes`): a 2 GB "portrait" is read off the socket (so the answer is a clean form
    error) but never written to a temporary file. Put first in request.upload_handlers
    before the body is parsed. `skip_file`: a form with several files and fields after
    them skips only the file past the limit and reads on (`exceeded_fields` names them),
    where a lone portrait stops the upload there."""

    def __init__(self, request=None, *, max_bytes: int | None = None, skip_file: bool = False):
        super().__init__(request)
        self.received = 0
        self.exceeded = False
        self.exceeded_fields: set[str] = set()
        self.max_bytes = max_bytes
        self.skip_file = skip_file

    def new_file(self, *args, **kwargs):
        self.received = 0
        super().new_file(*args, **kwargs)

    def receive_data_chunk(self, raw_data, start):
        self.received += len(raw_data)
        if self.received > (self.max_bytes or PORTRAIT_MAX_BYTES):
            self.exceeded = True
            self.exceeded_fields.add(self.field_name)
            if self.skip_file:
                raise SkipFile
            raise StopUpload(connection_reset=False)
        return raw_data  # the next handler (memory or temporary file) keeps it

    def file_complete(self, file_size):
        return None


def with_portrait_size_limit(view):
    """A portrait upload view, called as view(request, size_limit, *args, **kwargs) with
    PortraitSizeLimit first among the request's upload handlers. The CSRF check runs after
    the limit is in place: reading the token parses the body, too late to add a handler."""
    protected = csrf_protect(view)

    @csrf_exempt  # only so the size limit is in place before the body is read: checked below
    @wraps(view)
    def limited(request, *args, **kwargs):
        size_limit = PortraitSizeLimit(request)
        request.upload_handlers.insert(0, size_limit)
        return protected(request, size_limit, *args, **kwargs)

    return limited


def portrait_check_and_encode(uploaded) -> Portrait:
    """Return the re-encoded portrait or raise ValidationError (in Polish via gettext)."""
    return image_encode(image_decode(uploaded), max_side=PORTRAIT_MAX_SIDE, folder="portraits")


def image_decode(uploaded, *, max_bytes: int | None = None) -> Image.Image:
    """The upload decoded, upright and in RGB(A), or ValidationError (in Polish via gettext)."""
    max_bytes = max_bytes or PORTRAIT_MAX_BYTES
    # The size first, from what the upload handler already counted: never read a huge file.
    if uploaded.size is None or uploaded.size > max_bytes:
        raise too_large_error(max_bytes)
    uploaded.seek(0)
    data = uploaded.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise too_large_error(max_bytes)
    not_an_image = ValidationError(
        _("This file is not an image (JPEG, PNG, WebP or GIF)."), code="not_image"
    )
    try:
        with Image.open(io.BytesIO(data)) as probe:
            if probe.format not in ACCEPTED_FORMATS:
                raise not_an_image
            width, height = probe.size
            _check_dimensions(width, height)
            probe.verify()
        # verify() leaves the image unusable; open again to decode it whole.
        with Image.open(io.BytesIO(data)) as image:
            image.seek(0)  # GIF/WebP animations: the first frame only
            image.load()
            image = ImageOps.exif_transpose(image)
            image = image.convert("RGBA" if _has_alpha(image) else "RGB")
    except ValidationError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ValidationError(_("The image has too many pixels."), code="too_big") from None
    except Exception:
        raise not_an_image from None
    return image


def image_encode(image: Image.Image, *, max_side: int, folder: str) -> EncodedImage:
    """A decoded image (image_decode) bounded to `max_side`, as WebP named by its content
    under `folder`; the image given is left as it was."""
    image = image.copy()
    image.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
    clean = Image.new(image.mode, image.size)  # a fresh image carries no info/metadata
    clean.paste(image)
    out = io.BytesIO()
    clean.save(out, format="WEBP", quality=85, method=4)
    content = out.getvalue()
    digest = hashlib.sha256(content).hexdigest()[:32]
    return EncodedImage(
        name=f"{folder}/{digest}.webp", content=content, width=clean.width, height=clean.height
    )


def _check_dimensions(width: int, height: int) -> None:
    if min(width, height) < PORTRAIT_MIN_SIDE:
        raise ValidationError(
            _("The image is too small (at least %(px)d×%(px)d pixels).")
            % {"px": PORTRAIT_MIN_SIDE},
            code="too_small",
        )
    if max(width, height) > PORTRAIT_MAX_SOURCE_SIDE or width * height > PORTRAIT_MAX_SOURCE_PIXELS:
        raise ValidationError(
            _("The image is too large (at most %(px)d pixels on a side).")
            % {"px": PORTRAIT_MAX_SOURCE_SIDE},
            code="too_big",
        )


def _has_alpha(image: Image.Image) -> bool:
    return image.mode in {"RGBA", "LA", "PA"} or (
        image.mode == "P" and "transparency" in image.info
    )


def portrait_store(owner, portrait: Portrait, *, keep_replaced: bool = False) -> None:
    """Save a checked portrait's file and put it on `owner` (a model with `portrait`,
    `portrait_width` and `portrait_height`: a character, a session's NPC), inside the
    caller's transaction. The file it replaces is deleted once that commits, unless
    `keep_replaced` (pages written earlier still show it)."""
    old_name = owner.portrait.name
    stored_name = default_storage.save(portrait.name, ContentFile(portrait.content))
    owner.portrait.name = stored_name
    owner.portrait_width = portrait.width
    owner.portrait_height = portrait.height
    owner.save(update_fields=["portrait", "portrait_width", "portrait_height"])
    if old_name and old_name != stored_name and not keep_replaced:
        transaction.on_commit(lambda: default_storage.delete(old_name))


def portrait_clear(owner, *, keep_file: bool = False) -> None:
    """Take `owner`'s portrait away (nothing to do when it has none: a second click,
    another tab); its file is deleted once the caller's transaction commits, unless
    `keep_file`."""
    old_name = owner.portrait.name
    if not old_name:
        return
    owner.portrait.name = ""
    owner.portrait_width = owner.portrait_height = 0
    owner.save(update_fields=["portrait", "portrait_width", "portrait_height"])
    if not keep_file:
        transaction.on_commit(lambda: default_storage.delete(old_name))
