"""The GM's nudge: one POST from the diary's "Czekamy na:", back to the diary."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from diary.access import access_session
from diary.nudges import services
from diary.nudges.forms import NudgeForm


@login_required
@require_POST
def nudge(request, pk: int):
    access = access_session(request.user, pk)
    if not access.can_nudge:
        raise PermissionDenied
    form = NudgeForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose whom to nudge."))
    else:
        data = form.cleaned_data
        try:
            sent = services.nudge_send(
                session=access.session,
                by=request.user,
                character_id=None if data["everyone"] else data["character"],
            )
        except ValidationError as error:
            messages.error(request, " ".join(error.messages))
        else:
            messages.success(
                request,
                ngettext(
                    "Nudged: the player has been told.",
                    "Nudged: %(count)s players have been told.",
                    len(sent),
                )
                % {"count": len(sent)},
            )
    return redirect(reverse("diary:session", args=[pk]) + "#turn-status")
