"""Quoting a post tells its author, once, never oneself."""

import pytest

from diary import services
from diary.models import Notification, NotificationKind, NotificationPreference
from diary.posts.quoting import quote_markdown

pytestmark = pytest.mark.django_db

K = NotificationKind


def post(table, author, character=None, text="Idę dalej."):
    return services.post_create(
        session=table.session, author=author, character=character, narration=text, nc_note=""
    )


def quotes_for(user) -> list[Notification]:
    return list(Notification.objects.filter(recipient=user, kind=K.QUOTE))


def test_quoting_a_post_tells_its_author_once(table):
    gm_post = post(table, table.gm, text="Drzwi skrzypią.")
    reply = post(table, table.bob, table.borys, quote_markdown(gm_post) * 2 + "Wchodzę.")
    (row,) = quotes_for(table.gm)
    assert (row.post, row.actor) == (reply, table.bob)
    assert quotes_for(table.bob) == []


def test_quoting_oneself_tells_no_one(table):
    own = post(table, table.bob, table.borys)
    post(table, table.bob, table.borys, quote_markdown(own) + "Dalej.")
    assert quotes_for(table.bob) == []


def test_an_edit_that_adds_a_quote_tells_once_and_a_second_edit_not_again(table):
    gm_post = post(table, table.gm, text="Drzwi skrzypią.")
    reply = post(table, table.bob, table.borys, "Wchodzę.")
    assert quotes_for(table.gm) == []
    text = quote_markdown(gm_post) + "Wchodzę."
    services.post_edit(post=reply, by=table.bob, character=table.borys, narration=text, nc_note="")
    services.post_edit(
        post=reply, by=table.bob, character=table.borys, narration=text + "!", nc_note=""
    )
    assert len(quotes_for(table.gm)) == 1


def test_the_quote_e_mail_follows_the_preference(table):
    table.gm.email = "mg@example.com"
    table.gm.save()
    NotificationPreference.objects.create(user=table.gm, kind=K.QUOTE, email=True)
    gm_post = post(table, table.gm, text="Drzwi skrzypią.")
    post(table, table.alice, table.lirael, quote_markdown(gm_post))
    post(table, table.bob, table.borys, "Bez cytatu.")
    (row,) = quotes_for(table.gm)
    assert row.email_pending
