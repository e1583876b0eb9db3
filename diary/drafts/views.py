"""The composer's draft: saved as someone types (by static/js/drafts.js, answered in JSON)
and discarded by its button (with JS in JSON, without it a redirect back to the form)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import JsonResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from config.rate_limits import rate_limited
from diary.drafts import services
from diary.drafts.access import access_draft
from diary.drafts.forms import DraftForm
from diary.drafts.presenters import saved_label


def _wants_json(request) -> bool:
    return "application/json" in request.headers.get("Accept", "")


@login_required
@require_POST
@rate_limited("draft")
def draft_save(request, pk: int, place: str):
    """Saves the author's draft; answers what the composer shows beside the form."""
    draft_place = access_draft(request.user, pk, place)
    if not draft_place.can_write:
        return JsonResponse({"error": str(draft_place.refusal)}, status=403)
    form = DraftForm(request.POST, place=draft_place.place)
    if not form.is_valid():
        return JsonResponse({"error": form.first_error()}, status=400)
    try:
        draft = services.draft_save(
            place=draft_place,
            author=request.user,
            text=form.cleaned_data["text"],
            note=form.cleaned_data["note"],
            character=form.cleaned_data["character"],
        )
    except PermissionDenied as refusal:
        return JsonResponse({"error": str(refusal)}, status=403)
    if draft is None:
        return JsonResponse({"saved": False, "status": ""})
    return JsonResponse(
        {
            "saved": True,
            "status": saved_label(draft),
            "saved_at": int(draft.updated_at.timestamp() * 1000),
        }
    )


@login_required
@require_POST
def draft_discard(request, pk: int, place: str):
    """Throws the author's draft away: the form is empty again."""
    draft_place = access_draft(request.user, pk, place)
    services.draft_discard(place=draft_place, author=request.user)
    if _wants_json(request):
        return JsonResponse({"discarded": True, "status": _("Draft discarded.")})
    messages.success(request, _("Draft discarded."))
    return redirect(draft_place.page_url)
