"""Reading: read marks, the first unread post, unread counts, pages by turn."""

import html
import json
from types import SimpleNamespace

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from diary import reading
from diary.models import DIARY_PAGE_SIZE, GameSession, Post, ReadMark
from diary.services import post_create, post_hide, turn_open_next
from rolls.systems.forum1000.requests import RollRequest, SideRequest
from tests import scale
from tests.conftest import polish
from tests.rolling import make_roll

pytestmark = pytest.mark.django_db


def say(table, author, text, character=None):
    return post_create(
        session=table.session, author=author, character=character, narration=text, nc_note=""
    )


def diary_url(table) -> str:
    return reverse("diary:session", args=[table.session.pk])


def mark_of(user, table) -> int | None:
    return (
        ReadMark.objects.filter(user=user, session=table.session)
        .values_list("last_seen_post_id", flat=True)
        .first()
    )


def mark_writes(queries) -> list[str]:
    table = ReadMark._meta.db_table
    return [
        q["sql"]
        for q in queries.captured_queries
        if table in q["sql"] and q["sql"].lstrip().upper().startswith(("UPDATE", "INSERT"))
    ]


# --- Marks advance, never back, and a re-read writes nothing ----------------------------


def test_a_diary_view_moves_the_mark_to_the_newest_post_shown(table, client_for):
    say(table, table.gm, "Pierwszy.")
    newest = say(table, table.gm, "Drugi.")
    bob = client_for(table.bob)
    assert mark_of(table.bob, table) is None
    assert bob.get(diary_url(table)).status_code == 200
    assert mark_of(table.bob, table) == newest.pk


def test_a_plain_re_read_writes_nothing(table, client_for):
    say(table, table.gm, "Pierwszy.")
    bob = client_for(table.bob)
    bob.get(diary_url(table))
    with CaptureQueriesContext(connection) as queries:
        bob.get(diary_url(table))
    assert mark_writes(queries) == []
    # A new post moves it with one statement.
    newest = say(table, table.gm, "Drugi.")
    with CaptureQueriesContext(connection) as queries:
        bob.get(diary_url(table))
    assert len(mark_writes(queries)) == 1
    assert mark_of(table.bob, table) == newest.pk


def test_an_older_page_never_moves_the_mark_back(table, client_for):
    posts = [say(table, table.gm, f"Wpis {n}") for n in range(DIARY_PAGE_SIZE + 5)]
    bob = client_for(table.bob)
    bob.get(diary_url(table))
    assert mark_of(table.bob, table) == posts[-1].pk
    page = bob.get(diary_url(table), {"before": posts[10].pk})
    assert page.status_code == 200
    assert mark_of(table.bob, table) == posts[-1].pk


def test_the_service_moves_forwards_only(table):
    first, second = say(table, table.gm, "a"), say(table, table.gm, "b")
    sid = table.session.pk
    assert reading.read_mark_advance(user=table.bob, session_id=sid, post_id=second.pk, known=None)
    assert not reading.read_mark_advance(
        user=table.bob, session_id=sid, post_id=first.pk, known=second.pk
    )
    # Even told a stale mark, the UPDATE's own condition keeps it from going back.
    assert not reading.read_mark_advance(user=table.bob, session_id=sid, post_id=first.pk, known=0)
    assert mark_of(table.bob, table) == second.pk


def test_the_live_poll_moves_the_mark_too(table, client_for):
    say(table, table.gm, "a")
    bob = client_for(table.bob)
    bob.get(diary_url(table))
    newest = say(table, table.gm, "Nowość")
    live = reverse("diary:session_live", args=[table.session.pk])
    response = bob.get(live, {"seen": "0"})
    assert response.status_code == 200 and "Nowość" in response.content.decode()
    assert mark_of(table.bob, table) == newest.pk


# --- The first unread post: its marker and the link to it -------------------------------


def test_the_first_unread_post_is_marked_new_and_linked(table, client_for):
    say(table, table.gm, "Stare.")
    bob = client_for(table.bob)
    bob.get(diary_url(table))
    first_new = say(table, table.gm, "Nowe wieści.")
    say(table, table.alice, "Jeszcze jedno.", table.lirael)
    page = html.unescape(bob.get(diary_url(table)).content.decode())
    assert page.count('data-testid="first-unread"') == 1
    marker_at = page.index('data-testid="first-unread"')
    assert page.rindex(f'id="post-{first_new.pk}"', 0, marker_at) > 0
    assert polish("New") in page
    assert f'href="#post-{first_new.pk}"' in page
    assert polish("Go to the first unread post") in page
    # Read now: the next view has neither.
    again = bob.get(diary_url(table)).content.decode()
    assert 'data-testid="first-unread"' not in again
    assert 'data-testid="jump-unread"' not in again


def test_own_posts_are_never_unread(table, client_for):
    alice = client_for(table.alice)
    alice.get(diary_url(table))
    say(table, table.alice, "Moje.", table.lirael)
    page = alice.get(diary_url(table)).content.decode()
    assert 'data-testid="first-unread"' not in page
    listed = GameSession.objects.filter(pk=table.session.pk)
    assert reading.sessions_with_unread(listed, table.alice).get().unread_count == 0


def test_hidden_posts_are_not_counted(table):
    post = say(table, table.gm, "Ups.")
    post_hide(post=post, by=table.gm, reason="")
    listed = GameSession.objects.filter(pk=table.session.pk)
    assert reading.sessions_with_unread(listed, table.bob).get().unread_count == 0


def test_a_reader_behind_is_led_to_the_first_unread_post_and_reads_on(table, client_for):
    """The diary remembers where I was: a reader more than a page behind opens
    the newest page, live, where every link to a post on it lands (their own new post
    too), with the link to the first unread post; reading on from there moves the mark."""
    say(table, table.gm, "Stare.")
    bob = client_for(table.bob)
    bob.get(diary_url(table))
    posts = [say(table, table.gm, f"Wpis {n}") for n in range(DIARY_PAGE_SIZE + 3)]
    newest = bob.get(diary_url(table))
    assert newest.context["live"] is True
    assert newest.context["page"].posts[-1].pk == posts[-1].pk
    target = f"{diary_url(table)}?after={posts[0].pk - 1}#post-{posts[0].pk}"
    assert f'href="{html.escape(target)}"' in newest.content.decode()
    # Publishing lands on the reply, on the newest page, even while behind.
    mine = say(table, table.bob, "Borys dogania drużynę.", character=table.borys)
    landed = bob.get(mine.get_absolute_url())
    assert mine.pk in [post.pk for post in landed.context["page"].posts]
    # The newest page skipped unread posts: the mark stays, the link still leads there.
    first_page = bob.get(diary_url(table), {"after": posts[0].pk - 1})
    shown = [post.pk for post in first_page.context["page"].posts]
    assert shown == [post.pk for post in posts[:DIARY_PAGE_SIZE]]
    body = first_page.content.decode()
    assert 'data-testid="first-unread"' in body
    assert mark_of(table.bob, table) == posts[DIARY_PAGE_SIZE - 1].pk
    # "Later posts" reads on; caught up, no link any more.
    bob.get(diary_url(table), {"after": first_page.context["page"].newer_cursor})
    caught_up = bob.get(diary_url(table))
    assert caught_up.context["live"] is True and caught_up.context["first_unread_id"] is None


def test_a_jump_ahead_leaves_the_mark_and_the_link_to_the_first_unread(table, client_for):
    """A page that starts after the first unread post (`?after=`, `?turn=`, a permalink)
    skips unread posts: it must not mark them read."""
    first = say(table, table.gm, "Pierwszy.")
    bob = client_for(table.bob)
    bob.get(diary_url(table))
    assert mark_of(table.bob, table) == first.pk
    posts = [say(table, table.gm, f"Wpis {n}") for n in range(40)]
    bob.get(diary_url(table), {"after": posts[37].pk})
    bob.get(reverse("diary:post_link", args=[posts[30].pk]), follow=True)
    assert mark_of(table.bob, table) == first.pk
    assert bob.get(diary_url(table)).context["first_unread_id"] == posts[0].pk


def test_a_newcomer_opens_the_newest_page_with_a_link_to_the_first_unread(table, client_for):
    posts = [say(table, table.gm, f"Wpis {n}") for n in range(DIARY_PAGE_SIZE + 3)]
    page = client_for(table.bob).get(diary_url(table))
    assert page.context["live"] is True
    assert page.context["page"].posts[-1].pk == posts[-1].pk
    target = f"{diary_url(table)}?after={posts[0].pk - 1}#post-{posts[0].pk}"
    assert f'href="{html.escape(target)}"' in page.content.decode()


def test_the_live_poll_shows_the_newest_posts(table, client_for):
    say(table, table.gm, "Stare.")
    bob = client_for(table.bob)
    bob.get(diary_url(table))
    posts = [say(table, table.gm, f"Wpis {n}") for n in range(DIARY_PAGE_SIZE + 3)]
    live = reverse("diary:session_live", args=[table.session.pk])
    response = bob.get(live, {"seen": "0"})
    assert response.context["page"].posts[-1].pk == posts[-1].pk


def test_the_first_unread_is_the_earlier_of_a_changed_post_and_a_new_one(table, client_for):
    opening = say(table, table.gm, "Tura się zaczyna.")
    bob = client_for(table.bob)
    bob.get(diary_url(table))
    listed = GameSession.objects.filter(pk=table.session.pk)

    def first_unread():
        found = reading.sessions_with_unread(listed, table.bob).get().first_unread_id
        assert bob.get(diary_url(table)).context["first_unread_id"] == found
        return found

    assert first_unread() is None
    hidden = say(table, table.gm, "Ukryty.")
    post_hide(post=hidden, by=table.gm, reason="")
    say(table, table.bob, "Własny.", table.borys)
    new = say(table, table.gm, "Dalej.")
    assert first_unread() == new.pk  # new posts only: hidden and own ones skipped
    charm = SideRequest(table.lirael.pk, "skill", skill_id=scale._skill("Uwodzenie"))
    make_roll(table.session, table.gm, RollRequest(kind="skill", a=charm), post=opening)
    assert first_unread() == opening.pk  # a change to a read post comes first


# --- The first unread post in a long session: an index range, never a scan ------------


def expected_first_unread(user, table) -> int | None:
    """The first unread post by the definition (diary/reading.py), read post by post."""
    mark = ReadMark.objects.filter(user=user, session=table.session).first()
    seen_post, seen_seq = (mark.last_seen_post_id, mark.last_seen_seq) if mark else (0, 0)
    unread = [
        post.pk
        for post in Post.objects.filter(session=table.session).order_by("pk")
        if post.hidden_at is None
        and post.author_id != user.pk
        and (post.pk > seen_post or post.changed_seq > seen_seq)
    ]
    return unread[0] if unread else None


def session_query(client, table) -> str:
    """The SQL of the diary page's session query (the one that finds the first unread post)."""
    with CaptureQueriesContext(connection) as queries:
        assert client.get(diary_url(table)).status_code == 200
    [sql] = [q["sql"] for q in queries.captured_queries if "viewer_first_unread" in q["sql"]]
    return sql


def posts_examined(sql) -> tuple[int, list[str]]:
    """EXPLAIN ANALYZE of `sql` after ANALYZE: how many of diary_post's rows its plan read
    (returned or filtered out, over every loop) and how it read them."""
    table = Post._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {table}")
        cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}")
        [(plan,)] = cursor.fetchall()
    if isinstance(plan, str):
        plan = json.loads(plan)
    nodes, stack = [], [plan[0]["Plan"]]
    while stack:
        node = stack.pop()
        nodes.append(node)
        stack.extend(node.get("Plans", []))
    scans = [node for node in nodes if node.get("Relation Name") == table]
    examined = sum(
        (
            node.get("Actual Rows", 0)
            + node.get("Rows Removed by Filter", 0)
            + node.get("Rows Removed by Index Recheck", 0)
        )
        * node.get("Actual Loops", 1)
        for node in scans
    )
    return examined, [f"{node['Node Type']} {node.get('Index Name', '')}" for node in scans]


@pytest.mark.postgres_only
def test_the_first_unread_post_of_a_long_session_is_found_by_an_index_range(
    table, client_for, make_user, make_session
):
    """5 000 posts, and another session's 5 000 written after them: whether the reader is
    caught up, a roll landed in a post they read, or they are a few posts behind, the page's
    query reads a handful of posts, by an index range from the mark (PostgreSQL's plan, after
    ANALYZE), never the session's posts nor the later ones of another session."""
    scale.build(table, 5_000)
    other = make_session(make_user("mg-druga"))
    scale.fill_bulk(SimpleNamespace(**{**vars(table), "session": other, "gm": other.gm}), 5_000)
    bob, alice = client_for(table.bob), client_for(table.alice)
    bobs_query, alices_query = session_query(bob, table), session_query(alice, table)

    def check(user, client, sql):
        examined, scans = posts_examined(sql)
        assert not any(scan.startswith("Seq Scan") for scan in scans), scans
        assert examined <= 20, (examined, scans)
        expected = expected_first_unread(user, table)
        assert client.get(diary_url(table)).context["first_unread_id"] == expected
        return expected

    # Caught up (the page above moved the mark to the newest post and the chain head).
    assert check(table.bob, bob, bobs_query) is None
    # A roll lands in a post Bartek has read: that post is the first unread one.
    newest = Post.objects.filter(session=table.session).latest("pk")
    charm = SideRequest(table.lirael.pk, "skill", skill_id=scale._skill("Uwodzenie"))
    make_roll(
        table.session,
        table.gm,
        RollRequest(kind="skill", a=charm),
        post=newest,
        extra_action_reason="Drugi urok.",
    )
    assert check(table.bob, bob, bobs_query) == newest.pk
    # A few posts behind: the first unread is the first post after the mark not her own.
    ids = list(
        Post.objects.filter(session=table.session).order_by("pk").values_list("pk", flat=True)
    )
    head = GameSession.objects.get(pk=table.session.pk).chain_seq
    ReadMark.objects.filter(user=table.alice, session=table.session).update(
        last_seen_post_id=ids[-12], last_seen_seq=head
    )
    assert check(table.alice, alice, alices_query) is not None


# --- Counts on the session list and the home page ---------------------------------------


def test_counts_on_the_list_and_home_link_to_the_first_unread_post(table, client_for):
    bob = client_for(table.bob)
    bob.get(diary_url(table))
    first_new = say(table, table.gm, "Raz.")
    say(table, table.gm, "Dwa.")
    say(table, table.bob, "Moje.", table.borys)  # own: not counted
    link = reverse("diary:post_link", args=[first_new.pk])
    for url in (reverse("diary:session_list"), reverse("home")):
        page = html.unescape(bob.get(url).content.decode())
        assert f'data-testid="session-unread-{table.session.pk}"' in page, url
        assert polish("%(n)s new post", n=2).split()[0] in page
        assert "2 nowe wpisy" in page, url
        assert f'href="{link}"' in page, url
    assert bob.get(link)["Location"].endswith(f"#post-{first_new.pk}")


def test_sessions_one_does_not_read_show_no_count(table, client_for):
    say(table, table.gm, "Tajne.")
    # The running session's card is listed for the outsider; its posts are not theirs.
    page = client_for(table.outsider).get(reverse("diary:session_list")).content.decode()
    assert table.session.title in html.unescape(page)
    assert "session-unread" not in page
    listed = GameSession.objects.filter(pk=table.session.pk)
    row = reading.sessions_with_unread(listed, table.outsider).get()
    assert row.unread_count == 0 and row.first_unread_id is None


def test_the_list_counts_in_one_query_however_many_sessions(
    table, client_for, make_session, make_character, django_assert_num_queries
):
    bob = client_for(table.bob)
    url = reverse("diary:session_list")
    say(table, table.gm, "Raz.")
    bob.get(url)  # warm up
    with CaptureQueriesContext(connection) as one:
        bob.get(url)
    for number in range(3):
        # Each session a character of Bartek's own: one plays in one running session.
        other = make_session(table.gm, [make_character(table.bob, f"Druga postać {number}")])
        post_create(session=other, author=table.gm, character=None, narration="x", nc_note="")
    with django_assert_num_queries(len(one.captured_queries)):
        page = bob.get(url).content.decode()
    assert page.count('data-testid="session-unread-') == 4


def test_a_long_unread_backlog_counts_up_to_the_cap(table, client_for):
    """A reader far behind sees "100+", not a count of every post (which a list view would
    pay for each session row); below the cap the count is exact."""
    from django.utils import translation

    bob = client_for(table.bob)
    bob.get(diary_url(table))
    posts = [say(table, table.gm, f"Wpis {n}") for n in range(reading.UNREAD_COUNT_CAP - 1)]
    listed = GameSession.objects.filter(pk=table.session.pk)
    assert reading.sessions_with_unread(listed, table.bob).get().unread_count == len(posts)
    say(table, table.gm, "Setny.")
    say(table, table.gm, "Sto pierwszy.")
    assert reading.sessions_with_unread(listed, table.bob).get().unread_count == 100
    with translation.override("pl"):
        page = bob.get(reverse("diary:session_list"), HTTP_ACCEPT_LANGUAGE="pl")
    link = page.content.decode().split(f'data-testid="session-unread-{table.session.pk}">')[1]
    assert link.startswith(polish("100+ new posts"))


# --- Pages by turn ----------------------------------------------------------------------


def test_turn_n_opens_the_page_at_its_first_post(table, client_for):
    turn_one = [say(table, table.gm, f"Tura 1, wpis {n}") for n in range(DIARY_PAGE_SIZE)]
    turn_open_next(session=table.session, by=table.gm)
    [say(table, table.gm, f"Tura 2, wpis {n}") for n in range(DIARY_PAGE_SIZE)]
    bob = client_for(table.bob)
    newest = bob.get(diary_url(table))
    assert turn_one[0].pk not in [p.pk for p in newest.context["page"].posts]
    response = bob.get(diary_url(table), {"turn": "1"})
    assert response.status_code == 200
    assert response.context["page"].posts[0].pk == turn_one[0].pk
    body = response.content.decode()
    # Each turn's heading links to its own page.
    assert f'href="{diary_url(table)}?turn=1#turn-1"' in body


@pytest.mark.parametrize(
    ("value", "msgid", "params"),
    [
        ("abc", "Enter a turn number (a whole number).", {}),
        ("1; DROP TABLE diary_post", "Enter a turn number (a whole number).", {}),
        ("<b>1</b>", "Enter a turn number (a whole number).", {}),
        ("0", "Turns are numbered from 1.", {}),
        ("-3", "Turns are numbered from 1.", {}),
        ("", "Enter a turn number.", {}),
        ("99", "This session has no turn %(number)s (the last one is %(last)s).", {"number": 99}),
        (
            "99999999999999999999999",
            "This session has no turn %(number)s (the last one is %(last)s).",
            None,
        ),
        ("2", "Turn %(number)s has no posts yet.", {"number": 2}),
    ],
)
def test_a_bad_turn_is_said_in_polish_next_to_the_field(table, client_for, value, msgid, params):
    say(table, table.gm, "Tura 1.")
    turn_open_next(session=table.session, by=table.gm)  # turn 2, no posts yet
    response = client_for(table.bob).get(diary_url(table), {"turn": value})
    assert response.status_code == 200
    body = html.unescape(response.content.decode())
    if params is None:
        assert polish(msgid).split("%")[0] in body
    else:
        if "last" in msgid:
            params = {**params, "last": 2}
        assert polish(msgid, **params) in body
    assert 'id="jump_turn_error"' in body
    assert "<b>1</b>" not in response.content.decode()  # what was typed comes back escaped
    # The page is the newest one, as without a cursor.
    assert response.context["live"] is True


def test_a_turn_in_a_session_without_turns_is_said(make_user, make_session, client_for):
    gm = make_user("mg-szkic")
    draft = make_session(gm, [], status="draft")
    response = client_for(gm).get(reverse("diary:session", args=[draft.pk]), {"turn": "1"})
    assert response.status_code == 200
    assert polish("This session has no turns yet.") in html.unescape(response.content.decode())
