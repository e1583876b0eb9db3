"""Small things a new user meets."""

import uuid

import pytest
from django.urls import reverse

from diary.models import DIARY_PAGE_SIZE, Participation, Post, SessionStatus, Turn
from diary.services import post_create
from tests.conftest import polish

pytestmark = pytest.mark.django_db


def diary_url(session) -> str:
    return reverse("diary:session", args=[session.pk])


# --- 19: the same form sent twice publishes once --------------------------------------


def test_back_and_publish_again_makes_one_post(table, client_for):
    client = client_for(table.alice)
    url = reverse("diary:post_create", args=[table.session.pk])
    data = {"character": table.lirael.pk, "narration": "Raz", "token": str(uuid.uuid4())}
    first = client.post(url, data)
    second = client.post(url, {**data, "narration": "Raz, poprawione"})
    post = Post.objects.get()
    assert post.narration == "Raz" and post.revisions.count() == 1
    assert first.status_code == second.status_code == 302
    assert second["Location"] == first["Location"] == post.get_absolute_url()


def test_the_post_form_carries_a_fresh_token(table, client_for):
    client = client_for(table.alice)
    first = client.get(diary_url(table.session)).context["post_form"]["token"].value()
    second = client.get(diary_url(table.session)).context["post_form"]["token"].value()
    assert first and second and first != second


def test_a_post_without_a_token_is_refused(table, client_for):
    response = client_for(table.alice).post(
        reverse("diary:post_create", args=[table.session.pk]), {"narration": "Bez"}
    )
    assert response.status_code == 400
    assert not Post.objects.exists()


def test_two_authors_may_not_share_a_post_by_token(table, client_for):
    token = str(uuid.uuid4())
    url = reverse("diary:post_create", args=[table.session.pk])
    client_for(table.alice).post(url, {"narration": "Alicja", "token": token})
    client_for(table.bob).post(url, {"narration": "Bartek", "token": token})
    assert sorted(Post.objects.values_list("narration", flat=True)) == ["Alicja", "Bartek"]


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_two_concurrent_sends_of_one_form_make_one_post(table):
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection
    from django.test import Client

    token = str(uuid.uuid4())
    url = reverse("diary:post_create", args=[table.session.pk])

    def send(_):
        client = Client()
        client.force_login(table.alice)
        try:
            return client.post(url, {"narration": "Naraz", "token": token}).status_code
        finally:
            connection.close()

    with ThreadPoolExecutor(4) as pool:
        codes = list(pool.map(send, range(4)))
    assert codes == [302] * 4
    assert Post.objects.count() == 1


# --- 20: irreversible steps ask first --------------------------------------------------


def test_finishing_without_confirmation_asks_and_changes_nothing(table, client_for):
    url = reverse("diary:session_status", args=[table.session.pk])
    response = client_for(table.gm).post(url, {"status": "finished"})
    assert response.status_code == 200
    body = response.content.decode()
    assert polish("Finish the session?") in body
    assert 'name="confirm" value="yes"' in body
    table.session.refresh_from_db()
    assert table.session.status == SessionStatus.RUNNING
    client_for(table.gm).post(url, {"status": "finished", "confirm": "yes"})
    table.session.refresh_from_db()
    assert table.session.status == SessionStatus.FINISHED


def test_opening_a_turn_without_confirmation_asks_and_changes_nothing(table, client_for):
    url = reverse("diary:turn_open", args=[table.session.pk])
    response = client_for(table.gm).post(url)
    assert response.status_code == 200
    assert polish("Open turn %(number)s?", number=2) in response.content.decode()
    assert Turn.objects.filter(session=table.session).count() == 1
    client_for(table.gm).post(url, {"confirm": "yes"})
    assert Turn.objects.filter(session=table.session).count() == 2


@pytest.mark.parametrize("who", ["gm", "bob"])
def test_removing_or_leaving_without_confirmation_asks_and_changes_nothing(table, client_for, who):
    participation = Participation.objects.get(session=table.session, character=table.borys)
    url = reverse("diary:participation_withdraw", args=[participation.pk])
    response = client_for(getattr(table, who)).post(url)
    assert response.status_code == 200
    assert 'name="confirm" value="yes"' in response.content.decode()
    participation.refresh_from_db()
    assert participation.status == "accepted"
    # The GM's removal of a playing character needs the reason its player reads.
    client_for(getattr(table, who)).post(url, {"confirm": "yes", "reason": "Koniec wątku."})
    participation.refresh_from_db()
    assert participation.status == "withdrawn"


def test_others_cannot_withdraw_even_to_be_asked(table, client_for):
    participation = Participation.objects.get(session=table.session, character=table.borys)
    url = reverse("diary:participation_withdraw", args=[participation.pk])
    assert client_for(table.alice).post(url, {"confirm": "yes"}).status_code == 403


def test_the_diary_offers_irreversible_steps_behind_an_explanation(table, client_for):
    body = client_for(table.gm).get(diary_url(table.session)).content.decode()
    assert body.count('<details class="confirm"') == 2  # open turn 2, finish the session
    assert polish("Yes, finish the session") in body
    assert polish("Yes, open turn %(number)s", number=2) in body


# --- 21: after posting, the live newest page at the new post -------------------------


def test_after_posting_the_user_lands_on_the_live_page_at_the_post(table, client_for):
    client = client_for(table.alice)
    response = client.post(
        reverse("diary:post_create", args=[table.session.pk]),
        {"narration": "Pierwszy", "token": str(uuid.uuid4())},
    )
    post = Post.objects.get()
    assert response["Location"] == f"{diary_url(table.session)}#post-{post.pk}"
    page = client.get(response["Location"])
    assert page.context["live"] is True
    assert "hx-trigger" in page.content.decode()


def test_a_permalink_to_the_first_post_offers_nothing_earlier(table, client_for):
    post = post_create(
        session=table.session, author=table.alice, character=None, narration="1", nc_note=""
    )
    response = client_for(table.alice).get(diary_url(table.session), {"after": post.pk - 1})
    assert response.context["page"].older_cursor is None
    assert polish("Earlier posts") not in response.content.decode()
    # It reaches the newest post, so it is live.
    assert response.context["live"] is True


def test_a_permalink_deep_in_the_past_links_both_ways_and_stays_put(table, client_for):
    posts = [
        post_create(
            session=table.session, author=table.bob, character=None, narration=f"{n}", nc_note=""
        )
        for n in range(DIARY_PAGE_SIZE + 5)
    ]
    response = client_for(table.alice).get(diary_url(table.session), {"after": posts[1].pk})
    page = response.context["page"]
    assert page.older_cursor and page.newer_cursor
    assert response.context["live"] is False
    # An old post's URL is its page; a recent one's is the live page.
    assert "?after=" in posts[0].get_absolute_url()
    assert posts[-1].get_absolute_url() == f"{diary_url(table.session)}#post-{posts[-1].pk}"


# --- 22: sensible defaults and Polish choices ------------------------------------------


def test_a_player_with_one_character_posts_as_it_by_default(table, client_for):
    form = client_for(table.alice).get(diary_url(table.session)).context["post_form"]
    assert form["character"].value() == table.lirael.pk


def test_writing_into_the_post_a_roll_made_starts_as_the_players_character(table, client_for):
    """The roll panel makes an empty post to hold a player's roll; filling it in started
    as "— no one —" although the player has one character."""
    from diary.services import current_turn, post_create_for_rolls

    table.session.roll_policy = "players_own"
    table.session.save()
    post = post_create_for_rolls(
        session=table.session, author=table.alice, turn=current_turn(table.session)
    )
    response = client_for(table.alice).get(reverse("diary:post_edit", args=[post.pk]))
    assert response.context["form"]["character"].value() == table.lirael.pk


def test_the_join_form_has_a_polish_empty_choice(
    make_user, make_character, make_session, client_for
):
    player = make_user()
    make_character(player)
    make_character(player)
    session = make_session(make_user(), status=SessionStatus.RUNNING)
    body = client_for(player).get(reverse("diary:session_join", args=[session.pk]))
    assert polish("— choose a character —") in body.content.decode()
    assert "Select" not in body.content.decode() and "---------" not in body.content.decode()


def test_ask_to_join_is_offered_only_with_a_free_character(
    table, make_user, make_character, client_for
):
    list_url = reverse("diary:session_list")
    join = reverse("diary:session_join", args=[table.session.pk])
    # alice's only character already plays there; the outsider has none.
    for who in (table.alice, table.outsider):
        assert join not in client_for(who).get(list_url).content.decode()
    make_character(table.outsider, "Nowa")
    assert join in client_for(table.outsider).get(list_url).content.decode()


def test_the_join_page_without_a_character_says_so_and_links_to_creating_one(table, client_for):
    body = (
        client_for(table.outsider)
        .get(reverse("diary:session_join", args=[table.session.pk]))
        .content.decode()
    )
    assert polish("You have no character of this session's rule system yet.") in body
    assert reverse("characters:create") in body
    body = (
        client_for(table.alice)
        .get(reverse("diary:session_join", args=[table.session.pk]))
        .content.decode()
    )
    assert polish("Your characters of this session's rule system are already on its list.") in body
