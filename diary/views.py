import re

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from characters.forms import apply_service_errors
from config.ratelimits import rate_limited
from diary import permissions, selectors, services
from diary.forms import HideForm, InviteForm, JoinForm, PostForm, SessionForm, StatusForm
from diary.models import GameSession, Participation, Post


def _readable_session(request, pk: int) -> GameSession:
    session = get_object_or_404(GameSession.objects.select_related("gm"), pk=pk)
    if not permissions.can_read_session(request.user, session):
        if permissions.can_see_session_card(request.user, session):
            raise PermissionDenied
        raise Http404
    return session


def _cursor(value: str | None) -> int | None:
    """A keyset cursor from the query string; anything but plain ASCII digits is ignored."""
    return int(value) if value and re.fullmatch(r"[0-9]{1,18}", value) else None


@login_required
@require_GET
def session_list(request):
    return render(
        request,
        "diary/session_list.html",
        {"sessions": selectors.sessions_listed_for(request.user)},
    )


@login_required
@require_http_methods(["GET", "POST"])
def session_create(request):
    form = SessionForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        session = services.session_create(gm=request.user, **form.cleaned_data)
        messages.success(request, _("The session has been created. Invite characters to it."))
        return redirect("diary:session", pk=session.pk)
    return render(request, "diary/session_form.html", {"form": form, "session": None})


@login_required
@require_http_methods(["GET", "POST"])
def session_edit(request, pk: int):
    session = _readable_session(request, pk)
    if not permissions.is_gm(request.user, session):
        raise PermissionDenied
    form = SessionForm(request.POST or None, instance=session)
    if request.method == "POST" and form.is_valid():
        try:
            services.session_update(session=session, by=request.user, **form.cleaned_data)
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, _("Session settings saved."))
            return redirect("diary:session", pk=session.pk)
    return render(request, "diary/session_form.html", {"form": form, "session": session})


def _diary_context(request, session: GameSession, post_form: PostForm | None = None) -> dict:
    user = request.user
    page = selectors.diary_page(
        session,
        before=_cursor(request.GET.get("before")),
        after=_cursor(request.GET.get("after")),
    )
    can_post = permissions.can_post(user, session)
    if can_post and post_form is None:
        post_form = PostForm(characters=selectors.user_characters_in_session(session, user))
    return {
        "session": session,
        "page": page,
        # Only the newest page follows the game live; older pages stay put.
        "live": not request.GET.get("before") and not request.GET.get("after"),
        "participations": selectors.session_participations(session),
        "current_turn": services.current_turn(session),
        "is_gm": permissions.is_gm(user, session),
        "can_post": can_post,
        "post_form": post_form if can_post else None,
        "see_hidden": permissions.can_see_hidden_content(user),
        "transitions": services.session_allowed_transitions(session=session, user=user),
    }


@login_required
@require_GET
def session_detail(request, pk: int):
    """The session's diary: posts by turn, newest page first, the post form below."""
    session = _readable_session(request, pk)
    return render(request, "diary/session_detail.html", _diary_context(request, session))


@login_required
@require_GET
def session_live(request, pk: int):
    """Polled by an open diary: nothing (204) until something changes, then the fresh posts."""
    session = _readable_session(request, pk)
    if request.GET.get("seen") == session.activity_marker:
        return HttpResponse(status=204)
    return render(
        request, "diary/session_detail.html#diary_posts", _diary_context(request, session)
    )


@login_required
@require_POST
def session_status(request, pk: int):
    session = _readable_session(request, pk)
    form = StatusForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Unknown session status."))
        return redirect("diary:session", pk=pk)
    try:
        services.session_transition(
            session=session, by=request.user, to=form.cleaned_data["status"]
        )
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, _("Session status changed."))
    return redirect("diary:session", pk=pk)


@login_required
@require_http_methods(["GET", "POST"])
def session_participants(request, pk: int):
    """The GM invites characters and answers requests; everyone listed sees the roster."""
    session = _readable_session(request, pk)
    is_gm = permissions.is_gm(request.user, session)
    invite_form = InviteForm(request.POST or None, session=session) if is_gm else None
    if request.method == "POST":
        if not is_gm:
            raise PermissionDenied
        if invite_form.is_valid():
            try:
                services.participation_invite(
                    session=session,
                    by=request.user,
                    character=invite_form.cleaned_data["character"],
                )
            except ValidationError as error:
                apply_service_errors(invite_form, error)
            else:
                messages.success(request, _("The character has been invited."))
                return redirect("diary:participants", pk=pk)
    return render(
        request,
        "diary/participants.html",
        {
            "session": session,
            "is_gm": is_gm,
            "invite_form": invite_form,
            "participations": selectors.session_participations(session),
        },
        status=400 if invite_form is not None and invite_form.errors else 200,
    )


@login_required
@require_http_methods(["GET", "POST"])
def session_join(request, pk: int):
    session = get_object_or_404(GameSession.objects.select_related("gm"), pk=pk)
    if not permissions.can_see_session_card(request.user, session):
        raise Http404
    form = JoinForm(request.POST or None, session=session, user=request.user)
    if request.method == "POST" and form.is_valid():
        try:
            services.participation_request(
                session=session, by=request.user, character=form.cleaned_data["character"]
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, _("Your request has been sent to the GM."))
            return redirect("diary:session_list")
    return render(
        request,
        "diary/session_join.html",
        {"session": session, "form": form},
        status=400 if form.errors else 200,
    )


@login_required
@require_POST
def participation_decide(request, pk: int, decision: str):
    participation = get_object_or_404(Participation.objects.select_related("session"), pk=pk)
    services.participation_decide(
        participation=participation, by=request.user, accept=decision == "accept"
    )
    messages.success(request, _("Answer saved."))
    if permissions.is_gm(request.user, participation.session):
        return redirect("diary:participants", pk=participation.session_id)
    return redirect("home")


@login_required
@require_POST
def participation_withdraw(request, pk: int):
    participation = get_object_or_404(Participation.objects.select_related("session"), pk=pk)
    try:
        services.participation_withdraw(participation=participation, by=request.user)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, _("The character has left the session."))
    return redirect("diary:participants", pk=participation.session_id)


@login_required
@require_POST
def turn_open(request, pk: int):
    session = _readable_session(request, pk)
    try:
        turn = services.turn_open_next(session=session, by=request.user)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, _("Turn %(number)s is open.") % {"number": turn.number})
    return redirect("diary:session", pk=pk)


@login_required
@require_POST
@rate_limited("post")
def post_create(request, pk: int):
    session = _readable_session(request, pk)
    if not permissions.can_post(request.user, session):
        raise PermissionDenied
    form = PostForm(
        request.POST, characters=selectors.user_characters_in_session(session, request.user)
    )
    if form.is_valid():
        try:
            post = services.post_create(session=session, author=request.user, **form.cleaned_data)
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            return redirect(post.get_absolute_url())
    return render(
        request,
        "diary/session_detail.html",
        _diary_context(request, session, post_form=form),
        status=400,
    )


def _own_post(request, pk: int) -> Post:
    post = get_object_or_404(Post.objects.select_related("session", "author"), pk=pk)
    if not permissions.can_read_session(request.user, post.session):
        raise Http404
    return post


@login_required
@require_http_methods(["GET", "POST"])
def post_edit(request, pk: int):
    post = _own_post(request, pk)
    if not permissions.can_edit_post(request.user, post) or not post.session.is_running:
        raise PermissionDenied
    characters = selectors.user_characters_in_session(post.session, request.user)
    form = PostForm(
        request.POST or None,
        characters=characters,
        initial={
            "character": post.character_id,
            "narration": post.narration,
            "nc_note": post.nc_note,
        },
    )
    if request.method == "POST" and form.is_valid():
        try:
            services.post_edit(post=post, by=request.user, **form.cleaned_data)
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, _("The post has been saved; its earlier version is kept."))
            return redirect(post.get_absolute_url())
    return render(
        request,
        "diary/post_edit.html",
        {"post": post, "form": form},
        status=400 if form.errors else 200,
    )


@login_required
@require_POST
def post_hide(request, pk: int):
    post = _own_post(request, pk)
    if not permissions.can_hide_post(request.user, post):
        raise PermissionDenied
    form = HideForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("The reason is too long (at most 200 characters)."))
        return redirect("diary:session", pk=post.session_id)
    services.post_hide(post=post, by=request.user, reason=form.cleaned_data["reason"])
    messages.success(request, _("The post is hidden. Moderators can still read it."))
    return redirect("diary:session", pk=post.session_id)


@login_required
@require_GET
def post_history(request, pk: int):
    post = _own_post(request, pk)
    if not permissions.can_see_revisions(request.user, post):
        raise PermissionDenied
    revisions = post.revisions.select_related("written_by", "character").order_by("-version")
    return render(request, "diary/post_history.html", {"post": post, "revisions": revisions})
