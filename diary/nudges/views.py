"""The GM's nudge: one POST from the diary's "Czekamy na:". htmx swaps the nudge form
alone (its buttons and what came of the click); without JS the diary comes back with the
message."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from diary import selectors
from diary.access import access_session
from diary.nudges import services
from diary.nudges.forms import NudgeForm
from diary.nudges.selectors import last_nudges, nudge_rows


def _send(request, access) -> tuple[str, bool]:
    """The nudge the form asks for: (what came of it, whether it was refused)."""
    form = NudgeForm(request.POST)
    if not form.is_valid():
        return _("Choose whom to nudge."), True
    data = form.cleaned_data
    try:
        sent = services.nudge_send(
            session=access.session,
            by=request.user,
            character_id=None if data["everyone"] else data["character"],
        )
    except ValidationError as error:
        return " ".join(error.messages), True
    told = ngettext(
        "Nudged: the player has been told.",
        "Nudged: %(count)s players have been told.",
        len(sent),
    )
    return told % {"count": len(sent)}, False


@login_required
@require_POST
def nudge(request, pk: int):
    access = access_session(request.user, pk)
    if not access.can_nudge:
        raise PermissionDenied
    message, refused = _send(request, access)
    if request.htmx:  # the form alone, as it is now; htmx swaps only a 200
        session = access.session
        rows = nudge_rows(
            selectors.awaited_now(session).awaited, last_nudges(session), timezone.now()
        )
        context = {
            "session": session,
            "nudges": rows,
            "nudge_message": message,
            "nudge_refused": refused,
        }
        return render(request, "diary/nudges/nudges.html", context)
    (messages.error if refused else messages.success)(request, message)
    return redirect(reverse("diary:session", args=[pk]) + "#turn-status")
