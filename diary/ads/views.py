"""The recruiting board: its first tab, the sessions looking for players (with filters);
its second, the players looking for a game (their ads), where a GM invites from an ad;
and the page where a player writes, edits or withdraws their own ad."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from config.form_errors import apply_service_errors, posted
from diary.access import AdAccess, access_ad
from diary.ads import selectors, services
from diary.ads.forms import AdFilterForm, AdInviteForm, PlayerAdForm, RecruitingFilterForm


def _bound_if_asked(form_class, request):
    """A GET form bound only when one of its fields came in the query (a bare visit shows
    everything, with nothing flagged)."""
    asked = any(name in request.GET for name in form_class.base_fields)
    return form_class(request.GET if asked else None)


@login_required
@require_GET
def recruiting(request):
    """The sessions that take applications now, narrowed by the filters chosen."""
    form = _bound_if_asked(RecruitingFilterForm, request)
    valid = form.is_bound and form.is_valid()
    filters = selectors.BoardFilters(**form.cleaned_data) if valid else selectors.BoardFilters()
    return render(
        request,
        "diary/recruiting.html",
        {"form": form, "sessions": selectors.recruiting_board(filters), "tab": "sessions"},
        status=400 if form.errors else 200,
    )


@login_required
@require_GET
def ads_board(request):
    """The players' ads; a GM with a recruiting session invites from each (not their own)."""
    form = _bound_if_asked(AdFilterForm, request)
    chosen = form.cleaned_data if form.is_bound and form.is_valid() else {}
    ads = selectors.board_ads(system=chosen.get("system", ""), pace=chosen.get("pace", ""))
    return render(
        request,
        "diary/ads/board.html",
        {
            "form": form,
            "ads": [AdAccess(ad=ad, user=request.user) for ad in ads],
            "my_sessions": list(selectors.sessions_to_invite_to(request.user)),
            "own_ad": selectors.own_ad(request.user),
            "tab": "players",
        },
        status=400 if form.errors else 200,
    )


@login_required
@require_http_methods(["GET", "POST"])
def ad_mine(request):
    """The player's own ad: written, edited (the same page), withdrawn (its button)."""
    ad = selectors.own_ad(request.user)
    form = PlayerAdForm(posted(request), instance=ad)
    if request.method == "POST" and form.is_valid():
        services.ad_save(by=request.user, **form.cleaned_data)
        messages.success(request, _("Your ad is on the board."))
        return redirect("diary:ads_board")
    return render(
        request,
        "diary/ads/mine.html",
        {"form": form, "ad": ad},
        status=400 if form.errors else 200,
    )


@login_required
@require_POST
def ad_withdraw(request):
    if services.ad_withdraw(by=request.user) is None:
        messages.info(request, _("You have no ad on the board."))
    else:
        messages.success(request, _("Your ad has been withdrawn."))
    return redirect("diary:ad_mine")


@login_required
@require_http_methods(["GET", "POST"])
def ad_invite(request, ad_pk: int):
    """A GM invites an ad's player to one of their recruiting sessions."""
    access = access_ad(request.user, ad_pk)
    if not access.can_invite:
        raise PermissionDenied
    sessions = selectors.sessions_to_invite_to(request.user)
    form = AdInviteForm(posted(request), sessions=sessions)
    if request.method == "POST" and form.is_valid():
        try:
            services.ad_invite(ad=access.ad, by=request.user, **form.cleaned_data)
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, _("The player has been invited to look at your session."))
            return redirect("diary:ads_board")
    return render(
        request,
        "diary/ads/invite.html",
        {"form": form, "ad": access.ad, "has_sessions": sessions.exists()},
        status=400 if form.errors else 200,
    )
