"""The free-form roll page (the GM's; a player's where the GM allows it): type an
expression, see what it means, roll it into the session's chain
(rolls.free.services.roll_make_free). The page's state is rolls.free.page.FreeRollPage."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from rolls import access as rolls_access
from rolls import services
from rolls.access import session_for_reader
from rolls.engine.errors import RuleError
from rolls.free.page import FreeRollPage, expression_preview
from rolls.free.services import FREE_ROLLS_NOT_ALLOWED, roll_make_free
from rolls.ledger.secret import SECRET_TEST


@login_required
@require_http_methods(["GET", "POST"])
def free_roll(request, pk: int):
    """GET: the form (htmx: only the preview of `?expression=`); POST: roll, or, with
    `preview` (no JavaScript), show the form again with the preview and roll nothing."""
    session = session_for_reader(request, pk)
    access = rolls_access.access_free_roll(request.user, session)
    if access.refused_by_setting:
        # A player is told why, not shown a bare refusal (docs/decisions.md, free-form dice).
        raise PermissionDenied(FREE_ROLLS_NOT_ALLOWED)
    if not access.may_roll:
        raise PermissionDenied
    if request.method == "GET" and request.htmx:
        preview = expression_preview(request.GET.get("expression", ""), request.GET.get("target"))
        return render(request, "rolls/panel_free.html#preview", preview)
    data = request.POST if request.method == "POST" else None
    page = FreeRollPage(
        session, request.user, access, url=request.path, query=request.GET, data=data
    )
    if page.rolls:
        try:
            made = roll_make_free(
                session=session,
                by=request.user,
                free=page.form.free_roll(),
                token=page.form.cleaned_data["token"],
                post=page.target_post,
                client_seed=page.form.cleaned_data.get("client_seed", ""),
            )
        except (RuleError, ValidationError, services.TokenReused) as error:
            page.refused(error)
        else:
            if made.roll.test == SECRET_TEST:
                # As from the panels: the GM sees the hidden dice (and "Reveal") on its page.
                return redirect("rolls:detail", session.pk, made.roll.seq)
            return redirect(made.roll.post.get_absolute_url(anchor=f"roll-{made.roll.seq}"))
    return render(request, "rolls/panel_free.html", page.context(), status=page.status)
