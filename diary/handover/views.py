"""The GM handover's pages: the session's co-GMs, handing it over, and its history."""

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from config.form_errors import apply_service_errors, posted
from diary.access import access_session
from diary.handover import selectors, services
from diary.handover.forms import CoGmForm, HandoverForm
from diary.models import Participation, ParticipationStatus


@login_required
@require_http_methods(["GET", "POST"])
def co_gms(request, pk: int):
    """The session's co-GMs: its GM names and removes them; they and moderators read it."""
    access = access_session(request.user, pk)
    if not (access.is_gm or access.is_moderator):
        raise PermissionDenied
    form = CoGmForm(posted(request)) if access.can_name_co_gms else None
    if request.method == "POST":
        if form is None:
            raise PermissionDenied
        if form.is_valid():
            try:
                services.co_gm_name(
                    session=access.session, by=request.user, user=form.cleaned_data["username"]
                )
            except ValidationError as error:
                apply_service_errors(form, error)
            else:
                messages.success(request, _("The co-GM has been named."))
                return redirect("diary:co_gms", pk=pk)
    return render(
        request,
        "diary/handover/co_gms.html",
        {
            "session": access.session,
            "access": access,
            "form": form,
            "co_gms": selectors.co_gms_of(access.session),
        },
        status=400 if form is not None and form.errors else 200,
    )


@login_required
@require_POST
def co_gm_remove(request, pk: int):
    """The GM takes a co-GM's powers away (or a co-GM steps back), confirmed."""
    access = access_session(request.user, pk)
    if not (access.can_name_co_gms or access.is_co_gm):
        raise PermissionDenied
    wanted = request.POST.get("user", "")
    named = dict(access.session.co_gms_named)
    user_pk = int(wanted) if wanted.isdigit() and int(wanted) in named else None
    if user_pk is None or request.POST.get("confirm") != "yes":
        messages.error(request, _("Choose a co-GM of this session and confirm."))
        return redirect("diary:co_gms", pk=pk)
    user = get_user_model().objects.get(pk=user_pk)
    try:
        services.co_gm_remove(session=access.session, by=request.user, user=user)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
        return redirect("diary:co_gms", pk=pk)
    messages.success(request, _("%(user)s is no longer a co-GM here.") % {"user": user})
    if user.pk == request.user.pk:
        return redirect("home")
    return redirect("diary:co_gms", pk=pk)


@login_required
@require_http_methods(["GET", "POST"])
def session_handover(request, pk: int):
    """A moderator hands an orphaned session to a new GM; its GM may hand it to a co-GM."""
    access = access_session(request.user, pk)
    stepping_down = access.can_step_down
    if not (stepping_down or access.can_hand_over):
        raise PermissionDenied
    session = access.session
    state = None if stepping_down else selectors.orphaned_state(session)
    co_gm_names = session.co_gm_names
    initial = {"username": co_gm_names[0]} if co_gm_names else None
    form = HandoverForm(posted(request), initial=initial)
    if request.method == "POST" and form.is_valid():
        arguments = {
            "session": session,
            "by": request.user,
            "to_gm": form.cleaned_data["username"],
            "reason": form.cleaned_data["reason"],
        }
        try:
            if stepping_down:
                services.session_step_down(**arguments)
            else:
                services.session_hand_over(**arguments)
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, _("The session has been handed over."))
            return redirect("diary:session_history", pk=pk)
    return render(
        request,
        "diary/handover/handover.html",
        {
            "session": session,
            "form": form,
            "state": state,
            "stepping_down": stepping_down,
            "co_gm_names": co_gm_names,
        },
        status=400 if form.errors else 200,
    )


@login_required
@require_GET
def session_history(request, pk: int):
    """The session's history: who ran it when and why it changed hands (the reasons for
    those who read the session or took part in a handover), and the viewer's own
    characters removed from it, with the GM's reason."""
    access = access_session(request.user, pk, card_only=True)
    session = access.session
    handovers = selectors.session_history(session)
    party = any(request.user.pk in (h.from_gm_id, h.to_gm_id) for h in handovers)
    removed = Participation.objects.filter(
        session=session,
        character__owner=request.user,
        status=ParticipationStatus.WITHDRAWN,
    ).select_related("character")
    return render(
        request,
        "diary/handover/history.html",
        {
            "session": session,
            "handovers": handovers,
            "shows_reasons": access.can_read or party,
            "removed": [p for p in removed if p.withdrawn_by_id != request.user.pk],
            "co_gm_names": session.co_gm_names,
        },
    )
