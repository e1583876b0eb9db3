"""Site-level pages: the home page and sign-up. Everything else lives in the apps."""

import sys

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.forms import UserCreationForm
from django.db import InterfaceError, OperationalError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views import defaults
from django.views.decorators.http import require_GET, require_http_methods

from characters.selectors import characters_of, proposals_waiting_for
from config import usernames
from config.form_errors import posted
from config.middleware import chosen_language
from config.rate_limits import rate_limited
from diary.activity.selectors import quiet_sessions_for
from diary.selectors import (
    home_turns,
    join_requests_waiting_for,
    pending_invitations,
    plans_to_review,
    sessions_of_user,
)
from rolls.selectors import asks_waiting_for


class SignUpForm(UserCreationForm):
    email = forms.EmailField(label=gettext_lazy("E-mail"), required=False)

    class Meta(UserCreationForm.Meta):
        fields = ["username", "email"]

    def clean_username(self):
        username = self.cleaned_data.get("username")
        if username:
            usernames.check_username(username)
        return super().clean_username()


@require_GET
def home(request):
    context = {}
    if request.user.is_authenticated:
        context = {
            "my_sessions": sessions_of_user(request.user),
            "characters": characters_of(request.user),
            "invitations": pending_invitations(request.user),
            "waiting_proposals": proposals_waiting_for(request.user),
            "plans_to_review": plans_to_review(request.user),
            "quiet_sessions": quiet_sessions_for(request.user),
            "quiet_days": settings.INACTIVE_AFTER_DAYS,
            "join_requests": join_requests_waiting_for(request.user),
            "turn_waits": home_turns(request.user),
            "asks_waiting": asks_waiting_for(request.user),
        }
    return render(request, "home.html", context)


@require_GET
def health(request):
    """For load balancers and the HTTP benchmark's trivial endpoint: the process answers.
    No database, no session, no template: what any Django request costs at the least."""
    return HttpResponse("ok", content_type="text/plain")


@require_http_methods(["GET", "POST"])
@rate_limited("signup")
def signup(request):
    if request.user.is_authenticated:
        return redirect("home")
    form = SignUpForm(posted(request))
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, _("Welcome! Your account is ready."))
        return redirect("home")
    return render(request, "registration/signup.html", {"form": form})


# How long a browser (or a proxy) is asked to wait when the database is unreachable: a
# restart or a fail-over takes seconds to a minute.
DATABASE_RETRY_AFTER_SECONDS = 30


def server_error(request):
    """handler500: the site's 503 page when the error is the database being unreachable
    (PostgreSQL down, restarting, connections refused), else Django's 500 page.

    Django calls it inside its exception handler, for an error raised at any layer: a view,
    or a middleware such as the session's, whose loading fails (an OperationalError
    raised while handling the store's missing `_session_cache`). sys.exc_info() is that error.
    Nothing here touches the database, and the next request tries it afresh (persistent
    connections are health-checked): the site recovers by itself."""
    if _database_unreachable(sys.exc_info()[1]):
        return database_unavailable(request)
    return defaults.server_error(request)


def _database_unreachable(error: BaseException | None) -> bool:
    """The error, or one it was raised from or while handling, is the database's."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, (OperationalError, InterfaceError)):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False


def database_unavailable(request) -> HttpResponse:
    """503 with Retry-After, in the user's language, without the request's context
    processors (the user, the notifications and the CSRF token all need the database)."""
    with translation.override(chosen_language(request)):
        page = render_to_string(
            "503.html", {"retry_after": DATABASE_RETRY_AFTER_SECONDS}, request=None
        )
    response = HttpResponse(page, status=503)
    response["Retry-After"] = str(DATABASE_RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response
