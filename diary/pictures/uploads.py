"""A post's pictures as uploaded: the limits, and each file checked and re-encoded twice
(the full picture and its thumbnail) by the portraits' checker (characters/portraits.py)."""

from dataclasses import dataclass

from characters.portraits import EncodedImage, image_decode, image_encode

PICTURES_PER_POST = 4
# A map scanned or drawn at a page's size is larger than a portrait's photo.
PICTURE_MAX_BYTES = 10 * 1024 * 1024
PICTURE_MAX_SIDE = 2048
PICTURE_THUMB_SIDE = 400
PICTURES_FOLDER = "pictures"


@dataclass(frozen=True)
class PictureUpload:
    """One picture ready to store: both encodings and its alt text."""

    full: EncodedImage
    thumb: EncodedImage
    alt: str


def picture_check_and_encode(uploaded, alt: str) -> PictureUpload:
    """The picture re-encoded, or ValidationError (a Polish message for its field)."""
    image = image_decode(uploaded, max_bytes=PICTURE_MAX_BYTES)
    return PictureUpload(
        full=image_encode(image, max_side=PICTURE_MAX_SIDE, folder=PICTURES_FOLDER),
        thumb=image_encode(image, max_side=PICTURE_THUMB_SIDE, folder=PICTURES_FOLDER),
        alt=alt,
    )
