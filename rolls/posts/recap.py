"""The ledger's part of a reader's "since you were last here" (diary/recap/, registered as
DiaryHooks.recap_rolls in rolls/apps.py): the rolls since the reader's read mark with their
outcomes as the diary words them, what changed on the reader's own characters (HP, effects,
items, the initiative place) and the reader's requests answered or declined.

Two queries, whatever the session's length: the chain rows after the mark's chain head (the
`roll_unique_seq` index's range, at most RECAP_ROWS of the newest), and the reader's own
requests closed since. A secret roll not yet revealed is left out for a reader the diary
shows only its commitment (rolls.access.may_read_secret); its reveal, a row of its own, is
there for everyone once made.
"""

from __future__ import annotations

from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext as _

from diary.hooks import RecapItem, RecapRolls
from rolls.access import may_read_secret
from rolls.ledger.secret import is_reveal_record, is_secret_record
from rolls.models import ANSWERED_STATUSES, AskStatus, Roll, RollAsk, is_entry_record
from rolls.presenters import RollView, ask_url, hidden_view, roll_view

# The newest chain rows a recap reads: a reader away for months gets the latest of them and
# a word that there were more (the diary holds them all).
RECAP_ROWS = 60
# The reader's closed requests a recap lists at most.
RECAP_ASKS = 20


def roll_url(session_id: int, post_id: int, seq: int) -> str:
    """A roll in its post: the diary's page that starts at the post, the run unfolded at the
    roll (as a post's permalink; no query)."""
    diary = reverse("diary:session", args=[session_id])
    return f"{diary}?after={post_id - 1}&roll={seq}#roll-{seq}"


def _people(record: dict) -> list[dict]:
    """Everyone a roll's record names, by part (a part may name several: initiative)."""
    people = []
    for named in (record.get("characters") or {}).values():
        people.extend(named if isinstance(named, list) else [named])
    return [p for p in people if isinstance(p, dict)]


def _full_record(roll, hidden) -> dict:
    """The record as the reader may read it: a reveal's revealed record, a secret roll's
    hidden one (for a reader allowed it), else the row's own."""
    if hidden is not None:
        return hidden.record
    if is_reveal_record(roll.record):
        return roll.record["reveals"]["record"]
    return roll.record


def _outcome_words(view: RollView) -> str:
    """The outcome as the diary's roll lines give it: each line's who and result word, the
    verdict of an opposed roll; a free-form roll's total."""
    if view.free is not None:
        return f"{view.free.label} {view.free.expression} = {view.free.total}".strip()
    body = view.body
    lines = getattr(body, "lines", body) or []
    words = [f"{line.who}: {line.outcome}" for line in lines if getattr(line, "outcome", "")]
    verdict = getattr(body, "verdict", "")
    if verdict:
        words.append(str(verdict))
    return "; ".join(words)


def _roll_text(view: RollView) -> str:
    outcome = _outcome_words(view)
    text = _("%(who)s · %(kind)s") % {"who": view.rolled_by, "kind": view.kind}
    return f"{text}: {outcome}" if outcome else text


def _initiative_places(record: dict, mine_names: dict[str, str]) -> list[str]:
    """The reader's characters' places in an initiative roll's order."""
    order = (record.get("result") or {}).get("order") or []
    return [
        _("%(name)s: place %(place)s in the initiative order") % {"name": name, "place": place}
        for place, name in enumerate(order, start=1)
        if name in mine_names
    ]


def _row_items(roll, view: RollView, record: dict, mine: set[int]):
    """(the roll's line or None, the changes it made on the reader's characters)."""
    people = _people(record)
    own = {p["name"]: p["name"] for p in people if p.get("id") in mine}
    url = roll_url(roll.session_id, roll.post_id, roll.seq)
    if is_entry_record(record):
        change = RecapItem(view.entry, url, mine=True) if own else None
        return None, [change] if change else []
    changes = [RecapItem(text, url, mine=True) for text in _initiative_places(record, own)]
    healing = getattr(view.body, "healing", "")
    patient = (record.get("characters") or {}).get("patient") or {}
    hp = record.get("healing") or {}
    if healing and patient.get("id") in mine and hp.get("hp_before") != hp.get("hp_after"):
        changes.append(RecapItem(str(healing), url, mine=True))
    return RecapItem(_roll_text(view), url, mine=bool(own)), changes


def _view(roll, hidden) -> RollView:
    return hidden_view(roll, hidden) if hidden is not None else roll_view(roll)


def _chain_rows(session, since_seq: int, *, secrets: bool) -> list:
    rows = Roll.objects.filter(session=session, seq__gt=since_seq, post__isnull=False)
    if secrets:
        rows = rows.select_related("secret")
    return list(rows.order_by("-seq")[: RECAP_ROWS + 1])


def _rolls_and_changes(session, reader, since_seq: int, mine: set[int]):
    secrets = may_read_secret(reader, session)
    rows = _chain_rows(session, since_seq, secrets=secrets)
    truncated = len(rows) > RECAP_ROWS
    rolls, changes = [], []
    for roll in reversed(rows[:RECAP_ROWS]):
        hidden = None
        if is_secret_record(roll.record):
            if not secrets or not hasattr(roll, "secret"):
                continue  # the diary shows this reader no more than that it was rolled
            hidden = roll.secret
        view = _view(roll, hidden)
        if view.damaged:
            continue
        line, made = _row_items(roll, view, _full_record(roll, hidden), mine)
        if line is not None:
            if hidden is not None:
                line = RecapItem(_("%(roll)s (secret)") % {"roll": line.text}, line.url, line.mine)
            rolls.append(line)
        changes.extend(made)
    return rolls, changes, truncated


def _ask_item(ask: RollAsk) -> RecapItem:
    words = {"summary": ask.summary, "note": ask.note}
    if ask.status == AskStatus.DECLINED:
        text = _("Your request “%(summary)s” was declined: %(note)s") % words
        return RecapItem(text, ask_url(ask.session_id, ask.post_id, ask.pk), mine=True)
    words["seq"] = ask.answer.seq
    if ask.status == AskStatus.ANSWERED_DIFFERENTLY:
        text = _("Your request “%(summary)s” was answered differently, roll #%(seq)s: %(note)s")
    else:
        text = _("Your request “%(summary)s” was answered: roll #%(seq)s")
    url = roll_url(ask.session_id, ask.answer.post_id, ask.answer.seq)
    return RecapItem(text % words, url, mine=True)


def _closed_asks(session, reader, since_seq: int, since_post_id: int, since_at) -> list:
    """The reader's requests closed since the mark: answered by a roll after its chain head,
    or declined after it moved (before the mark kept its time: on a post after it)."""
    declined_since = Q(closed_at__gt=since_at) if since_at else Q(post_id__gt=since_post_id)
    closed = Q(status__in=ANSWERED_STATUSES, answer__seq__gt=since_seq) | (
        Q(status=AskStatus.DECLINED) & declined_since
    )
    asks = (
        RollAsk.objects.filter(closed, session=session, asked_by=reader.pk)
        .select_related("answer")
        .order_by("-closed_at", "-id")
    )
    return [_ask_item(ask) for ask in reversed(asks[:RECAP_ASKS])]


def recap_rolls(
    session, reader, *, since_seq: int, since_post_id: int = 0, since_at=None, character_ids=()
) -> RecapRolls:
    """The ledger's part of the reader's recap since their read mark (the mark's chain head
    `since_seq`, newest post `since_post_id`, and when it moved, `since_at`); `character_ids`:
    the reader's characters in the session. Two queries."""
    rolls, changes, truncated = _rolls_and_changes(session, reader, since_seq, set(character_ids))
    asks = _closed_asks(session, reader, since_seq, since_post_id, since_at)
    return RecapRolls(
        rolls=tuple(rolls), changes=tuple(changes), asks=tuple(asks), truncated=truncated
    )
