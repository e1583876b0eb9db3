import json
import re

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from config.form_errors import apply_service_errors
from diary import permissions as diary_permissions
from diary.models import Post
from diary.selectors import own_posts_in_turn
from diary.services import current_turn
from rolls import access as rolls_access
from rolls import registry, selectors, services
from rolls.engine.errors import RuleError
from rolls.entries import selectors as entry_selectors
from rolls.entries import services as entries
from rolls.entries.forms import (
    GM_ENTRY_FORMS,
    AbilityUseForm,
    ItemUseForm,
    preselected_character,
)
from rolls.forms import AskDeclineForm, AskTargetForm, ClientSeedForm
from rolls.ledger import chain
from rolls.ledger.secret import REVEAL_TEST, SECRET_TEST
from rolls.ledger.selectors import dice_check
from rolls.messages import refusal_message
from rolls.models import Roll, RollAsk, SecretRoll
from rolls.panel import LEAVE_ASK, Panel, preserve_typed_fields
from rolls.plugins import FormContext, percent_text
from rolls.posts.presenters import post_rolls_batch
from rolls.presenters import hidden_view, roll_view
from rolls.roll_plan import PlanChanged
from rolls.selectors import NEWEST_POST_ANNOTATION, newest_post_subquery


def _panel_url(request, access, fields, *, fresh_token: bool = False) -> str:
    """The panel's URL with these fields, signed for this user; a fresh token where asked
    or where the one given was not issued to this user."""
    user, session = request.user, access.session
    query = fields.copy()
    # A link never carries the roller's seed: the page that opens it draws a fresh one.
    for key in (
        "csrfmiddlewaretoken",
        "preview",
        "client_seed",
        "plan",
        rolls_access.LINK_SIGNATURE,
    ):
        query.pop(key, None)
    if fresh_token or rolls_access.read_token(user, session, query.get("token")) is None:
        query["token"] = rolls_access.issue_token(user, session)
    return f"{request.path}?{rolls_access.signed_query(user, session, query)}"


def _clean_panel_url(request, access) -> str:
    """A link's panel: its safe fields over a complete default panel, and a new token."""
    mode = request.GET.get("mode") or ""
    panel = Panel(access.session, request.user, mode, access=access)
    fields = panel.initial_query()
    for key in panel.link_fields & set(request.GET):
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
    if request.method == "GET":
        session = rolls_access.session_for_reader(
            request, pk, annotations={NEWEST_POST_ANNOTATION: newest_post_subquery()}
        )
        return _panel_get(request, _panel_access(request, session))
    # A roll reads its session once, locked from the start: the roll service would lock it
    # anyway, so the session's rolls queue a few milliseconds of form checks earlier and
    # every roll saves a statement.
    with transaction.atomic():
        session = rolls_access.session_for_reader(request, pk, lock=True)
        return _panel_post(request, _panel_access(request, session))


def _panel_access(request, session):
    access = rolls_access.access_roll_panel(request.user, session)
    if not access.may_roll or not access.may_roll_modes:
        raise PermissionDenied
    return access


def _panel_post(request, access):
    mode = request.POST.get("mode") or ""
    if not access.may_roll_mode(mode):
        return _refuse_mode(request, access)
    if (request.POST.get("extra_action_reason") or "").strip() and not (
        access.may_allow_extra_action
    ):
        # Only the GM allows a second action roll (RULES 1.5); a player sending it is refused.
        raise PermissionDenied
    if request.POST.get("secret") and not access.may_roll_secret:
        # Only the GM rolls in secret; a player asking for it is refused, not given a public
        # roll they believed hidden.
        raise PermissionDenied
    if {"preview", LEAVE_ASK} & set(request.POST):
        # Without JavaScript, "Show the chance" or "Do not answer": nothing rolls, the
        # panel is drawn again with every field as it was, and the redirect drops the CSRF
        # token, so the address the browser shows (and keeps in history) has none.
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
    # A tab (its new mode) or "Do not answer" redraws the panel with every field it holds (a
    # reason typed, the request answered) and the change asked for (Panel.fields).
    mode = request.GET.get("mode") or ""
    panel = Panel(access.session, request.user, mode, request.GET, access, redraw=True)
    if not request.htmx and LEAVE_ASK in request.GET:
        # Without JavaScript the action came by a redirect: the address shows its outcome.
        return redirect(_panel_url(request, access, panel.fields))
    response = _render_panel(request, panel, preview=panel.preview())
    if request.htmx:
        # The address bar follows the redraws, signed, so Back brings this same panel.
        response["HX-Replace-Url"] = _panel_url(request, access, panel.fields)
    return response


def _refuse_mode(request, access):
    """A kind of roll this user may not make (403), or no known kind at all (400, bad
    input): refused, nothing stored."""
    panel = Panel(access.session, request.user, "", access=access)
    if request.POST.get("mode") in rolls_access.system_modes(access.session.system):
        refusal = _("This kind of roll is not open to you in this session; nothing was rolled.")
        return _render_panel(request, panel, refusal=refusal, status=403)
    refusal = _("Unknown kind of roll; nothing was rolled. Choose a tab of the panel.")
    return _render_panel(request, panel, refusal=refusal, status=400)


def _post_and_answered_ask(panel, session):
    """The post a roll lands in (None: the service picks) and the request it answers, from
    the panel's token form; a request that is gone is refused like a closed one. The post
    is one the panel offered (the field's choices), so it is the one the panel read."""
    target = None
    if post_id := panel.token_form.cleaned_data.get("post"):
        target = next((p for p in panel.posts if p.pk == post_id), None)
        if target is None:
            target = Post.objects.filter(pk=post_id, session=session).first()
    answers = None
    if ask_id := panel.token_form.cleaned_data.get("ask"):
        answers = RollAsk.objects.filter(pk=ask_id, session=session).first()
        if answers is None:
            raise ValidationError({"ask": _("This request is no longer open.")})
    return target, answers


def _panel_roll(request, access, mode: str):
    """Roll what a valid panel asks, or show the panel again with every refusal next to its
    field."""
    session = access.session
    panel = Panel(session, request.user, mode, request.POST, access)
    fresh_url = None  # offered when the token cannot roll (spent, or not this user's)
    if panel.is_valid():
        try:
            made = _roll_make_from_panel(request, panel, session)
        except PlanChanged as changed:
            refusal = _(
                "Nothing was rolled: the roll is no longer the one described above the button "
                "(the form or the diary changed since). Now it would be: %(plan)s. Check it "
                "and click “Roll” again."
            ) % {"plan": changed.plan.words}
            return _render_panel(
                request, panel, preview=panel.preview(), refusal=refusal, status=409
            )
        except RuleError as error:
            panel.add_rule_error(error)
        except ValidationError as error:  # the chosen post left the turn, the request closed
            _panel_add_service_error(panel, error)
        except services.TokenReused:
            panel.add_error(
                None,
                _("This form has already made another roll; open a new roll to roll again."),
            )
            fresh_url = _panel_url(request, access, request.POST, fresh_token=True)
        else:
            return _to_the_roll(made.roll, session)
    elif panel.token_form.cleaned_data.get("token") is None:
        fresh_url = _panel_url(request, access, request.POST, fresh_token=True)
    return _render_panel(
        request,
        panel,
        preview=panel.preview(),
        show_errors=True,
        fresh_url=fresh_url,
        status=400,
    )


def _roll_make_from_panel(request, panel, session):
    """The roll a valid panel describes, made (rolls.services.roll_make)."""
    target, answers = _post_and_answered_ask(panel, session)
    return services.roll_make(
        session=session,
        by=request.user,
        case=panel.case(),
        token=panel.token_form.cleaned_data["token"],
        post=target,
        answers=answers,
        answer_note=panel.answer_note,
        # The sheets the panel read for its forms: a roll reads them once.
        characters=panel.sheets,
        secret=panel.secret,
        extra_action_reason=panel.extra_action_reason,
        client_seed=panel.token_form.cleaned_data.get("client_seed", ""),
        plan=panel.token_form.cleaned_data.get("plan", ""),
    )


def _panel_add_service_error(panel, error: ValidationError) -> None:
    """The roll service's refusal next to the field it names (the post, the reason an
    answer differs, the secret box), else above the form."""
    fields = getattr(error, "error_dict", {})
    named = next((name for name in ("post", "answer_note", "secret") if name in fields), None)
    panel.add_error(named, " ".join(error.messages))


def _to_the_roll(roll: Roll, session):
    """Where a made roll is shown: its place in the diary, or a secret roll's own page."""
    if roll.test == SECRET_TEST:
        # The GM sees the hidden result (and the reveal button) on the roll's page.
        return redirect("rolls:detail", session.pk, roll.seq)
    return redirect(roll.post.get_absolute_url(anchor=f"roll-{roll.seq}"))


def _render_panel(
    request, panel, *, preview=None, show_errors=False, fresh_url=None, refusal="", status=200
):
    template = "rolls/panel.html"
    if request.htmx:
        # An edit redraws only the preview; a structural change, the whole panel.
        part = "preview" if request.htmx.target == "preview" and not show_errors else "panel"
        template = f"{template}#{part}"
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
    session = rolls_access.session_for_reader(request, pk)
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
            "diary_url": roll.post.get_absolute_url(roll=roll.seq) if roll.post else "",
            "dice": _dice_of(roll),
            "record_json": json.dumps(roll.record, indent=2, ensure_ascii=False, sort_keys=True),
            "recomputed": chain.chain_hash(roll.prev_hash, roll.record),
        },
    )


def _seq_bound(value: str | None) -> int | None:
    """A seq bound from the query string; anything but plain ASCII digits is no bound."""
    return int(value) if value and re.fullmatch(r"[0-9]{1,18}", value) else None


@login_required
@require_GET
def post_rolls(request, pk: int, post_pk: int):
    """A post's folded rolls, FOLD_PAGE at a time, newest first (`before`, `after`: the
    seqs they lie between): the fragment an htmx click puts in place of its control, or
    without JS a page of them. Whoever reads the diary reads them, rendered as the diary
    renders them (a secret roll's commitment, never its record)."""
    session = rolls_access.session_for_reader(request, pk)
    post = get_object_or_404(Post.objects.only("pk", "session_id"), pk=post_pk, session=session)
    batch = post_rolls_batch(
        post,
        before=_seq_bound(request.GET.get("before")),
        after=_seq_bound(request.GET.get("after")),
    )
    template = "rolls/post_rolls_page.html"
    return render(
        request,
        f"{template}#batch" if request.htmx else template,
        {"session": session, "post": post, "batch": batch},
    )


def _dice_of(roll: Roll):
    """The fair dice this entry shows: its own, or a revealed secret roll's."""
    if roll.test == REVEAL_TEST:
        revealed = roll.record["reveals"].get("record")
        return dice_check(roll, revealed) if isinstance(revealed, dict) else None
    return dice_check(roll)


def _secret_context(user, session, roll) -> dict:
    """A secret roll's state on its page; its hidden record only for those
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
    """The GM reveals a secret roll: a reveal entry joins the chain (rolls.ledger.secret). It cannot
    be undone, so the roll page's button only asks again (a page with the real button, which
    works without JavaScript); the reveal happens on `confirm=yes`."""
    session = rolls_access.session_for_reader(request, pk)
    hidden = get_object_or_404(SecretRoll, roll__session=session, roll__seq=seq)
    if request.POST.get("confirm") != "yes" and hidden.reveal_id is None:
        if not rolls_access.access_roll_panel(request.user, session).may_roll_secret:
            raise PermissionDenied
        return render(
            request,
            "diary/confirm.html",
            {
                "title": _("Reveal secret roll #%(seq)s?") % {"seq": seq},
                "explanation": _(
                    "Everyone who reads the session will see its dice and result, and the "
                    "reveal stays in the chain: it cannot be undone."
                ),
                "button": _("Yes, reveal the roll"),
                "action": request.path,
                "fields": (),
                "back": reverse("rolls:detail", args=[session.pk, seq]),
            },
        )
    try:
        made = services.secret_roll_reveal(session=session, by=request.user, seq=seq)
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


REROLL_NOT_OFFERED = gettext_lazy(
    "This roll cannot be rerolled: only a failed roll of a character with a reroll source, "
    "in the turn it was made, by its player or the GM."
)


@login_required
@require_http_methods(["GET", "POST"])
def reroll(request, pk: int, seq: int):
    """A failed roll rerolled by choice (a system's przerzut): the sources that apply, the
    chance, and the reroll, a roll of its own linked to this one (which stays as it was)."""
    session = rolls_access.session_for_reader(request, pk)
    first = get_object_or_404(
        Roll.objects.select_related("post", "character"), session=session, seq=seq
    )
    system = registry.system_for(session.system)
    done = selectors.rerolled_by(first)
    refusal = _reroll_refusal(request.user, session, first, system)
    if done is not None:
        refusal = _("This roll was already rerolled: once only.")
    form = None
    seed_form = ClientSeedForm(request.POST if request.method == "POST" else None)
    if refusal is None:
        form = system.reroll_form(first, request.POST if request.method == "POST" else None)
    if request.method == "POST" and form is not None and form.is_valid():
        try:
            made = services.roll_make(
                session=session,
                by=request.user,
                case=form.case(),
                token=form.token(),
                client_seed=seed_form.seed(),
            )
        except services.TokenReused:
            refusal = _("This roll was already rerolled: once only.")
        except PermissionDenied:
            refusal = str(REROLL_NOT_OFFERED)
        except RuleError as error:
            field, message = system.refusal(error)
            form.add_error(field if field in form.fields else None, message)
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            if not made.created:
                messages.info(request, _("This roll was already rerolled: once only."))
            return redirect(made.roll.post.get_absolute_url(anchor=f"roll-{made.roll.seq}"))
    return _reroll_page(request, session, first, form, seed_form, refusal=refusal, done=done)


def _reroll_page(request, session, first, form, seed_form, *, refusal, done):
    """The reroll's page: the roll, its sources and the chance, or why it cannot be rerolled
    (403)."""
    preview = form.preview_case() if form is not None and refusal is None else None
    try:
        chance = percent_text(preview.probability()) if preview is not None else ""
    except RuleError:  # a record the engine no longer reads as a failure: no chance shown
        chance = ""
    status = 200 if refusal is None else 403
    return render(
        request,
        "rolls/reroll.html",
        {
            "session": session,
            "roll": first,
            "view": roll_view(first),
            "form": form,
            "seed_form": seed_form,
            "refusal": refusal,
            "done": done,
            # In the diary, where the post's run of rolls may be folded: unfolded at the roll.
            "diary_url": first.post.get_absolute_url(roll=first.seq) if first.post else "",
            "done_url": done.post.get_absolute_url(roll=done.seq) if done and done.post else "",
            "chance": chance,
        },
        status=status,
    )


def _reroll_refusal(user, session, first, system) -> str | None:
    """Why this user may not reroll this roll now, or None."""
    if system is None or system.reroll_form is None or not selectors.reroll_offered(first):
        return str(REROLL_NOT_OFFERED)
    access = rolls_access.access_roll_panel(user, session)
    turn = session.current_turn
    if (
        first.character is None
        or not access.may_roll_mode(first.test)
        or not access.may_roll_for(first.character)
        or turn is None
        or turn.number != first.turn_number
    ):
        return str(REROLL_NOT_OFFERED)
    return None


@login_required
@require_http_methods(["GET", "POST"])
def ask_create(request, pk: int):
    """A player asks the GM for a roll: the test and what of their sheet applies, checked
    against the rules now (RULES 1.2), shown in their post, answered by the GM."""
    session = rolls_access.session_for_reader(request, pk)
    if not rolls_access.may_ask(request.user, session):
        raise PermissionDenied
    system = registry.system_for(session.system)
    modes = [m for m in system.modes if m.key in rolls_access.askable_modes(session.system)]
    everyone = list(selectors.sheets_in_play(session).values())
    mine = [c for c in everyone if c.owner_id == request.user.pk]
    posts = own_posts_in_turn(session, request.user, current_turn(session))
    posted = request.method == "POST"
    data = request.POST if posted else (request.GET or None)
    asked = (data or {}).get("mode")
    mode = asked if asked in {m.key for m in modes} else modes[0].key
    form = _request_form(system, mode, data, session=session, mine=mine, everyone=everyone)
    target = AskTargetForm(data, posts=posts)
    # Any change redraws the request form: what is being typed stays as typed.
    preserve_typed_fields([*form.forms, target])
    form_valid = form.is_valid() if posted else False
    if posted and form_valid and target.is_valid():
        post_id = target.cleaned_data["post"]
        try:
            ask = services.roll_ask_create(
                session=session,
                by=request.user,
                case=form.case(),
                post=next((p for p in posts if p.pk == post_id), None) if post_id else None,
            )
        except RuleError as error:
            field, message = refusal_message(system, error)
            owner, name = form.bound_field(field or "")
            (owner or form.forms[0]).add_error(name if owner else None, message)
        except ValidationError as error:
            apply_service_errors(target, error)
        else:
            messages.success(request, _("Your request is in your post; the GM will answer it."))
            return redirect(ask.post.get_absolute_url(anchor=f"ask-{ask.pk}"))
    return _ask_page(request, session, system, modes, mode, form, target, posted=posted)


def _request_form(system, mode: str, data, *, session, mine: list, everyone: list):
    """The mode's panel form as a player's request: for their own characters, naming only
    what is tested (the rest, a difficulty or a factor, is the GM's)."""
    form = system.form(
        mode,
        data,
        FormContext(
            characters=mine, all_characters=everyone, gm=False, session=session, for_request=True
        ),
    )
    form.keep_only_asked()
    return form


def _ask_page(request, session, system, modes, mode, form, target, *, posted: bool):
    """The request form (its htmx part on a redraw); after a refused POST, 400 with the
    refusals shown."""
    template = "rolls/ask.html#ask" if request.htmx else "rolls/ask.html"
    return render(
        request,
        template,
        {
            "session": session,
            "modes": modes,
            "mode": mode,
            "form": form,
            "form_template": form.template or system.form_template,
            "target": target,
            "show_errors": posted,
            "hide_errors": not posted,
        },
        status=400 if posted else 200,
    )


@login_required
@require_POST
def ask_withdraw(request, pk: int, ask_pk: int):
    session = rolls_access.session_for_reader(request, pk)
    ask = get_object_or_404(RollAsk, pk=ask_pk, session=session)
    try:
        services.roll_ask_withdraw(ask=ask, by=request.user)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, _("Your request is withdrawn."))
    return redirect(ask.post.get_absolute_url(anchor=f"ask-{ask.pk}"))


@login_required
@require_http_methods(["GET", "POST"])
def ask_decline(request, pk: int, ask_pk: int):
    """The GM declines a player's request, saying why (it will not be rolled)."""
    session = rolls_access.session_for_reader(request, pk)
    if not diary_permissions.is_gm(request.user, session):
        raise PermissionDenied
    ask = get_object_or_404(RollAsk.objects.select_related("post"), pk=ask_pk, session=session)
    posted = request.method == "POST"
    form = AskDeclineForm(request.POST if posted else None)
    if not ask.is_open:
        form.add_error(None, services.ASK_CLOSED)
    elif posted and form.is_valid():
        try:
            services.roll_ask_decline(ask=ask, by=request.user, reason=form.cleaned_data["reason"])
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, _("The request is declined; the player reads your reason."))
            return redirect(ask.post.get_absolute_url(anchor=f"ask-{ask.pk}"))
    return render(
        request,
        "rolls/ask_decline.html",
        {"session": session, "ask": ask, "form": form},
        status=400 if posted or not ask.is_open else 200,
    )


# ---------------------------------------------------------------------------
# Diary entries (HP, effects, items granted and used), in the session's chain


def _entry_refused(form, error, fallback=None) -> None:
    """A service's refusal as form errors, next to the field it names (or `fallback`, the
    field it concerns, when this user's form lacks it: a player has no GM's reason field)."""
    if isinstance(error, entries.TokenReused):
        form.add_error(None, _("This form has already made another entry; send it again."))
        return
    if hasattr(error, "error_dict"):
        for field, errors in error.message_dict.items():
            form.add_error(field if field in form.fields else fallback, errors)
    else:
        form.add_error(None, error.messages)


def _gm_entry_call(session, user, name: str, form):
    data = form.cleaned_data
    common = {"token": data["token"], "digest": form.digest(), "post_id": data["post"]}
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
    session = rolls_access.session_for_reader(request, pk)
    if not rolls_access.may_write_entries(request.user, session):
        raise PermissionDenied
    targets = entry_selectors.entry_targets(session)
    npc_targets = entry_selectors.npc_entry_targets(session)
    own_posts = own_posts_in_turn(session, request.user, current_turn(session))
    posted = request.POST.get("entry") if request.method == "POST" else None
    picked = preselected_character(request.GET.get("entry_character"), targets)
    forms = {
        name: form(
            request.POST if name == posted else None,
            prefix=name,
            user=request.user,
            session=session,
            characters=targets,
            npc_targets=npc_targets,
            posts=own_posts,
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


def _action_without_roll_page(request, pk: int):
    """The session of a page recording an action without a roll (a potion, a spell or an
    ability), for its players and GM while it runs; whether this user may allow a further
    action. Only the GM allows one (RULES 1.5): a player sending the GM's reason is refused."""
    session = rolls_access.session_for_reader(request, pk)
    is_gm = diary_permissions.is_gm(request.user, session)
    if not session.is_running or not (is_gm or diary_permissions.is_player(request.user, session)):
        raise PermissionDenied
    may_allow = registry.system_for(session.system).refuses_extra_action_rolls and (
        rolls_access.may_allow_extra_item_use(request.user, session)
    )
    sent_reason = (request.POST.get("extra_action_reason") or "").strip()
    if request.method == "POST" and sent_reason and not may_allow:
        raise PermissionDenied
    return session, is_gm, may_allow


@login_required
@require_http_methods(["GET", "POST"])
def item_use(request, pk: int):
    """A character uses a potion or healing item (an action without a roll, seed line 142):
    its owner, or the GM for them."""
    session, is_gm, may_allow = _action_without_roll_page(request, pk)
    potions = entry_selectors.usable_items(session, request.user, is_gm=is_gm)
    posted = request.method == "POST"
    form = ItemUseForm(
        request.POST if posted else None,
        user=request.user,
        session=session,
        potions=potions,
        may_allow_extra_action=may_allow,
    )
    if posted and form.is_valid():
        try:
            made = entries.item_use(
                session=session,
                by=request.user,
                potion_id=form.cleaned_data["potion"],
                token=form.cleaned_data["token"],
                digest=form.digest(),
                extra_action_reason=form.cleaned_data.get("extra_action_reason", ""),
            )
        except (ValidationError, entries.TokenReused) as error:
            _entry_refused(form, error, fallback="potion")
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


@login_required
@require_http_methods(["GET", "POST"])
def ability_use(request, pk: int):
    """A character uses a spell or ability without a roll (the turn's action, seed 000
    VII.1): its owner, or the GM for any character."""
    session, is_gm, may_allow = _action_without_roll_page(request, pk)
    characters = entry_selectors.characters_acting_for(session, request.user, is_gm=is_gm)
    posted = request.method == "POST"
    form = AbilityUseForm(
        request.POST if posted else None,
        user=request.user,
        session=session,
        characters=characters,
        may_allow_extra_action=may_allow,
    )
    if posted and form.is_valid():
        data = form.cleaned_data
        try:
            made = entries.ability_use(
                session=session,
                by=request.user,
                character_id=data["character"],
                name=data["name"],
                description=data["description"],
                token=data["token"],
                digest=form.digest(),
                extra_action_reason=data.get("extra_action_reason", ""),
            )
        except (ValidationError, entries.TokenReused) as error:
            _entry_refused(form, error, fallback="character")
        else:
            messages.success(request, _("Recorded: the entry is in your post."))
            return redirect(made.entry.post.get_absolute_url(anchor=f"roll-{made.entry.seq}"))
    return render(
        request,
        "rolls/ability_use.html",
        {"session": session, "form": form},
        status=400 if posted else 200,
    )
