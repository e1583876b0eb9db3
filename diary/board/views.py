"""The notice board's pages: the board (every reader of the session; the GM manages it
there), a new announcement, an announcement's edit, taking one down or pinning it again.

A refusal inside a session the user reads is a page that says why (403), as everywhere."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from config.form_errors import apply_service_errors, posted
from config.rate_limits import rate_limited
from diary.access import access_announcement, access_board
from diary.board import selectors as board_selectors
from diary.board import services as board_services
from diary.board.forms import AnnouncementForm, NewAnnouncementForm, PinForm


def _refused(request, session):
    message = _("Only the GM writes on the notice board, and not once the session is finished.")
    return render(
        request, "diary/talk_refused.html", {"session": session, "message": message}, status=403
    )


@login_required
@require_GET
def board(request, pk: int):
    """Every announcement of the session: the pinned ones, then those taken down."""
    access = access_board(request.user, pk)
    pinned, taken_down = board_selectors.board_announcements(access.session)
    return render(
        request,
        "diary/board/board.html",
        {
            "session": access.session,
            "board": access,
            "pinned": pinned,
            "taken_down": taken_down,
        },
    )


def _form_page(request, access, form, announcement=None):
    return render(
        request,
        "diary/board/announcement_form.html",
        {"session": access.session, "form": form, "announcement": announcement},
        status=400 if request.method == "POST" else 200,
    )


@login_required
@require_http_methods(["GET", "POST"])
@rate_limited("post")
def announcement_new(request, pk: int):
    access = access_board(request.user, pk)
    if not access.can_manage:
        return _refused(request, access.session)
    form = NewAnnouncementForm(posted(request))
    if request.method == "POST" and form.is_valid():
        try:
            announcement = board_services.announcement_create(
                session=access.session, by=request.user, **form.cleaned_data
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, _("The announcement is pinned; the table is told."))
            return redirect(announcement.get_absolute_url())
    return _form_page(request, access, form)


@login_required
@require_http_methods(["GET", "POST"])
@rate_limited("post")
def announcement_edit(request, pk: int, announcement_pk: int):
    access, announcement = access_announcement(request.user, pk, announcement_pk)
    if not access.can_manage:
        return _refused(request, access.session)
    initial = {"title": announcement.title, "text": announcement.text}
    form = AnnouncementForm(posted(request), initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            announcement = board_services.announcement_edit(
                session=access.session,
                announcement_pk=announcement.pk,
                by=request.user,
                **form.cleaned_data,
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, _("The announcement is saved."))
            return redirect(announcement.get_absolute_url())
    return _form_page(request, access, form, announcement)


@login_required
@require_POST
def announcement_pin(request, pk: int, announcement_pk: int):
    """Take an announcement down (it stays on the board's page) or pin it again."""
    access, announcement = access_announcement(request.user, pk, announcement_pk)
    if not access.can_manage:
        return _refused(request, access.session)
    form = PinForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose whether to pin the announcement or take it down."))
        return redirect("diary:board", pk=pk)
    pinned = form.cleaned_data["pinned"] == "on"
    board_services.announcement_pin(
        session=access.session, announcement_pk=announcement.pk, by=request.user, pinned=pinned
    )
    if pinned:
        messages.success(request, _("The announcement is pinned again."))
    else:
        messages.success(request, _("The announcement is taken down; it stays on the board."))
    return redirect(announcement.get_absolute_url())
