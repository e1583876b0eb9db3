import re

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from characters.systems import MOVEMENT_RULES
from config.form_errors import apply_service_errors, posted
from config.markdown import render_narration
from config.rate_limits import rate_limited
from config.redirects import with_query
from diary import hooks, reading, selectors, services
from diary.absences import selectors as absence_selectors
from diary.access import (
    SessionAccess,
    access_participation,
    access_post,
    access_session,
    joinable_characters,
    npc_access,
    sessions_open_to_join,
)
from diary.board.selectors import board_annotations, pinned_announcements
from diary.deadlines import selectors as deadline_selectors
from diary.drafts.presenters import draft_initial
from diary.drafts.selectors import draft_for, post_draft_annotations, post_draft_from
from diary.eyes import rendering as eyes_rendering
from diary.eyes.reading import reader_of, visible_text
from diary.forms import (
    DecisionNoteForm,
    HideForm,
    InviteForm,
    JoinForm,
    NewPostForm,
    PlanForm,
    PlanReviewForm,
    PostForm,
    SessionForm,
    SessionMuteForm,
    StatusForm,
    TurnDeadlineForm,
)
from diary.handover.forms import RemovalForm
from diary.handover.selectors import last_handover_annotations
from diary.live import poll as live
from diary.live.page_cache import memo
from diary.models import DeadlineRule, DraftPlace, ParticipationStatus, SessionStatus
from diary.notifications import delivery as notification_delivery
from diary.notifications.delivery import page_notices_annotations
from diary.nudges import selectors as nudge_selectors
from diary.pictures import selectors as picture_selectors
from diary.pictures.views import upload_limited
from diary.posts import quoting, voices
from diary.posts.diffs import word_diff
from diary.posts.rendering import post_body_html
from diary.recap import selectors as recap_selectors
from diary.scenes import presenters as scene_presenters
from diary.scenes import selectors as scene_selectors
from diary.talk.selectors import talk_unread_annotations


def _cursor(value: str | None) -> int | None:
    """A keyset cursor from the query string; anything but plain ASCII digits is ignored."""
    return int(value) if value and re.fullmatch(r"[0-9]{1,18}", value) else None


def _confirmed(request) -> bool:
    return request.POST.get("confirm") == "yes"


def _ask_to_confirm(request, *, title: str, explanation: str, button: str, back: str, fields=()):
    """The page that asks again when an irreversible action came without confirm=yes:
    nothing has changed, and the real button is here (it works without JavaScript)."""
    return render(
        request,
        "diary/confirm.html",
        {
            "title": title,
            "explanation": explanation,
            "button": button,
            "action": request.path,
            "fields": fields,
            "back": back,
        },
    )


@login_required
@require_GET
def session_list(request):
    # Each row's unread count and first unread post ride in the list's query.
    listed = selectors.sessions_listed_for(request.user)
    sessions = list(reading.sessions_with_unread(listed, request.user))
    return render(
        request,
        "diary/session_list.html",
        {
            "sessions": sessions,
            "joinable": sessions_open_to_join(request.user, sessions),
            "applied": selectors.sessions_applied_to(request.user),
        },
    )


@login_required
@require_http_methods(["GET", "POST"])
def session_create(request):
    form = SessionForm(posted(request))
    if request.method == "POST" and form.is_valid():
        session = services.session_create(gm=request.user, **form.cleaned_data)
        messages.success(request, _("The session has been created. Invite characters to it."))
        return redirect("diary:session", pk=session.pk)
    return render(
        request,
        "diary/session_form.html",
        {"form": form, "session": None},
    )


@login_required
@require_http_methods(["GET", "POST"])
def session_edit(request, pk: int):
    access = access_session(request.user, pk)
    if not access.can_manage:
        raise PermissionDenied
    session = access.session
    form = SessionForm(posted(request), instance=session)
    if request.method == "POST" and form.is_valid():
        try:
            services.session_update(session=session, by=request.user, **form.cleaned_data)
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, _("Session settings saved."))
            return redirect("diary:session", pk=session.pk)
    return render(
        request,
        "diary/session_form.html",
        {"form": form, "session": session},
    )


def _without_quote(request) -> str:
    query = request.GET.copy()
    query.pop("quote", None)
    return query.urlencode()


def _diary_cursors(request, session) -> tuple[reading.TurnJumpForm, int | None, int | None]:
    """The "?turn=" form and the page's cursors (before, after)."""
    before, after = _cursor(request.GET.get("before")), _cursor(request.GET.get("after"))
    # ?turn=N: the page that starts at turn N's first post; a bad N is said next
    # to the field and the page is the one the cursors ask for.
    turn_form = reading.TurnJumpForm(
        request.GET if "turn" in request.GET else None, session=session
    )
    if turn_form.is_bound and turn_form.is_valid():
        before, after = None, turn_form.first_post_id - 1
    return turn_form, before, after


def _posts_for_viewer(posts, access: SessionAccess) -> None:
    # Every link and button on a post comes from its PostAccess (diary/access.py); its head
    # and text are rendered once per version and viewer variant (diary/posts/rendering.py).
    reader = reader_of(access)
    for post in posts:
        post.access = access.post(post)
        post.body_html = post_body_html(
            post,
            gm_id=access.session.gm_id,
            can_see_content=post.access.can_see_content,
            co_gm_ids=access.session.co_gm_ids,
            reader=reader,
        )


def _rolls_on_posts(request, access: SessionAccess, posts, current_turn):
    """The rolls app's part of the page (None without it), each post given its own."""
    rolls = selectors.diary_rolls(
        posts,
        access,
        turn=current_turn,
        entry_character=request.GET.get("entry_character"),
        roll=_cursor(request.GET.get("roll")),
    )
    if rolls is not None:
        for post in posts:
            post.rolls_html = rolls.by_post.get(post.pk, "")
            post.ask_views = rolls.asks_by_post.get(post.pk, [])
            post.reroll_offers = rolls.reroll_offers_by_post.get(post.pk, [])
    return rolls


def _new_post_form(request, access: SessionAccess, posts) -> NewPostForm:
    # ?quote=<pk> (the "Cytuj" link without JS) starts the reply with that post quoted.
    quoted = quoting.quote_prefill(access, request.GET.get("quote"), posts)
    # The reader's unsent draft comes back (from any device), a quote after it.
    initial = draft_initial(
        post_draft_from(access.session, request.user), text_field="narration", note_field="nc_note"
    )
    if quoted:
        kept = initial.get("narration", "").rstrip()
        initial["narration"] = f"{kept}\n\n{quoted}" if kept else quoted
    form = NewPostForm(initial=initial or None, **_post_form_kwargs(access))
    if "scene" in form.fields:
        # The GM reading one scene writes in it by default.
        chosen = scene_selectors.session_scenes(access.session).chosen(request.GET.get("scena"))
        form.initial["scene"] = chosen or scene_selectors.MAIN
    return form


def _post_form_kwargs(access: SessionAccess) -> dict:
    """Whom a new post may narrate as: the author's own characters and, for the GM under
    "the GM plays the character" after the deadline, the characters still awaited."""
    kwargs = {
        "characters": access.my_characters,
        "movement": _counts_movement(access),
        **_speakers(access),
    }
    if access.is_gm:
        kwargs["scenes"] = scene_selectors.session_scenes(access.session).open_scenes
    if access.is_gm and access.session.deadline_rule == DeadlineRule.GM_PLAYS:
        turn = services.current_turn(access.session)
        kwargs["gm_plays"] = deadline_selectors.gm_playable_characters(access, turn, timezone.now())
        kwargs["gm_may_name"] = [
            p.character
            for p in _diary_participations(access)
            if p.status == ParticipationStatus.ACCEPTED
        ]
    return kwargs


def _speakers(access: SessionAccess, speaking=None) -> dict:
    """The NPCs whoever runs the session may speak a post as: those players see (a hidden
    NPC's voice is not offered), and `speaking`, the one an edited post already speaks as."""
    if not access.is_gm:
        return {}
    roster = selectors.npc_roster_for(npc_access(access))
    if not roster:
        return {}
    offered = [n for n in roster if n.visible_to_players or (speaking and n.pk == speaking.pk)]
    return {"npcs": offered, "npcs_known": roster}


def _posts_quotable(posts, *, can_post: bool) -> None:
    for post in posts:
        post.can_quote = can_post and quoting.quotable(post.access)
        post.quote_header = quoting.quote_header(post) if post.can_quote else ""


def _diary_participations(access: SessionAccess) -> list:
    # The roster comes with the access when the view asked for it (one query for both).
    if access.roster is not None:
        return list(access.roster)
    return selectors.session_participations(access.session)


def _recap_context(request, access: SessionAccess, posts, *, live_poll: bool, scenes) -> dict:
    """The first unread post and "since you were last here" (diary/recap/) for a reader back
    after a while: above the first unread post when this page shows it, else at the page's
    top. The live poll computes none: it keeps the one shown (an empty placeholder at its
    place, `?recap=`, which htmx's hx-preserve fills with the recap the reader has open)."""
    session = access.session
    # The first unread post as the session's query found it, before the page moves the mark.
    first_unread = getattr(session, "viewer_first_unread", None)
    shown = {post.pk for post in posts}
    first_unread_url = scene_presenters.first_unread_url(
        session.pk, first_unread, shown, scenes
    ) or reading.first_unread_url(session.pk, first_unread, shown)
    if live_poll:
        recap, recap_at = None, _cursor(request.GET.get("recap"))
    else:
        recap = recap_selectors.page_recap(access, first_unread_url=first_unread_url)
        recap_at = first_unread if recap is not None and first_unread in shown else None
    return {
        "first_unread_id": first_unread,
        "first_unread_url": first_unread_url,
        "first_unread_scene": scene_presenters.first_unread_scene(first_unread, posts, scenes),
        "recap": recap,
        "recap_at": recap_at,
    }


def _scene_page(request, session, before, after):
    """The page of posts, of one scene when `?scena=` names one (diary/scenes/); such a page
    reads on in its scene, up to another scene's first unread post (its id, returned)."""
    scenes = scene_presenters.diary_scenes(session, request.GET.get("scena"))
    page = selectors.diary_page(session, before=before, after=after, scene=scenes.filter)
    scene_presenters.mark_posts(page.posts, scenes)
    return scenes, page, scene_presenters.read_in_scene(session, request.user, scenes)


def _diary_context(
    request,
    access: SessionAccess,
    post_form: PostForm | None = None,
    deadline_form: TurnDeadlineForm | None = None,
    *,
    live_poll: bool = False,
) -> dict:
    """The diary page; showing it to its reader also moves their read mark and reads the
    notifications about what it shows (services.diary_page_seen)."""
    session = access.session
    turn_form, before, after = _diary_cursors(request, session)
    scenes, page, unread_elsewhere = _scene_page(request, session, before, after)
    _posts_for_viewer(page.posts, access)
    current_turn = services.current_turn(session)
    rolls = _rolls_on_posts(request, access, page.posts, current_turn)
    can_post = access.can_post
    if can_post and post_form is None:
        post_form = _new_post_form(request, access, page.posts)
    _posts_quotable(page.posts, can_post=can_post)
    participations = _diary_participations(access)
    if access.can_set_turn_deadline and current_turn and deadline_form is None:
        deadline_form = TurnDeadlineForm(initial={"deadline": current_turn.deadline})
    recap = _recap_context(request, access, page.posts, live_poll=live_poll, scenes=scenes)
    # The page that reaches the newest post follows the game live; older pages stay put.
    newest = before is None and page.newer_cursor is None
    services.diary_page_seen(
        user=request.user,
        session=session,
        posts=scene_presenters.posts_read(page.posts, scenes, unread_elsewhere),
        newest=newest,
        whole_diary=scenes.chosen is None,
    )
    return {
        **scenes.context(),
        "muted": getattr(session, "viewer_muted", None),
        "turn_form": turn_form,
        **recap,
        "session": session,
        "access": access,
        "page": page,
        # The page's turns, each with the characters it passed over at its end.
        "page_turns": deadline_selectors.page_turns(session, page),
        "rolls": rolls,
        "live": newest,
        "live_after": after,
        **_turn_context(access, current_turn, participations, rolls, deadline_form, scenes),
        "can_post": can_post,
        "post_form": post_form if can_post else None,
        "draft": post_draft_from(session, request.user) if can_post else None,
        # The diary's cursors, kept by each post's "Quote" link.
        "quote_query": _without_quote(request),
        "see_hidden": access.can_see_hidden_content,
        "transitions": services.transitions_for(access),
        "plan_last": selectors.plan_last_review(access),
        **_npc_context(access),
        # The GM's notice board, pinned above the diary (cached by the activity marker).
        "announcements": pinned_announcements(session),
    }


def _turn_context(
    access: SessionAccess, current_turn, participations, rolls, deadline_form, scenes
):
    """The diary sidebar's table: the roster, who is awaited this turn (per scene of a split
    session, diary/scenes/), the deadline."""
    playing = [p.character for p in participations if p.status == ParticipationStatus.ACCEPTED]
    session = access.session
    away = _away(access, playing)
    status = selectors.turn_status(
        current_turn, playing, rolls, session=session, absent=away["owners"]
    )
    return {
        "roster": [access.participation(p) for p in participations],
        # Who is awaited this turn, action rolls per character, the deadline.
        "turn_status": status,
        "scene_awaited": scene_presenters.awaited_per_scene(status, participations, scenes),
        "deadline_form": deadline_form if access.can_set_turn_deadline else None,
        "current_turn": current_turn,
        "next_turn": (current_turn.number if current_turn else 0) + 1,
        "is_gm": access.is_gm,
        "away": away if access.can_see_absences else None,
        "nudges": _nudge_rows(access, status),
    }


def _away(access: SessionAccess, playing) -> dict:
    """Who is away today (diary/absences): the players' (owner id → absence) and the GM's.
    An absence moves the session's activity marker, so it is read once per marker and day."""
    session = access.session
    day = absence_selectors.today()
    book = memo(
        ("absences", session.pk, session.activity_marker, day),
        lambda: absence_selectors.absence_book([session.pk], day),
    )
    owners = {c.owner_id for c in playing}
    found = {owner: book.absence(session.pk, owner) for owner in owners}
    for character in playing:  # the roster's line: "Mira — nieobecna do 14.12"
        character.away = found[character.owner_id] if access.can_see_absences else None
    return {
        "owners": {owner: a.ends_on for owner, a in found.items() if a is not None},
        "of": {owner: a for owner, a in found.items() if a is not None},
        "gm": book.absence(session.pk, session.gm_id),
    }


def _nudge_rows(access: SessionAccess, status) -> list | None:
    """The GM's nudge buttons beside the awaited characters (none for anyone else)."""
    if not access.can_nudge or status is None:
        return None
    last = nudge_selectors.last_nudges_cached(access.session)
    return nudge_selectors.nudge_rows(status.awaited, last, timezone.now())


def _npc_context(access: SessionAccess) -> dict:
    """The diary sidebar's NPCs."""
    flags = npc_access(access)
    return {"npc_access": flags, "npcs": selectors.npc_roster_for(flags)}


def diary_page_reads(user) -> dict:
    """What the diary page reads with the session's row, no query of its own: the
    notifications it clears (and the mute toggle's state), the unread table talk beside
    the diary (its links' badges), whether any turn passed someone over, the session's
    newest handover (its history) and the notice board's stamp (its pinned announcements'
    cache key)."""
    return {
        **page_notices_annotations(user),
        **talk_unread_annotations(user),
        **deadline_selectors.page_reads(),
        **last_handover_annotations(),
        **board_annotations(),
        **post_draft_annotations(user),
        **scene_selectors.page_reads(),
    }


@login_required
@require_GET
def session_detail(request, pk: int):
    """The session's diary: posts by turn, newest page first, the post form below."""
    access = access_session(
        request.user,
        pk,
        roster=True,
        reading=True,
        card_only=True,
        annotations=diary_page_reads(request.user),
    )
    if not access.can_read:
        # Someone who may see the card but not the diary: a page that says the diary is
        # its table's and leads to the session's public page, not a bare refusal.
        return render(
            request, "diary/session_private.html", {"session": access.session}, status=403
        )
    return render(request, "diary/session_detail.html", _diary_context(request, access))


def session_live(request, pk: int):
    """Polled by an open diary: nothing (204, or 304 for its ETag) until something changes,
    then the fresh posts. "Nothing new" comes from this process's copy of the session's
    marker (no query) or one query, while this browser's access is freshly checked
    (diary/live/poll.py); everything else takes the full path (log-in first, then GET only, as
    every diary view)."""
    if request.method == "GET":
        status = live.nothing_new(request, pk)
        if status is not None:
            return HttpResponse(status=status)
    return _session_live_checked(request, pk)


@login_required
@require_GET
def _session_live_checked(request, pk: int):
    access = access_session(
        request.user, pk, roster=True, reading=True, annotations=diary_page_reads(request.user)
    )
    marker = access.session.activity_marker
    tag = live.etag(marker, request.user.pk)
    if request.headers.get("If-None-Match") == tag:
        response = HttpResponse(status=304)
    elif request.GET.get("seen") == marker:
        response = HttpResponse(status=204)
    else:
        response = render(
            request,
            "diary/session_detail.html#diary_posts",
            _diary_context(request, access, live_poll=True),
        )
        response["ETag"] = tag
        # The browser may keep it, but asks again every time (it is this viewer's only).
        response["Cache-Control"] = "private, no-cache"
    live.grant(request, access, response)
    return response


@login_required
@require_POST
def session_mute(request, pk: int):
    """Mute or unmute the session's notifications for this reader, then back to the diary."""
    access = access_session(request.user, pk)
    form = SessionMuteForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose whether to mute the session's notifications."))
        return redirect("diary:session", pk=pk)
    notification_delivery.session_mute_set(
        user=request.user, session=access.session, muted=form.muted
    )
    if form.muted:
        messages.success(
            request, _("This session is muted: its play no longer brings you notifications.")
        )
    else:
        messages.success(request, _("This session's notifications are on again."))
    return redirect("diary:session", pk=pk)


@login_required
@require_POST
def session_status(request, pk: int):
    access = access_session(request.user, pk)
    if not access.may_change_status:
        raise PermissionDenied
    form = StatusForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Unknown session status."))
        return redirect("diary:session", pk=pk)
    target = form.cleaned_data["status"]
    # Ask before the step that cannot be undone (a step not allowed gets the service's error).
    if (
        target == SessionStatus.FINISHED
        and not _confirmed(request)
        and target in services.transitions_for(access)
    ):
        return _ask_to_confirm(
            request,
            title=_("Finish the session?"),
            explanation=_(
                "This cannot be undone: a finished session never runs again, and no one can "
                "post or roll in it any more. The diary and the rolls stay readable."
            ),
            button=_("Yes, finish the session"),
            back=reverse("diary:session", args=[pk]),
            fields=[("status", target)],
        )
    # Submitting goes through the plan's own step, which refuses an empty plan.
    try:
        if target == SessionStatus.PLAN_SUBMITTED:
            services.session_plan_submit(session=access.session, by=request.user)
        else:
            services.session_transition(session=access.session, by=request.user, to=target)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, _("Session status changed."))
    return redirect("diary:session", pk=pk)


@login_required
@require_http_methods(["GET", "POST"])
def session_participants(request, pk: int):
    """The GM invites characters and answers requests; everyone listed sees the roster."""
    access = access_session(request.user, pk)
    session = access.session
    invite_form = InviteForm(posted(request), session=session) if access.can_manage else None
    if request.method == "POST":
        if invite_form is None:
            raise PermissionDenied
        if invite_form.is_valid():
            try:
                services.participation_invite(
                    session=session,
                    by=request.user,
                    character=invite_form.cleaned_data["character"],
                )
            except ValidationError as error:
                # The service speaks of "character"; the form names it in the "name" field.
                if hasattr(error, "error_dict") and "character" in error.error_dict:
                    error = ValidationError({"name": error.error_dict.pop("character")})
                apply_service_errors(invite_form, error)
            else:
                messages.success(request, _("The character has been invited."))
                return redirect("diary:participants", pk=pk)
    return _participants_page(request, access, invite_form)


def _participants_page(request, access: SessionAccess, invite_form, refused=None):
    """The roster; `refused`: the GM's answer the service refused, shown in its row."""
    session = access.session
    participations = selectors.session_participations(session)
    gm_away = None
    if access.can_see_absences:  # who is away today, with their notes (diary/absences)
        book = absence_selectors.absence_book([session.pk])
        gm_away = book.absence(session.pk, session.gm_id)
        for p in participations:
            accepted = p.status == ParticipationStatus.ACCEPTED
            p.character.away = book.absence(session.pk, p.character.owner_id) if accepted else None
    return render(
        request,
        "diary/participants.html",
        {
            "session": session,
            "gm_away": gm_away,
            "is_gm": access.is_gm,
            "invite_form": invite_form,
            "rows": [access.participation(p) for p in participations],
            "places_taken": sum(p.status == ParticipationStatus.ACCEPTED for p in participations),
            "refused": refused,
        },
        status=400 if refused or (invite_form is not None and invite_form.errors) else 200,
    )


@login_required
@require_http_methods(["GET", "POST"])
def session_join(request, pk: int):
    access = access_session(request.user, pk, card_only=True)
    session = access.session
    characters = joinable_characters(request.user, session)
    form = JoinForm(posted(request), characters=characters, chosen=request.GET.get("character"))
    if request.method == "POST" and form.is_valid():
        try:
            services.participation_request(
                session=session,
                by=request.user,
                character=form.cleaned_data["character"],
                message=form.cleaned_data["message"],
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, _("Your request has been sent to the GM."))
            return redirect("diary:session_list")
    return render(
        request,
        "diary/session_join.html",
        {
            "session": session,
            "pitch": render_narration(session.description) if session.description else "",
            "players": selectors.session_places(session).players_accepted,
            "deadline": session.current_turn.deadline if session.current_turn else None,
            "form": form,
            "characters": characters,
            "runs": access.is_gm,
            "applications": selectors.my_applications(request.user, session),
            # A character built from here has the session's system and comes back here,
            # chosen in the form.
            "new_character_url": with_query(
                reverse("characters:create"), system=session.system, next=request.path
            ),
            "has_any": bool(characters)
            or selectors.has_character_of_system(request.user, session.system),
        },
        status=400 if form.errors else 200,
    )


@login_required
@require_POST
def participation_decide(request, pk: int, decision: str):
    flags = access_participation(request.user, pk)
    if not flags.can_decide:
        raise PermissionDenied
    participation = flags.participation
    note_form = DecisionNoteForm(request.POST)
    try:
        if not note_form.is_valid():
            raise ValidationError(note_form.errors["note"])
        services.participation_decide(
            participation=participation,
            by=request.user,
            accept=decision == "accept",
            note=note_form.cleaned_data["note"],
        )
    except ValidationError as error:
        if participation.session.runs(request.user):
            # Said in the row the GM answered, with what was typed there.
            access = access_session(request.user, participation.session_id)
            refused = {
                "pk": participation.pk,
                "messages": error.messages,
                "note": request.POST.get("note", ""),
                "no_free_place": getattr(error, "code", None) == "no_free_place",
            }
            invite_form = InviteForm(session=access.session) if access.can_manage else None
            return _participants_page(request, access, invite_form, refused)
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, _("Answer saved."))
    if participation.session.runs(request.user):
        return redirect("diary:participants", pk=participation.session_id)
    return redirect("home")


@login_required
@require_POST
def participation_withdraw(request, pk: int):
    """The owner leaves (confirmed), or the GM removes a character (confirmed, with the
    reason its player reads when it plays)."""
    flags = access_participation(request.user, pk)
    participation = flags.participation
    if not flags.can_withdraw:
        raise PermissionDenied
    back = reverse("diary:participants", args=[participation.session_id])
    removing = participation.character.owner_id != request.user.pk
    playing = participation.status == ParticipationStatus.ACCEPTED
    if removing and playing:
        return _participation_remove(request, participation, back)
    if not _confirmed(request):
        return _ask_to_confirm(request, back=back, **_withdraw_words(participation, removing))
    try:
        services.participation_withdraw(participation=participation, by=request.user)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, _("The character has left the session."))
    if not removing and playing:
        return redirect("diary:session_history", pk=participation.session_id)
    return redirect(back)


def _withdraw_words(participation, removing: bool) -> dict:
    """What the confirmation says will happen: leaving a running session, or taking an
    invitation or a request back."""
    name = participation.character.name
    if removing:
        return {
            "title": _("Remove %(name)s from the session?") % {"name": name},
            "explanation": _(
                "This cannot be undone: the character leaves the session at once. You may "
                "invite it again later, and its player decides whether to come back."
            ),
            "button": _("Yes, remove the character"),
        }
    if participation.status == ParticipationStatus.ACCEPTED:
        explanation = _(
            "This cannot be undone: %(name)s leaves the session at once and is free to play "
            "elsewhere. Its posts and rolls stay in the diary under its name; you no longer "
            "read the diary, and the GM is told. To come back you have to ask again or be "
            "invited, and the GM decides."
        ) % {"name": name}
    else:
        explanation = _(
            "This cannot be undone: your character leaves the session at once. To come "
            "back you have to ask again or be invited, and the GM decides."
        )
    return {
        "title": _("Leave the session with %(name)s?") % {"name": name},
        "explanation": explanation,
        "button": _("Yes, leave the session"),
    }


def _participation_remove(request, participation, back: str):
    """The GM removes a playing character: a page with the reason to give, then the
    removal (POST with confirm=yes and the reason)."""
    form = RemovalForm(request.POST if _confirmed(request) else None)
    if form.is_bound and form.is_valid():
        try:
            services.participation_withdraw(
                participation=participation,
                by=request.user,
                reason=form.cleaned_data["reason"],
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, _("The character has been removed from the session."))
            return redirect(back)
    return render(
        request,
        "diary/handover/remove.html",
        {"participation": participation, "form": form, "back": back},
        status=400 if form.errors else 200,
    )


@login_required
@require_POST
def turn_open(request, pk: int):
    access = access_session(request.user, pk)
    if not access.can_open_turn:
        raise PermissionDenied
    if not _confirmed(request):
        current = services.current_turn(access.session)
        number = (current.number if current else 0) + 1
        return _ask_to_confirm(
            request,
            title=_("Open turn %(number)s?") % {"number": number},
            explanation=_(
                "This cannot be undone: the current turn closes for good, and from now on "
                "every post and roll goes to turn %(number)s."
            )
            % {"number": number},
            button=_("Yes, open turn %(number)s") % {"number": number},
            back=reverse("diary:session", args=[pk]),
        )
    try:
        turn = services.turn_open_next(session=access.session, by=request.user)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, _("Turn %(number)s is open.") % {"number": turn.number})
    return redirect("diary:session", pk=pk)


def _counts_movement(access) -> bool:
    """Posts declare movement only where the rules count it per action (RULES 1.5, k1000)."""
    return access.session.system in MOVEMENT_RULES


@upload_limited
@login_required
@require_POST
@rate_limited("post")
def post_create(request, pk: int):
    access = access_session(request.user, pk, roster=True)
    if not access.can_post:
        raise PermissionDenied
    form = NewPostForm(
        request.POST,
        request.FILES,
        oversized_pictures=request.oversized_pictures,
        **_post_form_kwargs(access),
    )
    if form.is_valid():
        try:
            post = services.post_create(
                session=access.session, author=request.user, **form.cleaned_data
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            # The live newest page, at the new post (a repeated send: at its first post).
            return redirect(post.get_absolute_url(newest=getattr(post, "just_written", False)))
    form.pictures.dropped = form.pictures.sent_files
    return render(
        request,
        "diary/session_detail.html",
        _diary_context(request, access, post_form=form),
        status=400,
    )


def _preview(form, session, user, kept=()) -> str:
    """The narration as the post will show it (its NPC blocks and its parts for chosen eyes
    too), and what the rules app says of its dice markers (each expression's exact odds); a
    refusal (of the markup, a voice or a die) goes next to the field, as publishing would
    put it."""
    text = form.cleaned_data["narration"]
    try:
        render = voices.piece_renderer(text, session=session, by=user, kept=frozenset(kept))
        html = eyes_rendering.preview_html(text, session, render)
    except ValidationError as error:
        apply_service_errors(form, error)
        return ""
    dice = hooks.current().narration_preview(session=session, user=user, text=text)
    if dice.error:
        form.add_error("narration", dice.error)
    return html + dice.html


@upload_limited
@login_required
@require_POST
def post_preview(request, pk: int):
    """The reply as the diary will show it (the same sanitised rendering), stored nowhere.
    htmx gets only the post form section; without JS the whole page comes back. Pictures
    are not read: htmx keeps the chosen files in place (hx-preserve); a page without JS
    says to choose them again."""
    access = access_session(request.user, pk, roster=True)
    if not access.can_post:
        raise PermissionDenied
    form = NewPostForm(request.POST, **_post_form_kwargs(access))
    form.pictures.dropped = bool(request.FILES or request.oversized_pictures)
    preview_html = _preview(form, access.session, request.user) if form.is_valid() else ""
    valid = not form.errors
    if request.htmx:
        # htmx swaps only a 200, errors included; it needs the form section alone.
        context = {
            "session": access.session,
            "current_turn": services.current_turn(access.session),
            "post_form": form,
            "preview_html": preview_html,
        }
        return render(request, "diary/session_detail.html#write_form", context)
    context = _diary_context(request, access, post_form=form)
    context["preview_html"] = preview_html
    # A plain form post that is refused says so by its status.
    return render(request, "diary/session_detail.html", context, status=200 if valid else 400)


@upload_limited
@login_required
@require_http_methods(["GET", "POST"])
def post_edit(request, pk: int):
    access, post_access = access_post(request.user, pk)
    if not post_access.can_edit:
        raise PermissionDenied(post_access.refusal())
    post = post_access.post
    initial = {
        "character": post.character_id,
        "narration": post.narration,
        "nc_note": post.nc_note,
        "move_metres": post.move_metres,
        "move_mounted": post.move_mounted,
        "npc": post.npc_id,
    }
    if post.character_id is None and not post.narration and not post.nc_note:
        # An empty post the roll panel made to hold rolls: the player writes it as their
        # character, like a new post (PostForm's default), not as "no one".
        del initial["character"]
    # "Podgląd" posts the same form with preview=1: it is checked and rendered, not saved.
    previewing = request.method == "POST" and "preview" in request.POST
    form = PostForm(
        posted(request),
        # A preview reads no pictures (htmx keeps the chosen files in place).
        request.FILES if request.method == "POST" and not previewing else None,
        # The GM's post for a player's character stays that character's.
        characters=[post.character] if post.played_by_gm else access.my_characters,
        movement=_counts_movement(access),
        initial=initial,
        **_speakers(access, post.npc),
        existing_pictures=picture_selectors.editable_pictures(post),
        oversized_pictures=request.oversized_pictures,
    )
    preview_html = ""
    if request.method == "POST" and form.is_valid():
        if previewing:
            preview_html = _preview(
                form, post.session, request.user, kept=voices.voice_names(post.narration)
            )
        else:
            try:
                services.post_edit_with_pictures(post=post, by=request.user, **form.cleaned_data)
            except ValidationError as error:
                apply_service_errors(form, error)
            else:
                messages.success(
                    request, _("The post has been saved; its earlier version is kept.")
                )
                return redirect(post.get_absolute_url())
    refused = bool(form.errors) and not request.htmx  # htmx swaps only a 200
    if refused or (previewing and not request.htmx):
        form.pictures.dropped = bool(request.FILES or request.oversized_pictures)
    return render(
        request,
        "diary/post_edit.html",
        {"post": post, "form": form, "preview_html": preview_html},
        status=400 if refused else 200,
    )


@login_required
@require_POST
def post_hide(request, pk: int):
    _access, post_access = access_post(request.user, pk)
    if not post_access.can_hide:
        raise PermissionDenied(post_access.refusal())
    post = post_access.post
    form = HideForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("The reason is too long (at most 200 characters)."))
        return redirect(post.get_absolute_url())
    services.post_hide(post=post, by=request.user, reason=form.cleaned_data["reason"])
    messages.success(request, _("The post is hidden. Moderators can still read it."))
    return redirect(post.get_absolute_url())


@login_required
@require_GET
def post_link(request, pk: int):
    """A post's permalink: the diary page it is on, scrolled to it (404 for non-readers)."""
    _access, post_access = access_post(request.user, pk)
    return redirect(post_access.post.get_absolute_url())


@login_required
@require_GET
def post_history(request, pk: int):
    access, post_access = access_post(request.user, pk)
    if not post_access.can_see_revisions:
        raise PermissionDenied
    post = post_access.post
    revisions = list(post.revisions.select_related("written_by", "character").order_by("version"))
    # Those who open the versions read every part for chosen eyes (diary.access); should
    # that change, a part stays unread here all the same.
    reader = reader_of(access)
    for revision in revisions:
        revision.narration = visible_text(post, reader, markup=True, text=revision.narration)
    # Each version against the one before it, word by word (diary.posts.diffs); newest first.
    shown = [
        (revision, word_diff(earlier.narration, revision.narration) if earlier else None)
        for earlier, revision in zip([None, *revisions], revisions, strict=False)
    ]
    shown.reverse()
    return render(request, "diary/post_history.html", {"post": post, "revisions": shown})


# ---------------------------------------------------------------------------
# The session plan and its review
# ---------------------------------------------------------------------------


def _plan_render(request, access: SessionAccess, *, plan_form=None, review_form=None, status=200):
    page = selectors.plan_page(access.session)
    draft = (
        draft_for(request.user, access.session, DraftPlace.PLAN) if access.can_edit_plan else None
    )
    if access.can_edit_plan and plan_form is None:
        # The GM's unsaved draft of the scenario, when there is one, over the saved plan.
        scenario = draft.text if draft else (page.plan.scenario if page.plan else "")
        plan_form = PlanForm(initial={"scenario": scenario})
    if access.can_review_plan and review_form is None:
        review_form = PlanReviewForm()
    return render(
        request,
        "diary/plan.html",
        {
            "session": access.session,
            "access": access,
            "page": page,
            "plan_form": plan_form if access.can_edit_plan else None,
            "review_form": review_form if access.can_review_plan else None,
            "transitions": services.transitions_for(access),
            "draft": draft,
        },
        status=status,
    )


@login_required
@require_http_methods(["GET", "POST"])
def session_plan(request, pk: int):
    """The plan page (GM and moderators): the plan now, every submission and review; the GM
    writes the scenario here while the plan is a draft."""
    access = access_session(request.user, pk)
    if not access.can_see_plan:
        raise PermissionDenied
    if request.method == "GET":
        return _plan_render(request, access)
    if not access.can_edit_plan:
        raise PermissionDenied
    # Save and submit are two buttons of the one form, so submitting sends what is typed.
    submit = request.POST.get("action") == "submit"
    form = PlanForm(request.POST, submit=submit)
    if form.is_valid():
        save = services.session_plan_submit if submit else services.session_plan_update
        try:
            save(session=access.session, by=request.user, **form.cleaned_data)
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            if submit:
                messages.success(request, _("The plan has been submitted to the moderators."))
                return redirect("diary:session", pk=pk)
            messages.success(request, _("The plan has been saved."))
            return redirect("diary:session_plan", pk=pk)
    return _plan_render(request, access, plan_form=form, status=400)


@login_required
@require_POST
def session_plan_review(request, pk: int):
    """A moderator accepts the submitted plan or returns it with a comment."""
    access = access_session(request.user, pk)
    if not access.is_moderator:
        raise PermissionDenied
    if not access.can_review_plan:
        messages.error(request, _("This plan is not waiting for review."))
        return redirect("diary:session_plan", pk=pk)
    form = PlanReviewForm(request.POST)
    if form.is_valid():
        try:
            services.session_plan_review(
                session=access.session,
                by=request.user,
                accept=form.cleaned_data["decision"] == "accept",
                comment=form.cleaned_data["comment"],
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            if form.cleaned_data["decision"] == "accept":
                messages.success(request, _("The plan has been accepted."))
            else:
                messages.success(request, _("The plan has been returned to the GM."))
            return redirect("diary:session_plan", pk=pk)
    return _plan_render(request, access, review_form=form, status=400)


@login_required
@require_POST
def turn_deadline(request, pk: int):
    """The GM sets or clears the current turn's deadline (Europe/Warsaw time)."""
    access = access_session(request.user, pk, roster=True)
    if not access.can_set_turn_deadline:
        raise PermissionDenied
    form = TurnDeadlineForm(request.POST)
    if form.is_valid():
        try:
            services.turn_set_deadline(
                session=access.session, by=request.user, deadline=form.cleaned_data["deadline"]
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, _("The turn's deadline has been saved."))
            return redirect("diary:session", pk=pk)
    return render(
        request,
        "diary/session_detail.html",
        _diary_context(request, access, deadline_form=form),
        status=400,
    )
