"""The polls' pages: a new poll (in words, or `?kind=dates` for a scheduling poll), a poll
with its results and the member's vote, and its closing.

A refusal inside a session the user reads is a page that says why (403), as everywhere."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from config.form_errors import apply_service_errors, posted
from config.rate_limits import rate_limited
from diary.access import access_poll, access_polls
from diary.models import PollKind
from diary.polls import selectors as poll_selectors
from diary.polls import services as poll_services
from diary.polls.forms import PollForm, VoteForm, option_names
from diary.polls.presenters import moment_html, option_label


def _refused(request, session, message: str):
    return render(
        request, "diary/talk_refused.html", {"session": session, "message": message}, status=403
    )


def _members_only(request, session):
    return _refused(
        request,
        session,
        _(
            "Only the GM and the players of this session open polls and vote, and not once it "
            "is finished; moderators read the polls and their results."
        ),
    )


@login_required
@require_http_methods(["GET", "POST"])
@rate_limited("post")
def poll_new(request, pk: int):
    polls = access_polls(request.user, pk)
    if not polls.can_create:
        return _members_only(request, polls.session)
    kind = PollKind.DATES if request.GET.get("kind") == PollKind.DATES else PollKind.TEXT
    form = PollForm(posted(request), kind=kind)
    if request.method == "POST" and form.is_valid():
        try:
            poll = poll_services.poll_create(
                session=polls.session, by=request.user, **form.service_data()
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, _("The poll is open; the table is told."))
            return redirect(poll.get_absolute_url())
    names = option_names()
    return render(
        request,
        "diary/polls/poll_new.html",
        {
            "session": polls.session,
            "form": form,
            "dates": form.dates,
            "first_options": [form[name] for name in names[:4]],
            "more_options": [form[name] for name in names[4:]],
        },
        status=400 if request.method == "POST" else 200,
    )


def _poll_page(request, polls, poll, form=None, *, status=200):
    flags = polls.poll(poll)
    results = poll_selectors.poll_results(poll, request.user, with_names=flags.shows_voters)
    for row in results.rows:
        row.label = option_label(row.option)
    return render(
        request,
        "diary/polls/poll.html",
        {
            "session": polls.session,
            "polls": polls,
            "poll": poll,
            "flags": flags,
            "results": results,
            "form": form,
            "closes_at": moment_html(poll.closes_at) if poll.closes_at else "",
        },
        status=status,
    )


@login_required
@require_http_methods(["GET", "POST"])
@rate_limited("post")
def poll(request, pk: int, poll_pk: int):
    """The poll, its results as they come in, and (the GM and the players, while it is open)
    the vote, which a member may change until it closes."""
    polls, found = access_poll(request.user, pk, poll_pk)
    if request.method == "GET":
        return _poll_page(request, polls, found)
    if not polls.is_member:
        return _members_only(request, polls.session)
    option_ids = list(found.options.values_list("pk", flat=True))
    form = VoteForm(request.POST, option_ids=option_ids)
    if form.is_valid():
        try:
            poll_services.poll_vote(
                session=polls.session,
                poll_pk=found.pk,
                by=request.user,
                option_ids=form.cleaned_data["choices"],
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, _("Your vote is counted; you may change it until it closes."))
            return redirect(found.get_absolute_url())
    return _poll_page(request, polls, found, form, status=400)


@login_required
@require_POST
def poll_close(request, pk: int, poll_pk: int):
    """Its author or the GM closes the poll; from then on it is read-only."""
    polls, found = access_poll(request.user, pk, poll_pk)
    if not polls.poll(found).may_close:
        return _refused(
            request,
            polls.session,
            _("Only the poll's author or the GM closes it; moderators only read it."),
        )
    poll_services.poll_close(session=polls.session, poll_pk=found.pk, by=request.user)
    messages.success(request, _("The poll is closed."))
    return redirect(found.get_absolute_url())
