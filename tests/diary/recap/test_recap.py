""" "Since you were last here": the recap's items for a reader back after a while (posts by
turn and author, turns opened, rolls with their outcomes, changes on the reader's own
characters, requests closed, table talk waiting), what it keeps secret, where the diary page
shows it and when, and what it costs."""

import html
import uuid
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from characters.models import Attribute
from diary.models import ReadMark
from diary.recap.selectors import RECAP_TURNS, recap_due, session_recap
from diary.services import post_create, turn_open_next, turn_set_deadline
from diary.talk.services import ooc_message_create, whisper_create
from rolls.engine.dice import ScriptedDice
from rolls.services import roll_ask_decline
from rolls.systems.forum1000.display import OUTCOMES
from rolls.systems.forum1000.requests import RollRequest, SideRequest
from tests.conftest import polish
from tests.diary_entries import hp_entry
from tests.rolling import ask_roll, make_roll

pytestmark = pytest.mark.django_db


def say(table, author, text, character=None):
    return post_create(
        session=table.session, author=author, character=character, narration=text, nc_note=""
    )


def diary_url(table) -> str:
    return reverse("diary:session", args=[table.session.pk])


def percepcja(character) -> SideRequest:
    attribute = Attribute.objects.get(system="forum1000", name="Percepcja")
    return SideRequest(character_id=character.pk, test="attribute", attribute_ids=(attribute.pk,))


def away(user, table, hours=48):
    """The user's mark stood still `hours` (they read, then went away)."""
    ReadMark.objects.filter(user=user, session=table.session).update(
        moved_at=timezone.now() - timedelta(hours=hours)
    )


def recap_of(user, table, character_ids=()):
    mark = ReadMark.objects.get(user=user, session=table.session)
    return session_recap(
        table.session,
        user,
        mark=mark.last_seen_post_id,
        seq=mark.last_seen_seq,
        moved_at=mark.moved_at,
        character_ids=character_ids,
    )


@pytest.fixture
def returning(table, client_for):
    """Alice read the diary with a request of hers open, went away for two days, and
    meanwhile the table played on: Borys's posts, a new turn with a deadline, an opposed
    roll of Borys against her Lirael, a wound, her request declined, a secret roll of the
    GM's about Lirael, a whisper to her and one to Bob, a message in the OOC thread."""
    say(table, table.gm, "Początek przygody.")
    own = say(table, table.alice, "Lirael rozgląda się.", table.lirael)
    ask = ask_roll(table.session, table.alice, percepcja(table.lirael), post=own)
    for reader in (table.alice, table.bob):
        assert client_for(reader).get(diary_url(table)).status_code == 200
        away(reader, table)
    roll_ask_decline(ask=ask, by=table.gm, reason="Nie teraz, później")
    table.borys_posts = [say(table, table.bob, f"Borys idzie {n}.", table.borys) for n in (1, 2)]
    turn_open_next(session=table.session, by=table.gm)
    deadline = timezone.now() + timedelta(days=3)
    turn_set_deadline(session=table.session, by=table.gm, deadline=deadline)
    say(table, table.gm, "Walka!")
    opposed = RollRequest(kind="opposed", a=percepcja(table.borys), b=percepcja(table.lirael))
    table.opposed = make_roll(table.session, table.gm, opposed, dice=ScriptedDice([200, 900])).roll
    table.wound = hp_entry(table.session, table.gm, table.lirael, -3, reason="Cios pałką")
    table.secret = make_roll(
        table.session,
        table.gm,
        RollRequest(kind="attribute", a=percepcja(table.lirael)),
        dice=ScriptedDice([555]),
        secret=True,
    ).roll
    whisper_create(
        session=table.session,
        by=table.gm,
        players=[table.alice],
        subject="Tajemnica",
        text="Słyszysz szept.",
        token=uuid.uuid4(),
    )
    whisper_create(
        session=table.session,
        by=table.gm,
        players=[table.bob],
        subject="Tylko dla Borysa",
        text="Ciii.",
        token=uuid.uuid4(),
    )
    ooc_message_create(session=table.session, author=table.bob, text="Gramy?", token=uuid.uuid4())
    return table


def test_the_recap_counts_new_posts_by_turn_and_author(returning):
    table = returning
    recap = recap_of(table.alice, table, [table.lirael.pk])
    assert recap.post_count == 3
    by_turn = {turn.number: turn for turn in recap.turns}
    assert [(a.name, a.count) for a in by_turn[1].authors] == [("Borys", 2)]
    assert by_turn[1].authors[0].url.endswith(f"#post-{table.borys_posts[0].pk}")
    assert [(a.name, a.count) for a in by_turn[2].authors] == [("mg", 1)]
    assert by_turn[2].url.endswith("?turn=2#turn-2")
    # Turn 2 opened since, with its deadline; turn 1 was open when she read.
    assert [t.number for t in recap.opened_turns] == [2]
    assert recap.opened_turns[0].deadline is not None


def test_a_roll_against_the_readers_character_comes_with_its_outcome(returning):
    table = returning
    recap = recap_of(table.alice, table, [table.lirael.pk])
    result = table.opposed.record["result"]
    (line,) = [item for item in recap.ledger.rolls if "Borys" in item.text]
    assert line.mine
    assert "mg" in line.text and "Lirael" in line.text
    assert str(OUTCOMES[result["a"]["outcome"]]) in line.text
    assert str(OUTCOMES[result["b"]["outcome"]]) in line.text
    post_id = table.opposed.post_id
    assert line.url.endswith(
        f"?after={post_id - 1}&roll={table.opposed.seq}#roll-{table.opposed.seq}"
    )


def test_an_hp_change_of_the_readers_own_character_is_listed(returning):
    table = returning
    recap = recap_of(table.alice, table, [table.lirael.pk])
    (change,) = recap.ledger.changes
    assert "Lirael" in change.text and "Cios pałką" in change.text
    assert f"roll={table.wound.seq}" in change.url
    # Bob's recap names no change on his characters: the wound is Lirael's.
    assert recap_of(table.bob, table, [table.borys.pk]).ledger.changes == ()


def test_a_declined_request_says_why(returning):
    table = returning
    (ask,) = recap_of(table.alice, table, [table.lirael.pk]).ledger.asks
    assert "Nie teraz, później" in ask.text and "Lirael" in ask.text
    assert "#ask-" in ask.url


def test_a_whisper_is_counted_only_for_its_members(returning):
    table = returning
    talk = recap_of(table.alice, table, [table.lirael.pk]).talk
    assert [(t.subject, t.count, t.whisper) for t in talk] == [
        ("", 1, False),  # the OOC thread
        ("Tajemnica", 1, True),
    ]
    assert all(t.subject != "Tylko dla Borysa" for t in talk)


def test_a_secret_roll_stays_hidden_from_a_player_and_shows_to_the_gm(returning, client_for):
    table = returning
    recap = recap_of(table.alice, table, [table.lirael.pk])
    assert len(recap.ledger.rolls) == 1  # the opposed roll only
    assert all(f"roll={table.secret.seq}" not in item.url for item in recap.ledger.rolls)
    # The GM, who reads the hidden record in the diary, finds its outcome marked secret.
    ReadMark.objects.create(user=table.gm, session=table.session, last_seen_post_id=1)
    gm = recap_of(table.gm, table)
    (secret,) = [item for item in gm.ledger.rolls if f"roll={table.secret.seq}" in item.url]
    assert polish("%(roll)s (secret)", roll="")[1:] in secret.text


def test_the_recap_reads_a_fixed_number_of_queries(
    table, client_for, django_assert_max_num_queries
):
    say(table, table.gm, "Start.")
    client_for(table.alice).get(diary_url(table))
    for n in range(RECAP_TURNS + 5):
        say(table, table.gm, f"Tura {n}.")
        say(table, table.bob, f"Borys {n}.", table.borys)
        hp_entry(table.session, table.gm, table.lirael, -1)
        turn_open_next(session=table.session, by=table.gm)
    mark = ReadMark.objects.get(user=table.alice, session=table.session)
    with django_assert_max_num_queries(7):
        recap = session_recap(
            table.session,
            table.alice,
            mark=mark.last_seen_post_id,
            seq=mark.last_seen_seq,
            moved_at=mark.moved_at,
            character_ids=[table.lirael.pk],
        )
    # Each round: the GM's post, Borys's, and the GM's resolution post the wound lands in.
    assert recap.post_count == 3 * (RECAP_TURNS + 5)
    # 26 turns with news: the 25 written in and the one just opened.
    assert len(recap.turns) == RECAP_TURNS and recap.turns_left_out == 6
    assert len(recap.ledger.changes) == RECAP_TURNS + 5


def test_recap_due_only_after_the_threshold(settings):
    settings.RECAP_AFTER_HOURS = 12
    now = timezone.now()
    recent, old = now - timedelta(hours=11), now - timedelta(hours=13)
    assert not recap_due(mark=5, moved_at=recent, first_unread_id=6, now=now)
    assert recap_due(mark=5, moved_at=old, first_unread_id=6, now=now)
    assert not recap_due(mark=5, moved_at=old, first_unread_id=None, now=now)  # all read
    assert not recap_due(mark=None, moved_at=None, first_unread_id=6, now=now)  # first visit
    assert recap_due(mark=5, moved_at=None, first_unread_id=6, now=now)  # before moved_at


def test_the_page_shows_the_recap_above_the_first_unread_post_after_a_while(
    table, client_for, settings
):
    settings.RECAP_AFTER_HOURS = 12
    say(table, table.gm, "Stare.")
    alice = client_for(table.alice)
    alice.get(diary_url(table))
    first_new = say(table, table.gm, "Nowe wieści.")
    say(table, table.bob, "Borys wraca.", table.borys)
    # Back after a moment: the first unread post is marked, no recap.
    ReadMark.objects.filter(user=table.alice).update(moved_at=timezone.now() - timedelta(hours=11))
    page = alice.get(diary_url(table)).content.decode()
    assert 'data-testid="recap"' not in page
    # Back after a while: the recap, folded open, right above the first unread post.
    third = say(table, table.gm, "Jeszcze jedno.")
    away(table.alice, table, hours=13)
    page = html.unescape(alice.get(diary_url(table)).content.decode())
    assert page.count('data-testid="recap"') == 1
    recap_at = page.index('data-testid="recap"')
    assert page.index(f'id="post-{first_new.pk}"') < recap_at < page.index(f'id="post-{third.pk}"')
    assert polish("Since you were last here") in page
    assert "&recap=" in page  # the live poll keeps it in place
    # Read on: gone.
    again = alice.get(diary_url(table)).content.decode()
    assert 'data-testid="recap"' not in again


def test_the_page_costs_the_same_however_many_posts_came_since(table, client_for):
    say(table, table.gm, "Start.")
    alice = client_for(table.alice)

    def queries_after(count: int) -> int:
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        alice.get(diary_url(table))
        for n in range(count):
            say(table, table.bob, f"Borys {n}.", table.borys)
            hp_entry(table.session, table.gm, table.lirael, -1)
        away(table.alice, table)
        with CaptureQueriesContext(connection) as queries:
            page = alice.get(diary_url(table)).content.decode()
        assert 'data-testid="recap"' in page
        return len(queries)

    # Each round stays within the newest page, which reads on (its mark moves).
    assert queries_after(1) == queries_after(6)


def test_a_co_gm_gets_the_recap_in_the_digest_as_the_gm_does(table, make_user, client_for):
    """The digest's recap covers the sessions the reader runs: a co-GM runs theirs too."""
    from diary.handover.services import co_gm_name
    from diary.recap.selectors import digest_recaps

    kasia = make_user("kasia")
    co_gm_name(session=table.session, by=table.gm, user=kasia)
    say(table, table.gm, "Początek.")
    assert client_for(kasia).get(diary_url(table)).status_code == 200
    say(table, table.bob, "Borys idzie.", table.borys)
    (recap,) = digest_recaps(kasia)
    assert recap.session_id == table.session.pk and recap.post_count == 1


def test_the_recap_names_new_announcements_polls_and_who_waited_a_turn(
    table, client_for, django_assert_max_num_queries
):
    """What the other wings add to a returning reader's news: the GM's announcements and the
    polls opened since, and the characters a turn passed over at its deadline ("czeka")."""
    from diary.board.services import announcement_create
    from diary.models import DeadlineRule, GameSession, Turn
    from diary.polls.services import poll_create
    from diary.recap.presenters import recap_text

    say(table, table.gm, "Początek.")
    assert client_for(table.alice).get(diary_url(table)).status_code == 200
    away(table.alice, table)
    before = announcement_create(
        session=table.session, by=table.gm, title="Stare zasady", text="", token=uuid.uuid4()
    )
    from diary.models import Announcement

    Announcement.objects.filter(pk=before.pk).update(created_at=timezone.now() - timedelta(days=3))
    GameSession.objects.filter(pk=table.session.pk).update(deadline_rule=DeadlineRule.PASS)
    table.session.refresh_from_db()
    Turn.objects.filter(session=table.session).update(deadline=timezone.now() - timedelta(hours=1))
    say(table, table.bob, "Borys idzie.", table.borys)
    # The site opens the next turn at the deadline (diary/deadlines), as the GM's.
    turn_open_next(session=table.session, by=table.gm, opened_by_site="deadline")
    notice = announcement_create(
        session=table.session, by=table.gm, title="Gramy co dwa dni", text="", token=uuid.uuid4()
    )
    poll = poll_create(
        session=table.session,
        by=table.bob,
        question="Kiedy sesja na żywo?",
        kind="text",
        options=["Sobota", "Niedziela"],
        max_choices=None,
        anonymous=False,
        closes_at=None,
        token=uuid.uuid4(),
    )
    mark = ReadMark.objects.get(user=table.alice, session=table.session)
    with django_assert_max_num_queries(7):  # two more than before: passes, notices
        recap = session_recap(
            table.session,
            table.alice,
            mark=mark.last_seen_post_id,
            seq=mark.last_seen_seq,
            moved_at=mark.moved_at,
            character_ids=[table.lirael.pk],
        )
    assert [(a.title, a.url) for a in recap.announcements] == [
        ("Gramy co dwa dni", notice.get_absolute_url())
    ]
    assert [(p.title, p.url) for p in recap.polls] == [
        ("Kiedy sesja na żywo?", poll.get_absolute_url())
    ]
    (waited,) = [turn for turn in recap.turns if turn.waited]
    assert (waited.number, waited.waited) == (1, ("Lirael",))
    (opened,) = recap.opened_turns
    assert (opened.number, opened.by_site) == (2, "deadline")
    assert not recap.is_empty
    page = html.unescape(client_for(table.alice).get(diary_url(table)).content.decode())
    recap_html = page[page.index('data-testid="recap"') :]
    assert "Gramy co dwa dni" in recap_html and "Kiedy sesja na żywo?" in recap_html
    assert polish("the turn passed on without: %(names)s", names="Lirael") in recap_html
    opened_html = recap_html[recap_html.index('data-testid="recap-turns"') :].split("</section>")[0]
    assert polish("The site opened this turn (the deadline passed)") in opened_html
    text = recap_text(recap)
    assert "Gramy co dwa dni" in text and notice.get_absolute_url() in text
    assert "Kiedy sesja na żywo?" in text
    assert polish("the turn passed on without: %(names)s", names="Lirael") in text
    assert polish("The site opened this turn (the deadline passed)") in text


def test_the_recap_names_the_gms_post_for_a_character_as_the_gms(table, client_for):
    """The GM playing an awaited character after the deadline (diary/deadlines) writes in
    the character's name; the recap says whose post it is, as the diary does."""
    from diary.models import DeadlineRule
    from diary.recap.presenters import recap_text
    from tests.diary.deadlines.helpers import deadline_passes, set_rule

    say(table, table.gm, "Początek.")
    assert client_for(table.alice).get(diary_url(table)).status_code == 200
    away(table.alice, table)
    set_rule(table, DeadlineRule.GM_PLAYS)
    deadline_passes(table)
    say(table, table.gm, "Lirael stoi w miejscu.", table.lirael)
    recap = recap_of(table.alice, table, [table.lirael.pk])
    (turn,) = recap.turns
    ((author),) = turn.authors
    assert (author.name, author.gm_plays) == ("Lirael", True)
    gm_for = polish("GM for %(name)s", name="Lirael")
    page = html.unescape(client_for(table.alice).get(diary_url(table)).content.decode())
    posts = page[page.index('data-testid="recap-posts"') :].split("</section>")[0]
    assert gm_for in posts
    assert gm_for in recap_text(recap)
