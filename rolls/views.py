import json

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from config.form_errors import apply_service_errors
from config.roles import is_moderator
from diary import permissions as diary_permissions
from diary.models import GameSession, Post
from diary.services import current_turn
from rolls import access as rolls_access
from rolls import entries, ledger, selectors, services, signing
from rolls.case_panel import CasePanel, case_error_message, with_request_fields
from rolls.cases import panel_for
from rolls.engine.errors import RuleError
from rolls.entry_forms import GM_ENTRY_FORMS, ItemUseForm, preselected_character
from rolls.forms import AskTargetForm, SideForm
from rolls.messages import request_error_message, rule_error_message
from rolls.models import Roll, RollAsk, SecretRoll
from rolls.panel import Panel
from rolls.presenters import LEGEND, hidden_view, roll_view
from rolls.requests import RequestError
from rolls.secret import SECRET_TEST, secret_roll_reveal
from rolls.selectors import playing_characters


def _session_for_reader(request, pk: int) -> GameSession:
    # The current turn rides along (issue 12): the panel and the roll read it off the row.
    sessions = GameSession.objects.select_related("gm", "current_turn")
    session = get_object_or_404(sessions, pk=pk)
    if not diary_permissions.can_read_session(request.user, session):
        raise Http404
    return session


# The fields a link may prefill in anyone's panel: what is tested, never a modifier, a
# reason or a token (modifiers are the GM's to type, in their own panel: RULES 1.2).
LINK_SAFE_FIELDS = {"mode", "post", "patient", "effect", "ask"} | {
    f"{side}-{name}"
    for side in "ab"
    for name in ("character", "test", "attribute", "attribute_2", "skill", "sources")
}


def _panel_url(request, access, fields, *, fresh_token: bool = False) -> str:
    """The panel's URL with these fields, signed for this user; a fresh token where asked
    or where the one given was not issued to this user."""
    user, session = request.user, access.session
    query = fields.copy()
    for key in ("csrfmiddlewaretoken", "preview", rolls_access.LINK_SIGNATURE):
        query.pop(key, None)
    if fresh_token or rolls_access.read_token(user, session, query.get("token")) is None:
        query["token"] = rolls_access.issue_token(user, session)
    return f"{request.path}?{rolls_access.signed_query(user, session, query)}"


def _panel_class(session):
    """forum1000's own panel, or the generic one of a case system (issue 10)."""
    return Panel if session.system == "forum1000" else CasePanel


def _clean_panel_url(request, access) -> str:
    """A link's panel: its safe fields over a complete default panel, and a new token."""
    mode = request.GET.get("mode") or ""
    panel = _panel_class(access.session)(access.session, request.user, mode, access=access)
    fields = panel.initial_query()
    safe = panel.link_fields if getattr(panel, "is_case", False) else LINK_SAFE_FIELDS
    for key in safe & set(request.GET):
        fields.setlist(key, request.GET.getlist(key))
    return _panel_url(request, access, fields, fresh_token=True)


def _is_own_panel(request, access) -> bool:
    """A GET showing fields this user chose: a URL the panel signed for them, or an htmx
    redraw of their own panel (a header no link can set) with a token issued to them."""
    user, session = request.user, access.session
    if request.htmx:
        return rolls_access.read_token(user, session, request.GET.get("token")) is not None
    return rolls_access.query_is_signed(user, session, request.GET)


@login_required
@require_http_methods(["GET", "POST"])
def panel(request, pk: int):
    """The roll panel: pick a test, see the threshold and the exact chance, roll."""
    session = _session_for_reader(request, pk)
    access = rolls_access.access_roll_panel(request.user, session)
    if not access.may_roll or not access.may_roll_modes:
        raise PermissionDenied
    if request.method == "GET":
        return _panel_get(request, access)
    mode = request.POST.get("mode") or ""
    if not access.may_roll_mode(mode):
        return _refuse_mode(request, access)
    if (request.POST.get("extra_action_reason") or "").strip() and not (
        access.may_allow_extra_action
    ):
        # Only the GM allows a second action roll (RULES 1.5); a player sending it is refused.
        raise PermissionDenied
    if request.POST.get("secret") and not access.may_roll_secret:
        # Issue 13: only the GM rolls in secret; a player asking for it is refused, not
        # given a public roll they believed hidden.
        raise PermissionDenied
    if "preview" in request.POST:
        # Without JavaScript, "Show the chance": nothing rolls, and the redirect drops the
        # CSRF token, so the address the browser shows (and keeps in history) has none.
        response = redirect(_panel_url(request, access, request.POST))
        response.status_code = 303  # See Other: the browser GETs the panel's address
        return response
    return _panel_roll(request, access, mode)


def _panel_get(request, access):
    if not _is_own_panel(request, access):
        # A link (or a tab): its fields may be anyone's, so this user gets a clean panel.
        if request.htmx:
            response = HttpResponse(status=204)
            response["HX-Redirect"] = _clean_panel_url(request, access)
            return response
        return redirect(_clean_panel_url(request, access))
    mode = request.GET.get("mode") or ""
    panel = _panel_class(access.session)(access.session, request.user, mode, request.GET, access)
    response = _render_panel(request, panel, preview=panel.preview())
    if request.htmx:
        # The address bar follows the redraws, signed, so Back brings this same panel.
        response["HX-Replace-Url"] = _panel_url(request, access, request.GET)
    return response


def _refuse_mode(request, access):
    """A kind of roll this user may not make (403), or no known kind at all (400, bad
    input): refused, nothing stored."""
    panel = _panel_class(access.session)(access.session, request.user, "", access=access)
    if request.POST.get("mode") in rolls_access.system_modes(access.session.system):
        refusal = _("This kind of roll is not open to you in this session; nothing was rolled.")
        return _render_panel(request, panel, refusal=refusal, status=403)
    refusal = _("Unknown kind of roll; nothing was rolled. Choose a tab of the panel.")
    return _render_panel(request, panel, refusal=refusal, status=400)


def _post_and_answered_ask(token_form, session):
    """The post a roll lands in (None: the service picks) and the request it answers, from
    the panel's token form; a request that is gone is refused like a closed one."""
    target = None
    if post_id := token_form.cleaned_data.get("post"):
        target = Post.objects.filter(pk=post_id, session=session).first()
    answers = None
    if ask_id := token_form.cleaned_data.get("ask"):
        answers = RollAsk.objects.filter(pk=ask_id, session=session).first()
        if answers is None:
            raise ValidationError({"ask": _("This request is no longer open.")})
    return target, answers


def _panel_roll(request, access, mode: str):
    session = access.session
    if session.system != "forum1000":
        panel = CasePanel(session, request.user, mode, request.POST, access)
        return _roll_from_panel(
            request,
            access,
            panel,
            services.roll_make_case,
            {
                "case": panel.case,
                "characters": lambda: panel.sheets,
                "secret": lambda: panel.secret,
            },
        )
    panel = Panel(session, request.user, mode, request.POST, access)
    return _roll_from_panel(
        request,
        access,
        panel,
        services.roll_make,
        {
            "request": panel.request,
            "extra_action_reason": lambda: panel.extra_action_reason,
            "event_name": lambda: panel.event_name,
            # The sheets the panel read for its forms: a roll reads them once.
            "characters": lambda: panel.sheets,
            "secret": lambda: panel.secret,
        },
    )


def _roll_from_panel(request, access, panel, make, inputs: dict):
    """Roll what a valid panel asks (`make` is roll_make or roll_make_case; each input is read
    once the forms are valid), or show the panel again with every refusal next to its field."""
    session = access.session
    fresh_url = None  # offered when the token cannot roll (spent, or not this user's)
    if panel.is_valid():
        try:
            target, answers = _post_and_answered_ask(panel.token_form, session)
            made = make(
                session=session,
                by=request.user,
                token=panel.token_form.cleaned_data["token"],
                post=target,
                answers=answers,
                **{name: read() for name, read in inputs.items()},
            )
        except (RuleError, RequestError) as error:
            panel.add_rule_error(error)
        except ValidationError as error:  # the chosen post left the turn, the request closed
            about_post = hasattr(error, "error_dict") and "post" in error.error_dict
            panel.add_error("post" if about_post else None, " ".join(error.messages))
        except services.TokenReused:
            panel.add_error(
                None,
                _("This form has already made another roll; open a new roll to roll again."),
            )
            fresh_url = _panel_url(request, access, request.POST, fresh_token=True)
        else:
            if made.roll.test == SECRET_TEST:
                # The GM sees the hidden result (and the reveal button) on the roll's page.
                return redirect("rolls:detail", session.pk, made.roll.seq)
            return redirect(made.roll.post.get_absolute_url(anchor=f"roll-{made.roll.seq}"))
    elif panel.token_form.cleaned_data.get("token") is None:
        fresh_url = _panel_url(request, access, request.POST, fresh_token=True)
    return _render_panel(request, panel, show_errors=True, fresh_url=fresh_url, status=400)


def _render_panel(
    request, panel, *, preview=None, show_errors=False, fresh_url=None, refusal="", status=200
):
    page = "rolls/case_panel.html" if getattr(panel, "is_case", False) else "rolls/panel.html"
    template = f"{page}#panel" if request.htmx else page
    context = {
        "session": panel.session,
        "panel": panel,
        "preview": preview,
        "show_errors": show_errors,
        "fresh_url": fresh_url,
        "refusal": refusal,
        # While the panel redraws as fields change, half-filled fields are not errors yet:
        # the preview says what is missing.
        "hide_errors": not show_errors,
    }
    return render(request, template, context, status=status)


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
            **_secret_context(request.user, session, roll),
            "view": roll_view(roll),
            "record_json": json.dumps(roll.record, indent=2, ensure_ascii=False, sort_keys=True),
            "recomputed": ledger.chain_hash(roll.prev_hash, roll.record),
        },
    )


def _secret_context(user, session, roll) -> dict:
    """Issue 13: a secret roll's state on its page; its hidden record only for those
    rolls.access lets read it, the reveal button only for the GM."""
    if roll.test != SECRET_TEST:
        return {}
    hidden = SecretRoll.objects.select_related("reveal").filter(roll=roll).first()
    if hidden is None:
        return {}
    readable = not hidden.is_revealed and rolls_access.may_read_secret(user, session)
    access = rolls_access.access_roll_panel(user, session)
    return {
        "secret": hidden,
        "hidden_view": hidden_view(roll, hidden) if readable else None,
        "hidden_json": (
            json.dumps(hidden.record, indent=2, ensure_ascii=False, sort_keys=True)
            if readable
            else ""
        ),
        "may_reveal": not hidden.is_revealed and access.may_roll_secret,
    }


@login_required
@require_POST
def reveal(request, pk: int, seq: int):
    """The GM reveals a secret roll: a reveal entry joins the chain (rolls.secret)."""
    session = _session_for_reader(request, pk)
    try:
        made = secret_roll_reveal(session=session, by=request.user, seq=seq)
    except SecretRoll.DoesNotExist:
        raise Http404 from None
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
        return redirect("rolls:detail", session.pk, seq)
    if made.created:
        messages.success(request, _("The secret roll is revealed: everyone sees its result now."))
    else:
        messages.info(request, _("This secret roll was already revealed."))
    return redirect(made.roll.post.get_absolute_url(anchor=f"roll-{made.roll.seq}"))


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
            # The strongest check: chain, signatures, and every result recomputed.
            "report": ledger.verify_session(session.pk, recompute=True),
            "signing_key_id": signing.key_id_of(signing.current_public_key()),
            "stats": selectors.character_stats(session),
            "rolls": [roll_view(r) for r in selectors.session_rolls(session)],
            "legend": LEGEND,  # the engine's critical faces, for the legend
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
        .values("seq", "prev_hash", "hash", "record", "key_id", "signature")
    )
    payload = {
        "session": session.pk,
        "title": session.title,
        "genesis_hash": ledger.GENESIS_HASH,
        "hash_rule": 'sha256(canonical_json({"prev_hash": prev_hash, "record": record}))',
        "signature_rule": signing.SIGNATURE_RULE,
        # key_id → base64 public key; compare them with the ones the site publishes.
        "public_keys": signing.trusted_public_keys(),
        "rolls": list(rows),
    }
    response = JsonResponse(payload, json_dumps_params={"ensure_ascii": False, "indent": 1})
    response["Content-Disposition"] = f'attachment; filename="codziennik-ledger-{session.pk}.json"'
    return response


@require_GET
def ledger_keys(request):
    """The public keys every roll's signature verifies against (docs/audit.md): public, so
    anyone can check an exported ledger with docs/verify_ledger.py --public-key."""
    keys = signing.trusted_public_keys()
    payload = {
        "signature_rule": signing.SIGNATURE_RULE,
        "current_key_id": signing.key_id_of(signing.current_public_key()),
        "public_keys": keys,
    }
    return JsonResponse(payload, json_dumps_params={"indent": 1})


@login_required
@require_http_methods(["GET", "POST"])
def ask_create(request, pk: int):
    """A player asks the GM for a roll: the test and what of their sheet applies, checked
    against the rules now (RULES 1.2), shown in their post, answered by the GM."""
    session = _session_for_reader(request, pk)
    if not rolls_access.may_ask(request.user, session):
        raise PermissionDenied
    if session.system != "forum1000":
        return _case_ask_create(request, session)
    mine = [c for c in playing_characters(session).values() if c.owner_id == request.user.pk]
    turn = current_turn(session)
    posts = list(
        Post.objects.filter(
            session=session, author=request.user, turn=turn, hidden_at__isnull=True
        ).order_by("-id")
    )
    data = request.POST if request.method == "POST" else (request.GET or None)
    side = SideForm(data, prefix="a", characters=mine, gm=False)
    target = AskTargetForm(data, posts=posts)
    if request.method == "POST" and side.is_valid() and target.is_valid():
        post_id = target.cleaned_data["post"]
        try:
            ask = services.roll_ask_create(
                session=session,
                by=request.user,
                side=side.side_request(),
                post=next((p for p in posts if p.pk == post_id), None) if post_id else None,
            )
        except (RuleError, RequestError) as error:
            field, message = (
                request_error_message(error)
                if isinstance(error, RequestError)
                else rule_error_message(error)
            )
            field = (field or "").removeprefix("a-")
            side.add_error(field if field in side.fields else None, message)
        except ValidationError as error:
            apply_service_errors(target, error)
        else:
            messages.success(request, _("Your request is in your post; the GM will answer it."))
            return redirect(ask.post.get_absolute_url(anchor=f"ask-{ask.pk}"))
    template = "rolls/ask.html#ask" if request.htmx else "rolls/ask.html"
    posted = request.method == "POST"
    return render(
        request,
        template,
        {
            "session": session,
            "side": side,
            "target": target,
            "show_errors": posted,
            "hide_errors": not posted,
        },
        status=400 if posted else 200,
    )


def _case_ask_create(request, session):
    """Issue 10: a case system's request names the mode's test as its form has it (what is
    tested, never a modifier), checked by the engine now; the GM answers with one click."""
    system_panel = panel_for(session.system)
    modes = [
        (k, label)
        for k, label in system_panel.modes
        if k in rolls_access.askable_modes(session.system)
    ]
    everyone = list(playing_characters(session).values())
    mine = [c for c in everyone if c.owner_id == request.user.pk]
    turn = current_turn(session)
    posts = list(
        Post.objects.filter(
            session=session, author=request.user, turn=turn, hidden_at__isnull=True
        ).order_by("-id")
    )
    posted = request.method == "POST"
    data = request.POST if posted else (request.GET or None)
    asked = (data or {}).get("mode")
    mode = asked if asked in dict(modes) else modes[0][0]
    form = system_panel.form(
        mode, data, characters=mine, all_characters=everyone, gm=False, session=session
    )
    for name, field in form.fields.items():
        # A request names only what is tested; the rest (e.g. a difficulty) is the GM's.
        if name not in system_panel.ask_fields:
            multiple = isinstance(field, forms.MultipleChoiceField)
            field.widget = forms.MultipleHiddenInput() if multiple else forms.HiddenInput()
    target = AskTargetForm(data, posts=posts)
    if posted and form.is_valid() and target.is_valid():
        post_id = target.cleaned_data["post"]
        try:
            case = with_request_fields(form.case(), form, system_panel)
            ask = services.roll_ask_create_case(
                session=session,
                by=request.user,
                case=case,
                post=next((p for p in posts if p.pk == post_id), None) if post_id else None,
            )
        except RuleError as error:
            field, message = case_error_message(error)
            form.add_error(field if field in form.fields else None, message)
        except ValidationError as error:
            apply_service_errors(target, error)
        else:
            messages.success(request, _("Your request is in your post; the GM will answer it."))
            return redirect(ask.post.get_absolute_url(anchor=f"ask-{ask.pk}"))
    template = "rolls/case_ask.html#ask" if request.htmx else "rolls/case_ask.html"
    return render(
        request,
        template,
        {
            "session": session,
            "modes": modes,
            "mode": mode,
            "form": form,
            "form_template": getattr(form, "panel_template", ""),
            "target": target,
            "show_errors": posted,
            "hide_errors": not posted,
        },
        status=400 if posted else 200,
    )


@login_required
@require_POST
def ask_withdraw(request, pk: int, ask_pk: int):
    session = _session_for_reader(request, pk)
    ask = get_object_or_404(RollAsk, pk=ask_pk, session=session)
    try:
        services.roll_ask_withdraw(ask=ask, by=request.user)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, _("Your request is withdrawn."))
    return redirect(ask.post.get_absolute_url(anchor=f"ask-{ask.pk}"))


# ---------------------------------------------------------------------------
# Issue 9: diary entries (HP, effects, items granted and used), in the session's chain


def _entry_refused(form, error) -> None:
    """A service's refusal as form errors, next to the field it names."""
    if isinstance(error, entries.TokenReused):
        form.add_error(None, _("This form has already made another entry; send it again."))
        return
    if hasattr(error, "error_dict"):
        for field, errors in error.message_dict.items():
            form.add_error(field if field in form.fields else None, errors)
    else:
        form.add_error(None, error.messages)


def _gm_entry_call(session, user, name: str, form):
    data, common = form.cleaned_data, {"token": form.cleaned_data["token"], "digest": form.digest()}
    if name == "hp":
        return entries.damage_deal(
            session=session,
            by=user,
            character_id=data["character"],
            delta=form.delta(),
            reason=data["reason"],
            **common,
        )
    if name == "effect":
        return entries.effect_apply(
            session=session,
            by=user,
            character_id=data["character"],
            kind=data["kind"],
            description=data["description"],
            length_turns=data["length_turns"],
            reason=data["reason"],
            **common,
        )
    if name == "free":
        return entries.effect_free(
            session=session,
            by=user,
            character_id=data["character"],
            effect_id=data["effect"].pk,
            reason=data["reason"],
            **common,
        )
    return entries.item_grant(
        session=session,
        by=user,
        character_id=data["character"],
        count=data["count"],
        effect=data["effect"],
        restores_hp=data["restores_hp"],
        frees_kind=data["frees_kind"],
        **common,
    )


ENTRY_DONE = {
    "hp": gettext_lazy("The HP change is in your post."),
    "effect": gettext_lazy("The effect is in your post."),
    "free": gettext_lazy("The freed effect is in your post."),
    "grant": gettext_lazy("The items granted are in your post."),
}


@login_required
@require_http_methods(["GET", "POST"])
def entries_page(request, pk: int):
    """The GM's diary entries: HP (damage), an effect, an effect freed, an item grant. The
    diary shows the same forms; a refused one comes back here with its errors next to the
    fields. `?entry_character=<pk>` preselects a character (the sheet's link)."""
    session = _session_for_reader(request, pk)
    if not rolls_access.may_write_entries(request.user, session):
        raise PermissionDenied
    targets = selectors.entry_targets(session)
    posted = request.POST.get("entry") if request.method == "POST" else None
    picked = preselected_character(request.GET.get("entry_character"), targets)
    forms = {
        name: form(
            request.POST if name == posted else None,
            prefix=name,
            user=request.user,
            session=session,
            characters=targets,
            initial={"character": picked} if picked else None,
        )
        for name, form in GM_ENTRY_FORMS.items()
    }
    if request.method == "POST" and posted not in forms:
        return render(request, "400.html", status=400)
    if posted and forms[posted].is_valid():
        try:
            made = _gm_entry_call(session, request.user, posted, forms[posted])
        except (ValidationError, entries.TokenReused) as error:
            _entry_refused(forms[posted], error)
        else:
            messages.success(request, ENTRY_DONE[posted])
            return redirect(made.entry.post.get_absolute_url(anchor=f"roll-{made.entry.seq}"))
    return render(
        request,
        "rolls/entries.html",
        {"session": session, "entry_forms": forms},
        status=400 if posted else 200,
    )


@login_required
@require_http_methods(["GET", "POST"])
def item_use(request, pk: int):
    """A character uses a potion or healing item (an action without a roll, seed line 142):
    its owner, or the GM for them."""
    session = _session_for_reader(request, pk)
    is_gm = diary_permissions.is_gm(request.user, session)
    if not session.is_running or not (is_gm or diary_permissions.is_player(request.user, session)):
        raise PermissionDenied
    potions = selectors.usable_items(session, request.user, is_gm=is_gm)
    posted = request.method == "POST"
    form = ItemUseForm(
        request.POST if posted else None, user=request.user, session=session, potions=potions
    )
    if posted and form.is_valid():
        try:
            made = entries.item_use(
                session=session,
                by=request.user,
                potion_id=form.cleaned_data["potion"],
                token=form.cleaned_data["token"],
                digest=form.digest(),
            )
        except (ValidationError, entries.TokenReused) as error:
            _entry_refused(form, error)
        except PermissionDenied:
            form.add_error("potion", _("You may not use this character's items."))
        else:
            messages.success(request, _("Used: the entry is in your post."))
            return redirect(made.entry.post.get_absolute_url(anchor=f"roll-{made.entry.seq}"))
    return render(
        request,
        "rolls/item_use.html",
        {"session": session, "form": form, "potions": potions},
        status=400 if posted else 200,
    )
