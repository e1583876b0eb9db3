"""The GM's nudges: one awaited player or everyone awaited, once a day per player, never an
absent one; the notification's words and e-mail; the deadline notice naming what is awaited."""

import html
import re
from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse
from django.utils import timezone

from diary.absences import services as absence_services
from diary.absences.selectors import today
from diary.models import Notification, NotificationKind, NotificationPreference, Nudge
from diary.notifications.delivery import notification_text
from diary.notifications.notices import notify_deadlines
from diary.nudges import services
from diary.services import post_create, turn_set_deadline
from tests.conftest import polish

pytestmark = pytest.mark.django_db
K = NotificationKind


def nudges_of(user) -> list[Notification]:
    return list(Notification.objects.filter(recipient=user, kind=K.NUDGE))


def diary(client, table) -> str:
    return html.unescape(client.get(reverse("diary:session", args=[table.session.pk])).text)


def test_the_gm_nudges_one_awaited_player_once_a_day(table):
    table.bob.email = "bartek@example.com"
    table.bob.save()
    NotificationPreference.objects.create(user=table.bob, kind=K.NUDGE, email=True)
    (nudge,) = services.nudge_send(session=table.session, by=table.gm, character_id=table.borys.pk)
    assert (nudge.recipient, nudge.by, nudge.turn.number) == (table.bob, table.gm, 1)
    (told,) = nudges_of(table.bob)
    assert told.email_pending  # e-mailed as he chose for this kind
    assert notification_text(told) == polish(
        "%(actor)s nudges you: turn %(number)s of “%(session)s” waits for %(characters)s.",
        actor="mg",
        number=1,
        session=table.session.title,
        characters="Borys",
    )
    assert nudges_of(table.alice) == []
    with pytest.raises(ValidationError) as again:
        services.nudge_send(session=table.session, by=table.gm, character_id=table.borys.pk)
    assert polish(
        "%(name)s's player was nudged less than a day ago; the next nudge is possible on %(when)s.",
        name="Borys",
        when="X",
    ).split("X")[0] in " ".join(again.value.messages)
    # A day later he may be nudged again.
    Nudge.objects.update(created_at=timezone.now() - timedelta(hours=24, minutes=1))
    services.nudge_send(session=table.session, by=table.gm, character_id=table.borys.pk)
    assert len(nudges_of(table.bob)) == 2


def test_everyone_awaited_is_nudged_but_not_the_absent_nor_who_has_posted(
    table, make_character, make_user
):
    from diary.services import participation_decide, participation_invite

    cyra = make_character(make_user("cecylia"), "Cyra", gender="feminine")
    participation_decide(
        participation=participation_invite(session=table.session, by=table.gm, character=cyra),
        by=cyra.owner,
        accept=True,
    )
    absence_services.absence_create(
        user=table.alice,
        session=None,
        starts_on=today(),
        ends_on=today() + timedelta(days=6),
    )
    post_create(
        session=table.session, author=cyra.owner, character=cyra, narration="Już.", nc_note=""
    )
    with pytest.raises(ValidationError) as absent:
        services.nudge_send(session=table.session, by=table.gm, character_id=table.lirael.pk)
    assert (
        polish("%(name)s's player is away: an absent player is not nudged.", name="Lirael")
        in absent.value.messages
    )
    with pytest.raises(ValidationError):  # she has posted: nobody awaits her
        services.nudge_send(session=table.session, by=table.gm, character_id=cyra.pk)
    sent = services.nudge_send(session=table.session, by=table.gm)
    assert [n.recipient for n in sent] == [table.bob]
    with pytest.raises(ValidationError):  # everyone left was nudged today
        services.nudge_send(session=table.session, by=table.gm)
    assert nudges_of(table.alice) == [] and nudges_of(cyra.owner) == []


def test_only_the_gm_nudges(table):
    for who in (table.alice, table.moderator, table.outsider):
        with pytest.raises(PermissionDenied):
            services.nudge_send(session=table.session, by=who, character_id=table.borys.pk)
    assert not Nudge.objects.exists()


def test_the_buttons_in_the_diary_and_the_refusal(table, client_for):
    gm = client_for(table.gm)
    page = diary(gm, table)
    assert f'data-testid="nudge-{table.borys.pk}"' in page
    assert f'data-testid="nudge-{table.lirael.pk}"' in page
    assert polish("Nudge everyone") in page
    # Players and moderators see no nudge buttons.
    assert 'data-testid="nudges"' not in diary(client_for(table.alice), table)
    assert 'data-testid="nudges"' not in diary(client_for(table.moderator), table)
    url = reverse("diary:nudge", args=[table.session.pk])
    assert client_for(table.alice).post(url, {"character": table.borys.pk}).status_code == 403
    response = gm.post(url, {"character": table.borys.pk})
    assert response.status_code == 302 and response["Location"].endswith("#turn-status")
    assert len(nudges_of(table.bob)) == 1
    page = diary(gm, table)
    assert f'data-testid="nudged-{table.borys.pk}"' in page and polish("nudged today") in page
    assert f'data-testid="nudge-{table.borys.pk}"' not in page
    refused = html.unescape(gm.post(url, {"character": table.borys.pk}, follow=True).text)
    assert (
        polish(
            "%(name)s's player was nudged less than a day ago; the next nudge is possible on "
            "%(when)s.",
            name="Borys",
            when="X",
        ).split("X")[0]
        in refused
    )
    assert len(nudges_of(table.bob)) == 1
    # An absent player has no button.
    absence_services.absence_create(
        user=table.alice, session=table.session, starts_on=today(), ends_on=today()
    )
    assert f'data-testid="nudge-{table.lirael.pk}"' not in diary(gm, table)


def test_the_deadline_notice_names_the_turn_and_what_is_awaited(table):
    turn_set_deadline(
        session=table.session, by=table.gm, deadline=timezone.now() + timedelta(hours=5)
    )
    assert notify_deadlines() == 2
    (row,) = Notification.objects.filter(recipient=table.alice, kind=K.DEADLINE_NEAR)
    words = notification_text(row)
    assert re.search(r"\b1\b", words) and table.session.title in words
    expected = polish(
        "Turn %(number)s of “%(session)s” ends on %(deadline)s and waits for your move: "
        "%(characters)s. Still awaited: %(awaited)s.",
        number=1,
        session=table.session.title,
        deadline="X",
        characters="Lirael",
        awaited="Borys, Lirael",
    )
    assert words.endswith(expected.split("X")[1])


def test_with_htmx_the_form_alone_comes_back_with_what_came_of_the_click(table, client_for):
    url = reverse("diary:nudge", args=[table.session.pk])
    gm = client_for(table.gm)
    first = gm.post(url, {"character": table.lirael.pk}, headers={"HX-Request": "true"})
    assert first.status_code == 200
    fragment = html.unescape(first.text)
    assert fragment.lstrip().startswith("<form") and 'id="nudges"' in fragment
    assert polish("Nudged: the player has been told.") in fragment
    assert f'data-testid="nudged-{table.lirael.pk}"' in fragment
    assert f'data-testid="nudge-{table.borys.pk}"' in fragment
    again = gm.post(url, {"character": table.lirael.pk}, headers={"HX-Request": "true"})
    assert 'class="error"' in again.text and len(nudges_of(table.alice)) == 1
