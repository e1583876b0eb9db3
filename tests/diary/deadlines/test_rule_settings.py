"""The GM's rule for the deadline, set in the session's settings: the choices, the refusal
of "the site opens the next turn" under "wait for everyone", and where players read it."""

import html

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from diary.models import DeadlineRule, GameSession
from diary.services import session_update
from tests.conftest import polish
from tests.diary.deadlines.helpers import diary, set_rule, texts

pytestmark = pytest.mark.django_db


def _settings(table, **changes) -> dict:
    session = table.session
    data = {
        "title": session.title,
        "description": session.description,
        "npc_mode": session.npc_mode,
        "roll_policy": session.roll_policy,
        "player_slots": session.player_slots,
        "posting_habits": session.posting_habits,
        "deadline_rule": session.deadline_rule,
        "recruiting": "on",
        "criticals_enabled": "on",
    }
    data.update(changes)
    return {key: value for key, value in data.items() if value is not None}


def test_the_gm_sets_the_rule_and_the_site_opening_turns_while_the_session_runs(table, client_for):
    url = reverse("diary:session_edit", args=[table.session.pk])
    client = client_for(table.gm)
    page = html.unescape(client.get(url).content.decode())
    for label in ("Wait for everyone", "The turn passes on", "The GM plays the character"):
        assert polish(label) in page
    response = client.post(
        url, _settings(table, deadline_rule=DeadlineRule.PASS, auto_next_turn="on")
    )
    assert response.status_code == 302
    session = GameSession.objects.get(pk=table.session.pk)
    assert (session.deadline_rule, session.auto_next_turn) == (DeadlineRule.PASS, True)


def test_the_form_refuses_the_site_opening_turns_under_wait_next_to_the_field(table, client_for):
    url = reverse("diary:session_edit", args=[table.session.pk])
    response = client_for(table.gm).post(
        url, _settings(table, deadline_rule=DeadlineRule.WAIT, auto_next_turn="on")
    )
    body = html.unescape(response.content.decode())
    assert response.status_code == 200  # the form again, nothing stored
    message = polish(
        "The site opens the next turn only when the turn does not wait for everyone: choose "
        "what happens after the deadline, or leave this off."
    )
    # Next to its field.
    assert f'<p class="error" id="id_auto_next_turn_error">{message}</p>' in body
    assert GameSession.objects.get(pk=table.session.pk).auto_next_turn is False


def test_the_service_refuses_it_too(table):
    with pytest.raises(ValidationError) as refused:
        session_update(
            session=table.session, by=table.gm, deadline_rule="wait", auto_next_turn=True
        )
    assert "auto_next_turn" in refused.value.error_dict
    set_rule(table, DeadlineRule.PASS, auto=True)
    # Back to waiting with the site still opening turns: refused as well.
    with pytest.raises(ValidationError):
        session_update(session=table.session, by=table.gm, deadline_rule="wait")


def test_players_read_the_rule_on_the_session_card_and_beside_the_deadline(table, client_for):
    from datetime import timedelta

    from django.utils import timezone

    from diary.services import turn_set_deadline

    client = client_for(table.alice)
    assert texts(diary(client, table), "deadline-rule-card") == [polish("Wait for everyone")]
    # Waiting, as before: the turn block says nothing more.
    assert texts(diary(client, table), "deadline-rule") == []
    turn_set_deadline(
        session=table.session, by=table.gm, deadline=timezone.now() + timedelta(days=2)
    )
    set_rule(table, DeadlineRule.PASS, auto=True)
    body = diary(client, table)
    assert texts(body, "deadline-rule") == [
        polish("After the deadline: the turn passes on; the site opens the next turn by itself")
    ]
    assert texts(body, "deadline-rule-card") == [
        f"{polish('The turn passes on')}; {polish('the site opens the next turn by itself')}"
    ]
    set_rule(table, DeadlineRule.GM_PLAYS)
    assert texts(diary(client, table), "deadline-rule") == [
        polish("After the deadline: the GM plays the characters who have not posted")
    ]
    # The session's public page (the card an applicant reads) says it too.
    card = html.unescape(
        client_for(table.outsider)
        .get(reverse("diary:session_join", args=[table.session.pk]))
        .content.decode()
    )
    assert texts(card, "deadline-rule-card") == [polish("The GM plays the character")]


def test_changing_the_rule_refreshes_open_diaries(table):
    before = GameSession.objects.get(pk=table.session.pk).activity_marker
    set_rule(table, DeadlineRule.PASS)
    assert GameSession.objects.get(pk=table.session.pk).activity_marker != before


@pytest.mark.parametrize(
    ("rule", "words"),
    [
        (DeadlineRule.PASS, "After the deadline: the turn passes on"),
        (
            DeadlineRule.GM_PLAYS,
            "After the deadline: the GM plays the characters who have not posted",
        ),
    ],
)
def test_the_deadline_notice_says_what_happens_at_the_deadline(table, rule, words):
    """The player told the deadline is near learns the GM's rule too, as the diary says it."""
    from datetime import timedelta

    from django.utils import timezone, translation

    from diary.models import Notification, NotificationKind
    from diary.notifications.delivery import notification_text
    from diary.notifications.notices import notify_deadlines
    from diary.services import turn_set_deadline

    set_rule(table, rule)
    turn_set_deadline(
        session=table.session, by=table.gm, deadline=timezone.now() + timedelta(hours=5)
    )
    assert notify_deadlines() == 2
    notice = Notification.objects.filter(kind=NotificationKind.DEADLINE_NEAR).first()
    with translation.override("pl"):
        assert polish(words) in notification_text(notice)


def test_under_wait_the_deadline_notice_names_no_rule(table):
    from datetime import timedelta

    from django.utils import timezone, translation

    from diary.models import Notification, NotificationKind
    from diary.notifications.delivery import notification_text
    from diary.notifications.notices import notify_deadlines
    from diary.services import turn_set_deadline

    turn_set_deadline(
        session=table.session, by=table.gm, deadline=timezone.now() + timedelta(hours=5)
    )
    notify_deadlines()
    notice = Notification.objects.filter(kind=NotificationKind.DEADLINE_NEAR).first()
    with translation.override("pl"):
        assert "Po terminie" not in notification_text(notice)
