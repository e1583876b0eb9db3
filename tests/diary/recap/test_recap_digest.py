"""The daily digest e-mail carries "since you were last here" for each session where play
waits unread, as the diary's recap, in text with absolute links."""

import uuid

import pytest
from django.core.management import call_command
from django.urls import reverse

from diary import services
from diary.models import DigestChoice, NotificationKind, NotificationPreference
from diary.models import NotificationSettings as Delivery
from diary.talk.services import whisper_create
from rolls.engine.dice import ScriptedDice
from rolls.systems.forum1000.display import OUTCOMES
from rolls.systems.forum1000.requests import RollRequest
from tests.conftest import polish
from tests.diary.recap.test_recap import percepcja, say
from tests.diary_entries import hp_entry
from tests.rolling import make_roll

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_digest_carries_the_recap_of_unread_play(table, client_for, smtp_server):
    table.alice.email = "alicja@example.com"
    table.alice.save()
    NotificationPreference.objects.create(
        user=table.alice, kind=NotificationKind.TURN_OPENED, email=True
    )
    Delivery.objects.create(user=table.alice, digest=DigestChoice.DAILY)
    say(table, table.gm, "Początek.")
    client_for(table.alice).get(reverse("diary:session", args=[table.session.pk]))
    say(table, table.gm, "Zasadzka!")
    opposed = RollRequest(kind="opposed", a=percepcja(table.borys), b=percepcja(table.lirael))
    roll = make_roll(table.session, table.gm, opposed, dice=ScriptedDice([200, 900])).roll
    hp_entry(table.session, table.gm, table.lirael, -4, reason="Strzała")
    whisper_create(
        session=table.session,
        by=table.gm,
        players=[table.bob],
        subject="Tylko dla Borysa",
        text="Ciii.",
        token=uuid.uuid4(),
    )
    services.turn_open_next(session=table.session, by=table.gm)

    call_command("notify_digest", verbosity=0)
    (digest,) = smtp_server.wait_for(1)
    body = digest.get_content()
    heading = polish("“%(session)s” — since you were last here:", session=table.session.title)
    assert heading in body
    recap = body.split(heading, 1)[1]
    site = "http://codziennik.test"
    assert f"{site}/sessions/{table.session.pk}/?after={roll.post_id - 1}&roll={roll.seq}" in recap
    assert str(OUTCOMES[roll.record["result"]["b"]["outcome"]]) in recap
    assert polish("(your character)") in recap
    assert "Strzała" in recap  # Lirael's wound, among her changes
    assert polish("Turns opened:") in recap
    assert "Tylko dla Borysa" not in body  # a whisper she is not in
