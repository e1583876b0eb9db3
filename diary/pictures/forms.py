"""The pictures part of the post form: a few file slots, each with its required alt text,
and on an edit the post's pictures to remove. Each file is checked and re-encoded here
(diary/pictures/uploads.py), so a refused one says why next to its own field."""

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from characters.portraits import too_large_error
from diary.models import PICTURE_ALT_MAX
from diary.pictures.uploads import PICTURE_MAX_BYTES, PICTURES_PER_POST, picture_check_and_encode

ALT_REQUIRED = _("Describe the picture: its description (alt text) is required.")
CHOOSE_AGAIN = _(
    "Nothing was posted, and a browser does not keep chosen files: choose the pictures again."
)


class PicturesForm(forms.Form):
    """`existing`: the post's pictures (an edit), offered for removal and counted against
    PICTURES_PER_POST; `oversized`: the file fields the upload's size limit cut off."""

    def __init__(self, *args, existing=(), oversized=frozenset(), **kwargs):
        super().__init__(*args, **kwargs)
        self.existing = list(existing)
        self.oversized = set(oversized)
        # The page comes back without the files chosen (a refusal, a preview without JS).
        self.dropped = False
        self.slots = max(0, PICTURES_PER_POST - len(self.existing))
        for number in range(1, self.slots + 1):
            self.fields[f"picture_{number}"] = forms.FileField(
                label=_("Picture %(number)s") % {"number": number},
                required=False,
                help_text=_("JPEG, PNG, WebP or GIF, up to %(mb)s MB.")
                % {"mb": PICTURE_MAX_BYTES // 2**20},
                widget=forms.FileInput(
                    attrs={"accept": "image/jpeg,image/png,image/webp,image/gif"}
                ),
            )
            self.fields[f"alt_{number}"] = forms.CharField(
                label=_("Description of picture %(number)s (alt text)") % {"number": number},
                required=False,
                max_length=PICTURE_ALT_MAX,
                help_text=_("What the picture shows, for those who cannot see it."),
            )
        if self.existing:
            self.fields["remove_pictures"] = forms.MultipleChoiceField(
                label=_("Remove pictures"),
                required=False,
                choices=[(str(p.pk), p.alt) for p in self.existing],
                widget=forms.CheckboxSelectMultiple,
            )

    @property
    def sent_files(self) -> bool:
        return bool(self.files) or bool(self.oversized)

    def clean(self):
        cleaned = super().clean()
        images = []
        for number in range(1, self.slots + 1):
            file_field, alt_field = f"picture_{number}", f"alt_{number}"
            alt = (cleaned.get(alt_field) or "").strip()
            if file_field in self.oversized:
                self.errors.pop(file_field, None)
                self.add_error(file_field, too_large_error(PICTURE_MAX_BYTES))
                if not alt:
                    self.add_error(alt_field, ALT_REQUIRED)
                continue
            uploaded = cleaned.get(file_field)
            if not uploaded:
                continue
            if not alt and alt_field not in self.errors:
                self.add_error(alt_field, ALT_REQUIRED)
            try:
                picture = picture_check_and_encode(uploaded, alt)
            except ValidationError as error:
                self.add_error(file_field, error)
                continue
            if alt:
                images.append(picture)
        cleaned["images"] = tuple(images)
        cleaned["remove_pictures"] = tuple(int(pk) for pk in cleaned.get("remove_pictures", ()))
        return cleaned

    def shown_fields(self):
        """The slots as (file, alt) pairs of bound fields, for the template."""
        return [(self[f"picture_{n}"], self[f"alt_{n}"]) for n in range(1, self.slots + 1)]


class PicturePinForm(forms.Form):
    """Pin (`on`) or unpin (`off`): a state, so a repeated button sets it again."""

    pinned = forms.ChoiceField(choices=[("on", "on"), ("off", "off")])
