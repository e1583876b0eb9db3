"""Absences: who is away (the one rule every "who is awaited" read uses), declaring, ending
and withdrawing one, and what the session's members (and nobody else) see of it."""

import html
import re
from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse
from django.utils import timezone

from diary import selectors
from diary.absences import services
from diary.absences.selectors import absent_owner_ids, today
from diary.models import Absence, Notification, NotificationKind
from diary.notifications.notices import notify_deadlines
from diary.services import post_create, turn_set_deadline
from tests.conftest import polish, polish_as

pytestmark = pytest.mark.django_db


def away(table, user, days=7, *, session="table", starts=0, note=""):
    """`user` away from today (+starts) for `days` days, in the table's session (or all)."""
    return services.absence_create(
        user=user,
        session=table.session if session == "table" else session,
        starts_on=today() + timedelta(days=starts),
        ends_on=today() + timedelta(days=starts + days - 1),
        note=note,
    )


def body(client, url) -> str:
    return html.unescape(client.get(url).content.decode())


def text(fragment: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", fragment).split())


def diary(table) -> str:
    return reverse("diary:session", args=[table.session.pk])


def dm(day) -> str:
    return day.strftime("%d.%m")


# --- the rule ------------------------------------------------------------------------------


def test_absent_owners_are_those_away_today_in_this_session_or_everywhere(table, make_session):
    other = make_session(table.gm, [])
    away(table, table.alice)  # this session only
    away(table, table.bob, session=None, starts=1)  # all of his, from tomorrow
    absent = absent_owner_ids([table.session.pk, other.pk])
    assert absent == {table.session.pk: {table.alice.pk}, other.pk: frozenset()}
    tomorrow = today() + timedelta(days=1)
    assert absent_owner_ids([table.session.pk, other.pk], tomorrow) == {
        table.session.pk: {table.alice.pk, table.bob.pk},
        other.pk: {table.bob.pk},
    }
    # The last day counts; the day after does not.
    assert absent_owner_ids([table.session.pk], today() + timedelta(days=6))[table.session.pk] == {
        table.alice.pk,
        table.bob.pk,
    }
    assert absent_owner_ids([table.session.pk], today() + timedelta(days=9)) == {
        table.session.pk: frozenset()
    }


def test_an_absent_owners_characters_are_not_awaited(table):
    playing = selectors.playing_characters(table.session)
    assert [c.name for c in selectors.awaited_characters(playing, set())] == ["Borys", "Lirael"]
    absent = {table.alice.pk}
    assert [c.name for c in selectors.awaited_characters(playing, set(), absent)] == ["Borys"]
    away(table, table.alice)
    now = selectors.awaited_now(table.session)
    assert [c.name for c in now.awaited] == ["Borys"]
    assert [c.name for c in now.absent] == ["Lirael"]


def test_an_absent_player_gets_no_deadline_notice(table):
    turn_set_deadline(
        session=table.session, by=table.gm, deadline=timezone.now() + timedelta(hours=5)
    )
    away(table, table.alice, session=None)
    assert notify_deadlines() == 1
    told = Notification.objects.filter(kind=NotificationKind.DEADLINE_NEAR)
    assert [n.recipient for n in told] == [table.bob]
    assert told.get().args["awaited"] == ["Borys"]


# --- declaring, ending, withdrawing ----------------------------------------------------------


def test_the_dates_are_checked(table):
    with pytest.raises(ValidationError) as ended:
        away(table, table.alice, days=2, starts=-5)
    assert "ends_on" in ended.value.error_dict
    with pytest.raises(ValidationError) as backwards:
        services.absence_create(
            user=table.alice,
            session=None,
            starts_on=today() + timedelta(days=3),
            ends_on=today() + timedelta(days=1),
        )
    assert "ends_on" in backwards.value.error_dict
    with pytest.raises(ValidationError):
        away(table, table.alice, days=367)
    with pytest.raises(ValidationError) as elsewhere:
        away(table, table.outsider)  # not a session of theirs
    assert "session" in elsewhere.value.error_dict
    assert away(table, table.alice, days=366).ends_on == today() + timedelta(days=365)
    # One that began in the past and lasts today is fine.
    assert away(table, table.bob, days=3, starts=-2)


def test_ending_early_and_withdrawing(table):
    began = away(table, table.alice, days=5, starts=-2)
    today_only = away(table, table.bob, days=3)
    to_come = away(table, table.bob, days=3, starts=10, session=None)
    with pytest.raises(PermissionDenied):
        services.absence_end(absence=began, by=table.bob)
    assert services.absence_end(absence=began, by=table.alice).ends_on == today() - timedelta(1)
    assert services.absence_end(absence=today_only, by=table.bob) is None  # nothing remains
    assert absent_owner_ids([table.session.pk])[table.session.pk] == frozenset()
    with pytest.raises(ValidationError):
        services.absence_end(absence=to_come, by=table.bob)  # not begun: withdraw it
    with pytest.raises(ValidationError):
        services.absence_delete(absence=away(table, table.alice), by=table.alice)  # begun
    services.absence_delete(absence=to_come, by=table.bob)
    assert not Absence.objects.filter(pk=to_come.pk).exists()


# --- the pages -----------------------------------------------------------------------------


def test_the_page_declares_an_absence_and_refuses_bad_dates(table, client_for):
    client = client_for(table.alice)
    url = reverse("diary:absences")
    page = body(client, f"{url}?session={table.session.pk}")
    assert f'<option value="{table.session.pk}" selected>' in page
    start, end = today(), today() + timedelta(days=6)
    data = {"session": table.session.pk, "starts_on": start.isoformat(), "note": "Wyjazd"}
    refused = client.post(url, {**data, "ends_on": (start - timedelta(days=1)).isoformat()})
    assert refused.status_code == 400
    assert polish("The last day cannot come before the first.") in html.unescape(refused.text)
    assert not Absence.objects.exists()
    assert client.post(url, {**data, "ends_on": end.isoformat()}).status_code == 302
    absence = Absence.objects.get()
    assert (absence.user, absence.session, absence.note) == (table.alice, table.session, "Wyjazd")
    listed = body(client, url)
    assert f'data-testid="absence-{absence.pk}"' in listed and "Wyjazd" in listed
    # Back early: it ended yesterday; nobody else may touch it.
    end_url = reverse("diary:absence_end", args=[absence.pk])
    assert client_for(table.bob).post(end_url).status_code == 404
    assert client.post(end_url).status_code == 302
    assert not Absence.objects.exists()  # it began today: withdrawn whole


def test_the_diary_lists_the_absent_apart_to_members_only(table, client_for, make_character):
    from diary.services import participation_invite

    until = today() + timedelta(days=6)
    away(table, table.alice, note="Wyjazd służbowy")
    away(table, table.gm, session=None, days=3)
    gm_page = body(client_for(table.gm), diary(table))
    assert text(re.search(r'data-testid="awaited">(.*?)</p>', gm_page, re.S)[1]) == (
        f"{polish('Waiting for:')} Borys"
    )
    absent = text(re.search(r'data-testid="absent">(.*?)</p>', gm_page, re.S)[1])
    assert absent == f"Lirael — {polish_as('feminine', 'away until %(date)s', date=dm(until))}"
    assert "Wyjazd służbowy" in gm_page
    gm_until = dm(today() + timedelta(days=2))
    for reader in (table.bob, table.moderator):
        page = body(client_for(reader), diary(table))
        assert polish("GM away until %(date)s", date=gm_until) in page
        assert 'data-testid="absent"' in page
    # An invited reader (not playing) reads the diary but not who is away.
    participation_invite(
        session=table.session, by=table.gm, character=make_character(table.outsider, "Gość")
    )
    invited = body(client_for(table.outsider), diary(table))
    assert 'data-testid="absent"' not in invited and "Wyjazd" not in invited
    assert polish("GM away until %(date)s", date=gm_until) not in invited
    participants = reverse("diary:participants", args=[table.session.pk])
    roster = body(client_for(table.bob), participants)
    assert "Wyjazd służbowy" in roster and f'data-testid="away-{table.lirael.pk}"' in roster
    assert 'data-testid="gm-away"' in roster
    invited_roster = body(client_for(table.outsider), participants)
    assert "Wyjazd" not in invited_roster and 'data-testid="gm-away"' not in invited_roster


def test_the_home_page_shows_my_absence_and_who_is_away_where_i_run(table, client_for):
    away(table, table.alice)
    page = body(client_for(table.alice), reverse("home"))
    assert 'data-testid="home-my-absence"' in page
    # Her move is not awaited while she is away.
    assert 'data-testid="home-my-move"' not in page
    gm_home = body(client_for(table.gm), reverse("home"))
    line = text(
        re.search(rf'data-testid="home-away-{table.session.pk}">(.*?)</p>', gm_home, re.S)[1]
    )
    assert "Lirael —" in line
    post_create(
        session=table.session, author=table.bob, character=table.borys, narration="Ja.", nc_note=""
    )
    # Everyone present has posted: the GM's move.
    assert 'data-testid="home-all-posted"' in body(client_for(table.gm), reverse("home"))


def test_a_co_gm_declares_an_absence_from_the_session_they_co_run(table, make_user, client_for):
    """The form says "a session you run or play in": a co-GM runs theirs."""
    from diary.handover.services import co_gm_name

    kasia = make_user("kasia")
    co_gm_name(session=table.session, by=table.gm, user=kasia)
    page = body(client_for(kasia), reverse("diary:absences"))
    assert f'<option value="{table.session.pk}"' in page
    absence = away(table, kasia)
    assert (absence.user, absence.session) == (kasia, table.session)
