"""Reads of the polls: the session's polls for its OOC thread, and one poll's results (counts,
and whose votes when the poll is not anonymous). A fixed number of queries each."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count

from diary.models import GameSession, Poll, PollOption, PollVote


def session_polls(session: GameSession) -> list[Poll]:
    """The session's polls, newest first, each with `voter_count` (one query)."""
    return list(
        Poll.objects.filter(session=session)
        .annotate(voter_count=Count("votes__voter", distinct=True))
        .order_by("-created_at", "-id")
    )


@dataclass
class OptionResult:
    option: PollOption
    count: int = 0
    # Voters' names, only when the poll is not anonymous (never read otherwise).
    voters: list[str] = field(default_factory=list)
    mine: bool = False
    percent: int = 0


@dataclass(frozen=True)
class PollResults:
    rows: list[OptionResult]
    voter_count: int
    my_choices: frozenset[int]


def poll_results(poll: Poll, viewer, *, with_names: bool) -> PollResults:
    """Each option with its count, the share of the voters who chose it, whether the viewer
    chose it and (`with_names`) who did: two queries. An anonymous poll's names are not even
    read: the page cannot show what it never had."""
    rows = [OptionResult(option) for option in poll.options.order_by("position", "id")]
    by_option = {row.option.pk: row for row in rows}
    votes = PollVote.objects.filter(poll=poll).order_by("voter__username", "pk")
    fields = (
        ("option_id", "voter_id", "voter__username") if with_names else ("option_id", "voter_id")
    )
    voters = set()
    for values in votes.values_list(*fields):
        row = by_option.get(values[0])
        if row is None:
            continue
        row.count += 1
        voters.add(values[1])
        row.mine = row.mine or values[1] == viewer.pk
        if with_names:
            row.voters.append(values[2])
    total = len(voters)
    for row in rows:
        row.percent = round(100 * row.count / total) if total else 0
    return PollResults(
        rows=rows,
        voter_count=total,
        my_choices=frozenset(row.option.pk for row in rows if row.mine),
    )
