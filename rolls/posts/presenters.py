"""What the diary page shows of rolls: each post's rolls rendered (the newest shown, a longer run
folded), the requests and reroll offers beside them, and the GM's entry forms. Registered with
the diary in rolls/apps.py."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import models
from django.db.models import Count
from django.db.models.functions import RowNumber
from django.utils.safestring import mark_safe
from django.utils.translation import get_language

from diary.hooks import DiaryRolls
from diary.live.page_cache import memo
from rolls import registry
from rolls.access import (
    fight_access_in_diary,
    may_open_item_use,
    may_roll_free_in_diary,
    may_roll_in_diary,
    may_write_entries_in_diary,
)
from rolls.entries.forms import GM_ENTRY_FORMS, preselected_character
from rolls.entries.selectors import entry_targets, npc_entry_targets
from rolls.initiative import selectors as initiative_selectors
from rolls.models import (
    AskStatus,
    Roll,
    RollAsk,
)
from rolls.presenters import rendered_roll
from rolls.selectors import (
    REROLL_OFFER_KEY,
    REROLLS_KEY,
    ChainHead,
    ask_view,
    chain_head_and_running_event,
    reroll_offers,
    reroll_offers_for,
    turn_action_counts,
)


@dataclass(frozen=True)
class _PageLedger:
    """What the diary page reads of the ledger, all of it fixed until the session's
    activity marker moves (every roll, request and turn moves it): cached by the marker."""

    # Each post's shown rolls as HTML, joined once (a post may hold thousands: a cached
    # page neither unpickles nor loops over them), and the fold above a longer run.
    rolls_html: dict
    folds: dict  # post id -> Fold
    folds_html: dict  # post id -> the fold's HTML
    asks: list  # the requests on the page's posts, with their answering roll
    open_asks: list  # the session's open requests (the GM's list), or []
    head: ChainHead
    running_event_id: int | None
    counts: dict
    uses: dict
    # Failed rolls of the current turn on the page that offer a reroll not made yet.
    reroll_offers: list = field(default_factory=list)


def _page_ledger(session, post_ids: list[int], turn_number, shows_open_asks: bool):
    def read() -> _PageLedger:
        head, event_id = chain_head_and_running_event(session)
        counts, uses = turn_action_counts(session, turn_number) if turn_number else ({}, {})
        # The page's requests and (for the GM) the session's open ones, in one query.
        wanted = models.Q(post__in=post_ids)
        if shows_open_asks:
            wanted |= models.Q(session=session, status=AskStatus.OPEN)
        asks = list(
            RollAsk.objects.filter(wanted)
            .select_related("answer", "character", "post")
            .order_by("id")
        )
        on_page = set(post_ids)
        page_rolls = _page_rolls(post_ids, turn_number)
        shown = [roll for roll in page_rolls if roll.newest <= FOLD_SHOWN]
        folds = _folds(page_rolls)
        return _PageLedger(
            rolls_html=_rolls_html_by_post(shown),
            folds=folds,
            folds_html={post_id: _fold_html(fold) for post_id, fold in folds.items()},
            reroll_offers=reroll_offers(page_rolls, turn_number),
            asks=[a for a in asks if a.post_id in on_page],
            open_asks=[a for a in asks if shows_open_asks and a.status == AskStatus.OPEN],
            head=head,
            running_event_id=event_id,
            counts=counts,
            uses=uses,
        )

    marker = session.activity_marker
    key = ("ledger", session.pk, marker, get_language(), turn_number, shows_open_asks, *post_ids)
    return memo(key, read)


def _rolls_html_by_post(rolls) -> dict[int, str]:
    from django.template.loader import render_to_string

    views: dict[int, list] = {}
    for roll in rolls:
        views.setdefault(roll.post_id, []).append(rendered_roll(roll))
    return {
        post_id: render_to_string("rolls/post_rolls_block.html", {"views": post_views})
        for post_id, post_views in views.items()
    }


# A post shows its newest FOLD_SHOWN rolls; the earlier ones of a longer run are folded
# behind one control and come FOLD_PAGE at a time (rolls:post_rolls), so neither the page
# nor a fragment grows with the run (docs/decisions.md, "Long runs of rolls").
FOLD_SHOWN = 20


FOLD_PAGE = 100


# A permalink to a folded roll unfolds this many around it (FOLD_AROUND before it, the
# rest from it on).
FOLD_AROUND = FOLD_PAGE // 2


def _page_rolls(post_ids: list[int], turn_number) -> list[Roll]:
    """The page's rolls a page shows or reads, in one query: each post's newest FOLD_SHOWN
    (`newest` ranks them, newest first; `in_post` counts the post's rolls, the folded too),
    and the current turn's rolls that offer or take a reroll (the offers under a post name
    folded rolls too). The folded rolls are counted, never loaded."""
    ranked = Roll.objects.filter(post__in=post_ids).annotate(
        newest=models.Window(
            RowNumber(), partition_by=[models.F("post_id")], order_by=models.F("seq").desc()
        ),
        in_post=models.Window(Count("id"), partition_by=[models.F("post_id")]),
    )
    wanted = models.Q(newest__lte=FOLD_SHOWN)
    if turn_number is not None:
        rerolls = models.Q(record__has_key=REROLL_OFFER_KEY) | models.Q(record__has_key=REROLLS_KEY)
        wanted |= models.Q(turn_number=turn_number) & rerolls
    return list(ranked.filter(wanted).order_by("seq"))


@dataclass(frozen=True)
class RollsMore:
    """A control that loads the newest FOLD_PAGE of a post's rolls between two seqs (both
    left out; `after` 0: from the first); `count` of them in all, `later` when they follow
    rolls already shown (the gap after a permalink's roll) rather than precede them."""

    session_id: int
    post_id: int
    before: int
    after: int
    count: int
    later: bool = False

    @property
    def url(self) -> str:
        from django.urls import reverse

        url = reverse("rolls:post_rolls", args=[self.session_id, self.post_id])
        return f"{url}?before={self.before}" + (f"&after={self.after}" if self.after else "")


@dataclass(frozen=True)
class Fold:
    """The folded start of a post's run of rolls: what comes before its first shown roll
    (`before`), behind `more`; a permalink's window of rolls unfolded in it (their views),
    with the rest behind `more` above them and `gap` below them."""

    session_id: int
    post_id: int
    before: int
    more: RollsMore | None
    window: tuple = ()
    gap: RollsMore | None = None

    @property
    def url(self) -> str:
        from django.urls import reverse

        return reverse("rolls:post_rolls", args=[self.session_id, self.post_id])


def _folds(page_rolls) -> dict[int, Fold]:
    """The fold of each post on the page that has more rolls than it shows."""
    folds = {}
    for roll in page_rolls:
        if roll.newest == FOLD_SHOWN and roll.in_post > FOLD_SHOWN:
            more = RollsMore(roll.session_id, roll.post_id, roll.seq, 0, roll.in_post - FOLD_SHOWN)
            folds[roll.post_id] = Fold(roll.session_id, roll.post_id, roll.seq, more)
    return folds


def _ranked(rolls, *, newest_first: bool, limit: int):
    """(up to `limit` of these rolls, the newest or the oldest, in seq order; how many there
    are in all), in one query."""
    order = models.F("seq").desc() if newest_first else models.F("seq").asc()
    rows = list(
        rolls.annotate(
            rank=models.Window(RowNumber(), order_by=order),
            in_range=models.Window(Count("id")),
        )
        .filter(rank__lte=limit)
        .order_by("seq")
    )
    return rows, rows[0].in_range if rows else 0


@dataclass(frozen=True)
class RollsBatch:
    views: list  # the rolls' views (rolls.presenters.rendered_roll), oldest first
    more: RollsMore | None  # the rest of the range, above them


def post_rolls_batch(post, *, before: int | None, after: int | None) -> RollsBatch:
    """A post's newest FOLD_PAGE rolls between two seqs (each left out; None: no bound),
    with the control for the rest (one query). Each roll is rendered as the diary renders
    it, for everyone who may read the diary."""
    rolls = Roll.objects.filter(post=post)
    if before is not None:
        rolls = rolls.filter(seq__lt=before)
    if after is not None:
        rolls = rolls.filter(seq__gt=after)
    rows, total = _ranked(rolls, newest_first=True, limit=FOLD_PAGE)
    more = None
    if total > len(rows):
        more = RollsMore(
            post.session_id, post.pk, rows[0].seq, after or 0, total - len(rows), bool(after)
        )
    return RollsBatch([rendered_roll(roll) for roll in rows], more)


def _fold_around(fold: Fold, session_id: int, seq: int) -> Fold:
    """The fold with the window of rolls around the folded roll `seq` unfolded (two
    queries): FOLD_AROUND before it, it and up to FOLD_AROUND - 1 after it."""
    rolls = Roll.objects.filter(post_id=fold.post_id)
    older, older_total = _ranked(rolls.filter(seq__lt=seq), newest_first=True, limit=FOLD_AROUND)
    newer, newer_total = _ranked(
        rolls.filter(seq__gte=seq, seq__lt=fold.before), newest_first=False, limit=FOLD_AROUND
    )
    window = older + newer
    more = gap = None
    if older_total > len(older):
        more = RollsMore(session_id, fold.post_id, window[0].seq, 0, older_total - len(older))
    if newer_total > len(newer):
        gap = RollsMore(
            session_id,
            fold.post_id,
            fold.before,
            window[-1].seq,
            newer_total - len(newer),
            later=True,
        )
    views = tuple(rendered_roll(roll) for roll in window)
    return Fold(session_id, fold.post_id, fold.before, more, views, gap)


def _fold_html(fold: Fold) -> str:
    from django.template.loader import render_to_string

    return render_to_string("rolls/roll_fold.html", {"fold": fold})


def _unfolded_at(session, folds: dict[int, Fold], seq: int | None) -> Fold | None:
    """The fold of the page's post that holds roll `seq` among its folded rolls, unfolded
    around it; None when there is no such roll on the page (one query, then two)."""
    if seq is None or not folds:
        return None
    post_id = (
        Roll.objects.filter(session=session, seq=seq, post_id__in=list(folds))
        .values_list("post_id", flat=True)
        .first()
    )
    fold = folds.get(post_id)
    if fold is None or seq >= fold.before:
        return None
    return _fold_around(fold, session.pk, seq)


def diary_rolls(posts, access, turn=None, entry_character=None, roll=None):
    """What the diary page shows of rolls (registered in rolls/apps.py): each post's roll
    views, the chain head, whether the user gets the panel, and the running initiative event.

    The ledger's part is read once per activity marker (six queries, then none until
    something happens in the session; rolls.presenters caches each roll's HTML); what stays
    per request is the running event (four queries while one runs, since ending it moves no
    marker) and the GM's entry forms (two). The user's role comes from the page's
    SessionAccess. `roll`: a roll's seq from its permalink; when it is folded, its post's
    fold opens around it (three queries, only then)."""
    session = access.session
    running = session.is_running
    shows_open_asks = access.is_gm and running
    ledger = _page_ledger(
        session, [p.pk for p in posts], turn.number if turn else None, shows_open_asks
    )
    who = {"is_gm": access.is_gm, "user_id": access.user.pk, "running": running}
    asks_by_post: dict[int, list] = {}
    for ask in ledger.asks:
        asks_by_post.setdefault(ask.post_id, []).append(ask_view(ask, **who))
    # The requests waiting for an answer: the GM's list, while the session runs.
    open_asks = [ask_view(a, **who) for a in ledger.open_asks]
    event, fight = _running_fight(access, ledger.running_event_id, turn)
    by_post = _rolls_html_with_folds(session, ledger, roll)
    return DiaryRolls(
        by_post=by_post,
        head=ledger.head,
        may_roll=may_roll_in_diary(access),
        asks_by_post=asks_by_post,
        open_asks=open_asks,
        shows_open_asks=shows_open_asks,
        may_ask=access.is_player and not access.is_gm and session.is_running,
        action_counts=ledger.counts,
        # A system that refuses a further action roll outside combat shows the limit; the
        # others count action rolls and show them.
        action_limit=1 if _refuses_extra_action_rolls(session) and not event else None,
        fight=fight,
        may_run_fight=fight is not None and fight_access_in_diary(access).can_manage,
        item_counts=ledger.uses,
        entry_forms=(
            _entry_forms(access, entry_character, _own_posts_on_page(access, posts, turn))
            if may_write_entries_in_diary(access)
            else None
        ),
        may_use_items=may_open_item_use(access),
        may_roll_free=may_roll_free_in_diary(access),
        reroll_offers_by_post=reroll_offers_for(access, ledger.reroll_offers),
    )


def _running_fight(access, event_id: int | None, turn):
    """The running initiative event and its view for this viewer, or (None, None)."""
    # An event is opened by a roll (the marker moves) but ended without one, so a
    # cached event id is checked live; no id means no event, without a query.
    event = (
        initiative_selectors.running_event(
            access.session, pk=event_id, turn_number=turn.number if turn else None
        )
        if event_id
        else None
    )
    fight = (
        initiative_selectors.fight_view(
            event,
            turn.number if turn else event.opened_turn,
            sees_hidden=access.is_gm or access.is_moderator,
        )
        if event
        else None
    )
    return event, fight


def _rolls_html_with_folds(session, ledger: _PageLedger, roll: int | None) -> dict:
    """Each post's rolls HTML after its fold's; the fold around a permalinked roll open."""
    folds_html = ledger.folds_html
    unfolded = _unfolded_at(session, ledger.folds, roll)
    if unfolded is not None:
        folds_html = folds_html | {unfolded.post_id: _fold_html(unfolded)}
    # Both parts are rendered templates' output (a plain "" + SafeString is not safe).
    return {
        post_id: mark_safe(folds_html.get(post_id, "") + block)
        for post_id, block in ledger.rolls_html.items()
    }


def _refuses_extra_action_rolls(session) -> bool:
    system = registry.system_for(session.system)
    return bool(system and system.refuses_extra_action_rolls)


def _own_posts_on_page(access, posts, turn) -> list:
    """The GM's own visible posts of this turn among the page's, newest first: where an
    entry may land by choice (no query; the turn's posts are on its last pages)."""
    if turn is None:
        return []
    return sorted(
        (
            p
            for p in posts
            if p.author_id == access.user.pk and p.turn_id == turn.pk and not p.is_hidden
        ),
        key=lambda p: -p.pk,
    )


def _entry_forms(access, entry_character=None, posts=()) -> dict:
    """The GM's entry forms for the diary, each with its own one-time token; a
    link's `?entry_character=<pk>` (the sheet's) preselects that character; `posts`: the
    GM's posts an entry may land in by choice."""
    targets = entry_targets(access.session)
    picked = preselected_character(entry_character, targets)
    npc_targets = npc_entry_targets(access.session)
    return {
        name: form(
            prefix=name,
            user=access.user,
            session=access.session,
            characters=targets,
            npc_targets=npc_targets,
            posts=posts,
            initial={"character": picked} if picked else None,
        )
        for name, form in GM_ENTRY_FORMS.items()
    }
