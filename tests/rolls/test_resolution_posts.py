"""Where the GM's rolls and entries land (a resolution post at the bottom of the diary), and
that a roll or an entry added to an older post reads as new: the unread count, the first
unread post, and a notification for the owners of the characters it concerns."""

import html

import pytest
from django.urls import reverse

from diary.models import DIARY_PAGE_SIZE, GameSession, Notification, NotificationKind
from diary.reading import sessions_with_unread
from diary.services import post_create, post_hide
from rolls.models import Roll
from tests.rolls.entries.test_entries import entries_url, granted, hp, token, use_url
from tests.rolls.test_panel import panel_url, single

pytestmark = pytest.mark.django_db


def say(table, author, text):
    return post_create(
        session=table.session, author=author, character=None, narration=text, nc_note=""
    )


def diary(client, table) -> str:
    return html.unescape(
        client.get(reverse("diary:session", args=[table.session.pk])).content.decode()
    )


def unread(user, table) -> tuple[int, int | None]:
    session = sessions_with_unread(GameSession.objects.filter(pk=table.session.pk), user).get()
    return session.unread_count, session.first_unread_id


# --- Where the GM's rolls land ---------------------------------------------------------


def test_the_gms_roll_lands_in_a_new_post_after_the_players_posts(table, client_for):
    opening = say(table, table.gm, "Tura się zaczyna.")
    say(table, table.bob, "Borys otwiera zamek.")
    last = say(table, table.alice, "Lirael patrzy.")
    gm = client_for(table.gm)
    assert gm.post(panel_url(table), single(table.borys)).status_code == 302
    roll = Roll.objects.get()
    assert roll.post.pk > last.pk and roll.post.author == table.gm
    assert roll.post.pk != opening.pk
    # The next roll resolves on in the same post: it is already the newest.
    assert gm.post(panel_url(table), single(table.lirael)).status_code == 302
    assert Roll.objects.latest("seq").post == roll.post


def test_the_gm_may_still_roll_into_an_own_post_by_choice(table, client_for):
    opening = say(table, table.gm, "Tura się zaczyna.")
    say(table, table.bob, "Borys otwiera zamek.")
    data = single(table.borys, post=str(opening.pk))
    assert client_for(table.gm).post(panel_url(table), data).status_code == 302
    assert Roll.objects.get().post == opening


def test_the_gms_entry_lands_in_a_new_post_after_the_players_posts(table, client_for):
    say(table, table.gm, "Tura się zaczyna.")
    last = say(table, table.bob, "Borys otwiera zamek.")
    assert (
        client_for(table.gm).post(entries_url(table), hp(table, table.borys, 5)).status_code == 302
    )
    entry = Roll.objects.get()
    assert entry.post.pk > last.pk and entry.post.author == table.gm


def test_the_gm_may_put_an_entry_into_an_own_older_post_by_choice(table, client_for):
    """As with the GM's roll: the bottom by default, an own post of this turn by choice;
    another's post is refused next to the field and nothing is stored."""
    opening = say(table, table.gm, "Tura się zaczyna.")
    theirs = say(table, table.bob, "Borys otwiera zamek.")
    gm = client_for(table.gm)
    page = diary(gm, table)
    hp_form = page[page.index('data-testid="entry-hp"') :]
    assert f"do mojego wpisu #{opening.pk}" in hp_form[: hp_form.index("</form>")]
    data = hp(table, table.borys, 5) | {"hp-post": str(opening.pk)}
    assert gm.post(entries_url(table), data).status_code == 302
    assert Roll.objects.get().post == opening
    refused = gm.post(entries_url(table), hp(table, table.borys, 5) | {"hp-post": str(theirs.pk)})
    assert refused.status_code == 400
    assert Roll.objects.count() == 1


def test_the_panel_offers_a_new_post_by_default_and_own_posts_by_choice(table, client_for):
    opening = say(table, table.gm, "Tura się zaczyna.")
    page = html.unescape(client_for(table.gm).get(panel_url(table), follow=True).content.decode())
    assert "nowy wpis na końcu dziennika" in page
    assert f"do mojego wpisu #{opening.pk}" in page


# --- A change to an older post reads as new --------------------------------------------


def test_a_potion_in_a_mid_turn_post_is_new_to_the_gm(table, client_for):
    say(table, table.gm, "Tura się zaczyna.")
    potion = granted(table, client_for, table.borys)
    bobs = say(table, table.bob, "Borys sięga do torby.")
    say(table, table.alice, "Lirael czeka.")
    gm = client_for(table.gm)
    diary(gm, table)
    assert unread(table.gm, table) == (0, None)
    response = client_for(table.bob).post(
        use_url(table), {"token": token(table.bob, table.session), "potion": str(potion.pk)}
    )
    assert response.status_code == 302
    assert Roll.objects.latest("seq").post == bobs
    assert unread(table.gm, table) == (1, bobs.pk)
    page = diary(gm, table)
    assert f'id="post-{bobs.pk}"' in page and 'data-testid="first-unread"' in page
    assert unread(table.gm, table) == (0, None)


def test_a_gm_roll_into_an_older_post_is_new_and_notifies_the_owner(table, client_for):
    opening = say(table, table.gm, "Tura się zaczyna.")
    say(table, table.bob, "Borys otwiera zamek.")
    say(table, table.alice, "Lirael patrzy.")
    bob = client_for(table.bob)
    diary(bob, table)
    assert unread(table.bob, table) == (0, None)
    data = single(table.borys, post=str(opening.pk))
    assert client_for(table.gm).post(panel_url(table), data).status_code == 302
    assert unread(table.bob, table) == (1, opening.pk)
    # Alice's character is not in the roll: the post is new to her, no notification.
    assert unread(table.alice, table)[1] == opening.pk
    notices = Notification.objects.filter(kind=NotificationKind.CHARACTER_CHANGED)
    assert [(n.recipient, n.post) for n in notices] == [(table.bob, opening)]
    page = diary(bob, table)
    assert 'data-testid="first-unread"' in page
    assert unread(table.bob, table) == (0, None)
    assert notices.get().read_at is not None


def test_damage_into_an_older_post_notifies_its_character_owner(table, client_for):
    opening = say(table, table.gm, "Tura się zaczyna.")
    diary(client_for(table.bob), table)
    # The GM's newest post is the newest one: the entry lands in it, an older post to Bob.
    assert client_for(table.gm).post(entries_url(table), hp(table, table.borys, 15)).status_code
    assert Roll.objects.get().post == opening
    assert unread(table.bob, table) == (1, opening.pk)
    notice = Notification.objects.get(kind=NotificationKind.CHARACTER_CHANGED)
    assert (notice.recipient, notice.post) == (table.bob, opening)
    listed = html.unescape(client_for(table.bob).get("/notifications/").content.decode())
    assert "mg dodaje rzut albo wpis o twojej postaci do wpisu w sesji" in listed


def test_a_roll_in_a_new_post_makes_no_change_notification(table, client_for):
    say(table, table.gm, "Tura się zaczyna.")
    say(table, table.bob, "Borys otwiera zamek.")
    assert client_for(table.gm).post(panel_url(table), single(table.borys)).status_code == 302
    assert not Notification.objects.filter(kind=NotificationKind.CHARACTER_CHANGED).exists()
    assert unread(table.bob, table)[0] >= 1


def test_the_redirect_after_a_roll_finds_the_resolution_post_under_a_page_of_hidden_posts(
    table, client_for
):
    """The resolution post is the newest post not hidden; a page of hidden posts after it
    pushes it off the newest page, so the link after the roll opens the page at it (the
    link skips counting the posts after it only when there are none)."""
    gm = client_for(table.gm)
    first = gm.post(panel_url(table), single(table.borys))
    assert first.status_code == 302
    resolution = Roll.objects.get().post
    assert "?" not in first["Location"]  # a new post: the newest page
    for n in range(DIARY_PAGE_SIZE):
        post_hide(post=say(table, table.bob, f"Spam {n}"), by=table.gm, reason="spam")
    made = gm.post(panel_url(table), single(table.lirael))
    assert made.status_code == 302
    roll = Roll.objects.latest("seq")
    assert roll.post == resolution
    assert made["Location"].endswith(f"?after={resolution.pk - 1}#roll-{roll.seq}")
