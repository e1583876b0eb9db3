"""Notifications clear as they are read: opening one from the bell's list, reading the post
it is about, "mark all as read"; and a session's notifications can be muted."""

import html
import re

import pytest
from django.urls import reverse

from diary import models, services
from diary.models import Notification, NotificationKind
from diary.notifications.delivery import notification_text, notification_url
from tests.conftest import polish

pytestmark = pytest.mark.django_db

K = NotificationKind


def post(table, author, character=None, text="Idę dalej."):
    return services.post_create(
        session=table.session, author=author, character=character, narration=text, nc_note=""
    )


def unread(user) -> int:
    return Notification.objects.filter(recipient=user, read_at__isnull=True).count()


def bell(page: str) -> str | None:
    found = re.search(r'data-testid="unread-count">(\d+)<', page)
    return found.group(1) if found else None


@pytest.fixture
def reply(table):
    """Alicja wrote in the session, then Bartek answered: she has one unread reply."""
    post(table, table.alice, table.lirael)
    Notification.objects.all().delete()
    answer = post(table, table.bob, table.borys)
    (row,) = Notification.objects.filter(recipient=table.alice)
    return answer, row


# --- opening one from the list ---------------------------------------------------------


def test_an_unread_notification_is_a_link_that_marks_it_read_on_arrival(table, client_for, reply):
    answer, row = reply
    client = client_for(table.alice)
    page = client.get(reverse("notifications:list")).content.decode()
    open_url = reverse("notifications:open", args=[row.pk])
    # Its words are a plain link (a new tab, a copied address work), to the page that
    # marks it read and leads on to what it is about.
    link = re.search(rf'<a href="{re.escape(open_url)}"[^>]*>(.*?)</a>', page, re.S)
    assert link is not None
    assert notification_text(row) in html.unescape(link.group(1))
    assert 'name="open"' not in page
    # "Mark as read" stays a button of a POST form, its words for screen readers kept.
    read_url = reverse("notifications:read", args=[row.pk])
    form = re.search(
        rf'<form method="post" action="{re.escape(read_url)}"[^>]*>(.*?)</form>', page, re.S
    )
    assert form is not None
    assert polish("Mark as read") in form.group(1)
    assert f'<span class="visually-hidden">: {html.escape(notification_text(row))}</span>' in (
        form.group(1)
    )

    response = client.get(open_url)
    assert response.status_code == 302
    assert response["Location"] == notification_url(row)
    row.refresh_from_db()
    assert row.is_read
    landed = client.get(response["Location"]).content.decode()
    assert f'id="post-{answer.pk}"' in landed
    assert bell(landed) is None
    # Opened again (a bookmark, the tab restored): the same way on, and read once.
    read_at = row.read_at
    again = client.get(open_url)
    assert again["Location"] == notification_url(row)
    row.refresh_from_db()
    assert row.read_at == read_at


def test_a_read_notification_is_a_plain_link(table, client_for, reply):
    _answer, row = reply
    client = client_for(table.alice)
    client.post(reverse("notifications:read", args=[row.pk]))
    page = client.get(reverse("notifications:list")).content.decode()
    assert f'href="{notification_url(row)}"' in page.replace("&amp;", "&")


@pytest.mark.parametrize("where", ["https://evil.example/", "//evil.example/", "/characters/"])
def test_opening_goes_only_where_the_notification_points(table, client_for, reply, where):
    _answer, row = reply
    opened = reverse("notifications:open", args=[row.pk])
    client = client_for(table.alice)
    for response in (
        client.get(opened, {"next": where}),
        client.get(opened, {"url": where, "to": where}),
    ):
        assert response["Location"] == notification_url(row)


def test_another_users_notification_is_neither_opened_nor_revealed(table, client_for, reply):
    _answer, row = reply
    response = client_for(table.bob).get(reverse("notifications:open", args=[row.pk]))
    assert response.status_code == 404
    page = response.content.decode()
    # The site's own page that says so, and nothing of where the notification leads.
    assert polish("There is no such page, or it is not yours to see.") in page
    assert notification_url(row).split("#")[0] not in page.replace("&amp;", "&")
    assert "Location" not in response
    row.refresh_from_db()
    assert not row.is_read
    # Nor by POST, the old way of opening it.
    response = client_for(table.bob).post(
        reverse("notifications:read", args=[row.pk]), {"open": "1"}
    )
    assert response.status_code == 404
    row.refresh_from_db()
    assert not row.is_read


def test_opening_takes_only_a_get(table, client_for, reply):
    _answer, row = reply
    response = client_for(table.alice).post(reverse("notifications:open", args=[row.pk]))
    assert response.status_code == 405
    row.refresh_from_db()
    assert not row.is_read


# --- reading the post it is about ------------------------------------------------------


def test_reading_the_post_marks_its_notifications_read_and_the_bell_drops_at_once(
    table, client_for, reply
):
    _answer, row = reply
    # News the diary page does not show (a plan's review) stays unread.
    other = Notification.objects.create(
        recipient=table.alice, kind=K.PLAN_REVIEWED, session=table.session
    )
    bob_before = unread(table.bob)
    client = client_for(table.alice)
    assert bell(client.get(reverse("home")).content.decode()) == "2"
    # The permalink's page (a jump: the read mark stays), as the notification leads there.
    page = client.get(notification_url(row)).content.decode()
    row.refresh_from_db()
    assert row.is_read
    assert bell(page) == "1"  # the page that read it already counts it read
    other.refresh_from_db()
    assert not other.is_read
    assert unread(table.bob) == bob_before  # nobody else's


def test_the_newest_page_reads_the_turn_that_opened(table, client_for):
    Notification.objects.all().delete()
    services.turn_open_next(session=table.session, by=table.gm)
    client = client_for(table.alice)
    assert unread(table.alice) == 1
    client.get(reverse("diary:session", args=[table.session.pk]))
    assert unread(table.alice) == 0


def test_a_notification_about_a_post_not_shown_stays_unread(table, client_for, reply):
    answer, row = reply
    later = [post(table, table.gm, text=f"Wpis {n}.") for n in range(25)]
    Notification.objects.filter(recipient=table.alice).exclude(pk=row.pk).delete()
    client = client_for(table.alice)
    # The newest page shows the last 20 posts; the reply is on the page before it.
    page = client.get(reverse("diary:session", args=[table.session.pk])).content.decode()
    assert f'id="post-{answer.pk}"' not in page and f'id="post-{later[-1].pk}"' in page
    row.refresh_from_db()
    assert not row.is_read


def test_a_view_with_nothing_to_clear_writes_nothing(table, client_for):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = client_for(table.alice)
    url = reverse("diary:session", args=[table.session.pk])
    client.get(url)
    # The turn's news is read; the invitation that brought her in is not the page's to clear.
    assert list(
        Notification.objects.filter(recipient=table.alice, read_at__isnull=True).values_list(
            "kind", flat=True
        )
    ) == [K.INVITATION]
    with CaptureQueriesContext(connection) as queries:
        client.get(url)
    assert not [
        q for q in queries.captured_queries if q["sql"].startswith('UPDATE "diary_notification"')
    ]


# --- all at once -----------------------------------------------------------------------


def test_mark_all_as_read_is_on_the_list_and_empties_the_bell(table, client_for, reply):
    services.turn_open_next(session=table.session, by=table.gm)
    client = client_for(table.alice)
    page = client.get(reverse("notifications:list")).content.decode()
    assert f'action="{reverse("notifications:read_all")}"' in page
    assert polish("Mark all as read") in page
    response = client.post(reverse("notifications:read_all"), follow=True)
    assert bell(response.content.decode()) is None
    assert unread(table.alice) == 0


# --- muting a session ------------------------------------------------------------------


def mute(client, table, value: str):
    return client.post(reverse("diary:session_mute", args=[table.session.pk]), {"mute": value})


def test_a_muted_session_brings_no_news_of_play_until_unmuted(table, client_for):
    post(table, table.alice, table.lirael)
    client = client_for(table.alice)
    diary = reverse("diary:session", args=[table.session.pk])
    page = html.unescape(client.get(diary).content.decode())
    assert polish("Mute this session's notifications") in page
    response = mute(client, table, "on")
    assert response.status_code == 302 and response["Location"] == diary
    assert models.SessionMute.objects.filter(user=table.alice, session=table.session).exists()
    page = html.unescape(client.get(diary).content.decode())
    assert polish("Unmute this session's notifications") in page

    Notification.objects.all().delete()
    post(table, table.bob, table.borys)
    services.turn_open_next(session=table.session, by=table.gm)
    assert not Notification.objects.filter(recipient=table.alice).exists()
    assert Notification.objects.filter(recipient=table.bob, kind=K.TURN_OPENED).exists()

    mute(client, table, "off")
    assert not models.SessionMute.objects.filter(user=table.alice).exists()
    post(table, table.bob, table.borys)
    assert Notification.objects.filter(recipient=table.alice, kind=K.REPLY).exists()


def test_muting_twice_is_one_mute_and_a_bad_value_changes_nothing(table, client_for):
    client = client_for(table.alice)
    mute(client, table, "on")
    mute(client, table, "on")
    assert models.SessionMute.objects.filter(user=table.alice).count() == 1
    response = mute(client, table, "maybe")
    assert response.status_code == 302
    assert models.SessionMute.objects.filter(user=table.alice).count() == 1


def test_only_a_reader_of_the_session_may_mute_it(table, client_for):
    response = mute(client_for(table.outsider), table, "on")
    assert response.status_code in (403, 404)
    assert not models.SessionMute.objects.exists()
