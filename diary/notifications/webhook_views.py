"""The GM's page for the session's webhook: its URL (masked), its events, a test message."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from config.form_errors import apply_service_errors, posted
from diary.access import access_session
from diary.models import SessionWebhook
from diary.notifications import webhook_services
from diary.notifications.webhook_forms import EVENT_FIELDS, WebhookForm


@login_required
@require_http_methods(["GET", "POST"])
def session_webhook(request, pk: int):
    access = access_session(request.user, pk)
    if not access.can_manage:
        raise PermissionDenied
    session = access.session
    webhook = SessionWebhook.objects.filter(session=session).first()
    action = request.POST.get("action", "save")
    if request.method == "POST" and action == "remove" and webhook is not None:
        webhook_services.webhook_remove(session=session, by=request.user)
        messages.success(request, _("The webhook is removed: the chat hears nothing more."))
        return redirect("diary:session_webhook", pk=session.pk)
    if request.method == "POST" and action == "test" and webhook is not None:
        webhook_services.webhook_test(session=session, by=request.user)
        messages.success(request, _("A test message is on its way; it arrives within a minute."))
        return redirect("diary:session_webhook", pk=session.pk)
    form = WebhookForm(posted(request), instance=webhook or SessionWebhook(session=session))
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            webhook_services.webhook_save(
                session=session,
                by=request.user,
                url=data["url"],
                **{name: data[name] for name in EVENT_FIELDS},
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, _("Webhook saved."))
            return redirect("diary:session_webhook", pk=session.pk)
    return render(
        request,
        "diary/session_webhook.html",
        {"form": form, "session": session, "webhook": webhook},
    )
