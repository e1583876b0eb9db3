from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from characters import selectors, services
from characters.access import CharacterAccess, access_character, diary_links, play_place
from characters.forms import (
    CharacterForm,
    FreeEffectForm,
    HitPointsForm,
    NegativeEffectForm,
    PortraitForm,
    PotionForm,
    PotionUseForm,
    ProposalDecisionForm,
    SystemChoiceForm,
    initial_from_proposal,
)
from characters.models import HealingPotion, NegativeEffect, SheetProposal
from characters.portraits import PortraitSizeLimit, with_portrait_size_limit
from characters.systems import ATTRIBUTE_RANGE
from config.form_errors import apply_service_errors, posted
from config.redirects import local_path, with_query


@login_required
@require_GET
def character_list(request):
    return render(
        request,
        "characters/character_list.html",
        {"characters": selectors.characters_of(request.user)},
    )


@login_required
@require_http_methods(["GET", "POST"])
def character_create(request):
    # Opened from another page (a session's application): back there after saving, with
    # the new character chosen. Only a path of this site is followed.
    back = local_path(request, request.GET.get("next"))
    systems = SystemChoiceForm(request.GET if "system" in request.GET else None)
    if len(ATTRIBUTE_RANGE) == 1:
        system = next(iter(ATTRIBUTE_RANGE))
    elif systems.is_valid():
        system = systems.cleaned_data["system"]
    else:
        return render(
            request, "characters/character_system.html", {"systems": systems, "back": back}
        )
    form = CharacterForm(posted(request), system=system)
    if request.method == "POST" and form.is_valid():
        try:
            character = services.character_create(
                owner=request.user, system=system, values=form.sheet_values()
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, _("The character has been created."))
            if back:
                return redirect(with_query(back, character=character.pk))
            return redirect("characters:detail", pk=character.pk)
    return render(
        request,
        "characters/character_form.html",
        {"form": form, "character": None, "back": back},
        status=400 if form.is_bound else 200,  # a failed POST: errors next to the fields
    )


@login_required
@require_http_methods(["GET", "POST"])
def character_edit(request, pk: int):
    """Out of play the owner saves the sheet; in play the same form sends a proposal."""
    access = access_character(request.user, pk)
    if not access.can_open_edit_form:
        raise PermissionDenied
    character = access.character
    if character.system not in ATTRIBUTE_RANGE:
        raise Http404  # a system with no sheet ranges has no sheets
    pending = selectors.pending_proposal(character) if access.can_propose else None
    form = CharacterForm(
        posted(request),
        system=character.system,
        propose=access.can_propose,
        initial=initial_from_proposal(pending.proposal.values, character)
        if pending
        else CharacterForm.initial_for(character),
    )
    if request.method == "POST" and form.is_valid():
        try:
            if access.can_propose:
                services.sheet_proposal_create(
                    character=character, by=request.user, values=form.sheet_values()
                )
            else:
                services.character_update(
                    character=character, by=request.user, values=form.sheet_values()
                )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            if access.can_propose:
                messages.success(request, _("Your changes wait for the GM's approval."))
            else:
                messages.success(request, _("The character sheet has been saved."))
            return redirect("characters:detail", pk=character.pk)
    return render(
        request,
        "characters/character_form.html",
        {
            "form": form,
            "character": character,
            "access": access,
            "play_place": play_place(character) if access.can_propose else None,
        },
        status=400 if form.is_bound else 200,  # a failed POST: errors next to the fields
    )


def _render_sheet(request, access: CharacterAccess, status: int = 200, **bound_forms):
    """The sheet page; forms come bound (with errors) after a failed POST."""
    character = access.character
    pending = selectors.pending_proposal(character) if access.can_see_proposal else None
    forms = {
        "hp_form": HitPointsForm(
            hp_max=character.hp_max, initial={"hp_current": character.hp_current}
        )
        if access.can_tend
        else None,
        "effect_form": NegativeEffectForm() if access.can_tend else None,
        "free_form": FreeEffectForm() if access.can_tend else None,
        "potion_form": PotionForm() if access.can_grant_potions_on_sheet else None,
        "potion_use_form": PotionUseForm(),
        "portrait_form": PortraitForm() if access.can_set_portrait else None,
        "decision_form": ProposalDecisionForm() if pending and access.can_decide_proposal else None,
    }
    forms.update(bound_forms)
    return render(
        request,
        "characters/character_detail.html",
        {
            "sheet": selectors.sheet_for(character),
            "character": character,
            "access": access,
            "pending": pending,
            # In play the GM tends the character in the diary, not on the sheet.
            "diary_links": diary_links(request.user, character) if access.tends_in_diary else [],
            "play_place": play_place(character) if access.can_propose else None,
            "last_decided": selectors.last_decided_proposal(character)
            if access.is_owner and not pending
            else None,
            **forms,
        },
        status=status,
    )


@login_required
@require_GET
def character_detail(request, pk: int):
    return _render_sheet(request, access_character(request.user, pk))


@login_required
@require_GET
def character_history(request, pk: int):
    access = access_character(request.user, pk)
    return render(
        request,
        "characters/character_history.html",
        {
            "character": access.character,
            "history": selectors.sheet_history(access.character),
        },
    )


def _refused(request, access: CharacterAccess, form_name: str, form, error: ValidationError):
    """A service's refusal (e.g. a concurrent change): next to the field, 400, nothing stored."""
    apply_service_errors(form, error)
    # Reload: the service's transaction rolled back, the page shows what is stored now.
    fresh = access_character(request.user, access.character.pk)
    return _render_sheet(request, fresh, status=400, **{form_name: form})


@login_required
@require_POST
def character_hp(request, pk: int):
    access = access_character(request.user, pk)
    if not access.can_tend:
        raise PermissionDenied
    form = HitPointsForm(request.POST, hp_max=access.character.hp_max)
    if not form.is_valid():
        return _render_sheet(request, access, status=400, hp_form=form)
    try:
        services.character_set_hp(
            character=access.character,
            by=request.user,
            hp_current=form.cleaned_data["hp_current"],
        )
    except ValidationError as error:
        return _refused(request, access, "hp_form", form, error)
    messages.success(request, _("HP updated."))
    return redirect("characters:detail", pk=pk)


@login_required
@require_POST
def effect_add(request, pk: int):
    access = access_character(request.user, pk)
    if not access.can_tend:
        raise PermissionDenied
    form = NegativeEffectForm(request.POST)
    if not form.is_valid():
        return _render_sheet(request, access, status=400, effect_form=form)
    try:
        services.effect_add(character=access.character, by=request.user, **form.cleaned_data)
    except ValidationError as error:
        return _refused(request, access, "effect_form", form, error)
    messages.success(request, _("Negative effect added."))
    return redirect("characters:detail", pk=pk)


@login_required
@require_POST
def effect_free(request, pk: int, effect_pk: int):
    access = access_character(request.user, pk)
    if not access.can_tend:
        raise PermissionDenied
    effect = get_object_or_404(NegativeEffect, pk=effect_pk, character=access.character)
    form = FreeEffectForm(request.POST)
    if not form.is_valid():
        return _render_sheet(request, access, status=400, free_form=form)
    try:
        services.effect_free(effect=effect, by=request.user, note=form.cleaned_data["note"])
    except ValidationError as error:
        return _refused(request, access, "free_form", form, error)
    messages.success(request, _("The effect is gone."))
    return redirect("characters:detail", pk=pk)


@login_required
@require_POST
def potion_grant(request, pk: int):
    access = access_character(request.user, pk)
    if not access.can_grant_potions_on_sheet:
        raise PermissionDenied
    form = PotionForm(request.POST)
    if not form.is_valid():
        return _render_sheet(request, access, status=400, potion_form=form)
    try:
        services.potion_grant(character=access.character, by=request.user, **form.cleaned_data)
    except ValidationError as error:
        return _refused(request, access, "potion_form", form, error)
    messages.success(request, _("Healing potions granted."))
    return redirect("characters:detail", pk=pk)


@login_required
@require_POST
def potion_use(request, pk: int, potion_pk: int):
    access = access_character(request.user, pk)
    if not access.can_use_potions_on_sheet:
        raise PermissionDenied
    potion = get_object_or_404(HealingPotion, pk=potion_pk, character=access.character)
    try:
        services.potion_use(potion=potion, by=request.user)
    except ValidationError as error:
        return _refused(request, access, "potion_use_form", PotionUseForm({}), error)
    messages.success(request, _("One potion used."))
    return redirect("characters:detail", pk=pk)


@login_required
@require_POST
def proposal_decide(request, pk: int, proposal_pk: int):
    access = access_character(request.user, pk)
    if not access.can_decide_proposal:
        raise PermissionDenied
    proposal = get_object_or_404(SheetProposal, pk=proposal_pk, character=access.character)
    form = ProposalDecisionForm(request.POST)
    if not form.is_valid():
        return _render_sheet(request, access, status=400, decision_form=form)
    approve = form.cleaned_data["decision"] == "approve"
    try:
        services.sheet_proposal_decide(
            proposal=proposal,
            by=request.user,
            approve=approve,
            comment=form.cleaned_data["comment"],
        )
    except ValidationError as error:
        return _refused(request, access, "decision_form", form, error)
    if approve:
        messages.success(request, _("The proposal is approved and the sheet updated."))
    else:
        messages.success(request, _("The proposal is rejected; the sheet stays as it was."))
    return redirect("characters:detail", pk=pk)


@login_required
@require_POST
@with_portrait_size_limit
def portrait_upload(request, size_limit: PortraitSizeLimit, pk: int):
    access = access_character(request.user, pk)
    if not access.can_set_portrait:
        raise PermissionDenied
    form = PortraitForm(request.POST, request.FILES, oversized=size_limit.exceeded)
    if not form.is_valid():
        return _render_sheet(request, access, status=400, portrait_form=form)
    services.character_portrait_set(
        character_pk=pk, by=request.user, portrait=form.cleaned_data["image"]
    )
    messages.success(request, _("Portrait saved."))
    return redirect("characters:detail", pk=pk)


@login_required
@require_POST
def portrait_remove(request, pk: int):
    access = access_character(request.user, pk)
    if not access.can_remove_portrait:
        raise PermissionDenied
    services.character_portrait_remove(character_pk=pk, by=request.user)
    messages.success(request, _("Portrait removed."))
    return redirect("characters:detail", pk=pk)
