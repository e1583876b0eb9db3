"""`seed_demo` builds the demo table through the services, and only once."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone

from characters.models import Character
from diary.models import GameSession, Post
from rolls.management.commands.seed_demo import SESSION_TITLE

pytestmark = pytest.mark.django_db


def test_seed_demo_builds_a_running_session_once(capsys):
    call_command("seed_demo")
    call_command("seed_demo")
    out = capsys.readouterr().out
    assert "gm / " in out and "gracz / " in out and "moderator / " in out
    session = GameSession.objects.get(title=SESSION_TITLE)
    assert session.status == "running" and session.system == "forum1000"
    assert session.participations.filter(status="accepted").count() == 3
    assert Character.objects.filter(is_stand_in=False).count() == 3
    assert Post.objects.filter(session=session).count() >= 4
    # Issue 8: the current turn has a deadline in the future.
    assert session.turns.order_by("-number").first().deadline > timezone.now()
    User = get_user_model()
    assert User.objects.get(username="moderator").groups.filter(name="Moderator").exists()
    assert User.objects.get(username="gm").check_password("kostka-gm-1000")


def test_seed_demo_has_an_open_request_and_an_answered_one():
    """A new user meets roll requests in the demo: one waiting, one answered by a roll."""
    from rolls.models import AskStatus, RollAsk

    call_command("seed_demo")
    statuses = sorted(RollAsk.objects.values_list("status", flat=True))
    assert statuses == sorted([AskStatus.OPEN, AskStatus.ANSWERED])
    answered = RollAsk.objects.get(status=AskStatus.ANSWERED)
    assert answered.answer.record["answers"]["ask"] == answered.pk
    assert answered.answer.post.pk > answered.post.pk
