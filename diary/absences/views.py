"""The user's absences: the list, a new one, ending one early, withdrawing one to come."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from config.form_errors import apply_service_errors, posted
from diary.absences import services
from diary.absences.forms import AbsenceForm
from diary.absences.selectors import absence_sessions, my_absences, today
from diary.access import access_absence


def _initial(request, sessions) -> dict:
    """?session=<pk> (the session page's "Zgłoś nieobecność") picks that session."""
    chosen = request.GET.get("session", "")
    known = {str(s.pk) for s in sessions}
    return {"session": chosen if chosen in known else "", "starts_on": today()}


@login_required
@require_http_methods(["GET", "POST"])
def absences(request):
    """My absences, and the form that declares one."""
    sessions = absence_sessions(request.user)
    form = AbsenceForm(posted(request), sessions=sessions, initial=_initial(request, sessions))
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            services.absence_create(
                user=request.user,
                session=form.chosen_session,
                starts_on=data["starts_on"],
                ends_on=data["ends_on"],
                note=data["note"],
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, _("Your absence is saved: the GM and players see it."))
            return redirect("diary:absences")
    day = today()
    rows = [
        {
            "absence": a,
            "in_force": a.starts_on <= day,
            "may_end": a.starts_on <= day <= a.ends_on,
            "may_withdraw": a.starts_on > day,
        }
        for a in my_absences(request.user, day)
    ]
    return render(
        request,
        "diary/absences/absences.html",
        {"form": form, "rows": rows, "has_sessions": bool(sessions)},
        status=400 if form.errors else 200,
    )


@login_required
@require_POST
def absence_end(request, absence_pk: int):
    """I'm back: the absence ends yesterday."""
    return _act_on_absence(
        request,
        absence_pk,
        services.absence_end,
        _("Welcome back: your characters are awaited again."),
    )


@login_required
@require_POST
def absence_delete(request, absence_pk: int):
    """An absence that has not begun is withdrawn."""
    return _act_on_absence(
        request, absence_pk, services.absence_delete, _("The absence is withdrawn.")
    )


def _act_on_absence(request, absence_pk: int, service, done: str):
    """One of the user's absences changed by `service`; back to the page, with what came of
    it (the service's refusal, or `done`)."""
    absence = access_absence(request.user, absence_pk)
    try:
        service(absence=absence, by=request.user)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, done)
    return redirect("diary:absences")
