"""The bell's pages: the list, marking read, the e-mail preferences."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpResponseRedirect
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from diary.access import access_notification
from diary.models import Notification
from diary.notifications import delivery as notification_delivery
from diary.notifications.forms import NotificationPreferencesForm, kind_field

PAGE_SIZE = 20


@login_required
@require_GET
def notification_list(request):
    rows = Notification.objects.filter(recipient=request.user).select_related("session")
    page = Paginator(rows, PAGE_SIZE).get_page(request.GET.get("page"))
    items = [
        {
            "notification": n,
            "text": notification_delivery.notification_text(n),
            "url": notification_delivery.notification_url(n),
        }
        for n in page
    ]
    return render(request, "diary/notifications.html", {"page": page, "items": items})


def _back(request):
    """Back to the page the button was on: a local path only (never a URL name to reverse,
    never another site)."""
    target = request.POST.get("next", "")
    if target.startswith("/") and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return HttpResponseRedirect(target)
    return redirect("notifications:list")


@login_required
@require_GET
def notification_open(request, pk: int):
    """The notification's own words in the list: a link (a new tab, a copied address) that
    marks it read on arrival and goes on to what it points to. A GET that writes, kept
    harmless: only the reader's own notification (anyone else's is a 404 that tells
    nothing), only its read mark, and the way on is the notification's own, never one the
    request names. Cross-site pages cannot fire it unseen: the log-in cookie is SameSite=Lax,
    so it rides only on a top-level navigation."""
    notification = access_notification(request.user, pk)
    notification_delivery.notification_mark_read(notification=notification)
    return HttpResponseRedirect(notification_delivery.notification_url(notification))


@login_required
@require_POST
def notification_read(request, pk: int):
    """Mark one notification read and go back to the page the button was on."""
    notification = access_notification(request.user, pk)
    notification_delivery.notification_mark_read(notification=notification)
    return _back(request)


@login_required
@require_POST
def notification_read_all(request):
    notification_delivery.notification_mark_all_read(user=request.user)
    messages.success(request, _("All notifications are marked as read."))
    return redirect("notifications:list")


@login_required
@require_http_methods(["GET", "POST"])
def notification_preferences(request):
    if request.method == "POST":
        form = NotificationPreferencesForm(request.POST)
        if form.is_valid():
            notification_delivery.notification_preferences_save(
                user=request.user,
                email=form.cleaned_data["email"],
                kinds=form.chosen_kinds,
                digest=form.cleaned_data["digest"],
            )
            messages.success(request, _("Notification preferences saved."))
            return redirect("notifications:preferences")
    else:
        kinds, digest = notification_delivery.preferences_of(request.user)
        initial = {"email": request.user.email, "digest": digest}
        initial |= {kind_field(kind): True for kind in kinds}
        form = NotificationPreferencesForm(initial=initial)
    return render(request, "diary/notification_preferences.html", {"form": form})
