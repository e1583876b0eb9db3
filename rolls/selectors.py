"""Reads of the ledger: for the diary, the panel and the audit."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import models
from django.db.models import Count, Exists, OuterRef, Subquery
from django.db.models.functions import Coalesce, JSONObject, RowNumber
from django.utils.safestring import mark_safe
from django.utils.translation import get_language

from characters.models import Character, HealingPotion
from characters.sheet_rows import sheets_with_values
from diary.models import GameSession, NpcMode, ParticipationStatus, Post, SessionStatus
from diary.page_cache import memo
from diary.selectors import DiaryRolls, TurnActions, visible_posts_newest_first
from rolls import chain, initiative_selectors, registry, signing
from rolls.access import (
    fight_access_in_diary,
    may_open_item_use,
    may_roll_free_in_diary,
    may_roll_in_diary,
    may_write_entries_in_diary,
)
from rolls.engine import notation as free_notation
from rolls.engine.fair import draws_match
from rolls.entry_forms import GM_ENTRY_FORMS, preselected_character
from rolls.fair_dice import NOT_READ, TurnSeedRead
from rolls.models import (
    ACTIONS_WITHOUT_ROLL,
    AskStatus,
    InitiativeEvent,
    InitiativeParticipant,
    Roll,
    RollAsk,
    TurnSeed,
    is_player_free_roll,
)
from rolls.presenters import rendered_roll
from rolls.secret import REVEAL_TEST


def sheets_in_play(session, ids=None) -> dict[int, Character]:
    """The sheets a roll may read: the session's accepted characters and its NPCs'
    stand-ins (or those of them with these ids), by id, with the values on them."""
    from django.db.models import Q

    playing = Q(
        pk__in=Character.objects.filter(
            participations__session=session, participations__status=ParticipationStatus.ACCEPTED
        ).values("pk")
    )
    # Mode gm_character: the NPCs' stand-in sheets play in the panel too (the other
    # side of an opposed roll, initiative), though they are never participants.
    # Only while the session plays NPCs that way (the mode may change until the plan is accepted).
    stand_ins = Q(
        is_stand_in=True,
        npc_role__session=session,
        npc_role__session__npc_mode=NpcMode.GM_CHARACTER,
    )
    characters = Character.objects.filter(playing | stand_ins)
    if ids is not None:
        characters = characters.filter(pk__in=ids)
    # The values on them in the same statement (characters.sheet_rows), not five.
    return {c.pk: c for c in sheets_with_values(characters)}


def turn_action_counts(session, turn_number: int) -> tuple[dict[int, int], dict[int, int]]:
    """RULES 1.5, the diary's turn: action rolls and actions without a roll (potions, items,
    spells and abilities) per character (one query)."""
    without_roll = models.Q(test__in=ACTIONS_WITHOUT_ROLL)
    rows = (
        Roll.objects.filter(session=session, turn_number=turn_number)
        .filter(models.Q(is_action=True) | without_roll)
        .exclude(character_id=None)
        .values("character_id")
        .annotate(
            rolls=Count("id", filter=models.Q(is_action=True)),
            uses=Count("id", filter=without_roll),
        )
    )
    rolls, uses = {}, {}
    for row in rows:
        rolls[row["character_id"]] = row["rolls"]
        uses[row["character_id"]] = row["uses"]
    return rolls, uses


def npc_entry_targets(session) -> list[tuple[int, str, bool]]:
    """The running fight's sheet-less NPCs, as (key, name, has HP) (one query): every one
    may take an effect, those the GM gave HP an HP entry too. A hidden NPC is not offered:
    an entry is read by everyone in the diary."""
    rows = InitiativeParticipant.objects.filter(
        event__session=session,
        event__ended_at__isnull=True,
        npc__isnull=False,
        npc__visible_to_players=True,
    ).order_by("name")
    return [
        (-npc_id, name, hp_max is not None)
        for npc_id, name, hp_max in rows.values_list("npc_id", "name", "hp_max")
    ]


def entry_targets(session) -> list[Character]:
    """The characters the GM's diary entries may name: the accepted ones and the NPCs'
    stand-ins (mode gm_character), by name (one query)."""
    from django.db.models import Q

    playing = Q(
        participations__session=session, participations__status=ParticipationStatus.ACCEPTED
    )
    stand_ins = Q(
        is_stand_in=True,
        npc_role__session=session,
        npc_role__session__npc_mode=NpcMode.GM_CHARACTER,
    )
    return list(
        Character.objects.filter(playing | stand_ins).distinct().only("pk", "name").order_by("name")
    )


def usable_items(session, user, *, is_gm: bool) -> list:
    """Potions and healing items of the characters playing in the session that this user may
    use: their own characters', or every one for the GM (one query)."""
    potions = HealingPotion.objects.filter(
        character__participations__session=session,
        character__participations__status=ParticipationStatus.ACCEPTED,
    )
    if not is_gm:
        potions = potions.filter(character__owner=user)
    return list(potions.select_related("character").order_by("character__name", "id"))


def characters_acting_for(session, user, *, is_gm: bool) -> list:
    """The characters playing in the session this user records actions for: their own, or
    every one (stand-ins too) for the GM."""
    playing = sheets_in_play(session).values()
    return sorted(
        (c for c in playing if is_gm or c.owner_id == user.pk), key=lambda c: (c.name, c.pk)
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
        head, event_id = _chain_head_and_running_event(session)
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


# A roll that offers a reroll once it failed keeps `reroll_offer` in its record; the reroll
# names the roll it repeats under `rerolls` (rolls/systems/ciernie/rerolls.py).
REROLL_OFFER_KEY = "reroll_offer"
REROLLS_KEY = "rerolls"

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


@dataclass(frozen=True)
class RerollOffer:
    """A failed roll the diary offers to reroll, and whose character it is."""

    post_id: int
    seq: int
    mode: str
    character_name: str
    owner: str  # the character's owner's username, as the record named them


def reroll_offers(rolls, turn_number) -> list[RerollOffer]:
    """The rolls among these of the current turn that offer a reroll, minus those rerolled
    (a reroll lands in its roll's post, so it is among them too)."""
    if turn_number is None:
        return []
    # A mangled record (not an object) offers nothing; the ledger's check reports it.
    rolls = [roll for roll in rolls if isinstance(roll.record, dict)]
    rerolled = {
        roll.record[REROLLS_KEY].get("seq")
        for roll in rolls
        if isinstance(roll.record.get(REROLLS_KEY), dict)
    }
    offers = []
    for roll in rolls:
        record = roll.record
        if (
            roll.turn_number != turn_number
            or not record.get(REROLL_OFFER_KEY)
            or roll.seq in rerolled
        ):
            continue
        acting = (record.get("characters") or {}).get("a") or {}
        offers.append(
            RerollOffer(
                roll.post_id,
                roll.seq,
                roll.test,
                acting.get("name", ""),
                acting.get("owner", ""),
            )
        )
    return offers


def reroll_offered(roll) -> bool:
    return bool((roll.record or {}).get(REROLL_OFFER_KEY))


def rerolled_by(first):
    """The roll that rerolled `first`, or None."""
    return (
        Roll.objects.filter(
            session_id=first.session_id, **{f"record__{REROLLS_KEY}__seq": first.seq}
        )
        .order_by("seq")
        .first()
    )


def reroll_offers_for(access, offers) -> dict[int, list[RerollOffer]]:
    """The offers this user may take, by post: the GM's for every character, a player's for
    their own character in a mode open to players (rolls.access.may_roll_for)."""
    if not offers or not may_roll_in_diary(access):
        return {}
    system = registry.system_for(access.session.system)
    gm_only = system.gm_only_modes if system else frozenset()
    username = access.user.get_username()
    by_post: dict[int, list[RerollOffer]] = {}
    for offer in offers:
        if access.is_gm or (offer.owner == username and offer.mode not in gm_only):
            by_post.setdefault(offer.post_id, []).append(offer)
    return by_post


def diary_rolls(posts, access, turn=None, entry_character=None, roll=None):
    """What the diary page shows of rolls (registered in rolls/apps.py): each post's roll
    views, the chain head, whether the user gets the panel, and the running initiative event.

    The ledger's part is read once per activity marker (six queries, then none until
    something happens in the session; rolls.presenters caches each roll's HTML); what stays
    per request is the running event (four queries while one runs, since ending it moves no
    marker) and the GM's entry forms (two). The user's role comes from the page's
    SessionAccess. `roll`: a roll's seq from its permalink; when it is folded, its post's
    fold opens around it (three queries, only then)."""
    running = access.session.is_running
    shows_open_asks = access.is_gm and running
    ledger = _page_ledger(
        access.session, [p.pk for p in posts], turn.number if turn else None, shows_open_asks
    )
    who = {"is_gm": access.is_gm, "user_id": access.user.pk, "running": running}
    asks_by_post: dict[int, list] = {}
    for ask in ledger.asks:
        asks_by_post.setdefault(ask.post_id, []).append(ask_view(ask, **who))
    # The requests waiting for an answer: the GM's list, while the session runs.
    open_asks = [ask_view(a, **who) for a in ledger.open_asks]
    # An event is opened by a roll (the marker moves) but ended without one, so a
    # cached event id is checked live; no id means no event, without a query.
    event_id = ledger.running_event_id
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
    folds_html = ledger.folds_html
    unfolded = _unfolded_at(access.session, ledger.folds, roll)
    if unfolded is not None:
        folds_html = folds_html | {unfolded.post_id: _fold_html(unfolded)}
    return DiaryRolls(
        # Both parts are rendered templates' output (a plain "" + SafeString is not safe).
        by_post={
            post_id: mark_safe(folds_html.get(post_id, "") + block)
            for post_id, block in ledger.rolls_html.items()
        },
        head=ledger.head,
        may_roll=may_roll_in_diary(access),
        asks_by_post=asks_by_post,
        open_asks=open_asks,
        shows_open_asks=shows_open_asks,
        may_ask=access.is_player and not access.is_gm and access.session.is_running,
        action_counts=ledger.counts,
        # A system that refuses a further action roll outside combat shows the limit; the
        # others count action rolls and show them.
        action_limit=1 if _refuses_extra_action_rolls(access.session) and not event else None,
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


def asks_waiting_for(user) -> list:
    """A GM's home: the players' requests for rolls waiting in the running sessions they run,
    oldest first, each with its one-click answer."""
    if not user.is_authenticated:
        return []
    asks = (
        RollAsk.objects.filter(
            status=AskStatus.OPEN, session__gm=user, session__status=SessionStatus.RUNNING
        )
        .select_related("session", "post")
        .order_by("id")
    )
    return [ask_view(ask, is_gm=True, user_id=user.pk) for ask in asks]


def open_roll_asks(session) -> list[RollAsk]:
    """The session's requests still waiting for the GM, oldest first."""
    return list(
        RollAsk.objects.filter(session=session, status=AskStatus.OPEN)
        .select_related("character", "post")
        .order_by("id")
    )


@dataclass(frozen=True)
class AskView:
    """A request as the diary shows it, with what this user may do with it."""

    ask: RollAsk
    answer_url: str  # the GM's one click: the panel, prefilled; "" for anyone else
    may_withdraw: bool


def ask_view(ask: RollAsk, *, is_gm: bool, user_id: int | None, running: bool = True) -> AskView:
    """`running`: whether the session runs; a finished session's open request is neither
    answered nor withdrawn (rolls.services refuses both)."""
    from django.urls import reverse

    is_open = ask.is_open and running
    answer_url = ""
    if is_open and is_gm:
        panel = reverse("rolls:panel", args=[ask.session_id])
        answer_url = f"{panel}?{ask_answer_query(ask).urlencode()}"
    mine = user_id is not None and ask.asked_by_id == user_id
    return AskView(ask=ask, answer_url=answer_url, may_withdraw=is_open and mine)


def ask_answer_query(ask: RollAsk):
    """The panel's fields for this request: its mode, what it names of the mode's form, and
    the request itself (a link may prefill these, never a modifier: Panel.link_fields)."""
    from django.http import QueryDict

    query = QueryDict(mutable=True)
    query["mode"] = ask.test
    for name, value in (ask.case_fields or {}).items():
        query.setlist(name, [str(v) for v in value] if isinstance(value, list) else [value])
    query["ask"] = str(ask.pk)
    return query


@dataclass(frozen=True)
class TurnActionRolls:
    """RULES 1.5: a character's action rolls this turn (defence and counter-rolls excluded)
    and its actions without a roll, as counts: true when there is an action roll."""

    count: int = 0
    first_seq: int | None = None  # the first action roll's number, as the refusal names it
    item_uses: int = 0  # potions and items, spells and abilities used without a roll

    def __bool__(self) -> bool:
        return self.count > 0


def action_rolls_in_turn(session, character_id: int, turn_number: int) -> TurnActionRolls:
    """One aggregate over the index on (character, turn): the turn's rolls are counted, never
    loaded (a turn with thousands of rolls costs what a turn with one does)."""
    action, use = models.Q(is_action=True), models.Q(test__in=ACTIONS_WITHOUT_ROLL)
    row = Roll.objects.filter(
        session=session, character_id=character_id, turn_number=turn_number
    ).aggregate(
        count=Count("id", filter=action),
        first_seq=models.Min("seq", filter=action),
        item_uses=Count("id", filter=use),
    )
    return TurnActionRolls(row["count"], row["first_seq"], row["item_uses"])


@dataclass(frozen=True)
class TurnActionState(TurnActionRolls):
    """TurnActionRolls with the rest of what the turn's action limit reads (RULES 1.5):
    whether a fight runs and the move actions the character's visible posts of the turn
    declare."""

    in_combat: bool = False
    moves: int = 0


def _action_state_parts(character_id: int, turn) -> dict:
    """TurnActionState's parts, as subqueries over a GameSession row (turn_action_state)."""
    action, use = models.Q(is_action=True), models.Q(test__in=ACTIONS_WITHOUT_ROLL)
    rolls = (
        Roll.objects.filter(
            session_id=OuterRef("pk"), character_id=character_id, turn_number=turn.number
        )
        .order_by()
        .values("session_id")
    )
    moves = (
        Post.objects.filter(turn_id=turn.pk, character_id=character_id, hidden_at__isnull=True)
        .order_by()
        .values("turn_id")
        .annotate(total=models.Sum("move_actions"))
        .values("total")[:1]
    )

    def over_rolls(aggregate):
        return Subquery(rolls.annotate(value=aggregate).values("value")[:1])

    number = models.IntegerField()
    return {
        "action_count": Coalesce(over_rolls(Count("id", filter=action)), 0, output_field=number),
        "action_first_seq": over_rolls(models.Min("seq", filter=action)),
        "action_item_uses": Coalesce(over_rolls(Count("id", filter=use)), 0, output_field=number),
        "action_in_combat": Exists(
            InitiativeEvent.objects.running().filter(session_id=OuterRef("pk"))
        ),
        "action_moves": Coalesce(Subquery(moves), 0, output_field=number),
    }


def _action_state(row: dict) -> TurnActionState:
    return TurnActionState(
        count=row["action_count"],
        first_seq=row["action_first_seq"],
        item_uses=row["action_item_uses"],
        in_combat=bool(row["action_in_combat"]),
        moves=row["action_moves"],
    )


def turn_action_state(session, character_id: int, turn) -> TurnActionState:
    """What the turn's action limit reads of a character, in one query: its action rolls
    and item uses this turn (counted over the index on (character, turn), never loaded),
    whether an initiative event runs (in_combat) and its posts' move actions
    (diary.selectors.move_actions_in_turn). Each part is a subquery of the one statement,
    so under the session's lock they are read together, after it."""
    parts = _action_state_parts(character_id, turn)
    return _action_state(_session_row(session, parts))


def _session_row(session, parts: dict) -> dict:
    """The parts, subqueries over the session's row, read in one statement."""
    return GameSession.objects.filter(pk=session.pk).annotate(**parts).values(*parts).get()


@dataclass(frozen=True)
class TokenUse:
    """The roll a one-time token already made, as the replay check reads it
    (rolls.services.replayed_roll): the full row is fetched only when it is answered."""

    roll_id: int
    rolled_by_id: int
    request_digest: str


@dataclass(frozen=True)
class LockedReads:
    """What a roll reads of its session under the session's lock (locked_reads). A part
    not asked for is None (`action`) or NOT_READ, and whoever needs it reads it itself."""

    token_use: TokenUse | None
    action: TurnActionState | None = None
    newest_post: Post | object | None = NOT_READ
    turn_seed: TurnSeedRead | object | None = NOT_READ


# What a roll reads of the newest visible post (rolls.services.planned_resolution_post and, for the
# post it lands in, chain_append, the owners' notification and the redirect's link). It is
# not hidden (the subquery's filter); any other field is loaded by Django when first read.
NEWEST_POST_FIELDS = ("id", "session_id", "turn_id", "author_id", "character_id", "changed_seq")


def locked_reads(
    session,
    *,
    token,
    action_of: int | None = None,
    turn=None,
    newest_post: bool = False,
    turn_seed: bool = False,
) -> LockedReads:
    """A roll's reads under the session's lock, in ONE statement: scalar subqueries over
    the locked session's row. Always the roll its one-time token already made (TokenUse);
    `action_of` (a character's id): its TurnActionState in `turn`; `newest_post`: the newest
    visible post (diary.selectors.newest_visible_post), as a Post with NEWEST_POST_FIELDS and
    `newest_in_session`; `turn_seed`: `turn`'s TurnSeedRead (rolls.fair_dice).

    Issued after the lock's own `SELECT ... FOR UPDATE`, never folded into it: in
    PostgreSQL's READ COMMITTED a statement that waited for the row lock re-reads only the
    locked row, while its subqueries keep the snapshot from before the wait. A double submit
    waiting on the first one's lock would miss its token (and roll twice); a roll waiting
    while a turn opens would miss the new turn's seed. A statement issued after the lock
    takes a new snapshot and sees everything committed before the lock was granted."""
    parts = {
        "token_use": _json_subquery(
            Roll,
            {"session_id": OuterRef("pk"), "token": token},
            {"roll_id": "id", "rolled_by_id": "rolled_by_id", "request_digest": "request_digest"},
        )
    }
    if action_of is not None:
        parts |= _action_state_parts(action_of, turn)
    if newest_post:
        parts["newest_post"] = newest_post_subquery()
    if turn_seed:
        parts["turn_seed"] = _json_subquery(
            TurnSeed,
            {"session_id": OuterRef("pk"), "turn_number": turn.number},
            {"seed": "seed", "secret_seed": "secret_seed", "commit_seq": "commit__seq"},
        )
    row = _session_row(session, parts)
    used = row["token_use"]
    return LockedReads(
        token_use=TokenUse(**used) if used is not None else None,
        action=_action_state(row) if action_of is not None else None,
        newest_post=newest_post_of(row["newest_post"], session) if newest_post else NOT_READ,
        turn_seed=_turn_seed(row["turn_seed"]) if turn_seed else NOT_READ,
    )


def _json_subquery(model, where: dict, fields: dict):
    """The first row of `model` matching `where`, its `fields` as one JSON object (one
    scalar subquery for several columns)."""
    rows = model.objects.filter(**where).order_by().annotate(json=JSONObject(**fields))
    return Subquery(rows.values("json")[:1], output_field=models.JSONField())


# The panel reads its session with the diary's newest visible post under this name
# (rolls.views.panel), for the post the line above the Roll button names (rolls.panel).
NEWEST_POST_ANNOTATION = "newest_post_read"


def newest_post_subquery():
    """The newest visible post (diary.selectors.newest_visible_post) of the session row it
    annotates, as one JSON scalar subquery with NEWEST_POST_FIELDS (newest_post_of)."""
    newest = visible_posts_newest_first(OuterRef("pk")).annotate(
        json=JSONObject(newest_in_session="newest_in_session", **{f: f for f in NEWEST_POST_FIELDS})
    )
    return Subquery(newest.values("json")[:1], output_field=models.JSONField())


def newest_post_of(values: dict | None, session) -> Post | None:
    """The Post newest_post_subquery read (None: the diary has no visible post)."""
    if values is None:
        return None
    values = dict(values)
    newest_in_session = bool(values.pop("newest_in_session"))
    values["hidden_at"] = None
    names = [f.attname for f in Post._meta.concrete_fields if f.attname in values]
    post = Post.from_db(session._state.db, names, [values[name] for name in names])
    post.newest_in_session = newest_in_session
    return post


def _turn_seed(values: dict | None) -> TurnSeedRead | None:
    return TurnSeedRead(**values) if values is not None else None


def in_combat(session) -> bool:
    """Whether an initiative event is running in the session (RULES 1.5: outside combat a
    second action roll in a turn is refused; in combat actions are counted, not refused).

    An initiative roll opens the event and the GM ends it (rolls.models.InitiativeEvent);
    every caller asks here and nowhere else."""
    return InitiativeEvent.objects.running().filter(session=session).exists()


def turn_actions(session, turn, character_id: int):
    """For the diary's movement check (RULES 1.5): the character's action rolls and item
    uses this turn, and whether a fight runs. Registered with diary.selectors in rolls/apps.py."""
    counted = action_rolls_in_turn(session, character_id, turn.number)
    return TurnActions(
        action_rolls=counted.count, in_combat=in_combat(session), item_uses=counted.item_uses
    )


def action_roll_counts(session, turn_number: int) -> dict[int, int]:
    """RULES 1.5: action rolls per acting character in this turn (one query)."""
    rows = (
        Roll.objects.filter(session=session, turn_number=turn_number, is_action=True)
        .exclude(character_id=None)
        .values("character_id")
        .annotate(count=Count("id"))
    )
    return {row["character_id"]: row["count"] for row in rows}


@dataclass(frozen=True)
class ChainHead:
    count: int
    hash: str | None


def chain_head(session) -> ChainHead:
    last = Roll.objects.filter(session=session).order_by("-seq").only("seq", "hash").first()
    return ChainHead(last.seq, last.hash) if last else ChainHead(0, None)


def _chain_head_and_running_event(session) -> tuple[ChainHead, int | None]:
    """chain_head() and the running initiative event's id, in one query."""
    from django.db.models import OuterRef, Subquery

    running = InitiativeEvent.objects.running().filter(session=OuterRef("session")).values("pk")
    last = (
        Roll.objects.filter(session=session)
        .order_by("-seq")
        .only("seq", "hash")
        .annotate(running_event=Subquery(running[:1]))
        .first()
    )
    if last is None:
        return ChainHead(0, None), None
    return ChainHead(last.seq, last.hash), last.running_event


def session_rolls(session):
    return Roll.objects.filter(session=session).select_related("post", "rolled_by").order_by("seq")


@dataclass
class FreeRollStats:
    """One roller's free-form rolls in the moderators' audit, per die size: how many rolls,
    how many dice of each size and their mean face against a fair die's. Fate dice (faces
    "F": −1, 0, +1) are a size of their own, after the numbered ones."""

    username: str
    by_player: bool
    rolls: int = 0
    faces: dict[int | str, list[int]] = field(default_factory=dict)  # die size → every face

    @property
    def dice(self) -> list[tuple[int | str, int, float, float]]:
        """(die size, dice rolled, mean face, a fair die's mean), smallest die first."""
        return [
            (size, len(seen), sum(seen) / len(seen), 0.0 if size == "F" else (size + 1) / 2)
            for size, seen in sorted(self.faces.items(), key=lambda item: _die_order(item[0]))
        ]


def _die_order(size: int | str) -> tuple[bool, int]:
    return (size == "F", size if isinstance(size, int) else 0)


def _stored_dice_terms(terms):
    """Every stored dice term of a free roll's result, those inside products and groups too."""
    for term in terms:
        if term.get("kind") == "dice":
            yield term
        for part in (*term.get("factors", ()), *term.get("items", ())):
            yield from _stored_dice_terms(part["terms"])


def free_roll_stats(session) -> list[FreeRollStats]:
    """Every roller's free-form rolls (the GM's and, where allowed, each player's), read
    from the records in one query; a secret roll counts once revealed, as its reveal."""
    stats: dict[tuple[str, bool], FreeRollStats] = {}
    rows = Roll.objects.filter(session=session, test__in=(free_notation.TEST, REVEAL_TEST))
    for record in rows.values_list("record", flat=True):
        try:
            shown = record["reveals"]["record"] if "reveals" in record else record
            if shown.get("kind") != free_notation.TEST:
                continue
            faces: dict[int | str, list[int]] = {}
            for term in _stored_dice_terms(shown["result"]["terms"]):
                size = term["faces"]
                if not (size == "F" or type(size) is int):
                    raise TypeError(size)
                seen = [die["face"] for die in term["dice"]]
                if not all(type(face) is int for face in seen):
                    raise TypeError(seen)
                faces.setdefault(size, []).extend(seen)
            key = (record["rolled_by"]["username"], is_player_free_roll(shown))
            row = stats.setdefault(key, FreeRollStats(*key))
            row.rolls += 1
            for size, seen in faces.items():
                row.faces.setdefault(size, []).extend(seen)
        except (KeyError, TypeError, AttributeError):
            continue  # a damaged record; the chain report names it
    return sorted(stats.values(), key=lambda s: (not s.by_player, s.username))


# ---------------------------------------------------------------------------
# Fair dice (rolls.fair_dice) as a roll's page shows them


@dataclass(frozen=True)
class TurnCommitment:
    """The current turn's dice commitment, as the roll forms show it before a roll."""

    turn: int
    seq: int
    public: str


def turn_commitment(session) -> TurnCommitment | None:
    """The commitment the current turn's dice come from; None for a turn without one."""
    turn = session.current_turn
    if turn is None:
        return None
    commit = (
        TurnSeed.objects.filter(session=session, turn_number=turn.number)
        .values_list("commit__seq", "commit__record")
        .first()
    )
    if commit is None:
        return None
    seq, record = commit
    return TurnCommitment(turn=turn.number, seq=seq, public=record["dice_commit"]["public"])


@dataclass(frozen=True)
class DiceCheck:
    """What a roll's page says of its dice: drawn from turn `turn`'s seed (committed in
    entry `commit_seq`) and the roller's seed; `reveal_seq` the entry that revealed the seed,
    None while the turn runs (or the secret stream is sealed); `follows` whether every
    draw is the face the seeds give, recomputed now."""

    turn: int
    stream: str
    commit_seq: int
    client_seed: str
    by_browser: bool
    draws: int
    reveal_seq: int | None
    follows: bool


def dice_check(roll: Roll, record: dict | None = None) -> DiceCheck | None:
    """The fair dice of a roll (of `record`, its revealed record for a secret roll), or None
    for a roll without them (an entry, a turn opened before seeds were committed)."""
    record = record if record is not None else roll.record
    fair = record.get("fair")
    if not isinstance(fair, dict):
        return None
    stream = fair.get("stream")
    seeds = (
        TurnSeed.objects.filter(session_id=roll.session_id, turn_number=record.get("turn"))
        .select_related("public_reveal", "secret_reveal")
        .first()
    )
    reveal = None
    if seeds is not None:
        reveal = seeds.secret_reveal if stream == "secret" else seeds.public_reveal
    follows = False
    if reveal is not None:
        seed = reveal.record["dice_reveal"]["seeds"][stream]
        follows = (
            draws_match(
                seed=seed,
                session=roll.session_id,
                seq=record["seq"],
                client_seed=fair["client_seed"],
                draws=fair["draws"],
            )
            is None
        )
    return DiceCheck(
        turn=record.get("turn"),
        stream=stream,
        commit_seq=fair.get("commit"),
        client_seed=fair.get("client_seed", ""),
        by_browser=fair.get("client_seed_by") == "browser",
        draws=len(fair.get("draws") or ()),
        reveal_seq=reveal.seq if reveal is not None else None,
        follows=follows,
    )


def ledger_export(session) -> dict:
    """The session's whole ledger as the export and the archive give it (docs/audit.md): every
    row with its hashes and signature, the chain's rules and the keys that verify it."""
    rows = (
        Roll.objects.filter(session=session)
        .order_by("seq")
        .values("seq", "prev_hash", "hash", "record", "key_id", "signature")
    )
    return {
        "session": session.pk,
        "title": session.title,
        "genesis_hash": chain.GENESIS_HASH,
        "hash_rule": 'sha256(canonical_json({"prev_hash": prev_hash, "record": record}))',
        "signature_rule": signing.SIGNATURE_RULE,
        # key_id → base64 public key; compare them with the ones the site publishes.
        "public_keys": signing.trusted_public_keys(),
        "rolls": list(rows),
    }
