"""The free-form roll page (the GM's; a player's where the GM allows it): type an
expression, see what it means, roll it into the session's chain
(rolls.free.services.roll_make_free)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from diary.selectors import own_posts_in_turn
from diary.services import current_turn
from rolls import access as rolls_access
from rolls import services
from rolls.access import session_for_reader
from rolls.engine.errors import RuleError
from rolls.free.forms import FreeRollForm, parsed_expression
from rolls.free.services import FREE_ROLLS_NOT_ALLOWED, roll_make_free
from rolls.ledger.secret import SECRET_TEST
from rolls.ledger.selectors import turn_commitment
from rolls.messages import notation_error_message
from rolls.presenters import notation_odds, notation_summary
from rolls.selectors import sheets_in_play


def _target(value) -> int | None:
    """The total the roller asks the chance of (≥ it), or None."""
    try:
        number = int(str(value).strip().replace("−", "-"))
    except (TypeError, ValueError):
        return None
    return number if abs(number) <= 1_000_000 else None


def _preview(text: str, target=None) -> dict:
    """What the expression means and its exact odds, or the refusal; nothing for no text."""
    if not (text or "").strip():
        return {"summary": "", "preview_error": "", "odds": None}
    notation, error = parsed_expression(text)
    if notation is None:
        return {"summary": "", "preview_error": error, "odds": None}
    return {
        "summary": notation_summary(notation),
        "preview_error": "",
        "odds": notation_odds(notation, _target(target)),
    }


@login_required
@require_http_methods(["GET", "POST"])
def free_roll(request, pk: int):
    """GET: the form (htmx: only the preview of `?expression=`); POST: roll, or, with
    `preview` (no JavaScript), show the form again with the preview and roll nothing."""
    session = session_for_reader(request, pk)
    access = rolls_access.access_free_roll(request.user, session)
    if access.refused_by_setting:
        # A player is told why, not shown a bare refusal (docs/decisions.md, free-form dice).
        raise PermissionDenied(FREE_ROLLS_NOT_ALLOWED)
    if not access.may_roll:
        raise PermissionDenied
    if request.method == "GET" and request.htmx:
        return render(
            request,
            "rolls/panel_free.html#preview",
            _preview(request.GET.get("expression", ""), request.GET.get("target")),
        )
    turn = current_turn(session)
    posts = own_posts_in_turn(session, request.user, turn)
    characters = [
        c for c in sheets_in_play(session).values() if access.is_gm or c.owner_id == request.user.pk
    ]
    posted = request.method == "POST"
    data = request.POST if posted else None
    if posted and "preview" in data:
        # A preview rolls nothing and never carries a roller's seed on to the roll: the
        # page it shows draws a fresh one (the browser sends none with a preview).
        data = data.copy()
        data.pop("client_seed", None)
    form = FreeRollForm(
        data,
        user=request.user,
        session=session,
        characters=characters,
        posts=posts,
        secret=access.is_gm,
        initial={"expression": request.GET.get("expression", "")[:200]},
    )
    # The live preview (htmx): the expression's meaning, or its refusal, under the field.
    form.fields["expression"].widget.attrs.update(
        {
            "hx-get": request.path,
            "hx-trigger": "input changed delay:300ms",
            "hx-target": "#free-preview",
            "hx-swap": "outerHTML",
            "hx-include": "#free-target",
        }
    )
    source = request.POST if posted else request.GET
    # Posted: the form's own error stands next to the field; the meaning only if it reads.
    preview = (
        {"summary": "", "preview_error": "", "odds": None}
        if posted
        else _preview(source.get("expression", ""), source.get("target"))
    )
    if posted and form.is_valid() and "preview" not in request.POST and turn is None:
        form.add_error(None, _("Open a turn first: a roll lands in a post of the current turn."))
    elif posted and form.is_valid() and "preview" not in request.POST:
        target = next((p for p in posts if p.pk == form.cleaned_data["post"]), None)
        try:
            made = roll_make_free(
                session=session,
                by=request.user,
                free=form.free_roll(),
                token=form.cleaned_data["token"],
                post=target,
                client_seed=form.cleaned_data.get("client_seed", ""),
            )
        except RuleError as error:  # the form parsed it already; kept for a changed engine
            form.add_error("expression", notation_error_message(error))
        except ValidationError as error:
            for field, errors in error.message_dict.items():
                form.add_error(field if field in form.fields else None, errors)
        except services.TokenReused:
            form.add_error(
                None,
                _("This form has already made another roll; open a new roll to roll again."),
            )
        else:
            if made.roll.test == SECRET_TEST:
                # As from the panels: the GM sees the hidden dice (and "Reveal") on its page.
                return redirect("rolls:detail", session.pk, made.roll.seq)
            return redirect(made.roll.post.get_absolute_url(anchor=f"roll-{made.roll.seq}"))
    elif posted and form.notation is not None:
        preview = {
            **preview,
            "summary": notation_summary(form.notation),
            "odds": notation_odds(form.notation, _target(request.POST.get("target"))),
        }
    status = 200 if not posted or ("preview" in request.POST and form.is_valid()) else 400
    return render(
        request,
        "rolls/panel_free.html",
        {
            "session": session,
            "form": form,
            **preview,
            "target": source.get("target", ""),
            "show_errors": posted,
            "hide_errors": not posted,
            "has_turn": turn is not None,
            "is_gm": access.is_gm,
            "commitment": turn_commitment(session),
        },
        status=status,
    )
