"""Site-level pages: the home page and sign-up. Everything else lives in the apps."""

from django import forms
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.forms import UserCreationForm
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods

from characters.selectors import characters_of, proposals_waiting_for
from config import usernames
from config.form_errors import posted
from config.rate_limits import rate_limited
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
