"""The composer's draft: saved as someone types (by static/js/drafts.js, answered in JSON)
and discarded by its button (with JS in JSON, without it a redirect back to the form)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from config.rate_limits import rate_limited
from diary.drafts import services
from diary.drafts.access import access_draft
from diary.drafts.forms import DraftForm
from diary.drafts.presenters import saved_label


def _wants_json(request) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _refused(request, draft_place, message: str, status: int):
    """The composer's script shows `message` beside the form; a plain form post (the "Zapisz
    szkic" button without JS) gets a page that says it."""
    if _wants_json(request):
        return JsonResponse({"error": str(message)}, status=status)
    context = {"session": draft_place.session, "message": message, "back_url": draft_place.page_url}
    return render(request, "diary/drafts/refused.html", context, status=status)


def _draft_fields(post) -> dict:
    """The script sends `text` and `note`; a plain post of the composer's form sends its own
    fields (a post's narration and OOC note, a message's text, the plan's scenario)."""
    text = next((post[name] for name in ("text", "narration", "scenario") if name in post), "")
    return {
        "text": text,
        "note": post.get("note", post.get("nc_note", "")),
        "character": post.get("character", ""),
    }


@login_required
@require_POST
@rate_limited("draft")
def draft_save(request, pk: int, place: str):
    """Saves the author's draft. The script gets what it shows beside the form (JSON); a
    plain form post goes back to the form, which now holds the draft."""
    draft_place = access_draft(request.user, pk, place)
    if not draft_place.can_write:
        return _refused(request, draft_place, draft_place.refusal, 403)
    form = DraftForm(_draft_fields(request.POST), place=draft_place.place)
    if not form.is_valid():
        return _refused(request, draft_place, form.first_error(), 400)
    try:
        draft = services.draft_save(
            place=draft_place,
            author=request.user,
            text=form.cleaned_data["text"],
            note=form.cleaned_data["note"],
            character=form.cleaned_data["character"],
        )
    except PermissionDenied as refusal:
        return _refused(request, draft_place, str(refusal), 403)
    if not _wants_json(request):
        if draft is not None:
            messages.success(request, saved_label(draft))
        return redirect(draft_place.page_url)
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
