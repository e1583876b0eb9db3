"""Polls in the OOC thread (diary/polls/): the GM and the players open them and vote (one
choice or several up to a limit, changed until the poll closes), its author or the GM closes
it (or its closing time does), a closed poll is read-only; an anonymous poll names no voter to
anyone; moderators read, never vote; a scheduling poll's moments carry their offset for each
reader's own time zone; the table is told of a new poll."""

import html
import uuid
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from diary import services
from diary.models import (
    Notification,
    NotificationKind,
    Poll,
    PollVote,
    SessionMute,
    SessionStatus,
)
from diary.polls import services as poll_services
from tests.conftest import polish

pytestmark = pytest.mark.django_db

WARSAW = ZoneInfo("Europe/Warsaw")


def open_poll(table, by=None, options=("Sobota", "Niedziela", "Poniedziałek"), **settings):
    values = {
        "question": "Kiedy gramy?",
        "kind": "text",
        "max_choices": 1,
        "anonymous": False,
        "closes_at": None,
        **settings,
    }
    return poll_services.poll_create(
        session=table.session,
        by=by or table.gm,
        options=list(options),
        token=uuid.uuid4(),
        **values,
    )


def option_ids(poll) -> list[int]:
    return list(poll.options.order_by("position").values_list("pk", flat=True))


def vote(table, poll, by, picks):
    ids = option_ids(poll)
    return poll_services.poll_vote(
        session=table.session, poll_pk=poll.pk, by=by, option_ids=[ids[n] for n in picks]
    )


def chosen(poll, user) -> list[int]:
    ids = option_ids(poll)
    return sorted(
        ids.index(pk)
        for pk in PollVote.objects.filter(poll=poll, voter=user).values_list("option_id", flat=True)
    )


def poll_url(table, poll):
    return reverse("diary:poll", args=[table.session.pk, poll.pk])


def text(response) -> str:
    return html.unescape(response.content.decode())


# --- Votes ------------------------------------------------------------------------------


def test_a_vote_counts_once_per_option_and_voter(table):
    poll = open_poll(table, max_choices=None)
    ids = option_ids(poll)
    poll_services.poll_vote(
        session=table.session, poll_pk=poll.pk, by=table.alice, option_ids=[ids[0], ids[0]]
    )
    vote(table, poll, table.alice, [0])
    assert PollVote.objects.filter(voter=table.alice).count() == 1
    with pytest.raises(IntegrityError), transaction.atomic():
        PollVote.objects.create(poll=poll, option_id=ids[0], voter=table.alice)


def test_a_member_changes_their_vote_until_the_poll_closes(table):
    poll = open_poll(table)
    vote(table, poll, table.alice, [0])
    vote(table, poll, table.alice, [2])
    vote(table, poll, table.bob, [2])
    assert chosen(poll, table.alice) == [2]
    assert PollVote.objects.filter(poll=poll).count() == 2


def test_a_closed_poll_refuses_every_vote(table, client_for):
    poll = open_poll(table, by=table.alice)
    vote(table, poll, table.bob, [1])
    poll_services.poll_close(session=table.session, poll_pk=poll.pk, by=table.alice)
    with pytest.raises(ValidationError):
        vote(table, poll, table.bob, [0])
    assert chosen(poll, table.bob) == [1]
    page = text(client_for(table.bob).get(poll_url(table, poll)))
    assert polish("Poll closed") in page
    assert 'name="choices"' not in page and 'data-testid="poll-close"' not in page
    refused = client_for(table.bob).post(poll_url(table, poll), {"choices": [option_ids(poll)[0]]})
    assert refused.status_code == 400
    assert polish("This poll is closed: its votes can no longer change.") in text(refused)
    assert chosen(poll, table.bob) == [1]


def test_a_poll_past_its_closing_time_is_closed_when_read(table, client_for):
    poll = open_poll(table, closes_at=timezone.now() + timedelta(hours=1))
    vote(table, poll, table.alice, [0])
    Poll.objects.filter(pk=poll.pk).update(closes_at=timezone.now() - timedelta(minutes=1))
    with pytest.raises(ValidationError):
        vote(table, poll, table.alice, [1])
    assert polish("Poll closed") in text(client_for(table.alice).get(poll_url(table, poll)))


def test_many_choices_up_to_the_limit_and_one_where_one(table):
    many = open_poll(table, max_choices=2)
    vote(table, many, table.alice, [0, 2])
    assert chosen(many, table.alice) == [0, 2]
    with pytest.raises(ValidationError):
        vote(table, many, table.alice, [0, 1, 2])
    assert chosen(many, table.alice) == [0, 2]
    one = open_poll(table)
    with pytest.raises(ValidationError):
        vote(table, one, table.alice, [0, 1])
    with pytest.raises(ValidationError):
        vote(table, one, table.alice, [])
    other = open_poll(table)
    with pytest.raises(ValidationError):  # an option of another poll
        poll_services.poll_vote(
            session=table.session, poll_pk=one.pk, by=table.alice, option_ids=option_ids(other)[:1]
        )
    assert not PollVote.objects.filter(poll=one).exists()


def test_the_author_or_the_gm_closes_a_poll_no_one_else(table, client_for):
    poll = open_poll(table, by=table.alice)
    close = reverse("diary:poll_close", args=[table.session.pk, poll.pk])
    for user in (table.bob, table.moderator):
        refused = client_for(user).post(close)
        assert refused.status_code == 403
    assert client_for(table.gm).post(close).status_code == 302
    poll.refresh_from_db()
    assert poll.closed_by == table.gm and poll.is_closed()


# --- Who sees what ----------------------------------------------------------------------


def test_an_anonymous_poll_names_no_voter_to_any_role(table, client_for):
    poll = open_poll(table, anonymous=True, max_choices=None)
    vote(table, poll, table.alice, [0, 1])
    vote(table, poll, table.bob, [1])
    vote(table, poll, table.gm, [2])
    for user in (table.gm, table.alice, table.bob, table.moderator):
        page = text(client_for(user).get(poll_url(table, poll)))
        assert 'data-testid="poll-voters"' not in page
        for other in {"alicja", "bartek"} - {user.username}:
            assert other not in page, (user.username, other)
        assert page.count('data-testid="poll-count">') == 3
    named = open_poll(table, max_choices=None)
    vote(table, named, table.alice, [0])
    vote(table, named, table.bob, [0])
    page = text(client_for(table.moderator).get(poll_url(table, named)))
    assert "alicja, bartek" in page


def test_a_moderator_reads_the_results_but_never_votes(table, client_for):
    poll = open_poll(table)
    vote(table, poll, table.alice, [0])
    moderator = client_for(table.moderator)
    page = text(moderator.get(poll_url(table, poll)))
    assert "alicja" in page and 'name="choices"' not in page
    refused = moderator.post(poll_url(table, poll), {"choices": [option_ids(poll)[1]]})
    assert refused.status_code == 403
    with pytest.raises(PermissionDenied):
        vote(table, poll, table.moderator, [1])
    assert not PollVote.objects.filter(voter=table.moderator).exists()


def test_an_outsider_gets_403_and_another_sessions_poll_is_404(table, client_for, make_session):
    poll = open_poll(table)
    assert client_for(table.outsider).get(poll_url(table, poll)).status_code == 403
    elsewhere = make_session(table.gm, [])
    stray = reverse("diary:poll", args=[elsewhere.pk, poll.pk])
    assert client_for(table.gm).get(stray).status_code == 404
    with pytest.raises(PermissionDenied):
        vote(table, poll, table.outsider, [0])


def test_a_finished_session_s_polls_are_read_only(table):
    poll = open_poll(table)
    services.session_transition(session=table.session, by=table.gm, to=SessionStatus.FINISHED)
    with pytest.raises(ValidationError):
        vote(table, poll, table.alice, [0])
    with pytest.raises(PermissionDenied):
        open_poll(table)


# --- The scheduling poll ----------------------------------------------------------------


def test_a_scheduling_poll_shows_each_moment_with_its_offset(table, client_for):
    year = timezone.now().year + 1
    winter = datetime(year, 1, 15, 19, 0, tzinfo=WARSAW)
    summer = datetime(year, 7, 15, 19, 0, tzinfo=WARSAW)
    poll = open_poll(table, kind="dates", options=[winter, summer])
    page = client_for(table.alice).get(poll_url(table, poll)).content.decode()
    assert f'<time datetime="{year}-01-15T19:00:00+01:00" data-local-time>' in page
    assert f'<time datetime="{year}-07-15T19:00:00+02:00" data-local-time>' in page
    assert "(Europe/Warsaw)</time>" in page
    assert "js/local_time.js" in page


def test_the_new_poll_form_takes_dates_and_times(table, client_for):
    year = timezone.now().year + 1
    url = reverse("diary:poll_new", args=[table.session.pk])
    sent = client_for(table.bob).post(
        url,
        {
            "question": "Następna sesja?",
            "kind": "dates",
            "option_1": f"{year}-03-01T18:30",
            "option_2": f"{year}-03-02T20:00",
            "token": str(uuid.uuid4()),
        },
    )
    assert sent.status_code == 302
    poll = Poll.objects.get()
    assert poll.is_scheduling and poll.author == table.bob
    moments = [o.starts_at for o in poll.options.order_by("position")]
    assert moments[0] == datetime(year, 3, 1, 18, 30, tzinfo=WARSAW)


def test_bad_input_is_refused_next_to_its_field_and_nothing_is_stored(table, client_for):
    url = reverse("diary:poll_new", args=[table.session.pk])
    alice = client_for(table.alice)
    one = alice.post(
        url,
        {"question": "Co?", "kind": "text", "option_1": "Tak", "token": str(uuid.uuid4())},
    )
    assert one.status_code == 400
    assert (
        f'<p class="error" id="id_option_2_error">{polish("Give at least two options.")}</p>'
        in text(one)
    )
    twice = alice.post(
        url,
        {
            "question": "Co?",
            "kind": "text",
            "option_1": "Tak",
            "option_2": "tak",
            "token": str(uuid.uuid4()),
        },
    )
    assert 'id="id_option_2_error"' in text(twice)
    limit = alice.post(
        url,
        {
            "question": "Co?",
            "kind": "text",
            "option_1": "A",
            "option_2": "B",
            "multiple": "on",
            "max_choices": "5",
            "token": str(uuid.uuid4()),
        },
    )
    assert 'id="id_max_choices_error"' in text(limit)
    assert not Poll.objects.exists()


# --- Notifications ----------------------------------------------------------------------


def test_a_new_poll_tells_the_table_but_not_a_muted_member(table, client_for):
    SessionMute.objects.create(user=table.bob, session=table.session)
    poll = open_poll(table, by=table.alice)
    told = Notification.objects.filter(kind=NotificationKind.POLL_OPENED)
    assert list(told.values_list("recipient__username", flat=True)) == ["mg"]
    opened = client_for(table.gm).get(reverse("notifications:open", args=[told.get().pk]))
    assert opened["Location"] == poll_url(table, poll)


def test_the_ooc_thread_lists_the_polls_open_first(table, client_for):
    closed = open_poll(table, question="Stara ankieta")
    poll_services.poll_close(session=table.session, poll_pk=closed.pk, by=table.gm)
    open_poll(table, question="Nowa ankieta")
    page = text(client_for(table.alice).get(reverse("diary:ooc", args=[table.session.pk])))
    assert page.index("Nowa ankieta") < page.index("Stara ankieta")
    assert polish("Poll closed") in page


def test_an_invited_characters_owner_reads_polls_but_does_not_vote(table, client_for, make_user):
    from diary.services import participation_invite
    from tests.conftest import new_character

    guest = make_user("gosc")
    participation_invite(session=table.session, by=table.gm, character=new_character(guest, "Gość"))
    poll = open_poll(table)
    client = client_for(guest)
    page = text(client.get(poll_url(table, poll)))
    assert "Kiedy gramy?" in page and 'name="choices"' not in page
    assert polish("You read this poll and its results; the GM and the players vote.") in page
    assert client.post(poll_url(table, poll), {"choices": [option_ids(poll)[0]]}).status_code == 403
    assert client.get(reverse("diary:poll_new", args=[table.session.pk])).status_code == 403
    assert not PollVote.objects.exists()
