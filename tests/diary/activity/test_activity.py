"""A session's activity: its last post and last turn change in words on the session list,
the home page, the recruiting board and the join page; a running session silent for
INACTIVE_AFTER_DAYS is marked quiet for its GM and listed on the moderators' home."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone, translation

from diary import services
from diary.activity.presenters import activity_of, ago_words
from diary.activity.selectors import with_activity
from diary.models import GameSession, Post, Turn
from tests.conftest import polish

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("delta", "words"),
    [
        (timedelta(seconds=20), "przed chwilą"),
        (timedelta(minutes=1), "1 minutę temu"),
        (timedelta(minutes=3), "3 minuty temu"),
        (timedelta(minutes=12), "12 minut temu"),
        (timedelta(minutes=22), "22 minuty temu"),
        (timedelta(hours=1), "1 godzinę temu"),
        (timedelta(hours=4), "4 godziny temu"),
        (timedelta(hours=5, minutes=59), "5 godzin temu"),
        (timedelta(days=1), "1 dzień temu"),
        (timedelta(days=3), "3 dni temu"),
        (timedelta(days=25), "25 dni temu"),
    ],
)
def test_how_long_ago_is_said_in_polish_with_its_plural_forms(delta, words):
    with translation.override("pl"):
        assert ago_words(NOW - delta, NOW) == words


def _back_date(session, *, post_days: float | None, turn_days: float | None):
    """The session's newest post and current turn moved into the past (created_at too)."""
    now = timezone.now()
    old = now - timedelta(days=30)
    GameSession.objects.filter(pk=session.pk).update(created_at=old)
    Post.objects.filter(session=session).update(created_at=old)
    if post_days is not None:
        newest = Post.objects.filter(session=session).order_by("-id").first()
        Post.objects.filter(pk=newest.pk).update(created_at=now - timedelta(days=post_days))
    if turn_days is not None:
        Turn.objects.filter(session=session).update(opened_at=now - timedelta(days=turn_days))


def _post(table, text="Lirael idzie dalej."):
    return services.post_create(
        session=table.session,
        author=table.alice,
        character=table.lirael,
        narration=text,
        nc_note="",
    )


def test_the_session_list_says_when_the_last_post_and_turn_change_were(table, client_for):
    _post(table)
    _back_date(table.session, post_days=3.2, turn_days=5.5)
    page = client_for(table.bob).get(reverse("diary:session_list")).content.decode()
    assert "ostatni wpis 3 dni temu" in page
    assert "tura zmieniona 5 dni temu" in page
    post = Post.objects.filter(session=table.session).order_by("-id").first()
    assert f'<time datetime="{timezone.localtime(post.created_at).isoformat()}' in page


def test_a_session_without_posts_says_so(make_user, make_session, client_for):
    gm = make_user()
    make_session(gm, status="draft", title="Szkic")
    page = client_for(gm).get(reverse("diary:session_list")).content.decode()
    assert polish("no post yet") in page
    assert polish("no turn opened yet") in page


def test_activity_counts_only_posts_and_turns_not_other_changes(table):
    first = _post(table)
    _back_date(table.session, post_days=10, turn_days=10)
    # The session's marker moves with any change (an edit, a roll): not activity here.
    GameSession.objects.filter(pk=table.session.pk).update(activity_at=timezone.now())
    session = with_activity(GameSession.objects.all()).get(pk=table.session.pk)
    assert session.last_post_at == Post.objects.get(pk=first.pk).created_at
    assert activity_of(session).quiet


def test_a_quiet_session_is_marked_for_its_gm_and_the_moderators_only(table, client_for):
    _post(table)
    _back_date(table.session, post_days=8, turn_days=9)
    quiet = f'data-testid="quiet-{table.session.pk}"'
    assert quiet in client_for(table.gm).get(reverse("home")).content.decode()
    assert quiet in client_for(table.gm).get(reverse("diary:session_list")).content.decode()
    assert polish("quiet") == "uśpiona"
    assert ">uśpiona<" in client_for(table.gm).get(reverse("home")).content.decode()
    for player in (table.alice, table.outsider):
        assert quiet not in client_for(player).get(reverse("home")).content.decode()
        assert quiet not in client_for(player).get(reverse("diary:session_list")).content.decode()
    assert quiet in client_for(table.moderator).get(reverse("diary:session_list")).content.decode()


def test_a_post_or_a_new_turn_wakes_a_session(table, client_for):
    _post(table)
    _back_date(table.session, post_days=8, turn_days=9)
    quiet = f'data-testid="quiet-{table.session.pk}"'
    _post(table, "Lirael wraca.")
    assert quiet not in client_for(table.gm).get(reverse("home")).content.decode()
    _back_date(table.session, post_days=8, turn_days=9)
    services.turn_open_next(session=table.session, by=table.gm)
    assert quiet not in client_for(table.gm).get(reverse("home")).content.decode()


def test_the_threshold_is_the_sites_setting(table, client_for, settings):
    _post(table)
    _back_date(table.session, post_days=4, turn_days=4)
    quiet = f'data-testid="quiet-{table.session.pk}"'
    assert quiet not in client_for(table.gm).get(reverse("home")).content.decode()
    settings.INACTIVE_AFTER_DAYS = 3
    assert quiet in client_for(table.gm).get(reverse("home")).content.decode()


def test_the_moderators_home_lists_the_quiet_sessions_longest_quiet_first(
    table, make_user, make_character, make_session, client_for
):
    _post(table)
    _back_date(table.session, post_days=8, turn_days=9)
    older = make_session(make_user(), [make_character(make_user())], title="Dawno cicha")
    _back_date(older, post_days=None, turn_days=20)
    lively = make_session(make_user(), [make_character(make_user())], title="Żywa")
    finished = make_session(make_user(), title="Skończona")
    services.session_transition(session=finished, by=finished.gm, to="finished")
    _back_date(finished, post_days=None, turn_days=20)
    page = client_for(table.moderator).get(reverse("home")).content.decode()
    assert 'data-testid="quiet-sessions"' in page
    assert polish("Quiet sessions") in page
    rows = [f'data-testid="quiet-row-{s.pk}"' for s in (older, table.session)]
    assert all(row in page for row in rows)
    assert page.index(rows[0]) < page.index(rows[1])
    assert f'data-testid="quiet-row-{lively.pk}"' not in page
    assert f'data-testid="quiet-row-{finished.pk}"' not in page
    for someone in (table.gm, table.alice):
        assert 'data-testid="quiet-sessions"' not in (
            client_for(someone).get(reverse("home")).content.decode()
        )


def test_an_applicant_sees_the_games_activity_before_applying(table, client_for):
    _post(table)
    _back_date(table.session, post_days=2, turn_days=6)
    join = client_for(table.outsider).get(reverse("diary:session_join", args=[table.session.pk]))
    assert "ostatni wpis 2 dni temu" in join.content.decode()
    assert "tura zmieniona 6 dni temu" in join.content.decode()
    board = client_for(table.outsider).get(reverse("diary:recruiting")).content.decode()
    card = board[board.index(f'data-testid="recruiting-{table.session.pk}"') :]
    assert "ostatni wpis 2 dni temu" in card
    # The quiet mark is the GM's and the moderators' word, not an applicant's.
    assert 'data-testid="quiet-' not in card


def _queries(client, url) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


@pytest.mark.parametrize("url", ["diary:session_list", "diary:recruiting", "home"])
def test_the_lists_cost_the_same_queries_however_many_sessions(
    url, make_user, make_character, make_session, client_for
):
    viewer = make_user(moderator=True)
    client = client_for(viewer)
    make_session(viewer, [make_character(make_user())])
    _queries(client, reverse(url))
    few = _queries(client, reverse(url))
    for _ in range(4):
        session = make_session(viewer, [make_character(make_user())])
        _back_date(session, post_days=None, turn_days=12)
    assert _queries(client, reverse(url)) == few


def test_a_co_gm_sees_the_quiet_mark_as_the_gm_does(table, make_user, client_for):
    from diary.handover.services import co_gm_name

    kasia = make_user("kasia")
    co_gm_name(session=table.session, by=table.gm, user=kasia)
    _post(table)
    _back_date(table.session, post_days=8, turn_days=9)
    quiet = f'data-testid="quiet-{table.session.pk}"'
    assert quiet in client_for(kasia).get(reverse("diary:session_list")).content.decode()


def test_the_moderators_quiet_list_links_an_orphaned_session_to_its_handover(
    table, make_user, make_character, make_session, client_for, settings
):
    """Quiet is anyone's silence; orphaned the GM's (diary.handover): where a quiet session
    is orphaned too, the moderator's list leads to its handover page."""
    settings.INACTIVE_AFTER_DAYS, settings.ORPHANED_AFTER_DAYS = 7, 14
    _post(table)
    _back_date(table.session, post_days=20, turn_days=20)
    recent = make_session(make_user(), [make_character(make_user())], title="Cicha od tygodnia")
    _back_date(recent, post_days=None, turn_days=9)
    page = client_for(table.moderator).get(reverse("home")).content.decode()
    handover = reverse("diary:session_handover", args=[table.session.pk])
    row = page[page.index(f'data-testid="quiet-row-{table.session.pk}"') :].split("</li>")[0]
    assert f'href="{handover}"' in row and "osierocona: przekaż ją" in row
    assert f'data-testid="hand-over-{recent.pk}"' not in page
    assert f'data-testid="quiet-row-{recent.pk}"' in page


def test_turns_the_site_opens_at_the_deadline_do_not_keep_a_silent_game_awake(table, client_for):
    """With the site opening turns at the deadline (diary/deadlines), a game nobody posts
    in still changes turns: the quiet mark asks whether anyone plays."""
    _post(table)
    _back_date(table.session, post_days=10, turn_days=10)
    services.turn_open_next(session=table.session, by=table.gm, opened_by_site="deadline")
    quiet = f'data-testid="quiet-{table.session.pk}"'
    assert quiet in client_for(table.gm).get(reverse("diary:session_list")).content.decode()
    page = client_for(table.moderator).get(reverse("home")).content.decode()
    assert f'data-testid="quiet-row-{table.session.pk}"' in page
