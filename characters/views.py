from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from characters import access, selectors, services
from characters.forms import (
    CharacterForm,
    FreeEffectForm,
    HitPointsForm,
    NegativeEffectForm,
    PotionForm,
    SystemChoiceForm,
    apply_service_errors,
)
from characters.models import Character, HealingPotion, NegativeEffect
from characters.systems import ATTRIBUTE_RANGE


def _viewable_character(request, pk: int) -> Character:
    try:
        character = selectors.character_with_sheet(pk)
    except Character.DoesNotExist:
        raise Http404 from None
    if not access.can_view_character(request.user, character):
        raise Http404
    return character


@login_required
def character_list(request):
    return render(
        request,
        "characters/character_list.html",
        {"characters": selectors.characters_of(request.user)},
    )


@login_required
@require_http_methods(["GET", "POST"])
def character_create(request):
    systems = SystemChoiceForm(request.GET or None)
    if len(ATTRIBUTE_RANGE) == 1:
        system = next(iter(ATTRIBUTE_RANGE))
    elif systems.is_valid():
        system = systems.cleaned_data["system"]
    else:
        return render(request, "characters/character_system.html", {"systems": systems})
    form = CharacterForm(request.POST or None, system=system)
    if request.method == "POST" and form.is_valid():
        try:
            character = services.character_create(
                owner=request.user, system=system, values=form.sheet_values()
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, _("The character has been created."))
            return redirect("characters:detail", pk=character.pk)
    return render(request, "characters/character_form.html", {"form": form, "character": None})


@login_required
@require_http_methods(["GET", "POST"])
def character_edit(request, pk: int):
    character = _viewable_character(request, pk)
    if not access.can_edit_character(request.user, character):
        raise PermissionDenied
    if character.system not in ATTRIBUTE_RANGE:
        raise Http404  # this system's sheets come with their own issue
    form = CharacterForm(
        request.POST or None,
        system=character.system,
        initial=CharacterForm.initial_for(character),
    )
    if request.method == "POST" and form.is_valid():
        try:
            services.character_update(
                character=character, by=request.user, values=form.sheet_values()
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, _("The character sheet has been saved."))
            return redirect("characters:detail", pk=character.pk)
    return render(request, "characters/character_form.html", {"form": form, "character": character})


def _render_sheet(request, character: Character, status: int = 200, **bound_forms):
    """The sheet page; tending forms come bound (with errors) after a failed POST."""
    user = request.user
    tend = access.can_tend_character(user, character)
    forms = {
        "hp_form": HitPointsForm(
            hp_max=character.hp_max, initial={"hp_current": character.hp_current}
        )
        if tend
        else None,
        "effect_form": NegativeEffectForm() if tend else None,
        "free_form": FreeEffectForm() if tend else None,
        "potion_form": PotionForm() if access.can_grant_potions(user, character) else None,
    }
    forms.update(bound_forms)
    return render(
        request,
        "characters/character_detail.html",
        {
            "sheet": selectors.sheet_for(character),
            "character": character,
            "can_edit": access.can_edit_character(user, character),
            "can_tend": tend,
            "can_use_potions": access.can_use_potions(user, character),
            **forms,
        },
        status=status,
    )


@login_required
def character_detail(request, pk: int):
    return _render_sheet(request, _viewable_character(request, pk))


@login_required
@require_GET
def character_history(request, pk: int):
    character = _viewable_character(request, pk)
    return render(
        request,
        "characters/character_history.html",
        {"character": character, "history": selectors.sheet_history(character)},
    )


def _tended_character(request, pk: int) -> Character:
    character = _viewable_character(request, pk)
    if not access.can_tend_character(request.user, character):
        raise PermissionDenied
    return character


@login_required
@require_POST
def character_hp(request, pk: int):
    character = _tended_character(request, pk)
    form = HitPointsForm(request.POST, hp_max=character.hp_max)
    if not form.is_valid():
        return _render_sheet(request, character, status=400, hp_form=form)
    services.character_set_hp(
        character=character, by=request.user, hp_current=form.cleaned_data["hp_current"]
    )
    messages.success(request, _("HP updated."))
    return redirect("characters:detail", pk=pk)


@login_required
@require_POST
def effect_add(request, pk: int):
    character = _tended_character(request, pk)
    form = NegativeEffectForm(request.POST)
    if not form.is_valid():
        return _render_sheet(request, character, status=400, effect_form=form)
    services.effect_add(character=character, by=request.user, **form.cleaned_data)
    messages.success(request, _("Negative effect added."))
    return redirect("characters:detail", pk=pk)


@login_required
@require_POST
def effect_free(request, pk: int, effect_pk: int):
    character = _tended_character(request, pk)
    effect = get_object_or_404(NegativeEffect, pk=effect_pk, character=character)
    form = FreeEffectForm(request.POST)
    if not form.is_valid():
        return _render_sheet(request, character, status=400, free_form=form)
    try:
        services.effect_free(effect=effect, by=request.user, note=form.cleaned_data["note"])
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, _("The effect is gone."))
    return redirect("characters:detail", pk=pk)


@login_required
@require_POST
def potion_grant(request, pk: int):
    character = _viewable_character(request, pk)
    if not access.can_grant_potions(request.user, character):
        raise PermissionDenied
    form = PotionForm(request.POST)
    if not form.is_valid():
        return _render_sheet(request, character, status=400, potion_form=form)
    services.potion_grant(character=character, by=request.user, **form.cleaned_data)
    messages.success(request, _("Healing potions granted."))
    return redirect("characters:detail", pk=pk)


@login_required
@require_POST
def potion_use(request, pk: int, potion_pk: int):
    character = _viewable_character(request, pk)
    if not access.can_use_potions(request.user, character):
        raise PermissionDenied
    potion = get_object_or_404(HealingPotion, pk=potion_pk, character=character)
    try:
        services.potion_use(potion=potion, by=request.user)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, _("One potion used."))
    return redirect("characters:detail", pk=pk)
