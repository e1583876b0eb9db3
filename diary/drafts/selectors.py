"""Reads of drafts: the author's draft at one place (one query), and the diary's draft read
with the session's row (no query of its own)."""

from __future__ import annotations

from django.db.models import OuterRef, Subquery

from diary.models import Draft, DraftPlace, GameSession, TalkThread

_POST_DRAFT_FIELDS = ("pk", "text", "note", "character_id", "updated_at")


def draft_for(user, session: GameSession, place: str, thread: TalkThread | None = None):
    """The user's draft at this place of the session, or None."""
    if not user.is_authenticated:
        return None
    drafts = Draft.objects.filter(author=user, session=session, place=place)
    drafts = drafts.filter(thread=thread) if thread is not None else drafts.filter(thread=None)
    return drafts.first()


def post_draft_annotations(user) -> dict:
    """The reader's draft of a new post, as columns of the session's row
    (`viewer_draft_<field>`), for the diary page that reads its session in one query."""
    if not user.is_authenticated:
        return {}
    drafts = Draft.objects.filter(
        author=user.pk, session=OuterRef("pk"), place=DraftPlace.POST, thread=None
    )
    return {
        f"viewer_draft_{name}": Subquery(drafts.values(name)[:1]) for name in _POST_DRAFT_FIELDS
    }


def post_draft_from(session: GameSession, user) -> Draft | None:
    """The draft post_draft_annotations read with the session (None without one)."""
    if getattr(session, "viewer_draft_pk", None) is None:
        return None
    return Draft(
        pk=session.viewer_draft_pk,
        author_id=user.pk,
        session=session,
        place=DraftPlace.POST,
        text=session.viewer_draft_text,
        note=session.viewer_draft_note,
        character_id=session.viewer_draft_character_id,
        updated_at=session.viewer_draft_updated_at,
    )
