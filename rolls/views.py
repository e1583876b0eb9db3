import json
import uuid

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from characters.roles import is_moderator
from diary import permissions as diary_permissions
from diary.models import GameSession, Post
from rolls import ledger, selectors, services
from rolls.engine.errors import RuleError
from rolls.models import Roll
from rolls.panel import Panel
from rolls.presenters import roll_view
from rolls.requests import RequestError


def _session_for_reader(request, pk: int) -> GameSession:
    session = get_object_or_404(GameSession.objects.select_related("gm"), pk=pk)
    if not diary_permissions.can_read_session(request.user, session):
        raise Http404
    return session


def _with_fresh_token(request, fields) -> str:
    """The panel's URL with these fields and a new one-time token."""
    query = fields.copy()
    query.pop("csrfmiddlewaretoken", None)
    query["token"] = str(uuid.uuid4())
    return f"{request.path}?{query.urlencode()}"


@login_required
@require_http_methods(["GET", "POST"])
def panel(request, pk: int):
    """The roll panel: pick a test, see the threshold and the exact chance, roll."""
    session = _session_for_reader(request, pk)
    if not services.may_roll_at_all(request.user, session):
        raise PermissionDenied
    if request.method == "GET" and "token" not in request.GET:
        # The token and every field live in the URL (the redraws keep it current), so
        # going Back to this panel after a roll brings the same token: no second roll.
        fields = Panel(
            session, request.user, request.GET.get("mode") or "attribute"
        ).initial_query()
        for key in request.GET:
            fields.setlist(key, request.GET.getlist(key))
        return redirect(_with_fresh_token(request, fields))
    data = request.POST if request.method == "POST" else request.GET
    panel = Panel(session, request.user, data.get("mode") or "attribute", data=data)
    fresh_url = None  # offered when the token was already spent on another roll
    if request.method == "POST" and panel.is_valid():
        target = None
        if post_id := panel.token_form.cleaned_data.get("post"):
            target = Post.objects.filter(pk=post_id, session=session).first()
        try:
            made = services.roll_make(
                session=session,
                by=request.user,
                request=panel.request(),
                token=panel.token_form.cleaned_data["token"],
                post=target,
            )
        except (RuleError, RequestError) as error:
            panel.add_rule_error(error)
        except ValidationError as error:  # e.g. the chosen post left the current turn
            panel.add_error("post", " ".join(error.messages))
        except services.TokenReused:
            panel.add_error(
                None,
                _("This form has already made another roll; open a new roll to roll again."),
            )
            fresh_url = _with_fresh_token(request, request.POST)
        else:
            return redirect(made.roll.post.get_absolute_url(anchor=f"roll-{made.roll.seq}"))
    template = "rolls/panel.html#panel" if request.htmx else "rolls/panel.html"
    return render(
        request,
        template,
        {
            "session": session,
            "panel": panel,
            "preview": panel.preview() if request.method == "GET" else None,
            "show_errors": request.method == "POST",
            "fresh_url": fresh_url,
            # While the panel redraws as fields change, half-filled fields are not errors yet.
            "hide_errors": request.method == "GET",
        },
        status=400 if request.method == "POST" else 200,
    )


@login_required
@require_GET
def roll_detail(request, pk: int, seq: int):
    """A roll's permalink: the full stored record and its place in the chain."""
    session = _session_for_reader(request, pk)
    roll = get_object_or_404(
        Roll.objects.select_related("post", "rolled_by"), session=session, seq=seq
    )
    return render(
        request,
        "rolls/roll_detail.html",
        {
            "session": session,
            "roll": roll,
            "view": roll_view(roll),
            "record_json": json.dumps(roll.record, indent=2, ensure_ascii=False, sort_keys=True),
            "recomputed": ledger.chain_hash(roll.prev_hash, roll.record),
        },
    )


@login_required
@require_GET
def audit(request, pk: int):
    """Moderators: the session's chain verified, and roll statistics per character."""
    if not is_moderator(request.user):
        raise PermissionDenied  # before the lookup: no one learns which sessions exist
    session = get_object_or_404(GameSession.objects.select_related("gm"), pk=pk)
    return render(
        request,
        "rolls/audit.html",
        {
            "session": session,
            "report": ledger.verify_session(session.pk),
            "stats": selectors.character_stats(session),
            "rolls": [roll_view(r) for r in selectors.session_rolls(session)],
        },
    )


@login_required
@require_GET
def export(request, pk: int):
    """The session's whole ledger as JSON, to recompute the chain anywhere (docs/audit.md)."""
    session = _session_for_reader(request, pk)
    rows = (
        Roll.objects.filter(session=session)
        .order_by("seq")
        .values("seq", "prev_hash", "hash", "record")
    )
    payload = {
        "session": session.pk,
        "title": session.title,
        "genesis_hash": ledger.GENESIS_HASH,
        "hash_rule": 'sha256(canonical_json({"prev_hash": prev_hash, "record": record}))',
        "rolls": list(rows),
    }
    response = JsonResponse(payload, json_dumps_params={"ensure_ascii": False, "indent": 1})
    response["Content-Disposition"] = f'attachment; filename="codziennik-ledger-{session.pk}.json"'
    return response
