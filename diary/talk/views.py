"""Table talk's pages: the session's OOC thread, its whispers, a whisper, a new whisper.

Nothing here is shown in the diary. A refusal inside a session the user reads is a page
that says why (403), as everywhere."""

from functools import partial

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from config.form_errors import apply_service_errors, posted
from config.rate_limits import rate_limited
from diary.access import TalkAccess, access_ooc, access_whisper, access_whispers, polls_access
from diary.board.selectors import pinned_announcements
from diary.drafts.access import place_slug
from diary.drafts.presenters import draft_initial
from diary.drafts.selectors import draft_for
from diary.models import DraftPlace, TalkKind
from diary.polls.selectors import session_polls
from diary.talk import selectors as talk_selectors
from diary.talk import services as talk_services
from diary.talk.forms import TalkMessageForm, WhisperForm


def _refused(request, session, message: str):
    return render(
        request, "diary/talk_refused.html", {"session": session, "message": message}, status=403
    )


def _ooc_extras(talk: TalkAccess) -> dict:
    """Above the OOC thread: the GM's pinned announcements and the session's polls, the open
    ones first."""
    if talk.kind != TalkKind.OOC:
        return {}
    flags = polls_access(talk.session_access)
    rows = [
        {"poll": poll, "is_closed": flags.poll(poll).is_closed}
        for poll in session_polls(talk.session)
    ]
    return {
        "announcements": pinned_announcements(talk.session),
        "poll_rows": sorted(rows, key=lambda row: row["is_closed"]),
        "can_create_poll": flags.can_create,
        "shows_polls": True,
    }


def _thread_page(request, talk: TalkAccess, form: TalkMessageForm | None, *, status: int = 200):
    """The thread's messages, "New" on those past the reader's mark; showing them reads
    them (the mark moves, the notifications about the thread are read)."""
    messages = talk_selectors.thread_messages(talk.thread)
    mark = talk_selectors.read_mark(request.user, talk.thread) if talk.keeps_read_mark else None
    for message in messages:
        message.is_new = (
            mark is not None and message.pk > mark and (message.author_id != request.user.pk)
        )
    if talk.keeps_read_mark and messages and messages[-1].pk > mark:
        talk_services.talk_thread_read(
            user=request.user, thread=talk.thread, newest_id=messages[-1].pk
        )
    draft = None
    if talk.can_write:
        place = DraftPlace.WHISPER if talk.kind == TalkKind.WHISPER else DraftPlace.OOC
        draft = draft_for(request.user, talk.session, place, talk.thread if talk.thread else None)
    if form is None and talk.can_write:
        # The writer's unsent draft comes back, from whichever device it was typed on.
        form = TalkMessageForm(initial=draft_initial(draft, text_field="text"))
    return render(
        request,
        "diary/talk_thread.html",
        {
            "session": talk.session,
            "talk": talk,
            "thread": talk.thread,
            "talk_messages": messages,
            "form": form if talk.can_write else None,
            "draft": draft,
            "draft_place": place_slug(place, talk.thread) if talk.can_write else "",
            "members": list(talk.thread.members.order_by("username"))
            if talk.thread is not None and talk.thread.is_whisper
            else [],
            **_ooc_extras(talk),
        },
        status=status,
    )


def _message_url(message) -> str:
    return f"{message.thread.get_absolute_url()}#message-{message.pk}"


def _thread_view(request, talk: TalkAccess, *, create, refusal: str):
    """A thread's page for both kinds of talk: GET shows it; POST writes a message with
    `create(**the form's data)` and leads to it, or shows the form again with its errors (400), or,
    for who may not write, a page that says why (`refusal`)."""
    form = None
    if request.method == "POST":
        if not talk.can_write:
            return _refused(request, talk.session, refusal)
        form = TalkMessageForm(posted(request))
        if form.is_valid():
            try:
                message = create(**form.cleaned_data)
            except ValidationError as error:
                apply_service_errors(form, error)
            else:
                return redirect(_message_url(message))
    return _thread_page(request, talk, form, status=400 if form is not None else 200)


@login_required
@require_http_methods(["GET", "POST"])
@rate_limited("post")
def ooc(request, pk: int):
    """The session's out-of-character talk: every reader of the diary reads it, the GM and
    the players write."""
    talk = access_ooc(request.user, pk)
    return _thread_view(
        request,
        talk,
        create=partial(talk_services.ooc_message_create, session=talk.session, author=request.user),
        refusal=_(
            "Only the GM and the players of this session write here, and not once it is finished."
        ),
    )


@login_required
@require_GET
def whispers(request, pk: int):
    """The user's whispers in the session (a moderator's audit: all of them)."""
    access = access_whispers(request.user, pk)
    if not access.can_open:
        return _refused(
            request,
            access.session,
            _("Whispers are for the GM and the players of this session."),
        )
    threads = talk_selectors.whisper_threads(request.user, access.session, every=access.sees_all)
    return render(
        request,
        "diary/whispers.html",
        {"session": access.session, "access": access, "threads": threads},
    )


@login_required
@require_http_methods(["GET", "POST"])
@rate_limited("post")
def whisper_new(request, pk: int):
    """Start a whisper: the GM to chosen players, a player to the GM."""
    access = access_whispers(request.user, pk)
    if not access.can_start:
        return _refused(
            request,
            access.session,
            _(
                "Only the GM and the players of this session start whispers, and not once it is "
                "finished."
            ),
        )
    is_gm = access.session_access.is_gm
    recipients = talk_selectors.whisper_recipients(access.session) if is_gm else None
    form = WhisperForm(posted(request), recipients=recipients)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            thread = talk_services.whisper_create(
                session=access.session,
                by=request.user,
                players=list(data.get("players") or []),
                subject=data["subject"],
                text=data["text"],
                token=data["token"],
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            return redirect(thread.get_absolute_url())
    return render(
        request,
        "diary/whisper_new.html",
        {"session": access.session, "form": form, "is_gm": is_gm},
        status=400 if request.method == "POST" else 200,
    )


@login_required
@require_http_methods(["GET", "POST"])
@rate_limited("post")
def whisper(request, pk: int, thread_pk: int):
    """One whisper: its members read and write; moderators read it; nobody else."""
    talk = access_whisper(request.user, pk, thread_pk)
    if not talk.can_read:
        return _refused(
            request,
            talk.session,
            _("This whisper is private: only the GM and the players it was started with read it."),
        )
    return _thread_view(
        request,
        talk,
        create=partial(
            talk_services.whisper_message_create, thread=talk.thread, author=request.user
        ),
        refusal=_("Only this whisper's members write in it, and not once the session is finished."),
    )
