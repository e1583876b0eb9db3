"""Portrait uploads: check an uploaded image by its content, then re-encode it.

Nothing the user sent is stored as is: the image is decoded by Pillow, turned the
right way up (EXIF orientation), stripped of every metadata block (EXIF, GPS, ICC,
comments), bounded to PORTRAIT_MAX_SIDE and saved as WebP under a content-hash name.
"""

import hashlib
import io
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.core.files.uploadhandler import FileUploadHandler, StopUpload
from django.utils.translation import gettext_lazy as _
from PIL import Image, ImageOps

PORTRAIT_MAX_BYTES = 5 * 1024 * 1024
PORTRAIT_MIN_SIDE = 32
PORTRAIT_MAX_SOURCE_SIDE = 8000
PORTRAIT_MAX_SOURCE_PIXELS = 40_000_000
PORTRAIT_MAX_SIDE = 512
ACCEPTED_FORMATS = {"JPEG", "PNG", "WEBP", "GIF"}


@dataclass(frozen=True)
class Portrait:
    name: str
    content: bytes
    width: int
    height: int


def too_large_error() -> ValidationError:
    return ValidationError(
        _("The file is too large (at most %(mb)d MB).") % {"mb": PORTRAIT_MAX_BYTES // 2**20},
        code="too_large",
    )


class PortraitSizeLimit(FileUploadHandler):
    """Stops keeping an upload once it passes PORTRAIT_MAX_BYTES: a 2 GB "portrait" is read
    off the socket (so the answer is a clean form error) but never written to a temporary
    file. Put first in request.upload_handlers before the body is parsed."""

    def __init__(self, request=None):
        super().__init__(request)
        self.received = 0
        self.exceeded = False

    def new_file(self, *args, **kwargs):
        self.received = 0
        super().new_file(*args, **kwargs)

    def receive_data_chunk(self, raw_data, start):
        self.received += len(raw_data)
        if self.received > PORTRAIT_MAX_BYTES:
            self.exceeded = True
            raise StopUpload(connection_reset=False)
        return raw_data  # the next handler (memory or temporary file) keeps it

    def file_complete(self, file_size):
        return None


def portrait_check_and_encode(uploaded) -> Portrait:
    """Return the re-encoded portrait or raise ValidationError (in Polish via gettext)."""
    # The size first, from what the upload handler already counted: never read a huge file.
    if uploaded.size is None or uploaded.size > PORTRAIT_MAX_BYTES:
        raise too_large_error()
    uploaded.seek(0)
    data = uploaded.read(PORTRAIT_MAX_BYTES + 1)
    if len(data) > PORTRAIT_MAX_BYTES:
        raise too_large_error()
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
    image.thumbnail((PORTRAIT_MAX_SIDE, PORTRAIT_MAX_SIDE), Image.Resampling.LANCZOS)
    clean = Image.new(image.mode, image.size)  # a fresh image carries no info/metadata
    clean.paste(image)
    out = io.BytesIO()
    clean.save(out, format="WEBP", quality=85, method=4)
    content = out.getvalue()
    digest = hashlib.sha256(content).hexdigest()[:32]
    return Portrait(
        name=f"portraits/{digest}.webp", content=content, width=clean.width, height=clean.height
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
