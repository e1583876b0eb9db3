"""The diary page and the live poll: few queries, the same at 1 k and 100 k posts,
for a player, the GM and a moderator; and the caches that make them few never show stale or
another viewer's content (diary/live/page_cache.py, diary/posts/rendering.py,
diary/live/poll.py)."""

import html

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from diary.live import page_cache
from diary.live import poll as live
from diary.models import GameSession, Post
from diary.reading import read_mark_advance
from diary.services import participation_withdraw, post_create, post_edit, post_hide
from tests import scale

pytestmark = pytest.mark.django_db

# The newest page once the session has not moved since the last view (anyone's): the login
# session, the user, the session (with the moderator check), the participations (the
# user's and the roster), the current turn, the page's posts, and the post form's
# characters (a player) or the GM's entry forms' characters and effects (the GM).
PAGE_MAX = 8
# The first view after a change also reads the ledger, the turn's posters and the NPCs,
# who is away today (diary/absences) and, for the GM, when each player was last nudged.
PAGE_AFTER_CHANGE_MAX = 16
# "Anything new?" with nothing new: the session's marker, nothing else.
POLL_MAX = 1


def _costs(table, client, url, live_url) -> dict:
    """Query counts of the newest page (after a change, then cached) and of the poll."""
    page_cache.clear()  # the view right after a change, as any change leaves it
    # Each count is taken at once: the next request empties the connection's query log.
    with CaptureQueriesContext(connection) as queries:
        first = client.get(url)
    after_change = len(queries.captured_queries)
    with CaptureQueriesContext(connection) as queries:
        again = client.get(url)
    cached = len(queries.captured_queries)
    assert first.status_code == again.status_code == 200
    assert first.content.decode().count('class="post') == again.content.decode().count(
        'class="post'
    )
    marker = GameSession.objects.get(pk=table.session.pk).activity_marker
    assert client.get(live_url, {"seen": "0"}).status_code == 200  # the full check
    with CaptureQueriesContext(connection) as queries:
        assert client.get(live_url, {"seen": marker}).status_code == 204
    poll = len(queries.captured_queries)
    return {"after_change": after_change, "cached": cached, "poll": poll, "page": again}


def _check_all_roles(table, client_for, shown: dict) -> dict:
    url = reverse("diary:session", args=[table.session.pk])
    live_url = reverse("diary:session_live", args=[table.session.pk])
    counts = {}
    newest = Post.objects.filter(session=table.session).latest("pk").pk
    for role in ("alice", "gm", "moderator"):
        # A reader caught up (the mark is read with the session, and moves).
        read_mark_advance(user=getattr(table, role), session_id=table.session.pk, post_id=newest)
        client = client_for(getattr(table, role))
        client.get(url)  # warm up (content types, translations)
        costs = _costs(table, client, url, live_url)
        page = costs.pop("page")
        assert costs["cached"] <= PAGE_MAX, (role, costs)
        assert costs["after_change"] <= PAGE_AFTER_CHANGE_MAX, (role, costs)
        assert costs["poll"] <= POLL_MAX, (role, costs)
        # The page under test is a real newest page: its rolls, the request, the hidden post.
        body = html.unescape(page.content.decode())
        assert f'id="roll-{shown["answer"].seq}"' in body
        assert f'id="roll-{shown["plain"].seq}"' in body
        assert f'id="ask-{shown["ask"].pk}"' in body
        assert f'id="post-{shown["hidden"].pk}"' in body
        assert ("Tajemnica Lirael." in body) == (role == "moderator")
        assert "Noc zapada." in body
        counts[role] = costs
    return counts


def test_page_and_poll_are_few_queries_and_flat_at_1k_and_5k(table, client_for):
    small = _check_all_roles(table, client_for, scale.build(table, 1_000))
    large = _check_all_roles(table, client_for, scale.build(table, 4_000))
    assert small == large


@pytest.mark.postgres_only
def test_page_and_poll_are_few_queries_and_flat_at_1k_and_100k(table, client_for):
    small = _check_all_roles(table, client_for, scale.build(table, 1_000))
    large = _check_all_roles(table, client_for, scale.build(table, 99_000))
    assert small == large


# --- The caches never show stale or foreign content -----------------------------------


def _diary(client, table) -> str:
    return html.unescape(client.get(reverse("diary:session", args=[table.session.pk])).text)


def _say(table, author, character, text):
    return post_create(
        session=table.session, author=author, character=character, narration=text, nc_note=""
    )


def test_an_edited_post_shows_its_new_text_at_once(table, client_for):
    post = _say(table, table.alice, table.lirael, "Pierwsza wersja.")
    bob = client_for(table.bob)
    assert "Pierwsza wersja." in _diary(bob, table)
    post_edit(post=post, by=table.alice, character=table.lirael, narration="Druga.", nc_note="")
    page = _diary(bob, table)
    assert "Druga." in page and "Pierwsza wersja." not in page


def test_a_hidden_post_leaves_the_players_page_but_not_the_moderators(table, client_for):
    post = _say(table, table.alice, table.lirael, "Coś do ukrycia.")
    bob, moderator = client_for(table.bob), client_for(table.moderator)
    gm = client_for(table.gm)
    # Everyone has the post's body cached before the hide.
    for client in (bob, gm, moderator):
        assert "Coś do ukrycia." in _diary(client, table)
    post_hide(post=post, by=table.gm, reason="spoiler")
    assert "Coś do ukrycia." not in _diary(bob, table)
    assert "Coś do ukrycia." not in _diary(gm, table)
    assert "Coś do ukrycia." in _diary(moderator, table)
    # And the other way round: the moderator's body, now cached, is not the player's.
    assert "Coś do ukrycia." not in _diary(bob, table)


def test_viewers_of_other_roles_never_get_each_others_links(table, client_for):
    """The cached parts are the same for everyone; each viewer's links and forms are not."""
    post = _say(table, table.alice, table.lirael, "Wspólny tekst.")
    edit = reverse("diary:post_edit", args=[post.pk])
    hide = reverse("diary:post_hide", args=[post.pk])
    alice, bob, gm = client_for(table.alice), client_for(table.bob), client_for(table.gm)
    assert edit in _diary(alice, table) and hide in _diary(alice, table)
    bobs = _diary(bob, table)
    assert "Wspólny tekst." in bobs and edit not in bobs and hide not in bobs
    gms = _diary(gm, table)
    assert edit not in gms and hide in gms
    assert edit in _diary(alice, table)


def test_a_renamed_character_is_shown_renamed(table, client_for):
    _say(table, table.alice, table.lirael, "Tekst.")
    bob = client_for(table.bob)
    assert '<span class="narrator">Lirael</span>' in _diary(bob, table)
    # A sheet's rename moves no session marker: the post's body key holds the name itself.
    type(table.lirael).objects.filter(pk=table.lirael.pk).update(name="Lirael Zmieniona")
    assert '<span class="narrator">Lirael Zmieniona</span>' in _diary(bob, table)


def test_a_roll_shows_in_the_other_language_in_that_language(table, client_for, settings):
    shown = scale.play_newest_page(table)
    bob = client_for(table.bob)
    polish = _diary(bob, table)
    bob.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    english = _diary(bob, table)
    assert f'id="roll-{shown["plain"].seq}"' in english
    assert "rolled by" in english and "rolled by" not in polish


# --- The poll: a grant, bounded in time, and only ever for "nothing new" ------------------


def _poll(client, table, seen, **headers):
    live_url = reverse("diary:session_live", args=[table.session.pk])
    return client.get(live_url, {"seen": seen}, headers=headers)


def _marker(table) -> str:
    return GameSession.objects.get(pk=table.session.pk).activity_marker


def test_the_poll_answers_304_to_its_etag(table, client_for):
    bob = client_for(table.bob)
    fresh = _poll(bob, table, "0")
    assert fresh.status_code == 200 and fresh["ETag"]
    with CaptureQueriesContext(connection) as queries:
        assert _poll(bob, table, "", **{"If-None-Match": fresh["ETag"]}).status_code == 304
    assert len(queries.captured_queries) == POLL_MAX
    # Another viewer's ETag is not this one's: the full page.
    assert (
        _poll(client_for(table.alice), table, "0", **{"If-None-Match": fresh["ETag"]}).status_code
        == 200
    )


def test_a_change_is_always_shown_through_the_full_check(table, client_for):
    bob = client_for(table.bob)
    _poll(bob, table, "0")
    seen = _marker(table)
    _say(table, table.alice, None, "Nowość")
    response = _poll(bob, table, seen)
    assert response.status_code == 200 and "Nowość" in response.text


def test_a_removed_player_loses_the_poll_within_the_grant(table, client_for, monkeypatch):
    bob = client_for(table.bob)
    _poll(bob, table, "0")  # granted
    participation = table.borys.participations.get(session=table.session)
    participation_withdraw(participation=participation, by=table.gm, reason="Bez odpowiedzi.")
    seen = _marker(table)
    # Within the grant, "nothing new" is all the removed player still hears...
    assert _poll(bob, table, seen).status_code == 204
    # ...and any change goes through the full check: refused, never shown.
    _say(table, table.alice, None, "Tajne po odejściu")
    refused = _poll(bob, table, seen)
    assert refused.status_code == 403 and "Tajne po odejściu" not in refused.text
    # Past the grant, even "nothing new" takes the full check.
    later = live._now() + live.ACCESS_TTL
    monkeypatch.setattr(live, "_now", lambda: later)
    assert _poll(bob, table, _marker(table)).status_code == 403


def test_a_logged_out_cookie_loses_the_poll_within_the_grant(
    table, client_for, monkeypatch, settings
):
    bob = client_for(table.bob)
    _poll(bob, table, "0")
    cookie = bob.cookies[settings.SESSION_COOKIE_NAME].value
    grant = bob.cookies[live.GRANT_COOKIE].value
    bob.logout()
    # The old cookies, kept by someone.
    bob.cookies[settings.SESSION_COOKIE_NAME] = cookie
    bob.cookies[live.GRANT_COOKIE] = grant
    assert _poll(bob, table, _marker(table)).status_code == 204
    later = live._now() + live.ACCESS_TTL
    monkeypatch.setattr(live, "_now", lambda: later)
    assert _poll(bob, table, _marker(table)).status_code == 302  # to the log-in page


def test_the_grant_holds_in_another_worker(table, client_for):
    """The grant is a signed cookie, not this process's memory: a worker that never saw the
    browser (an empty cache) answers "nothing new" with the one marker read, or none."""
    bob = client_for(table.bob)
    _poll(bob, table, "0")
    page_cache.clear()  # what another worker holds of this browser: nothing
    seen = _marker(table)
    with CaptureQueriesContext(connection) as queries:
        assert _poll(bob, table, seen).status_code == 204
    assert len(queries.captured_queries) <= POLL_MAX


def test_a_grant_is_this_login_cookies_and_this_sessions_only(
    table, client_for, make_session, settings
):
    bob = client_for(table.bob)
    _poll(bob, table, "0")
    grant = bob.cookies[live.GRANT_COOKIE].value
    seen = _marker(table)
    # Tampered with: the full check (bob may read, so the page, never a bare 204).
    bob.cookies[live.GRANT_COOKIE] = grant[:-2] + ("AA" if not grant.endswith("AA") else "BB")
    with CaptureQueriesContext(connection) as queries:
        assert _poll(bob, table, seen).status_code == 204
    assert len(queries.captured_queries) > POLL_MAX  # it took the full path
    # Carried to another browser (another login cookie), even the same user's: the full path.
    other = client_for(table.bob)
    other.cookies[live.GRANT_COOKIE] = grant
    with CaptureQueriesContext(connection) as queries:
        assert _poll(other, table, seen).status_code == 204
    assert len(queries.captured_queries) > POLL_MAX
    # Shown for another session: the full check, which refuses an outsider to it.
    elsewhere = make_session(table.gm, [])
    bob.cookies[live.GRANT_COOKIE] = grant
    url = reverse("diary:session_live", args=[elsewhere.pk])
    assert bob.get(url, {"seen": elsewhere.activity_marker}).status_code == 403


def test_no_grant_without_a_full_check(table, client_for):
    """A cookie the poll has not checked (a fresh log-in, an outsider) takes the full path."""
    outsider = client_for(table.outsider)
    assert _poll(outsider, table, _marker(table)).status_code == 403
    assert _poll(outsider, table, _marker(table)).status_code == 403
