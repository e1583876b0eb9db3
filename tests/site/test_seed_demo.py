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


def test_seed_demo_shows_movement_on_foot_and_mounted():
    # Issue 8, RULES 1.5: a mounted move by a character with a horse, a move on foot in the
    # current turn next to an action roll.
    call_command("seed_demo")
    session = GameSession.objects.get(title=SESSION_TITLE)
    mounted = Post.objects.get(session=session, move_mounted=True)
    assert (mounted.character.name, mounted.move_metres, mounted.move_actions) == ("Mira", 50, 1)
    assert mounted.character.item_holdings.filter(item__is_mount=True).exists()
    current = session.turns.order_by("-number").first()
    on_foot = Post.objects.get(turn=current, move_metres__isnull=False)
    assert (on_foot.character.name, on_foot.move_mounted, on_foot.move_actions) == (
        "Borys",
        False,
        1,
    )


def test_seed_demo_has_damage_an_effect_with_a_length_and_a_potion_granted_and_used():
    """Issue 9: the demo's fight has entries in the session's chain."""
    from characters.models import HealingPotion, NegativeEffect
    from rolls.ledger import verify_session
    from rolls.models import Roll

    call_command("seed_demo")
    session = GameSession.objects.get(title=SESSION_TITLE)
    kinds = list(Roll.objects.filter(session=session).values_list("test", flat=True))
    assert kinds.count("hp") == 2
    assert {"effect", "item_grant", "item_use"} <= set(kinds)
    assert verify_session(session.pk).ok
    stun = NegativeEffect.objects.get(kind="stun", began_in_session=session.pk)
    assert stun.length_turns == 2 and stun.freed_at is None
    potion = HealingPotion.objects.get(restores_hp=25)
    assert potion.count == 1
    use = Roll.objects.get(session=session, test="item_use")
    assert use.record["entry"]["hp_after"] == use.record["entry"]["hp_before"] + 25
    lirael = Character.objects.get(name="Lirael")
    assert use.character == lirael and lirael.hp_current == use.record["entry"]["hp_after"]


def test_every_demo_roll_verifies_signed_and_recomputed(capsys):
    """Issue 11: the demo has a roll of every kind; each is signed by the site's key and its
    stored case, rolled again through the engine, gives exactly the stored result."""
    call_command("seed_demo")
    call_command("verify_rolls", "--recompute")
    out = capsys.readouterr().out
    assert "BROKEN" not in out
    assert out.count("every result recomputed") == GameSession.objects.count()
