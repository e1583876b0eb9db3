"""Table talk beside the diary: the session's OOC thread and whispers between the GM and
chosen players (diary/talk_*.py). Who reads and writes what, the refusals (a page that says
why), bad input next to its field, notifications (muted sessions respected, cleared when
read), unread marks and badges, and that none of it reaches the diary."""

import html
import uuid

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from config import rate_limits
from config import settings as project_settings
from diary import services
from diary.models import (
    Notification,
    NotificationKind,
    SessionMute,
    SessionStatus,
    TalkMessage,
    TalkThread,
)
from diary.talk import services as talk_services
from tests.conftest import polish

pytestmark = pytest.mark.django_db

TALK_KINDS = [NotificationKind.TALK_OOC, NotificationKind.WHISPER]


def ooc_url(table):
    return reverse("diary:ooc", args=[table.session.pk])


def whisper_url(table, thread):
    return reverse("diary:whisper", args=[table.session.pk, thread.pk])


def say(client, url, text="Gramy dziś wieczorem?"):
    return client.post(url, {"text": text, "token": str(uuid.uuid4())})


def page_text(response) -> str:
    return html.unescape(response.content.decode())


def whisper(table, by, players, text="Tylko dla ciebie: w piwnicy jest przejście.", subject=""):
    return talk_services.whisper_create(
        session=table.session,
        by=by,
        players=players,
        subject=subject,
        text=text,
        token=uuid.uuid4(),
    )


# ---------------------------------------------------------------------------
# The OOC thread


def test_a_player_and_the_gm_talk_out_of_character(table, client_for):
    alice, gm = client_for(table.alice), client_for(table.gm)
    sent = say(alice, ooc_url(table), "Czy **Borys** zna tę wieś?")
    assert sent.status_code == 302
    message = TalkMessage.objects.get()
    assert sent["Location"] == f"{ooc_url(table)}#message-{message.pk}"
    # Markdown, sanitised like a post.
    assert message.text_html == "<p>Czy <strong>Borys</strong> zna tę wieś?</p>\n"
    page = gm.get(ooc_url(table))
    assert page.status_code == 200
    assert "<strong>Borys</strong>" in page.content.decode()
    assert say(gm, ooc_url(table), "Zna, był tam jako dziecko.").status_code == 302
    assert list(TalkThread.objects.values_list("kind", flat=True)) == ["ooc"]
    assert TalkMessage.objects.count() == 2


def test_ooc_is_never_shown_in_the_diary(table, client_for):
    say(client_for(table.alice), ooc_url(table), "Poza grą: wracam w niedzielę.")
    diary = client_for(table.gm).get(reverse("diary:session", args=[table.session.pk]))
    assert "wracam w niedzielę" not in page_text(diary)
    assert table.session.posts.count() == 0


def test_the_same_form_sent_twice_writes_one_message(table, client_for):
    client = client_for(table.alice)
    body = {"text": "Raz.", "token": str(uuid.uuid4())}
    first, second = client.post(ooc_url(table), body), client.post(ooc_url(table), body)
    assert first["Location"] == second["Location"]
    assert TalkMessage.objects.count() == 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "Write a message."),
        ("   \r\n ", "Write a message."),
    ],
)
def test_an_empty_message_is_refused_next_to_its_field(table, client_for, text, message):
    response = say(client_for(table.alice), ooc_url(table), text)
    assert response.status_code == 400
    assert f'<p class="error" id="id_text_error">{polish(message)}</p>' in page_text(response)
    assert not TalkMessage.objects.exists()


def test_an_oversized_message_is_refused_in_polish_next_to_its_field(table, client_for):
    response = say(client_for(table.alice), ooc_url(table), "x" * 5_001)
    page = page_text(response)
    assert response.status_code == 400
    assert 'id="id_text_error"' in page and "5000" in page and "znaków" in page
    assert not TalkMessage.objects.exists()


def test_a_stale_form_without_its_token_writes_nothing(table, client_for):
    response = client_for(table.alice).post(ooc_url(table), {"text": "Hej"})
    assert response.status_code == 400
    assert not TalkMessage.objects.exists()


def test_a_moderator_reads_ooc_but_may_not_write(table, client_for):
    say(client_for(table.alice), ooc_url(table), "Pytanie o zasady.")
    moderator = client_for(table.moderator)
    assert "Pytanie o zasady." in page_text(moderator.get(ooc_url(table)))
    refused = say(moderator, ooc_url(table))
    assert refused.status_code == 403
    assert polish(
        "Only the GM and the players of this session write here, and not once it is finished."
    ) in page_text(refused)
    assert TalkMessage.objects.count() == 1


def test_an_outsider_neither_reads_nor_writes_ooc(table, client_for):
    outsider = client_for(table.outsider)
    assert outsider.get(ooc_url(table)).status_code == 403
    assert say(outsider, ooc_url(table)).status_code == 403
    with pytest.raises(PermissionDenied):
        talk_services.ooc_message_create(
            session=table.session, author=table.outsider, text="Hej", token=uuid.uuid4()
        )
    assert not TalkMessage.objects.exists()


def test_a_finished_sessions_talk_is_read_only(table, client_for):
    say(client_for(table.alice), ooc_url(table), "Dzięki za grę!")
    services.session_transition(session=table.session, by=table.gm, to=SessionStatus.FINISHED)
    alice = client_for(table.alice)
    page = alice.get(ooc_url(table))
    assert "Dzięki za grę!" in page_text(page) and 'name="text"' not in page_text(page)
    assert say(alice, ooc_url(table)).status_code == 403
    assert TalkMessage.objects.count() == 1


def test_ooc_posting_is_rate_limited_like_posts(table, client_for, settings, monkeypatch):
    settings.RATE_LIMITS = dict(project_settings.DEFAULT_RATE_LIMITS)

    class Frozen:
        @staticmethod
        def time():
            return 1_800_000_000.0

    monkeypatch.setattr(rate_limits, "time", Frozen)
    alice = client_for(table.alice)
    statuses = [say(alice, ooc_url(table), f"Wiadomość {n}").status_code for n in range(11)]
    assert statuses == [302] * 10 + [429]
    assert TalkMessage.objects.count() == 10


def test_ooc_notifies_the_gm_and_players_once_until_read(table, client_for):
    alice, bob = client_for(table.alice), client_for(table.bob)
    say(alice, ooc_url(table), "Pierwsza.")
    say(alice, ooc_url(table), "Druga.")
    notices = Notification.objects.filter(kind=NotificationKind.TALK_OOC)
    # One unread notice per thread each; never the author.
    assert sorted(notices.values_list("recipient__username", flat=True)) == ["bartek", "mg"]
    assert polish(
        "%(actor)s wrote out of character in “%(session)s”.",
        actor="alicja",
        session=table.session.title,
    ) in page_text(bob.get(reverse("notifications:list")))
    # Reading the thread reads them; the next message is news again.
    bob.get(ooc_url(table))
    assert not notices.filter(recipient=table.bob, read_at__isnull=True).exists()
    say(alice, ooc_url(table), "Trzecia.")
    assert notices.filter(recipient=table.bob, read_at__isnull=True).count() == 1


def test_a_muted_session_brings_no_talk_notifications(table, client_for):
    SessionMute.objects.create(user=table.bob, session=table.session)
    say(client_for(table.alice), ooc_url(table), "Hej.")
    whisper(table, table.gm, [table.bob])
    assert not Notification.objects.filter(recipient=table.bob, kind__in=TALK_KINDS).exists()
    assert Notification.objects.filter(recipient=table.gm, kind=NotificationKind.TALK_OOC).exists()


def test_new_messages_are_marked_and_counted_on_the_session_page(table, client_for):
    gm, bob = client_for(table.gm), client_for(table.bob)
    diary = reverse("diary:session", args=[table.session.pk])
    bob.get(ooc_url(table))  # nothing yet
    say(gm, ooc_url(table), "Pierwsza.")
    say(gm, ooc_url(table), "Druga.")
    page = page_text(bob.get(diary))
    assert 'data-testid="ooc-unread">2 ' in page
    thread = page_text(bob.get(ooc_url(table)))
    assert thread.count('data-testid="talk-new"') == 2
    # Read: no "New" and no badge any more; the author never sees their own as new.
    assert 'data-testid="talk-new"' not in page_text(bob.get(ooc_url(table)))
    assert 'data-testid="ooc-unread"' not in page_text(bob.get(diary))
    assert 'data-testid="talk-new"' not in page_text(gm.get(ooc_url(table)))


# ---------------------------------------------------------------------------
# Whispers


def test_the_gm_whispers_to_one_player_and_the_other_cannot_read_it(table, client_for):
    thread = whisper(table, table.gm, [table.alice], subject="Sekret")
    assert set(thread.members.values_list("username", flat=True)) == {"mg", "alicja"}
    alice, bob = client_for(table.alice), client_for(table.bob)
    assert "Tylko dla ciebie" in page_text(alice.get(whisper_url(table, thread)))
    # Bartek plays in the session but is not a member: a page that says why, not the text.
    refused = bob.get(whisper_url(table, thread))
    assert refused.status_code == 403
    text = page_text(refused)
    assert (
        polish("This whisper is private: only the GM and the players it was started with read it.")
        in text
    )
    assert "Tylko dla ciebie" not in text and "Sekret" not in text
    assert say(bob, whisper_url(table, thread)).status_code == 403
    # Nor is it in his list, his badge or the diary.
    listing = page_text(bob.get(reverse("diary:whispers", args=[table.session.pk])))
    assert "Sekret" not in listing
    diary = page_text(bob.get(reverse("diary:session", args=[table.session.pk])))
    assert "whispers-unread" not in diary and "Tylko dla ciebie" not in diary
    with pytest.raises(PermissionDenied):
        talk_services.whisper_message_create(
            thread=thread, author=table.bob, text="Podsłuchuję", token=uuid.uuid4()
        )
    assert thread.messages.count() == 1


def test_a_whisper_notifies_its_members_only_and_reading_clears_it(table, client_for):
    thread = whisper(table, table.gm, [table.alice])
    notices = Notification.objects.filter(kind=NotificationKind.WHISPER)
    assert list(notices.values_list("recipient__username", flat=True)) == ["alicja"]
    alice = client_for(table.alice)
    diary = page_text(alice.get(reverse("diary:session", args=[table.session.pk])))
    assert 'data-testid="whispers-unread">1 ' in diary
    listing = page_text(alice.get(reverse("diary:whispers", args=[table.session.pk])))
    assert 'data-testid="whisper-unread"' in listing
    assert 'data-testid="talk-new"' in page_text(alice.get(whisper_url(table, thread)))
    assert not notices.filter(read_at__isnull=True).exists()
    # Her answer tells the GM.
    assert say(alice, whisper_url(table, thread), "Rozumiem.").status_code == 302
    assert notices.filter(recipient=table.gm, read_at__isnull=True).count() == 1
    assert not Notification.objects.filter(recipient=table.bob, kind__in=TALK_KINDS).exists()


def test_a_player_whispers_to_the_gm_only(table, client_for):
    bob = client_for(table.bob)
    page = page_text(bob.get(reverse("diary:whisper_new", args=[table.session.pk])))
    assert 'name="players"' not in page
    response = bob.post(
        reverse("diary:whisper_new", args=[table.session.pk]),
        # A player cannot add another player, whatever the form says.
        {"text": "Mistrzu, czy mogę...", "players": [table.alice.pk], "token": str(uuid.uuid4())},
    )
    thread = TalkThread.objects.get(kind="whisper")
    assert response["Location"] == whisper_url(table, thread)
    assert set(thread.members.values_list("username", flat=True)) == {"bartek", "mg"}


def test_the_gm_chooses_players_of_the_session_only(table, client_for, make_user):
    gm = client_for(table.gm)
    url = reverse("diary:whisper_new", args=[table.session.pk])
    page = page_text(gm.get(url))
    assert f'value="{table.alice.pk}"' in page and f'value="{table.bob.pk}"' in page
    for players, message in [
        ([], "Choose at least one player."),
        ([table.outsider.pk], "Whisper only to players of this session."),
        # An id past 64 bits: SQLite cannot compare it at all; refused like any other.
        ([table.alice.pk, 2**70], "Whisper only to players of this session."),
    ]:
        response = gm.post(url, {"text": "Hej", "players": players, "token": str(uuid.uuid4())})
        assert response.status_code == 400
        assert polish(message) in page_text(response)
        assert 'id="id_players_error"' in page_text(response)
    with pytest.raises(ValidationError):
        whisper(table, table.gm, [table.outsider])
    assert not TalkThread.objects.exists()
    # Several players at once.
    response = gm.post(
        url, {"text": "Obaj słyszycie szept.", "players": [table.alice.pk, table.bob.pk],
              "token": str(uuid.uuid4())},
    )  # fmt: skip
    assert response.status_code == 302
    thread = TalkThread.objects.get()
    assert thread.members.count() == 3


def test_a_moderator_reads_whispers_for_audit_but_does_not_write(table, client_for):
    thread = whisper(table, table.gm, [table.alice], subject="Sekret")
    moderator = client_for(table.moderator)
    assert "Sekret" in page_text(moderator.get(reverse("diary:whispers", args=[table.session.pk])))
    page = page_text(moderator.get(whisper_url(table, thread)))
    assert "Tylko dla ciebie" in page and 'name="text"' not in page
    assert say(moderator, whisper_url(table, thread)).status_code == 403
    assert moderator.get(reverse("diary:whisper_new", args=[table.session.pk])).status_code == 403
    assert thread.messages.count() == 1


def test_a_whisper_of_another_session_is_not_found(table, client_for, make_session):
    other = make_session(table.gm, [])
    thread = whisper(table, table.gm, [table.alice])
    url = reverse("diary:whisper", args=[other.pk, thread.pk])
    assert client_for(table.gm).get(url).status_code == 404


def test_a_message_written_meanwhile_stays_new_for_whoever_answers(table, client_for):
    gm, alice = client_for(table.gm), client_for(table.alice)
    say(gm, ooc_url(table), "Pierwsza.")
    alice.get(ooc_url(table))  # read
    say(gm, ooc_url(table), "Napisana, gdy Alicja pisze.")
    # Alicja answers without having seen it: where the form leads, it is still new.
    followed = alice.post(ooc_url(table), {"text": "Odpowiedź.", "token": str(uuid.uuid4())},
                          follow=True)  # fmt: skip
    page = page_text(followed)
    assert page.count('data-testid="talk-new"') == 1
    assert page.index('data-testid="talk-new"') < page.index("Napisana, gdy Alicja pisze.")
    assert not Notification.objects.filter(recipient=table.alice, read_at=None,
                                           kind__in=TALK_KINDS).exists()  # fmt: skip
