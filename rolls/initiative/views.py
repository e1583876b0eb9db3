"""The initiative event's page: the running order, the GM's controls, and every
event's history. Readers of the session's diary see it; the GM changes it."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from config.form_errors import apply_service_errors
from diary.services import current_turn
from rolls.access import access_fight, session_for_reader
from rolls.initiative import selectors, services
from rolls.initiative.forms import HandoverForm, MarkerForm, ModifierForm, NpcJoinForm
from rolls.models import InitiativeEvent

NO_EVENT = gettext_lazy("No initiative event is running in this session; nothing was changed.")


@login_required
@require_GET
def initiative(request, pk: int):
    """The running event's order and the GM's controls; every event's history."""
    access = access_fight(request.user, session_for_reader(request, pk))
    return _render(request, access)


def _render(request, access, *, forms=None, refusal="", status=200):
    session = access.session
    events = selectors.session_events(session)
    running = next((e for e in events if e.is_running), None)
    fight = None
    participants = []
    if running is not None:
        turn = current_turn(session)
        fight = selectors.fight_view(
            running,
            turn.number if turn else running.opened_turn,
            sees_hidden=access.sees_hidden_npcs,
        )
        participants = list(running.participants.all())
    forms = forms or {}
    if access.can_manage and running is not None:
        signed = {"participants": participants, "user": request.user, "session": session}
        forms.setdefault("marker", MarkerForm(**signed))
        forms.setdefault("modifier", ModifierForm(**signed))
        forms.setdefault("handover", HandoverForm(**signed))
        forms.setdefault("npc_join", NpcJoinForm(npcs=_npcs(session), **signed))
    return render(
        request,
        "rolls/initiative.html",
        {
            "session": session,
            "access": access,
            "fight": fight,
            "forms": forms if access.can_manage else {},
            "histories": [
                (event, selectors.history_rows(event, sees_hidden=access.sees_hidden_npcs))
                for event in events
            ],
            "refusal": refusal,
            "show_errors": status == 400,
        },
        status=status,
    )


def _running_for_gm(request, pk: int):
    """(access, the running event or None) for the GM of a running session; 404/403 else."""
    access = access_fight(request.user, session_for_reader(request, pk))
    if not access.can_manage:
        raise PermissionDenied
    event = InitiativeEvent.objects.running().filter(session=access.session).first()
    return access, event


def _back(access, back: str):
    """Where the GM came from: the diary, the panel, or (by default) the event page."""
    session = access.session
    if back == "diary":
        return redirect(reverse("diary:session", args=[session.pk]) + "#fight")
    if back == "panel":
        return redirect(reverse("rolls:panel", args=[session.pk]) + "?mode=initiative")
    return redirect("rolls:initiative", pk=session.pk)


def _npcs(session):
    return list(session.npcs.order_by("name", "pk"))


def _change(request, pk: int, form_class, key: str, write, **form_kwargs):
    """Parse the form, call the service, go back; a refusal shows next to its field (400).
    A token already used goes back too: the service answers with the change it made."""
    access, event = _running_for_gm(request, pk)
    if event is None:
        return _render(request, access, refusal=NO_EVENT, status=400)
    form = form_class(
        request.POST,
        participants=list(event.participants.all()),
        user=request.user,
        session=access.session,
        **form_kwargs,
    )
    if form.is_valid():
        try:
            write(event, form.cleaned_data)
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            return _back(access, form.cleaned_data.get("back") or "fight")
    return _render(request, access, forms={key: form}, status=400)


@login_required
@require_POST
def initiative_marker(request, pk: int):
    """The GM marks whom they resolve next (the next in the order, or the one picked)."""

    def write(event, data):
        services.initiative_marker_move(
            event=event,
            by=request.user,
            character_id=data.get("character"),
            token=data["token"],
        )

    return _change(request, pk, MarkerForm, "marker", write)


@login_required
@require_POST
def initiative_modifier(request, pk: int):
    def write(event, data):
        services.initiative_modifier_add(
            event=event,
            by=request.user,
            character_id=data["character"],
            value=data["value"],
            turns=data["turns"],
            reason=data["reason"],
            token=data["token"],
        )

    return _change(request, pk, ModifierForm, "modifier", write)


@login_required
@require_POST
def initiative_handover(request, pk: int):
    def write(event, data):
        services.initiative_handover_record(
            event=event,
            by=request.user,
            character_id=data["character"],
            other_id=data["other"],
            position=data["position"],
            reason=data["reason"],
            token=data["token"],
        )

    return _change(request, pk, HandoverForm, "handover", write)


@login_required
@require_POST
def initiative_npc_add(request, pk: int):
    """The GM adds an NPC to the running order, with its value (and optional max HP)."""

    def write(event, data):
        services.initiative_npc_add(
            event=event,
            by=request.user,
            npc_id=data["npc"],
            score=data["score"],
            hp_max=data.get("hp_max"),
            token=data["token"],
        )

    session = session_for_reader(request, pk)
    return _change(request, pk, NpcJoinForm, "npc_join", write, npcs=_npcs(session))


@login_required
@require_POST
def initiative_end(request, pk: int):
    """The GM ends the event (after the confirmation); the next initiative roll opens a new one."""
    access, event = _running_for_gm(request, pk)
    if event is None:
        return _render(request, access, refusal=NO_EVENT, status=400)
    if request.POST.get("confirm") != "yes":
        refusal = _("Confirm ending the event with the button in the box.")
        return _render(request, access, refusal=refusal, status=400)
    try:
        services.initiative_event_end(event=event, by=request.user)
    except ValidationError as error:
        return _render(request, access, refusal=" ".join(error.messages), status=400)
    messages.success(request, _("The event has ended; a new initiative roll opens the next one."))
    return redirect("rolls:initiative", pk=access.session.pk)
