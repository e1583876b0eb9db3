"""The GM's notice board (diary/board/): announcements pinned above the diary and the OOC
thread for everyone who reads the session, compact (the newest open, the others folded), the
GM's alone to write, edit and take down; a new one tells every member of the table, even in a
muted session; the diary page stays within its query budget, and a change shows at once."""

import html
import re
import uuid

import pytest
from django.core.exceptions import PermissionDenied
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from diary import services
from diary.board import services as board_services
from diary.live import page_cache
from diary.models import (
    Announcement,
    Notification,
    NotificationKind,
    NotificationPreference,
    SessionMute,
    SessionStatus,
)
from diary.notifications.delivery import notification_text, notification_url
from diary.talk import services as talk_services
from tests.conftest import polish

pytestmark = pytest.mark.django_db


def announce(table, title="Harmonogram", text="Tura zamyka się w **niedzielę**."):
    return board_services.announcement_create(
        session=table.session, by=table.gm, title=title, text=text, token=uuid.uuid4()
    )


def page(client, url) -> str:
    return html.unescape(client.get(url).content.decode())


def diary_url(table):
    return reverse("diary:session", args=[table.session.pk])


def ooc_url(table):
    return reverse("diary:ooc", args=[table.session.pk])


def test_announcements_are_pinned_above_the_diary_and_the_ooc_thread(table, client_for):
    services.post_create(
        session=table.session,
        author=table.alice,
        character=table.lirael,
        narration="Lirael wchodzi do karczmy.",
        nc_note="",
    )
    talk_services.ooc_message_create(
        session=table.session, author=table.bob, text="Gadu gadu poza grą.", token=uuid.uuid4()
    )
    older = announce(table, "Zasady domu", "Piszemy w czasie przeszłym.")
    newest = announce(table)
    for user in (table.alice, table.gm, table.moderator):
        client = client_for(user)
        diary = page(client, diary_url(table))
        board = diary.index('data-testid="notice-board"')
        assert board < diary.index('id="diary-posts"') < diary.index("Lirael wchodzi do karczmy.")
        # Compact: the newest open, the older one folded to its title.
        assert re.search(rf'id="pinned-{newest.pk}"[^>]*\bopen>', diary)
        assert re.search(rf'id="pinned-{older.pk}"[^>]*"pinned-announcement">', diary)
        assert diary.index("Harmonogram") < diary.index("Zasady domu")
        assert "<strong>niedzielę</strong>" in diary
        ooc = page(client, ooc_url(table))
        assert ooc.index('data-testid="notice-board"') < ooc.index("Gadu gadu poza grą.")
        assert "Zasady domu" in ooc


def test_a_new_announcement_tells_every_member_even_in_a_muted_session(table):
    SessionMute.objects.create(user=table.alice, session=table.session)
    NotificationPreference.objects.create(
        user=table.bob, kind=NotificationKind.ANNOUNCEMENT, email=True
    )
    table.bob.email = "bob@example.com"
    table.bob.save()
    announcement = announce(table)
    told = Notification.objects.filter(kind=NotificationKind.ANNOUNCEMENT)
    assert sorted(told.values_list("recipient__username", flat=True)) == ["alicja", "bartek"]
    bobs = told.get(recipient=table.bob)
    assert bobs.email_pending
    assert notification_text(bobs) == polish(
        "GM's announcement in “%(session)s”: %(title)s",
        session=table.session.title,
        title="Harmonogram",
    )
    assert notification_url(bobs) == announcement.get_absolute_url()
    # An edit or a take-down is no news again.
    board_services.announcement_edit(
        session=table.session, announcement_pk=announcement.pk, by=table.gm, title="X", text=""
    )
    assert told.count() == 2


def test_only_the_gm_writes_edits_and_takes_down(table):
    announcement = announce(table)
    for user in (table.alice, table.moderator, table.outsider):
        with pytest.raises(PermissionDenied):
            board_services.announcement_create(
                session=table.session, by=user, title="Moje", text="", token=uuid.uuid4()
            )
        with pytest.raises(PermissionDenied):
            board_services.announcement_pin(
                session=table.session, announcement_pk=announcement.pk, by=user, pinned=False
            )
    services.session_transition(session=table.session, by=table.gm, to=SessionStatus.FINISHED)
    with pytest.raises(PermissionDenied):
        announce(table, "Po końcu")
    assert Announcement.objects.count() == 1


def test_a_player_reads_the_board_without_its_tools(table, client_for):
    announcement = announce(table)
    player = page(client_for(table.alice), reverse("diary:board", args=[table.session.pk]))
    assert "Harmonogram" in player
    assert reverse("diary:announcement_edit", args=[table.session.pk, announcement.pk]) not in (
        player
    )
    assert reverse("diary:announcement_new", args=[table.session.pk]) not in player
    refused = client_for(table.alice).get(
        reverse("diary:announcement_new", args=[table.session.pk])
    )
    assert refused.status_code == 403
    assert polish(
        "Only the GM writes on the notice board, and not once the session is finished."
    ) in html.unescape(refused.content.decode())


def test_bad_input_is_refused_next_to_its_field_and_nothing_is_stored(table, client_for):
    gm = client_for(table.gm)
    url = reverse("diary:announcement_new", args=[table.session.pk])
    empty = gm.post(url, {"title": "  ", "text": "x", "token": str(uuid.uuid4())})
    assert empty.status_code == 400
    assert (
        f'<p class="error" id="id_title_error">{polish("Give the announcement a title.")}</p>'
        in html.unescape(empty.content.decode())
    )
    long = gm.post(url, {"title": "T", "text": "x" * 5_001, "token": str(uuid.uuid4())})
    assert long.status_code == 400 and 'id="id_text_error"' in long.content.decode()
    assert not Announcement.objects.exists()


def test_the_text_is_markdown_sanitised_like_a_post(table, client_for):
    gm = client_for(table.gm)
    url = reverse("diary:announcement_new", args=[table.session.pk])
    body = {"title": "<b>Uwaga</b>", "text": "<script>alert(1)</script> *ważne*"}
    sent = gm.post(url, {**body, "token": str(uuid.uuid4())})
    assert sent.status_code == 302
    diary = client_for(table.bob).get(diary_url(table)).content.decode()
    assert "<script>alert(1)" not in diary and "<em>ważne</em>" in diary
    assert "&lt;b&gt;Uwaga&lt;/b&gt;" in diary


def test_an_edit_and_a_take_down_show_at_once_on_a_cached_diary(table, client_for):
    announcement = announce(table)
    bob = client_for(table.bob)
    assert "Harmonogram" in page(bob, diary_url(table))
    board_services.announcement_edit(
        session=table.session,
        announcement_pk=announcement.pk,
        by=table.gm,
        title="Nowy harmonogram",
        text="Tura co dwa dni.",
    )
    diary = page(bob, diary_url(table))
    assert "Nowy harmonogram" in diary and "Tura co dwa dni." in diary
    gm = client_for(table.gm)
    pin_url = reverse("diary:announcement_pin", args=[table.session.pk, announcement.pk])
    assert gm.post(pin_url, {"pinned": "off"}).status_code == 302
    assert 'data-testid="notice-board"' not in page(bob, diary_url(table))
    # Taken down, still on the board's page; pinned again, back above the diary.
    assert "Nowy harmonogram" in page(bob, reverse("diary:board", args=[table.session.pk]))
    assert gm.post(pin_url, {"pinned": "on"}).status_code == 302
    assert "Nowy harmonogram" in page(bob, diary_url(table))


def _cached_cost(client, url) -> int:
    page_cache.clear()
    client.get(url)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries.captured_queries)


def test_pinned_announcements_cost_the_cached_diary_page_no_query(table, client_for):
    bob = client_for(table.bob)
    bob.get(diary_url(table))
    without = _cached_cost(bob, diary_url(table))
    for n in range(5):
        announce(table, f"Ogłoszenie {n}")
    assert _cached_cost(bob, diary_url(table)) == without


def _board_reads(client, url) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return sum('"diary_announcement"."title"' in q["sql"] for q in queries.captured_queries)


def test_play_moves_no_board_read_and_a_session_without_a_board_reads_none(table, client_for):
    bob = client_for(table.bob)
    assert _board_reads(bob, diary_url(table)) == 0  # no announcement ever: not even one read
    announce(table)
    assert _board_reads(bob, diary_url(table)) == 1  # the board changed: read once
    services.post_create(
        session=table.session,
        author=table.alice,
        character=table.lirael,
        narration="Dalej.",
        nc_note="",
    )
    assert _board_reads(bob, diary_url(table)) == 0  # a post is no change of the board
    diary = page(bob, diary_url(table))
    assert "Harmonogram" in diary and "Dalej." in diary


def test_an_edit_with_bad_input_is_refused_next_to_its_field(table, client_for):
    announcement = announce(table)
    url = reverse("diary:announcement_edit", args=[table.session.pk, announcement.pk])
    gm = client_for(table.gm)
    form = page(gm, url)
    assert 'value="Harmonogram"' in form and "Tura zamyka się w **niedzielę**." in form
    refused = gm.post(url, {"title": "", "text": "Inaczej."})
    assert refused.status_code == 400
    assert 'id="id_title_error"' in refused.content.decode()
    announcement.refresh_from_db()
    assert announcement.title == "Harmonogram" and announcement.text.startswith("Tura")
    assert gm.post(url, {"title": "Nowy", "text": "Inaczej."}).status_code == 302
    announcement.refresh_from_db()
    assert (announcement.title, announcement.text_html) == ("Nowy", "<p>Inaczej.</p>\n")


def test_an_announcement_says_edited_only_once_edited(table, client_for):
    announcement = announce(table)
    url = reverse("diary:board", args=[table.session.pk])
    edited = polish("edited")
    assert edited not in page(client_for(table.bob), url)
    board_services.announcement_edit(
        session=table.session, announcement_pk=announcement.pk, by=table.gm, title="T", text=""
    )
    assert edited in page(client_for(table.bob), url)
