"""A draft as the composer shows it: "szkic zapisany 14:32" and what the form gets back."""

from django.utils import formats, timezone
from django.utils.translation import gettext as _


def saved_label(draft) -> str:
    """When the draft was saved, in the reader's time zone (the day too, when not today)."""
    saved = timezone.localtime(draft.updated_at)
    if saved.date() == timezone.localdate():
        when = formats.time_format(saved, "H:i")
    else:
        when = formats.date_format(saved, "j E H:i")
    return _("draft saved %(time)s") % {"time": when}


def draft_initial(draft, *, text_field: str, note_field: str | None = None) -> dict:
    """The form's initial values from a draft (nothing without one)."""
    if draft is None:
        return {}
    initial = {text_field: draft.text}
    if note_field:
        initial[note_field] = draft.note
    if draft.character_id:
        initial["character"] = draft.character_id
    return initial
