"""The catalogs in the site: every logged-in user reads a system's catalog,
moderators add and edit its rows (characters.access.catalog_access decides)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from characters import selectors, services
from characters.access import catalog_access
from characters.catalog_forms import ENTRY_FORMS, MODELS
from characters.systems import ATTRIBUTE_RANGE, RuleSystem, words_for
from config.form_errors import apply_service_errors


def _system(system: str) -> str:
    if system not in ATTRIBUTE_RANGE:
        raise Http404
    return system


def _kind_label(system: str, kind: str) -> str:
    words = words_for(system)
    return str(
        {
            "attribute": words.attribute,
            "skill": words.skill,
            "trait": f"{words.ability} / {words.flaw}",
            "item": _("story item"),
        }[kind]
    )


@login_required
@require_GET
def catalog_index(request):
    return render(
        request,
        "characters/catalog_index.html",
        {"systems": [(key, RuleSystem(key).label) for key in ATTRIBUTE_RANGE]},
    )


@login_required
@require_GET
def catalog(request, system: str):
    system = _system(system)
    return render(
        request,
        "characters/catalog.html",
        {
            "catalog": selectors.catalog_for(system),
            "system_label": RuleSystem(system).label,
            "words": words_for(system),
            "catalog_access": catalog_access(request.user),
        },
    )


def _entry_page(request, system, kind, form, entry, status=200):
    return render(
        request,
        "characters/catalog_form.html",
        {
            "form": form,
            "entry": entry,
            "system": system,
            "system_label": RuleSystem(system).label,
            "kind_label": _kind_label(system, kind),
        },
        status=status,
    )


@login_required
@require_http_methods(["GET", "POST"])
def catalog_add(request, system: str, kind: str):
    system = _system(system)
    if kind not in ENTRY_FORMS:
        raise Http404
    if not catalog_access(request.user).can_edit:
        raise PermissionDenied
    data = request.POST if request.method == "POST" else None  # an empty POST is still bound
    form = ENTRY_FORMS[kind](data, system=system)
    if request.method == "POST":
        if form.is_valid():
            try:
                entry = services.catalog_entry_create(
                    by=request.user, model=MODELS[kind], system=system, values=form.values()
                )
            except ValidationError as error:
                apply_service_errors(form, error)
            else:
                messages.success(request, _("%(name)s added to the catalog.") % {"name": entry})
                return redirect("characters:catalog", system=system)
        return _entry_page(request, system, kind, form, None, status=400)
    return _entry_page(request, system, kind, form, None)


@login_required
@require_http_methods(["GET", "POST"])
def catalog_edit(request, system: str, kind: str, entry_pk: int):
    system = _system(system)
    if kind not in ENTRY_FORMS:
        raise Http404
    if not catalog_access(request.user).can_edit:
        raise PermissionDenied
    entry = get_object_or_404(MODELS[kind], pk=entry_pk, system=system)
    in_use = selectors.catalog_entry_in_use(entry)
    data = request.POST if request.method == "POST" else None
    form = ENTRY_FORMS[kind](data, instance=entry, system=system, in_use=in_use)
    if request.method == "POST":
        if form.is_valid():
            try:
                services.catalog_entry_update(by=request.user, entry=entry, values=form.values())
            except ValidationError as error:
                apply_service_errors(form, error)
            else:
                messages.success(request, _("%(name)s saved.") % {"name": entry})
                return redirect("characters:catalog", system=system)
        return _entry_page(request, system, kind, form, entry, status=400)
    return _entry_page(request, system, kind, form, entry)
