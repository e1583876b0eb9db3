"""Writes of drafts: save (one per author and place), discard, and the deletion that
posting does in the post's own transaction."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.utils import timezone

from characters.models import Character
from diary.drafts.access import DraftAccess
from diary.models import Draft, GameSession, TalkThread


def _drafts_of(author, session: GameSession | int, place: str, thread: TalkThread | None):
    drafts = Draft.objects.filter(author=author, session=session, place=place)
    return drafts.filter(thread=thread) if thread is not None else drafts.filter(thread=None)


def draft_save(
    *, place: DraftAccess, author, text: str, note: str = "", character: Character | None = None
) -> Draft | None:
    """The author's draft at this place now holds `text`, `note` and `character`; an empty
    text and note leave no draft (None). Refused (PermissionDenied with the place's words)
    to whoever may no longer write there."""
    if not place.can_write:
        raise PermissionDenied(place.refusal)
    if character is not None and character not in place.session_access.my_characters:
        # Only the author's own characters are kept; the post form refuses any other anyway.
        character = None
    if not text.strip() and not note.strip():
        _drafts_of(author, place.session, place.place, place.thread).delete()
        return None
    values = {"text": text, "note": note, "character": character, "updated_at": timezone.now()}
    try:
        with transaction.atomic():
            draft, _created = _drafts_of(
                author, place.session, place.place, place.thread
            ).update_or_create(
                defaults=values,
                create_defaults={
                    **values,
                    "author": author,
                    "session": place.session,
                    "place": place.place,
                    "thread": place.thread,
                },
            )
    except IntegrityError:
        # Two saves of the same draft at once (two tabs): the other created it first.
        _drafts_of(author, place.session, place.place, place.thread).update(**values)
        draft = _drafts_of(author, place.session, place.place, place.thread).get()
    return draft


def draft_discard(*, place: DraftAccess, author) -> None:
    """The author throws their draft at this place away (nothing to discard is no error).
    Allowed whatever the place's state: it only deletes the author's own text."""
    _drafts_of(author, place.session, place.place, place.thread).delete()


def draft_posted(
    *, author, session: GameSession | int, place: str, thread: TalkThread | None = None
) -> None:
    """What was drafted has been posted: called inside the post's (or message's, or plan's)
    own transaction, so the draft goes only with a write that stays."""
    _drafts_of(author, session, place, thread).delete()
