"""The session's NPC page: the GM's roster, its fixed modifiers."""

from dataclasses import dataclass, field

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from characters.forms import PortraitForm
from characters.portraits import PortraitSizeLimit, with_portrait_size_limit
from config.form_errors import apply_service_errors, posted
from diary.access import access_npc, access_npc_page
from diary.models import NpcModifier, NpcModifierCorrection
from diary.npcs import services as npc_services
from diary.npcs.forms import (
    NpcForm,
    NpcModifierCorrectionForm,
    NpcModifierEditForm,
    NpcModifierForm,
    StandInForm,
)


def _roster(session):
    return list(session.npcs.select_related("stand_in").prefetch_related("modifiers"))


@login_required
@require_http_methods(["GET", "POST"])
def npc_list(request, pk: int):
    """The roster; the GM adds an NPC here."""
    access = access_npc_page(request.user, pk)
    session = access.session
    form = NpcForm(posted(request)) if access.can_manage else None
    status = 200
    if request.method == "POST":
        if form is None:
            raise PermissionDenied
        if form.is_valid():
            try:
                npc = npc_services.npc_create(session=session, by=request.user, **form.cleaned_data)
            except ValidationError as error:
                apply_service_errors(form, error)
            else:
                messages.success(request, _("NPC %(name)s added.") % {"name": npc.name})
                return redirect("diary:npc_edit", pk=session.pk, npc_pk=npc.pk)
        status = 400
    return render(
        request,
        "diary/npcs.html",
        {"session": session, "npc_access": access, "npcs": _roster(session), "form": form},
        status=status,
    )


def _stand_in_form(access, npc, data=None):
    """Mode gm_character: the GM picks one of their sheets as the NPC's stand-in."""
    if not access.can_manage or access.uses_fixed_modifiers or npc.stand_in_id:
        return None
    return StandInForm(data, candidates=npc_services.stand_in_candidates(access.session))


@dataclass
class ModifierRow:
    """One fixed modifier on the NPC's page with the forms this user gets for it: the GM's
    change and removal while no roll used it, a moderator's correction at any time."""

    modifier: NpcModifier
    edit_form: NpcModifierEditForm | None = None
    correct_form: NpcModifierCorrectionForm | None = None
    refusal: list = field(default_factory=list)  # why a removal was refused


def _modifier_rows(access, npc, bound: NpcModifier | None = None, form=None, refusal=()):
    rows = []
    for modifier in npc.modifiers.all():
        initial = {"value": modifier.value, "reason": modifier.reason}
        prefix = f"m{modifier.pk}"
        row = ModifierRow(modifier)
        if access.can_manage and not modifier.used_by_seq:
            row.edit_form = NpcModifierEditForm(initial=initial, prefix=prefix)
        if access.can_correct_modifiers:
            row.correct_form = NpcModifierCorrectionForm(initial=initial, prefix=prefix)
        if bound is not None and modifier.pk == bound.pk:
            if isinstance(form, NpcModifierCorrectionForm):
                row.correct_form = form
            elif form is not None:
                row.edit_form = form
            row.refusal = list(refusal)
        rows.append(row)
    return rows


def _npc_page(
    request,
    access,
    npc,
    form,
    modifier_form,
    status=200,
    stand_in_form=None,
    rows=None,
    portrait_form=None,
):
    corrections = NpcModifierCorrection.objects.filter(modifier__npc=npc).select_related(
        "modifier", "by"
    )
    return render(
        request,
        "diary/npc_edit.html",
        {
            "session": access.session,
            "npc_access": access,
            "npc": npc,
            "modifier_rows": rows if rows is not None else _modifier_rows(access, npc),
            "corrections": list(corrections),
            "form": form,
            "modifier_form": modifier_form,
            "stand_in_form": stand_in_form or _stand_in_form(access, npc),
            "portrait_form": portrait_form or (PortraitForm() if access.can_manage else None),
        },
        status=status,
    )


@login_required
@require_http_methods(["GET", "POST"])
def npc_edit(request, pk: int, npc_pk: int):
    """One NPC: the GM edits it (or hides it from players) and its modifiers."""
    access, npc = access_npc(request.user, pk, npc_pk)
    if request.method == "POST" and not access.can_manage:
        raise PermissionDenied
    form = NpcForm(posted(request), instance=npc) if access.can_manage else None
    modifier_form = NpcModifierForm() if access.can_manage else None
    if request.method == "POST":
        if form.is_valid():
            try:
                npc_services.npc_update(npc=npc, by=request.user, **form.cleaned_data)
            except ValidationError as error:
                apply_service_errors(form, error)
            else:
                messages.success(request, _("NPC saved."))
                return redirect("diary:npc_edit", pk=pk, npc_pk=npc.pk)
        return _npc_page(request, access, npc, form, modifier_form, status=400)
    return _npc_page(request, access, npc, form, modifier_form)


@login_required
@require_POST
def npc_modifier_add(request, pk: int, npc_pk: int):
    access, npc = access_npc(request.user, pk, npc_pk)
    if not access.can_manage:
        raise PermissionDenied
    modifier_form = NpcModifierForm(request.POST)
    if modifier_form.is_valid():
        try:
            npc_services.npc_modifier_create(npc=npc, by=request.user, **modifier_form.cleaned_data)
        except ValidationError as error:
            apply_service_errors(modifier_form, error)
        else:
            messages.success(request, _("Modifier added."))
            return redirect("diary:npc_edit", pk=pk, npc_pk=npc.pk)
    form = NpcForm(instance=npc)
    return _npc_page(request, access, npc, form, modifier_form, status=400)


@login_required
@require_POST
def npc_modifier_delete(request, pk: int, npc_pk: int, modifier_pk: int):
    access, npc = access_npc(request.user, pk, npc_pk)
    if not access.can_manage:
        raise PermissionDenied
    modifier = get_object_or_404(NpcModifier, pk=modifier_pk, npc=npc)
    try:
        npc_services.npc_modifier_delete(modifier=modifier, by=request.user)
    except ValidationError as error:
        rows = _modifier_rows(access, npc, modifier, refusal=error.messages)
        return _npc_page(
            request, access, npc, NpcForm(instance=npc), NpcModifierForm(), 400, rows=rows
        )
    messages.success(request, _("Modifier removed; rolls already made keep it."))
    return redirect("diary:npc_edit", pk=pk, npc_pk=npc.pk)


@login_required
@require_POST
def npc_modifier_edit(request, pk: int, npc_pk: int, modifier_pk: int):
    """The GM changes a modifier no roll used yet; a moderator corrects one, with a reason."""
    access, npc = access_npc(request.user, pk, npc_pk)
    correcting = access.can_correct_modifiers and not access.can_manage
    if not (access.can_manage or correcting):
        raise PermissionDenied
    modifier = get_object_or_404(NpcModifier, pk=modifier_pk, npc=npc)
    form_class = NpcModifierCorrectionForm if correcting else NpcModifierEditForm
    form = form_class(request.POST, prefix=f"m{modifier.pk}")
    if form.is_valid():
        try:
            if correcting:
                npc_services.npc_modifier_correct(
                    modifier=modifier, by=request.user, **form.cleaned_data
                )
            else:
                npc_services.npc_modifier_update(
                    modifier=modifier, by=request.user, **form.cleaned_data
                )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, _("Modifier saved."))
            return redirect("diary:npc_edit", pk=pk, npc_pk=npc.pk)
    rows = _modifier_rows(access, npc, modifier, form)
    page_form = NpcForm(instance=npc) if access.can_manage else None
    modifier_form = NpcModifierForm() if access.can_manage else None
    return _npc_page(request, access, npc, page_form, modifier_form, 400, rows=rows)


@login_required
@require_POST
def npc_stand_in(request, pk: int, npc_pk: int):
    access, npc = access_npc(request.user, pk, npc_pk)
    if not access.can_manage:
        raise PermissionDenied
    form = StandInForm(request.POST, candidates=npc_services.stand_in_candidates(access.session))
    if form.is_valid():
        try:
            npc_services.npc_stand_in_set(
                npc=npc, by=request.user, character=form.cleaned_data["character"]
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, _("The stand-in sheet is set."))
            return redirect("diary:npc_edit", pk=pk, npc_pk=npc.pk)
    return _npc_page(
        request, access, npc, NpcForm(instance=npc), None, status=400, stand_in_form=form
    )


@login_required
@require_POST
@with_portrait_size_limit
def npc_portrait_upload(request, size_limit: PortraitSizeLimit, pk: int, npc_pk: int):
    """The NPC's portrait, checked and re-encoded as a character's is."""
    access, npc = access_npc(request.user, pk, npc_pk)
    if not access.can_manage:
        raise PermissionDenied
    form = PortraitForm(request.POST, request.FILES, oversized=size_limit.exceeded)
    if not form.is_valid():
        return _npc_page(
            request, access, npc, NpcForm(instance=npc), NpcModifierForm(), 400, portrait_form=form
        )
    npc_services.npc_portrait_set(npc=npc, by=request.user, portrait=form.cleaned_data["image"])
    messages.success(request, _("Portrait saved."))
    return redirect("diary:npc_edit", pk=pk, npc_pk=npc.pk)


@login_required
@require_POST
def npc_portrait_remove(request, pk: int, npc_pk: int):
    access, npc = access_npc(request.user, pk, npc_pk)
    if not access.can_manage:
        raise PermissionDenied
    npc_services.npc_portrait_remove(npc=npc, by=request.user)
    messages.success(request, _("Portrait removed."))
    return redirect("diary:npc_edit", pk=pk, npc_pk=npc.pk)
