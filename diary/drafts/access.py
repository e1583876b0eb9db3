"""Where a draft belongs and whether its author may keep one there.

A place is named in the URL by a slug: `post`, `ooc`, `plan`, or `whisper-<thread id>`.
Who may not read the session gets the session's own 404/403; a member who may no longer
write there (the session finished, they left, the plan went to review) gets a refusal in
words, because their text cannot be posted anyway."""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.http import Http404
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from diary.access import SessionAccess, access_ooc, access_session, access_whisper
from diary.models import DraftPlace, GameSession, TalkThread

WHISPER_SLUG = re.compile(r"^whisper-(\d{1,18})$")


@dataclass(frozen=True)
class DraftAccess:
    session_access: SessionAccess
    place: str
    thread: TalkThread | None
    can_write: bool
    refusal: str

    @property
    def session(self) -> GameSession:
        return self.session_access.session

    @property
    def slug(self) -> str:
        return place_slug(self.place, self.thread)

    @property
    def page_url(self) -> str:
        """Where the form of this place is, to go back to."""
        session_pk = self.session.pk
        if self.place == DraftPlace.OOC:
            return reverse("diary:ooc", args=[session_pk])
        if self.place == DraftPlace.WHISPER:
            return reverse("diary:whisper", args=[session_pk, self.thread.pk])
        if self.place == DraftPlace.PLAN:
            return reverse("diary:session_plan", args=[session_pk])
        return reverse("diary:session", args=[session_pk]) + "#write"


def place_slug(place: str, thread: TalkThread | None = None) -> str:
    return f"{place}-{thread.pk}" if place == DraftPlace.WHISPER else str(place)


def access_draft(user, pk: int, slug: str) -> DraftAccess:
    """The draft place `slug` of session `pk` for `user` (404 for a slug that names none)."""
    whisper = WHISPER_SLUG.match(slug)
    if whisper:
        talk = access_whisper(user, pk, int(whisper.group(1)))
        return DraftAccess(
            session_access=talk.session_access,
            place=DraftPlace.WHISPER,
            thread=talk.thread,
            can_write=talk.can_write,
            refusal=_(
                "You no longer write in this whisper, so its draft is not kept. Copy your "
                "text if you need it."
            ),
        )
    if slug == DraftPlace.OOC:
        talk = access_ooc(user, pk)
        return DraftAccess(
            session_access=talk.session_access,
            place=DraftPlace.OOC,
            thread=None,
            can_write=talk.can_write,
            refusal=_(
                "You no longer write in this session's OOC thread, so its draft is not kept. "
                "Copy your text if you need it."
            ),
        )
    if slug == DraftPlace.POST:
        access = access_session(user, pk)
        return DraftAccess(
            session_access=access,
            place=DraftPlace.POST,
            thread=None,
            can_write=access.can_post,
            refusal=_(
                "You can no longer post in this session (it is finished, or you no longer "
                "play in it), so the draft is not kept. Copy your text if you need it."
            ),
        )
    if slug == DraftPlace.PLAN:
        access = access_session(user, pk)
        return DraftAccess(
            session_access=access,
            place=DraftPlace.PLAN,
            thread=None,
            can_write=access.can_edit_plan,
            refusal=_(
                "The plan can no longer be edited (it is submitted or accepted), so its "
                "draft is not kept. Copy your text if you need it."
            ),
        )
    raise Http404
