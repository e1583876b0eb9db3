"""The scenes page (whoever runs the session): the scenes with their characters, a new
scene, a scene renamed or closed, a character moved. A refusal is a page that says why."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from config.form_errors import apply_service_errors
from diary.access import access_session
from diary.models import SessionStatus
from diary.scenes import selectors as scene_selectors
from diary.scenes import services as scene_services
from diary.scenes.forms import SceneCloseForm, SceneCreateForm, SceneMoveForm, SceneRenameForm


def _refused(request, session):
    message = _("Only whoever runs the session manages its scenes, and not once it is finished.")
    return render(
        request, "diary/talk_refused.html", {"session": session, "message": message}, status=403
    )


def _forms(page, data=None, action: str = "") -> dict:
    """Each form of the page; the one that was sent bound to what it sent."""
    open_scenes = [scene for scene in page.scenes if scene.is_open]
    bound = {name: (data if action == name else None) for name in ("create", "rename", "close")}
    return {
        "create": SceneCreateForm(bound["create"], auto_id="create_%s"),
        "rename": SceneRenameForm(bound["rename"], scenes=page.scenes, auto_id="rename_%s"),
        "close": SceneCloseForm(bound["close"], scenes=open_scenes, auto_id="close_%s"),
        "move": SceneMoveForm(
            data if action == "move" else None,
            characters=page.characters,
            scenes=open_scenes,
            auto_id="move_%s",
        ),
    }


def _apply(session, by, action: str, form) -> str:
    """Carry out the sent form's action; the success message."""
    data = form.cleaned_data
    if action == "create":
        scene = scene_services.scene_create(session=session, by=by, name=data["name"])
        return _("Scene “%(name)s” opened.") % {"name": scene.name}
    if action == "rename":
        scene = scene_services.scene_rename(
            session=session, by=by, scene_pk=data["scene"], name=data["name"]
        )
        return _("Scene renamed to “%(name)s”.") % {"name": scene.name}
    if action == "close":
        scene = scene_services.scene_close(session=session, by=by, scene_pk=data["scene"])
        return _("Scene “%(name)s” closed; its characters are back in the main scene.") % {
            "name": scene.name
        }
    scene_services.scene_move(
        session=session, by=by, character_pk=data["character"], scene_pk=form.scene_pk
    )
    return _("Character moved.")


@login_required
@require_http_methods(["GET", "POST"])
def scenes(request, pk: int):
    access = access_session(request.user, pk)
    session = access.session
    if not access.can_manage or session.status == SessionStatus.FINISHED:
        return _refused(request, session)
    page = scene_selectors.scenes_page(session)
    action = request.POST.get("action", "") if request.method == "POST" else ""
    if request.method == "POST" and action not in ("create", "rename", "close", "move"):
        action = "create"  # an unknown action: the new scene's form says what is missing
    forms = _forms(page, request.POST if request.method == "POST" else None, action)
    if action:
        form = forms[action]
        if form.is_valid():
            try:
                done = _apply(session, request.user, action, form)
            except ValidationError as error:
                apply_service_errors(form, error)
            else:
                messages.success(request, done)
                return redirect(reverse("diary:scenes", args=[pk]))
    return render(
        request,
        "diary/scenes/scenes.html",
        {"session": session, "page": page, "forms": forms, "action": action},
        status=400 if action else 200,
    )
