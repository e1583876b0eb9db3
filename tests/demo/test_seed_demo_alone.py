"""`seed_demo` where a test needs the demo built its own way: with fair dice (as `make run`
builds it), beside portraits in a media root of its own, or its parts on their own. The
other demo tests share one seeding (test_seed_demo.py)."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse

from characters.models import Character
from demo.ford.story import SESSION_TITLE
from diary.models import GameSession, Npc
from rolls.ledger.verify import verify_session
from rolls.models import Roll

pytestmark = pytest.mark.django_db


@pytest.mark.fair_dice
def test_every_demo_roll_verifies_signed_and_recomputed(capsys):
    """The demo has a roll of every kind; each is signed by the site's key and its
    stored case, rolled again through the engine, gives exactly the stored result."""
    call_command("seed_demo")
    call_command("verify_rolls", "--recompute")
    out = capsys.readouterr().out
    assert "BROKEN" not in out
    assert out.count("every result recomputed") == GameSession.objects.count()


def test_seed_system_sessions_returns_the_characters_by_their_short_names(make_user):
    from demo.systems import seed_system_sessions

    users = {name: make_user(name) for name in ("gm", "gracz", "gracz2", "gracz3")}
    users["moderator"] = make_user("moderator", moderator=True)
    made = seed_system_sessions(users)
    assert set(made) == {"q10", "ciernie", "arsmagica"}
    assert set(made["q10"][1]) == {"eragon", "arya", "murtagh"}
    assert set(made["ciernie"][1]) == {"vera", "tomasz", "ilja", "najemnik"}
    assert set(made["arsmagica"][1]) == {"magnus", "wilhelm", "agnieszka"}
    for system, (session, characters) in made.items():
        assert session.system == system and session.is_running
        assert all(c.system == system for c in characters.values())
    assert (
        made["q10"][1]["eragon"].skill_level(
            made["q10"][1]["eragon"].skill_levels.get(skill__name="Walka wręcz").skill_id
        )
        == 2
    )


def test_seed_demo_gives_the_forum1000_characters_portraits_once(media_root):
    """The demo's characters show portraits beside their posts and on the sheet."""
    call_command("seed_demo")
    characters = Character.objects.filter(name__in=["Lirael", "Borys", "Mira"], is_stand_in=False)
    names = {c.name: c.portrait.name for c in characters}
    assert len(names) == 3 and all(names.values())
    assert len(set(names.values())) == 3  # three different images
    for name in names.values():
        assert (media_root / name).is_file()
    call_command("seed_demo")
    again = Character.objects.filter(name__in=["Lirael", "Borys", "Mira"], is_stand_in=False)
    assert {c.name: c.portrait.name for c in again} == names
    # Beside them, the portrait of the NPC who speaks in the demo (demo/ford/voices.py).
    npc_portraits = {n.portrait.name for n in Npc.objects.exclude(portrait="")}
    assert len(npc_portraits) == 1
    assert len(list((media_root / "portraits").iterdir())) == 3 + len(npc_portraits)


@pytest.mark.fair_dice
def test_seed_demo_has_closed_turns_whose_dice_verify_and_a_running_turns_commitment(client):
    """As `make run` builds it (turns commit their dice seeds as they open): the demo
    session's closed turns have their seeds revealed and every die recomputed from them;
    the running turn's commitment is published, its seed not."""
    call_command("seed_demo")
    session = GameSession.objects.get(title=SESSION_TITLE)
    current = session.current_turn.number
    report = verify_session(session.pk, recompute=True)
    assert report.ok, report.problem_label
    assert report.dice_recomputed >= 5
    commits = {
        r.record["dice_commit"]["turn"]: r
        for r in Roll.objects.filter(session=session, test="dice_commit")
    }
    reveals = {
        r.record["dice_reveal"]["turn"]
        for r in Roll.objects.filter(session=session, test="dice_reveal")
    }
    assert set(commits) == set(range(1, current + 1))
    assert set(range(1, current)) <= reveals and current not in reveals
    # A roll of a closed turn says so on its page, to a player.
    closed = next(
        r for r in Roll.objects.filter(session=session, turn_number=1) if "fair" in r.record
    )
    client.force_login(get_user_model().objects.get(username="gracz"))
    page = client.get(reverse("rolls:detail", args=[session.pk, closed.seq])).content.decode()
    assert "Kości sprawdzalne" in page
